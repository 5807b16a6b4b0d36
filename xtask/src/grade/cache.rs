//! A submission's result file and its reuse key: what `results/<id>.json` holds, and the hash
//! of everything a result depends on (the submission's files, the suite's cases, the
//! reference, the harness's version, the command, the timeout and every limit). A rerun reuses
//! a result only while its key is the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::options::Options;
use crate::error::Error;
use crate::report::Submission;

/// A submission's own result file.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ResultFile {
    pub spec: String,
    pub run: String,
    /// What the result depends on, hashed (see [`run_key`] and [`folder_key`]): a rerun reuses
    /// the result only while the key is the same.
    pub key: String,
    /// The submission's part of the key (for saying why a result was not reused: the rest of
    /// the key is the settings'); empty in a result file of an older harness.
    #[serde(default)]
    pub folder: String,
    pub submission: Submission,
    /// The terminal's block (without colour) of the first failing case of each cause, by case
    /// id: what the HTML report shows. Never in `grades.json`, whose bytes hold no timing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub blocks: BTreeMap<String, String>,
    /// Each graded case it failed with an output of its own, by case id: what the class's
    /// similarity report compares (`similar`). Never in `grades.json`, nor shown to a student.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: BTreeMap<String, WrongOutput>,
}

/// A wrong output, as the similarity report needs it: its digest (equal exactly when two
/// outputs are byte for byte the same), its first difference from the expected output, and
/// what it says of its author: whether it is only cut short (a prefix of the expected output:
/// nothing wrong printed, which programs that crash at one input line share), whether a
/// misreading of the handout the harness knows prints it whole (a mistake students make
/// independently), and how many of its bytes are wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct WrongOutput {
    pub digest: String,
    pub line: Option<usize>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    #[serde(default)]
    pub cut_short: bool,
    #[serde(default)]
    pub misread: bool,
    /// Bytes of the program's lines, from the first difference on, unlike the expected line
    /// at the same place (`None`: not measured, a result of an earlier version).
    #[serde(default)]
    pub wrong_bytes: Option<usize>,
}

/// The longest line a [`WrongOutput`] keeps, in characters.
const LINE_KEPT: usize = 200;

/// The wrong outputs of the graded cases of `run`, by case id.
pub(super) fn wrong_outputs(run: &crate::judge::Run) -> BTreeMap<String, WrongOutput> {
    let cut = |line: &Option<String>| {
        line.as_ref()
            .map(|text| text.chars().take(LINE_KEPT).collect::<String>())
    };
    run.results
        .iter()
        .filter(|result| result.case.graded)
        .filter_map(|result| {
            let judgement = &result.judgement;
            let digest = judgement.printed.clone()?;
            let difference = judgement.difference.as_ref();
            let stdout = judgement.execution.as_ref().map(|e| e.stdout.as_slice());
            let cut_short = difference.is_some_and(|d| d.actual_line.is_none())
                || stdout.is_some_and(|out| {
                    out.len() < judgement.expected.len() && judgement.expected.starts_with(out)
                });
            Some((
                result.case.id(),
                WrongOutput {
                    digest,
                    line: difference.map(|d| d.line),
                    expected: difference.and_then(|d| cut(&d.expected_line)),
                    actual: difference.and_then(|d| cut(&d.actual_line)),
                    cut_short,
                    misread: judgement
                        .rule
                        .as_ref()
                        .is_some_and(|r| r.misread && r.whole),
                    wrong_bytes: stdout.map(|out| wrong_bytes(out, &judgement.expected)),
                },
            ))
        })
        .collect()
}

/// The bytes of `actual`'s lines unlike the line of `expected` at the same place.
fn wrong_bytes(actual: &[u8], expected: &[u8]) -> usize {
    let mut theirs = expected.split(|&b| b == b'\n');
    actual
        .split(|&b| b == b'\n')
        .map(|line| match theirs.next() {
            Some(other) if other == line => 0,
            _ => line.len().max(1),
        })
        .sum()
}

/// What a result depends on, each part apart so that a change can be explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Keys {
    /// The submission's files.
    pub folder: String,
    /// Those and the settings (the corpus, the reference, the harness, the command, the
    /// timeout and every limit): what a result is reused by.
    pub combined: String,
}

/// A stable 64-bit hash of `parts`, each length-prefixed so that no two lists collide by
/// concatenation.
pub(super) fn hash(parts: &[&[u8]]) -> u64 {
    let mut bytes = Vec::new();
    for part in parts {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part);
    }
    crate::corpus::fnv1a(&bytes)
}

/// How much of a folder [`folder_key`] may read: a submission's files cost the student
/// nothing to make (a sparse file of terabytes, a million empty files), so its key must not
/// cost the grader more than this.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    /// Bytes hashed by content; past them, a file is keyed by its size and modification time.
    pub bytes: u64,
    /// Entries looked at; past them, the key says only that there were more.
    pub entries: usize,
}

