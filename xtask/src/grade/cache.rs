//! A submission's result file and its reuse key: what `results/<id>.json` holds, and the hash
//! of everything a result depends on (the submission's files, the suite's cases, the
//! reference, the harness's version, the command, the timeout and every limit). A rerun reuses
//! a result only while its key is the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Options;
use crate::error::Error;
use crate::gradebook::Submission;

/// A submission's own result file.
#[derive(Debug, Serialize, Deserialize)]
pub struct ResultFile {
    pub spec: String,
    pub run: String,
    /// What the result depends on, hashed (see [`run_key`] and [`folder_key`]): a rerun reuses
    /// the result only while the key is the same.
    pub key: String,
    pub submission: Submission,
    /// The terminal's block (without colour) of the first failing case of each cause, by case
    /// id: what the HTML report shows. Never in `grades.json`, whose bytes hold no timing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub blocks: BTreeMap<String, String>,
}

/// A stable 64-bit hash of `parts`, each length-prefixed so that no two lists collide by
/// concatenation.
pub fn hash(parts: &[&[u8]]) -> u64 {
    let mut bytes = Vec::new();
    for part in parts {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part);
    }
    crate::shard::fnv1a(&bytes)
}

/// The hash of every file under `dir` (paths and contents, in path order).
pub fn folder_key(dir: &Path) -> Result<u64, Error> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|err| Error::io(dir, err.into()))?;
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        parts.push(relative.to_string_lossy().as_bytes().to_vec());
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).map_err(|err| Error::io(entry.path(), err))?;
            parts.push(hash(&[&bytes]).to_le_bytes().to_vec());
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Ok(hash(&refs))
}

/// What every result of a grading depends on besides the submission: the corpus of the suite,
/// the reference, the harness's version, the command, the timeout and every limit.
pub fn run_key(options: &Options, suite: &crate::suite::Suite) -> Result<u64, Error> {
    let corpus = folder_key(&suite.dir)?;
    let reference = std::fs::read(&options.check.reference)
        .map(|bytes| hash(&[&bytes]))
        .unwrap_or(0);
    let settings = format!(
        "{} {:?} {:?} {:?} {} {:?}",
        env!("CARGO_PKG_VERSION"),
        options.run,
        options.check.timeout,
        options.check.confine.limits,
        options.check.confine.sandbox,
        suite.limits(),
    );
    Ok(hash(&[
        &corpus.to_le_bytes(),
        &reference.to_le_bytes(),
        settings.as_bytes(),
    ]))
}

/// A submission without its cases: what a grading keeps in memory of each (its cases are in
/// its result file), so that a class of any size takes the same memory.
pub fn row(submission: Submission) -> Submission {
    Submission {
        cases: Vec::new(),
        ..submission
    }
}

/// Where submission `id`'s result file is, in `results_dir`.
pub fn result_path(results_dir: &Path, id: &str) -> PathBuf {
    results_dir.join(format!("{id}.json"))
}

/// Submission `id`'s result file, from `results_dir`.
pub fn read_result(results_dir: &Path, id: &str) -> Result<ResultFile, Error> {
    let path = result_path(results_dir, id);
    let bytes = std::fs::read(&path).map_err(|err| Error::io(&path, err))?;
    serde_json::from_slice(&bytes)
        .map_err(|err| Error::corpus(&path, format!("not a result file: {err}")))
}
