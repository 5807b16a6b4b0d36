//! `cargo xtask verify PACKAGE`: judge a problem package's own submissions, each against the
//! verdict of its folder.

use std::path::PathBuf;
use std::process::ExitCode;

use super::shared::{current_dir, ConfineArgs, PaceArgs};
use crate::error::Error;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The package: a folder holding `problem.yaml`, `data/` and `submissions/`.
    #[arg(value_name = "PACKAGE")]
    pub package: PathBuf,
    #[command(flatten)]
    pub pace: PaceArgs,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

pub(super) fn run(args: VerifyArgs) -> Result<ExitCode, Error> {
    if !crate::corpus::package::is_package(&args.package) {
        return Err(Error::Usage(format!(
            "`{}` holds no `problem.yaml`: not a problem package",
            args.package.display()
        )));
    }
    let root = args.package.parent().unwrap_or(&args.package).to_path_buf();
    let mut options = crate::check::Options::new(root, PathBuf::new(), current_dir()?);
    options.confine = args.confine.settings();
    options.jobs = args.pace.jobs.unwrap_or(options.jobs);
    options.timeout = args.pace.timeout;
    let rows = crate::check::verify::verify(&options, &args.package)?;
    let mut out = String::new();
    for row in &rows {
        let got = row.got.unwrap_or("-");
        let mark = match (row.got, row.agrees()) {
            (None, _) => "skip",
            (Some(_), true) => "ok",
            (Some(_), false) => "WRONG",
        };
        out.push_str(&format!(
            "{mark:<5} {:<44} expected {:<3} got {got:<3} {:>6.1} s  {}\n",
            row.submission,
            row.expected,
            row.elapsed.as_secs_f64(),
            row.note
        ));
    }
    let ran = rows.iter().filter(|r| r.got.is_some()).count();
    let wrong = rows.iter().filter(|r| !r.agrees()).count();
    out.push_str(&format!(
        "{ran} of {} submissions judged, {wrong} not getting their folder's verdict\n",
        rows.len()
    ));
    print!("{out}");
    Ok(match wrong {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}
