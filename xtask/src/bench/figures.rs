//! What every measurement shares: its [`Figures`], the median of its samples, and copies of
//! the programs it runs outside the checkout (which no confined target may see).

use std::path::PathBuf;

use crate::error::Error;

/// What a measurement found: the report for the terminal, and its figures as rows for
/// `--json` (to compare a change with the last one).
#[derive(Debug, Default)]
pub struct Figures {
    pub text: String,
    pub rows: Vec<serde_json::Value>,
}

/// A copy of `source`, named `name`, in a temporary folder of its own that the sandbox's user
/// can read (a confined target may see nothing of the checkout).
pub(super) fn outside_checkout(
    source: &std::path::Path,
    name: &str,
) -> Result<(tempfile::TempDir, PathBuf), Error> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("gridjudge-bench-")
        .tempdir()
        .map_err(|err| Error::Measure(err.to_string()))?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .map_err(|err| Error::io(dir.path(), err))?;
    let copy = dir.path().join(name);
    std::fs::copy(source, &copy).map_err(|err| Error::io(source, err))?;
    Ok((dir, copy))
}

/// The median of `samples` (the upper one of an even count).
pub(super) fn median(mut samples: Vec<std::time::Duration>) -> std::time::Duration {
    samples.sort();
    samples[samples.len() / 2]
}
