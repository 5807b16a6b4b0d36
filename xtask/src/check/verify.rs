//! `cargo xtask verify PACKAGE`: every submission the package ships under `accepted`,
//! `wrong_answer`, `time_limit_exceeded` and `run_time_error`, built and judged as `check`
//! judges a student's, must get its folder's verdict. A submission in a language of no row of
//! the language table, or whose compiler is not installed here, is listed as not run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::check::Options;
use crate::error::Error;
use crate::judge::{CaseResult, Verdict};
use crate::target::Program;

/// The folders of submissions and the verdict each stands for, as the format names them.
pub const FOLDERS: [(&str, &str); 4] = [
    ("accepted", "AC"),
    ("wrong_answer", "WA"),
    ("time_limit_exceeded", "TLE"),
    ("run_time_error", "RTE"),
];

/// One submission's verdict against its folder's.
#[derive(Debug, Clone)]
pub struct Row {
    /// `wrong_answer/different_int.cc`.
    pub submission: String,
    pub expected: &'static str,
    /// The verdict it got; `None` when it was not run (the reason in `note`).
    pub got: Option<&'static str>,
    /// Where it first failed, or why it was not run.
    pub note: String,
    pub elapsed: Duration,
}

impl Row {
    /// Whether it got its folder's verdict (a submission not run is no disagreement).
    pub fn agrees(&self) -> bool {
        self.got.is_none_or(|got| got == self.expected)
    }
}

/// The format's verdict of a whole run: that of its first case, in the format's order, that
/// did not pass (`AC` when every case passed), and that case's id.
pub fn verdict_of(results: &[CaseResult]) -> (&'static str, Option<String>) {
    let first = results
        .iter()
        .find(|r| !r.judgement.verdict.passed() && r.judgement.verdict != Verdict::Skipped);
    match first {
        None => ("AC", None),
        Some(result) => {
            let verdict = match result.judgement.verdict {
                Verdict::WrongOutput | Verdict::PresentationError => "WA",
                Verdict::Timeout | Verdict::Unreliable => "TLE",
                Verdict::OutputLimit => "OLE",
                Verdict::CouldNotBuild => "CE",
                _ => "RTE",
            };
            (verdict, Some(result.case.id()))
        }
    }
}

/// Judges every submission of the package at `dir` with `base`'s settings (its corpus root is
/// the package's folder's parent).
pub fn verify(base: &Options, dir: &Path) -> Result<Vec<Row>, Error> {
    let dir = dir.canonicalize().map_err(|err| Error::io(dir, err))?;
    let suite = crate::corpus::Suite::of_package(crate::corpus::package::load(dir.clone())?);
    let package = suite
        .package
        .clone()
        .ok_or_else(|| Error::Internal("no package".into()))?;
    let root = dir.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut rows = Vec::new();
    for (folder, expected) in FOLDERS {
        for source in package.submissions(folder) {
            let name = format!(
                "{folder}/{}",
                source.file_name().unwrap_or_default().to_string_lossy()
            );
            let start = Instant::now();
            let (got, note) = match runnable(&source) {
                Err(why) => (None, why),
                Ok(copy) => {
                    let options = Options {
                        cases_root: root.clone(),
                        spec: Some(suite.name.clone()),
                        program: Program::Sources(copy),
                        ..base.clone()
                    };
                    match crate::check::check(&options, &|_| {}) {
                        Ok(run) => {
                            let (verdict, at) = match run.build.as_ref().and_then(|b| b.failure()) {
                                Some(failure) => ("CE", failure.lines().next().map(String::from)),
                                None => verdict_of(&run.results),
                            };
                            (
                                Some(verdict),
                                at.map(|id| format!("at {id}")).unwrap_or_default(),
                            )
                        }
                        // A program that never ran (every case the same crash, no output).
                        Err(Error::CouldNotRun { message, .. }) => (Some("RTE"), message),
                        Err(err) => return Err(err),
                    }
                }
            };
            rows.push(Row {
                submission: name,
                expected,
                got,
                note,
                elapsed: start.elapsed(),
            });
        }
    }
    Ok(rows)
}

/// A copy of the submission out of the corpus, or why it does not run here.
fn runnable(source: &Path) -> Result<PathBuf, String> {
    if is_python2(source) {
        return Err("not run: Python 2, which the language table does not have".into());
    }
    let recipe = crate::language::recognise(source, &Default::default()).map_err(|_| {
        let name = source.file_name().unwrap_or_default().to_string_lossy();
        format!("not run: `{name}` is in no language of the language table")
    })?;
    let tool = &recipe.language.tool;
    if !crate::target::on_path(&tool.into()) {
        return Err(format!("not run: `{tool}` is not installed here"));
    }
    crate::submission::copy_out(source, "package submission")
        .map_err(|why| format!("not run: {why}"))
}

/// A Python 2 program, as the format's tools tell one: by its `#!` line or its name.
fn is_python2(source: &Path) -> bool {
    let name = source.file_name().unwrap_or_default().to_string_lossy();
    let first = std::fs::read(source)
        .ok()
        .and_then(|text| text.split(|&b| b == b'\n').next().map(<[u8]>::to_vec))
        .unwrap_or_default();
    name.ends_with(".py2")
        || (name.ends_with(".py")
            && (name.contains("py2") || String::from_utf8_lossy(&first).contains("python2")))
}