impl Budget {
    /// What a submission gets: 64 MiB of content and 20,000 entries.
    pub(super) const SUBMISSION: Budget = Budget {
        bytes: 64 << 20,
        entries: 20_000,
    };
    /// The corpus is the grader's own: read whole.
    pub(super) const UNLIMITED: Budget = Budget {
        bytes: u64::MAX,
        entries: usize::MAX,
    };
}

/// The hash of everything under `dir`, in path order: each entry's relative path and kind, a
/// regular file's contents (while the budget lasts, else its size and modification time), a
/// link's target. Nothing is followed and nothing but regular files is opened (a FIFO or a
/// device is named, never read), so memory stays flat and the time is bounded by the budget.
pub(super) fn folder_key(dir: &Path, budget: Budget) -> Result<u64, Error> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    let mut part = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    let mut content_left = budget.bytes;
    for (k, entry) in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .enumerate()
    {
        if k >= budget.entries {
            part(b"more entries than the budget");
            break;
        }
        let entry = entry.map_err(|err| Error::io(dir, err.into()))?;
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        part(relative.as_os_str().as_encoded_bytes());
        let kind = entry.file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).unwrap_or_default();
            part(b"link");
            part(target.as_os_str().as_encoded_bytes());
        } else if kind.is_file() {
            let meta = entry
                .metadata()
                .map_err(|err| Error::io(entry.path(), err.into()))?;
            if meta.len() <= content_left {
                content_left -= meta.len();
                part(&file_hash(entry.path(), meta.len())?);
            } else {
                content_left = 0;
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .unwrap_or_default();
                part(format!("{} bytes, modified {modified:?}", meta.len()).as_bytes());
            }
        } else if !kind.is_dir() {
            part(b"special");
        }
    }
    let digest = hasher.finalize();
    Ok(u64::from_le_bytes(
        digest[..8].try_into().unwrap_or_default(),
    ))
}

/// The SHA-256 of the first `len` bytes of the regular file at `path`, read in blocks.
fn file_hash(path: &Path, len: u64) -> Result<Vec<u8>, Error> {
    use sha2::Digest;
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|err| Error::io(path, err))?;
    let mut hasher = sha2::Sha256::new();
    let mut reader = file.take(len);
    let mut block = vec![0u8; 64 << 10];
    loop {
        let n = reader
            .read(&mut block)
            .map_err(|err| Error::io(path, err))?;
        if n == 0 {
            break;
        }
        hasher.update(&block[..n]);
    }
    Ok(hasher.finalize().to_vec())
}

/// What every result of a grading depends on besides the submission: the corpus of the suite,
/// the reference, the harness's version, the command, the timeout and every limit.
pub(super) fn run_key(options: &Options, suite: &crate::corpus::Suite) -> Result<u64, Error> {
    let corpus = folder_key(&suite.dir, Budget::UNLIMITED)?;
    let reference = std::fs::read(&options.check.reference)
        .map(|bytes| hash(&[&bytes]))
        .unwrap_or(0);
    let settings = format!(
        "{} {:?} {:?} {:?} {:?} {} {:?}",
        env!("CARGO_PKG_VERSION"),
        options.run,
        options.build,
        (
            options.check.timeout,
            options.check.wall,
            &options.check.filter
        ),
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
pub(super) fn row(submission: Submission) -> Submission {
    Submission {
        cases: Vec::new(),
        ..submission
    }
}

/// Where submission `id`'s result file is, in `results_dir`.
pub(super) fn result_path(results_dir: &Path, id: &str) -> PathBuf {
    results_dir.join(format!("{id}.json"))
}

/// Submission `id`'s result file, from `results_dir`.
pub(super) fn read_result(results_dir: &Path, id: &str) -> Result<ResultFile, Error> {
    let path = result_path(results_dir, id);
    let bytes = std::fs::read(&path).map_err(|err| Error::io(&path, err))?;
    serde_json::from_slice(&bytes)
        .map_err(|err| Error::corpus(&path, format!("not a result file: {err}")))
}

/// The keys of the submission in `dir` under the settings' key `run_key`.
impl Keys {
    /// The keys of an entry that cannot be graded, for `why`.
    pub(super) fn of_refusal(run_key: u64, why: &str) -> Keys {
        Keys {
            folder: String::new(),
            combined: format!("{:016x}", hash(&[&run_key.to_le_bytes(), why.as_bytes()])),
        }
    }
}

pub(super) fn keys_of(run_key: u64, dir: &Path) -> Result<Keys, Error> {
    let folder = folder_key(dir, Budget::SUBMISSION)?;
    Ok(Keys {
        folder: format!("{folder:016x}"),
        combined: format!(
            "{:016x}",
            hash(&[&run_key.to_le_bytes(), &folder.to_le_bytes()])
        ),
    })
}

/// The earlier result of submission `id`, if it graded the same spec with the same command.
pub(super) fn previous_result(
    results_dir: &Path,
    id: &str,
    suite: &crate::corpus::Suite,
    run_text: &str,
) -> Option<ResultFile> {
    read_result(results_dir, id)
        .ok()
        .filter(|r| r.spec == suite.name && r.run == run_text)
}
