//! What a grading is asked to do: the class, the command, the check of each submission and
//! where the gradebook goes. Low in the folder: the queue, the cache and the audit read it.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::check::Options as CheckOptions;
use crate::corpus::Shard;

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
