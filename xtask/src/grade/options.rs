//! What a grading is asked to do: the class, the command, the check of each submission and
//! where the gradebook goes. Low in the folder: the queue, the cache and the audit read it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::check::Options as CheckOptions;
use crate::corpus::Shard;
use crate::error::Error;

#[derive(Debug, Clone)]
pub struct Options {
    /// The settings of each submission's check; `target`, `dir` and `spec` are set per run.
    pub check: CheckOptions,
    pub spec: String,
    pub submissions: PathBuf,
    /// The command that runs each submission; empty: its sources, built by the table.
    pub run: Vec<OsString>,
    /// The command that builds each submission first (`--build`), or empty.
    pub build: Vec<OsString>,
    pub out: PathBuf,
    pub shard: Option<Shard>,
    /// Grade every submission again, whatever results there are.
    pub force: bool,
    /// Say what a grading would do, and do nothing.
    pub dry_run: bool,
    /// Write gradescope/<id>/results.json for each submission, shown this way.
    pub gradescope: Option<crate::report::Settings>,
    /// Write `report.html` beside `grades.csv`.
    pub html: bool,
}

impl Options {
    /// A grading of the class in `submissions` (a folder of one folder per student) on `spec`,
    /// each submission checked as `check` sets up, the gradebook into `out`: `grade`'s
    /// defaults, as `cargo xtask grade --spec SPEC --submissions DIR --out OUT` has them. The
    /// setters below change one thing each; the course server builds its options this way.
    pub fn new(
        check: CheckOptions,
        spec: &str,
        submissions: &Path,
        out: PathBuf,
    ) -> Result<Options, Error> {
        if !submissions.is_dir() {
            return Err(Error::Usage(format!(
                "--submissions: `{}` is not a folder",
                submissions.display()
            )));
        }
        Ok(Options {
            check,
            spec: spec.to_string(),
            submissions: submissions
                .canonicalize()
                .map_err(|err| Error::io(submissions, err))?,
            run: Vec::new(),
            build: Vec::new(),
            out,
            shard: None,
            force: false,
            dry_run: false,
            gradescope: None,
            html: false,
        })
    }

    /// Runs `jobs` cases at once.
    pub fn jobs(mut self, jobs: usize) -> Options {
        self.check.jobs = jobs;
        self
    }

    /// The CPU time a case may use, over the suite's, in `seconds`: refused as `--timeout` is
    /// when it is not above 0 and at most a day, with the same words.
    pub fn timeout(mut self, seconds: f64) -> Result<Options, String> {
        self.check.timeout = Some(Options::checked_timeout(seconds)?);
        Ok(self)
    }

    /// `seconds` as a case's time limit, checked as `--timeout` checks it: what a course file's
    /// `timeout` is checked by, so that it is refused where it is written.
    pub fn checked_timeout(seconds: f64) -> Result<Duration, String> {
        crate::confine::limits::seconds(seconds)
    }

    /// Keeps `path` out of every submission's sight (besides the checkout, the corpus, the
    /// reference and the reports).
    pub fn hide(mut self, path: PathBuf) -> Options {
        self.check.hide(path);
        self
    }
}
