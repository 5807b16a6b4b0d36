//! `cargo xtask gen`: reproducible random cases into `<corpus>/<spec>/generated/`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::output::done;
use super::shared::cases_root;
use super::values::{runs, seed};
use crate::error::Error;

#[derive(clap::Args)]
pub struct GenArgs {
    /// The spec to generate for.
    #[arg(long)]
    pub spec: String,
    /// The first seed; case k gets seed + k, and its file name starts with that seed.
    #[arg(long, default_value_t = 1, value_parser = seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// How many cases.
    #[arg(long, default_value_t = 1, value_parser = runs, allow_hyphen_values = true)]
    pub count: u64,
    /// Where to write (default: `<corpus>/<spec>/generated/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Another corpus root (a folder of `<spec>/suite.toml` and `<spec>/<group>/` cases).
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
}

#[cfg(feature = "reference")]
impl GenArgs {
    /// The spec's source of cases and the folder to write into.
    pub fn options(&self) -> Result<(crate::tools::Oracle, PathBuf), Error> {
        let root = cases_root(&self.cases)?;
        let suite = crate::corpus::find(&root, &self.spec)?;
        let dir = self
            .out
            .clone()
            .unwrap_or_else(|| suite.dir.join("generated"));
        Ok((crate::tools::Oracle::of(&suite)?, dir))
    }
}

pub(super) fn run(args: GenArgs) -> Result<ExitCode, Error> {
    let (oracle, dir) = args.options()?;
    let written = crate::tools::write(&oracle, args.seed, args.count, &dir)?;
    done(&gen_report(written.len(), &args.spec, &dir))
}

/// What `gen` says it wrote.
pub(super) fn gen_report(written: usize, spec: &str, dir: &Path) -> String {
    format!("wrote {written} {spec} cases into `{}`\n", dir.display())
}
