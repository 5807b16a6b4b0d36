//! `cargo xtask autograder`: a Gradescope autograder zip around the student kit.

use std::path::Path;
use std::process::ExitCode;

use super::kit::KitArgs;
use super::output::done;
use super::values::{command_line, CommandLine};
use crate::error::Error;

#[derive(clap::Args)]
pub struct AutograderArgs {
    #[command(flatten)]
    pub kit: KitArgs,
    /// The command that runs a submission, in its folder: `python3 project4.py`, `java Main`;
    /// without it, each submission's sources are built and run.
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub run: Option<CommandLine>,
    /// The languages submissions may be in (`java,cpp,csharp`): setup.sh installs their
    /// compilers and runtimes (Debian packages).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub languages: Vec<String>,
}

impl AutograderArgs {
    /// The submission's command line (empty: its sources, built) and the Debian packages of
    /// the languages named.
    pub fn plan(&self) -> Result<(Vec<String>, Vec<String>), Error> {
        let mut packages = Vec::new();
        for name in &self.languages {
            let table = crate::language::table();
            let Some(language) = table.iter().find(|l| &l.name == name) else {
                let known: Vec<&str> = table.iter().map(|l| l.name.as_str()).collect();
                return Err(Error::Usage(format!(
                    "--languages: no language `{name}` (known: {})",
                    known.join(", ")
                )));
            };
            packages.extend(language.debian.iter().cloned());
        }
        packages.dedup();
        let run = self.run.as_ref().map(|r| r.0.clone()).unwrap_or_default();
        Ok((run, packages))
    }
}

pub(super) fn run(args: AutograderArgs) -> Result<ExitCode, Error> {
    let plan = args
        .kit
        .plan(format!("autograder-{}.zip", args.kit.spec).into())?;
    let (run, packages) = args.plan()?;
    let built = crate::kit::build_autograder(&plan, &run, &packages)?;
    done(&autograder_report(
        &plan.out,
        built.bytes,
        &built.kit.bundle,
        &run,
    ))
}

/// What `autograder` says it wrote, and how submissions will run.
pub(super) fn autograder_report(
    path: &Path,
    bytes: usize,
    bundle: &crate::kit::Bundle,
    run: &[String],
) -> String {
    let run = match run.is_empty() {
        true => "its sources, built".to_string(),
        false => run.join(" "),
    };
    format!(
        "wrote `{}`: {:.1} MB, the kit of {} run as `{run}`\n\
         total points: {} (enter them as the Gradescope assignment's points)\n",
        path.display(),
        bytes as f64 / 1e6,
        bundle.summary(),
        bundle.points()
    )
}
