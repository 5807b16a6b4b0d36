//! Finding cases: `<suite>/<group>/<NNN-what>.in` with its `.out` beside it, or, for a hidden
//! case of the student kit, its `.hidden` (salted hashes of the expected output, see
//! [`crate::hidden`]).
//!
//! Cases come back sorted by path, the order every report uses.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::suite::Suite;
use crate::error::Error;

/// One stdin / expected-stdout pair.
#[derive(Debug, Clone)]
pub struct Case {
    /// The suite's name (its spec).
    pub spec: String,
    pub group: String,
    /// The file stem, e.g. `003-long-run`.
    pub name: String,
    pub input: PathBuf,
    /// The `.out` file, or the `.hidden` file of a hidden case.
    pub expected: PathBuf,
    pub graded: bool,
    /// The expected output is known only by its hashes: reports show nothing derived from the
    /// input or the output.
    pub hidden: bool,
}

impl Case {
    /// `spec/group/name`: how reports name a case.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.spec, self.group, self.name)
    }
}

/// The cases of `suite`, sorted. Fails on a group the suite file does not know or an `.in`
/// without its `.out`.
pub fn discover(suite: &Suite) -> Result<Vec<Case>, Error> {
    if let Some(package) = &suite.package {
        return Ok(package
            .cases
            .iter()
            .map(|case| Case {
                spec: suite.name.clone(),
                group: case.group.clone(),
                name: case.name.clone(),
                input: case.input.clone(),
                expected: case.answer.clone(),
                graded: true,
                hidden: false,
            })
            .collect());
    }
    let mut cases = Vec::new();
    let entries = WalkDir::new(&suite.dir)
        .min_depth(1)
        .max_depth(2)
        .sort_by_file_name()
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| {
            let path = err.path().unwrap_or(&suite.dir).to_path_buf();
            Error::io(&path, err.into())
        })?;
    // The files of the groups, as listed: whether an `.out` is beside an `.in` is read here,
    // not asked of the file system once per case.
    let files: std::collections::HashSet<&Path> = entries
        .iter()
        .filter(|entry| entry.depth() == 2 && !entry.file_type().is_dir())
        .map(|entry| entry.path())
        .collect();
    for entry in &entries {
        let path = entry.path();
        if entry.depth() == 1 {
            if entry.file_type().is_dir() && suite.is_graded(&file_name(path)).is_none() {
                return Err(Error::corpus(
                    path,
                    format!(
                        "group `{}` is not listed in `{}`",
                        file_name(path),
                        suite.dir.join("suite.toml").display()
                    ),
                ));
            }
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "in") {
            continue;
        }
        let group = file_name(path.parent().unwrap_or(path));
        let listed = |path: &Path| files.contains(path) || path.is_file();
        let (mut expected, mut hidden) = (path.with_extension("out"), false);
        if !listed(&expected) && listed(&path.with_extension("hidden")) {
            (expected, hidden) = (path.with_extension("hidden"), true);
        }
        if !listed(&expected) {
            return Err(Error::corpus(path, "has no `.out` beside it"));
        }
        cases.push(Case {
            spec: suite.name.clone(),
            graded: suite.is_graded(&group).unwrap_or(false),
            group,
            name: path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            input: path.to_path_buf(),
            expected,
            hidden,
        });
    }
    Ok(cases)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}
