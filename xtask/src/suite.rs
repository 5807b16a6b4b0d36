//! Suite files: `cases/<spec>/suite.toml`, one per spec, saying how its cases are run, compared
//! and scored.
//!
//! Invariant: every group folder of a suite is named in its file, either with points (graded)
//! or under `ungraded` with the reason; discovery refuses any other folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::error::Error;

/// How an output is compared with the expected one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareMode {
    /// Byte for byte.
    Exact,
    /// Line by line, with spaces at the ends of lines ignored.
    IgnoreTrailingSpaces,
}

/// The contents of a `suite.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// The reference binary's arguments for this spec.
    pub args: Vec<String>,
    pub compare: CompareMode,
    /// Whether a non-zero exit status fails a case whose output is right.
    pub grade_exit_status: bool,
    /// Seconds a case may run.
    pub timeout: f64,
    /// Graded groups and the points each is worth in scored reports.
    pub groups: BTreeMap<String, f64>,
    /// Groups that are run and reported but never graded, with the reason.
    #[serde(default)]
    pub ungraded: BTreeMap<String, String>,
    /// Resource limits for untrusted targets.
    #[serde(default)]
    pub limits: SuiteLimits,
}

/// The `[limits]` table: per-case resource limits for untrusted targets.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SuiteLimits {
    /// Seconds of CPU time.
    pub cpu: f64,
    pub memory_mib: u64,
    /// Processes and threads at once.
    pub processes: u64,
    pub file_size_mib: u64,
    pub open_files: u64,
}

impl Default for SuiteLimits {
    fn default() -> Self {
        // Room for a JVM (tens of threads, a few hundred MiB), none for a fork bomb.
        SuiteLimits {
            cpu: 10.0,
            memory_mib: 1024,
            processes: 256,
            file_size_mib: 64,
            open_files: 256,
        }
    }
}

/// One spec's suite: its name (the folder's), its folder and its settings.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub dir: PathBuf,
    pub file: SuiteFile,
}

impl Suite {
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.file.timeout)
    }

    /// Whether `group` is graded; `None` for a group the suite file does not know.
    pub fn is_graded(&self, group: &str) -> Option<bool> {
        if self.file.groups.contains_key(group) {
            Some(true)
        } else if self.file.ungraded.contains_key(group) {
            Some(false)
        } else {
            None
        }
    }
}

/// Loads every suite under the corpus `root`, sorted by name.
pub fn load_all(root: &Path) -> Result<Vec<Suite>, Error> {
    let entries = std::fs::read_dir(root).map_err(|err| Error::io(root, err))?;
    let mut suites = Vec::new();
    for entry in entries {
        let dir = entry.map_err(|err| Error::io(root, err))?.path();
        let path = dir.join("suite.toml");
        if !dir.is_dir() || !path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|err| Error::io(&path, err))?;
        let file: SuiteFile =
            toml::from_str(&text).map_err(|err| Error::corpus(&path, err.to_string()))?;
        if file.timeout <= 0.0 || !file.timeout.is_finite() {
            return Err(Error::corpus(
                &path,
                "`timeout` must be a positive number of seconds",
            ));
        }
        if let Some(both) = file.groups.keys().find(|g| file.ungraded.contains_key(*g)) {
            return Err(Error::corpus(
                &path,
                format!("group `{both}` is both graded and ungraded"),
            ));
        }
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        suites.push(Suite { name, dir, file });
    }
    if suites.is_empty() {
        return Err(Error::corpus(
            root,
            "no `*/suite.toml` found: not a corpus folder",
        ));
    }
    suites.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(suites)
}
