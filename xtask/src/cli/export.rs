//! `cargo xtask export --spec S --out DIR`: a built-in suite as a problem package.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::done;
use super::shared::cases_root;
use crate::error::Error;

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The built-in spec to export.
    #[arg(long)]
    pub spec: String,
    /// The package folder to write (absent, empty, or an earlier export, which is replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Another corpus root.
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
}

pub(super) fn run(args: ExportArgs) -> Result<ExitCode, Error> {
    let root = cases_root(&args.cases)?;
    let exported = crate::kit::export(&root, &args.spec, &args.out)?;
    done(&format!(
        "wrote the {} package into `{}`: {} sample and {} secret cases, 1 accepted and {} wrong \
         submissions (check it with Kattis's `verifyproblem {}`)\n",
        args.spec,
        exported.dir.display(),
        exported.samples,
        exported.secret,
        exported.wrong,
        exported.dir.display()
    ))
}
