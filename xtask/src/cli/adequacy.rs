//! `cargo xtask adequacy`: what the corpus proves, by running wrong variants of the reference on every case.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::{done, failed_if, print_report};
use super::shared::cases_root;
use super::values::jobs;
use crate::error::Error;

#[derive(clap::Args)]
pub struct AdequacyArgs {
    /// Another corpus root.
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Runs at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Print the coverage table (Markdown: each rule, its variants, the cases that kill them).
    #[arg(long)]
    pub table: bool,
    /// List each variant's causes: what `check` tells a program that behaves like it.
    #[arg(long)]
    pub causes: bool,
}

impl AdequacyArgs {
    /// The corpus and the number of jobs.
    pub fn options(&self) -> Result<(PathBuf, usize), Error> {
        Ok((
            cases_root(&self.cases)?,
            self.jobs.unwrap_or_else(crate::process::cpus),
        ))
    }
}

pub(super) fn run(args: AdequacyArgs) -> Result<ExitCode, Error> {
    let (root, jobs) = args.options()?;
    let report = crate::adequacy::measure(&root, jobs)?;
    if args.table {
        return done(&report.table());
    }
    print_report(&report.render(args.causes))?;
    Ok(failed_if(report.survivors().count() > 0))
}
