//! `cargo xtask check`: run a program (or the reference) against the cases; `--list` the suites.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use super::output::{counted, done};
use super::progress::check_drawn;
use super::shared::current_dir;
use super::shared::{CorpusArgs, RunArgs};
use crate::corpus::Shard;
use crate::error::Error;

/// How untrusted targets are confined; limits default to the suite file's `[limits]`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The suite to use; without it, the one whose handout cases the target passes.
    #[arg(long)]
    pub spec: Option<String>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Only shard K of N of the cases (split by case id, the same on every machine).
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// List each suite's groups with their cases and points, and the total a perfect program
    /// scores (what Gradescope asks); run nothing.
    #[arg(long)]
    pub list: bool,
    /// The program to check and its arguments: `./a.out`, `project4.py` (run with python3),
    /// `java Main`; everything after it goes to the program. `--` before it works too.
    #[arg(
        value_name = "TARGET",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..
    )]
    pub target: Vec<OsString>,
}

impl CheckArgs {
    pub fn options(&self) -> Result<crate::check::Options, Error> {
        let dir = current_dir()?;
        let root = self.corpus.root()?;
        // An unknown spec is the user's mistake, said before anything about the program.
        if let Some(spec) = &self.spec {
            crate::corpus::find(&root, spec)?;
        }
        let target = self.run.program(&self.target, &dir)?;
        let program_args = self.run.program_args(&self.target, &target);
        let base = crate::check::Options::new(root, self.corpus.reference()?, dir);
        Ok(crate::check::Options {
            spec: self.spec.clone(),
            shard: self.shard,
            program_args,
            ..self.run.apply(base, target)
        })
    }
}

pub(super) fn run(args: CheckArgs) -> Result<ExitCode, Error> {
    if args.list {
        return done(&suite_listing(&args.corpus.root()?, args.spec.as_deref())?);
    }
    // A program's check starts its sandbox helper first: it sets itself up while the rest of
    // the command line is worked out and the cases are found (the engine would start it a
    // little later). Mostly `main` has, before the command line was parsed; this starts it
    // where that glance at the line missed (`Cli::confines_a_program`).
    if !args.target.is_empty() && !args.run.confine.no_sandbox {
        crate::sandbox::start_ahead();
    }
    let reports = args.run.reports();
    let options = args.options()?;
    reports.check_writable(&options, &args.target)?;
    let mut run = check_drawn(&options);
    // An archive is named as the user gave it, not by the folder it was unpacked into.
    if let (Ok(run), Some(archive)) = (&mut run, archive_given(&args.target)) {
        run.target = archive;
    }
    reports.finish(run)
}

/// The archive the target names (`check submission.zip`), as it was typed.
fn archive_given(target: &[std::ffi::OsString]) -> Option<String> {
    let [word] = target else {
        return None;
    };
    let path = Path::new(word);
    (path.is_file() && crate::submission::archive_extension(path).is_some())
        .then(|| path.display().to_string())
}

/// `check --list`: each suite's graded groups with their cases and points, its ungraded groups,
/// and the points a perfect program scores (a group without cases is worth nothing yet).
pub(super) fn suite_listing(root: &Path, spec: Option<&str>) -> Result<String, Error> {
    let suites = match spec {
        Some(spec) => vec![crate::corpus::find(root, spec)?],
        None => crate::corpus::load_all(root)?,
    };
    let mut out = String::new();
    for suite in &suites {
        let cases = crate::corpus::discover(suite)?;
        let count = |group: &str, graded: bool| {
            cases
                .iter()
                .filter(|c| c.group == group && c.graded == graded)
                .count()
        };
        let mut total = 0.0;
        let mut lines = String::new();
        for (group, points) in &suite.file.groups {
            let n = count(group, true);
            if n > 0 {
                total += points;
                let n = counted(n, "case ", "cases");
                lines += &format!("  {group:<28} {n:>10}  {points:>5} points\n");
            } else {
                lines += &format!(
                    "  {group:<28} {:>10}  (worth nothing until it has some)\n",
                    "0 cases"
                );
            }
        }
        for group in suite.file.ungraded.keys() {
            let n = counted(count(group, false), "case ", "cases");
            lines += &format!("  {group:<28} {n:>10}  (ungraded)\n");
        }
        let graded = cases.iter().filter(|c| c.graded).count();
        out += &format!(
            "{}: {}, {total} points in all\n{lines}",
            suite.name,
            counted(graded, "graded case", "graded cases")
        );
    }
    Ok(out)
}
