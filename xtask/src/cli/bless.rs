//! `cargo xtask bless`: rewrite every expected output from the reference (`--check`: say what would change).

use std::ffi::OsString;
use std::process::ExitCode;

use super::output::{failed_if, print_report, warn};
use super::shared::current_dir;
use super::shared::{ConfineArgs, CorpusArgs};
use crate::error::Error;
use crate::target::Program;

#[derive(clap::Args)]
pub struct BlessArgs {
    /// Only this spec's suite.
    #[arg(long)]
    pub spec: Option<String>,
    /// Change nothing; exit 1 if anything would change.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Bless from this command line (after `--`) instead of the reference.
    #[arg(long)]
    pub from: bool,
    #[command(flatten)]
    pub confine: ConfineArgs,
    /// The command line for `--from`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

impl BlessArgs {
    pub fn options(&self) -> Result<crate::bless::Options, Error> {
        let program = match (self.from, self.command.is_empty()) {
            (true, false) => Program::Command(self.command.clone()),
            (false, true) => Program::Reference,
            (true, true) => {
                return Err(Error::Usage(
                    "--from needs a command line after `--`".into(),
                ))
            }
            (false, false) => return Err(Error::Usage(
                "bless only takes a command line with --from: it blesses from the reference otherwise"
                    .into(),
            )),
        };
        Ok(crate::bless::Options {
            cases_root: self.corpus.root()?,
            spec: self.spec.clone(),
            check: self.check,
            program,
            confine: self.confine.settings(),
            reference: self.corpus.reference()?,
            dir: current_dir()?,
            jobs: crate::process::cpus(),
        })
    }
}

pub(super) fn run(args: BlessArgs) -> Result<ExitCode, Error> {
    let summary = crate::bless::bless(&args.options()?)?;
    warn(&summary.warnings);
    print_report(&summary.render(args.check))?;
    Ok(failed_if(args.check && !summary.is_clean()))
}
