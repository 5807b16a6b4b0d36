//! Where a check's cases and reference come from, decided once for every caller (the command
//! lines, the course server): the corpus given or the bundled one, and the reference given,
//! none for a corpus whose every suite names its own, or a fresh release build.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::workspace;

/// The corpus: `given`, or the bundled one.
pub fn corpus_root(given: Option<&Path>) -> Result<PathBuf, Error> {
    let root = given.map_or_else(workspace::cases, Path::to_path_buf);
    if !root.is_dir() {
        return Err(Error::Usage(format!(
            "--cases: `{}` is not a folder",
            root.display()
        )));
    }
    Ok(root)
}

/// The reference binary: `given`, or a fresh release build.
pub fn reference_binary(given: Option<&Path>) -> Result<PathBuf, Error> {
    match given {
        Some(path) if path.is_file() => Ok(path.to_path_buf()),
        Some(path) => Err(Error::Usage(format!(
            "--reference: `{}` is not a file",
            path.display()
        ))),
        None => workspace::build_reference(),
    }
}

/// The reference binary a check of the corpus at `cases` (none: the bundled one) needs:
/// `given`, or none (an empty path) for a corpus whose every suite names its own reference,
/// which needs no build, or a fresh release build.
pub fn reference_for(cases: Option<&Path>, given: Option<&Path>) -> Result<PathBuf, Error> {
    let own = |root: &Path| {
        crate::corpus::load_all(root)
            .is_ok_and(|suites| suites.iter().all(|suite| !suite.is_built_in()))
    };
    match (given, cases) {
        (None, Some(root)) if own(root) => Ok(PathBuf::new()),
        _ => reference_binary(given),
    }
}
