//! `cargo xtask merge`: the grades.json of several shards combined into the outputs of one run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::output::done;
use crate::error::Error;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Where the merged grades.csv and grades.json go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The shards' grades.json files.
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Merge even when some shards are missing.
    #[arg(long)]
    pub allow_partial: bool,
}

pub(super) fn run(args: MergeArgs) -> Result<ExitCode, Error> {
    let grades = crate::report::merge(&args.files, &args.out, args.allow_partial)?;
    done(&merge_report(
        grades.submissions.len(),
        args.files.len(),
        &args.out,
    ))
}

/// What `merge` says it merged.
pub(super) fn merge_report(submissions: usize, files: usize, out: &Path) -> String {
    format!(
        "merged {submissions} submissions from {files} files into `{}`\n",
        out.display()
    )
}
