//! `cargo xtask kit`: the student kit, one static file that checks a program against a spec's cases.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::output::done;
use super::shared::CorpusArgs;
use crate::error::Error;

#[derive(clap::Args)]
pub struct KitArgs {
    /// The spec whose cases the kit holds.
    #[arg(long)]
    pub spec: String,
    /// A folder of hidden cases: `GROUP/NAME.in` (with `NAME.out`, or the reference's output),
    /// GROUP a graded group of the spec. The kit holds their hashes, never their outputs.
    #[arg(long, value_name = "DIR")]
    pub hidden: Option<PathBuf>,
    /// Where to write the kit (default: `target/check-<spec>`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
}

impl KitArgs {
    pub fn plan(&self, default_out: PathBuf) -> Result<crate::kit::Plan, Error> {
        if let Some(hidden) = self.hidden.as_ref().filter(|dir| !dir.is_dir()) {
            return Err(Error::Usage(format!(
                "--hidden: `{}` is not a folder",
                hidden.display()
            )));
        }
        Ok(crate::kit::Plan {
            cases_root: self.corpus.root()?,
            reference: self.corpus.reference()?,
            spec: self.spec.clone(),
            hidden: self.hidden.clone(),
            out: self.out.clone().unwrap_or(default_out),
        })
    }
}

pub(super) fn run(args: KitArgs) -> Result<ExitCode, Error> {
    // Not into the checkout's root, where `cargo xtask` runs: beside the builds.
    let default_out = crate::workspace::target_dir().join(format!("check-{}", args.spec));
    let built = crate::kit::build(&args.plan(default_out)?)?;
    done(&kit_report(
        &built.path,
        built.bytes,
        &built.bundle.summary(),
    ))
}

/// What `kit` says it wrote.
pub(super) fn kit_report(path: &Path, bytes: u64, bundle: &str) -> String {
    format!(
        "wrote `{}`: {:.1} MB, {bundle}\n",
        path.display(),
        bytes as f64 / 1e6
    )
}
