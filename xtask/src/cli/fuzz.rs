//! `cargo xtask fuzz`: an input where the target and the reference disagree, shrunk.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::output::{failed_if, print_report, warn};
use super::shared::current_dir;
use super::shared::{ConfineArgs, CorpusArgs};
use super::values::{duration, jobs, runs, seconds, seed};
use crate::error::Error;

#[derive(clap::Args)]
pub struct FuzzArgs {
    /// The spec whose generator makes the inputs.
    #[arg(long)]
    pub spec: String,
    /// The seed (default: from the clock; printed either way).
    #[arg(long, value_parser = seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// How long to look, like `60s`, `2m` or `90` (seconds); the default is 60s.
    #[arg(long, value_name = "DURATION", conflicts_with = "runs", value_parser = duration,
          allow_hyphen_values = true)]
    pub time: Option<Duration>,
    /// How many inputs to try, instead of a time limit.
    #[arg(long, value_name = "K", value_parser = runs, allow_hyphen_values = true)]
    pub runs: Option<u64>,
    /// Inputs run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Seconds one run may take (default: the suite's).
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Where to write the found case (default: `cases/<spec>/found/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Target runs the shrinker may spend.
    #[arg(long, default_value_t = 5000, value_parser = runs, allow_hyphen_values = true)]
    pub max_shrink_runs: u64,
    #[command(flatten)]
    pub confine: ConfineArgs,
    /// The program to fuzz, as a command line (after `--`).
    #[arg(last = true, required = true, value_name = "TARGET")]
    pub target: Vec<OsString>,
}

#[cfg(feature = "reference")]
impl FuzzArgs {
    /// The fuzzer's options; the seed is the one given or one from the clock.
    pub fn options(&self) -> Result<crate::tools::Options, Error> {
        use crate::tools::Budget;
        let cases_root = self.corpus.root()?;
        let suite = crate::corpus::find(&cases_root, &self.spec)?;
        let oracle = crate::tools::Oracle::of(&suite)?;
        let reference = self.corpus.reference()?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs() % 1_000_000)
        });
        Ok(crate::tools::Options {
            oracle,
            seed,
            budget: match self.runs {
                Some(runs) => Budget::Runs(runs),
                None => Budget::Time(self.time.unwrap_or(Duration::from_secs(60))),
            },
            jobs: self.jobs.unwrap_or_else(crate::process::cpus),
            target: self.target.clone(),
            dir: current_dir()?,
            timeout: self.timeout.unwrap_or_else(|| suite.timeout()),
            max_shrink_runs: self.max_shrink_runs as usize,
            suite,
            out: self
                .out
                .clone()
                .unwrap_or_else(|| cases_root.join(&self.spec).join("found")),
            cases_root,
            confine: self.confine.settings(),
            reference,
        })
    }
}

pub(super) fn run(args: FuzzArgs) -> Result<ExitCode, Error> {
    let options = args.options()?;
    warn(&crate::tools::warnings(&options)?);
    let seed = options.seed;
    eprintln!("{}", fuzz_banner(&args.spec, seed));
    let outcome = crate::tools::fuzz(&options, &|event| eprintln!("  {event}"))?;
    let found = matches!(outcome, crate::tools::Outcome::Found(_));
    print_report(&crate::tools::report(&options, outcome)?)?;
    Ok(failed_if(found))
}

/// The line `fuzz` starts with: how to repeat it.
pub(super) fn fuzz_banner(spec: &str, seed: u64) -> String {
    format!("fuzzing {spec} with seed {seed} (repeat with --seed {seed})")
}
