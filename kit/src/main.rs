//! The student kit's program. `cargo xtask kit` appends a spec's cases to this file; see
//! `xtask::kit`. The program is its own sandbox helper, as `PROGRAM __sandbox-helper`; else it
//! reads the bundle from its own file, parses its command line, writes the cases into a private
//! temporary folder and checks the target against them. Exit status as `cargo xtask check`: 0,
//! 1, 2 (with one `error:` line), 130.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use xtask::cli::{current_dir, RunArgs};
use xtask::error::Error;
use xtask::kit::Bundle;

/// The student kit's command line: `check-<spec> [OPTIONS] [--] TARGET...`.
#[derive(clap::Parser)]
#[command(
    about = "Checks a program against the cases of one assignment, offline: the public cases \
             with full diffs, and the instructor's hidden cases by verdict only.",
    long_about = "Checks a program against the cases of one assignment, offline: the public \
                  cases with full diffs, and the instructor's hidden cases by verdict only.\n\n\
                  What this file protects: a hidden case's expected output is not in it (only \
                  slow salted hashes of it), so no report shows it. A hidden case's input is \
                  in it, masked, and is given to your program on stdin: hidden inputs are not \
                  secret from the program being checked.",
    after_help = "Exit status: 0 every graded case passed; 1 some failed; 2 the check could not \
                  run (bad arguments, a program that cannot start); 130 interrupted."
)]
struct StudentArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The program to check and its arguments: `./a.out`, `project4.py` (run with python3),
    /// `java Main`; everything after it goes to the program. `--` before it works too.
    #[arg(
        value_name = "TARGET",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 1..,
        required = true
    )]
    target: Vec<OsString>,
}

impl StudentArgs {
    /// The check of the kit's cases, extracted at `cases_root`, for spec `spec`.
    fn options(&self, cases_root: PathBuf, spec: &str) -> Result<xtask::check::Options, Error> {
        let dir = current_dir()?;
        let target = self.run.program(&self.target, &dir)?;
        let program_args = self.run.program_args(&self.target, &target);
        // No reference: differences are placed by the traces the kit holds.
        let base = xtask::check::Options::new(cases_root, PathBuf::new(), dir);
        Ok(xtask::check::Options {
            spec: Some(spec.to_string()),
            program_args,
            ..self.run.apply(base, target)
        })
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|arg| arg == xtask::sandbox::HELPER_ARG)
    {
        return xtask::sandbox::helper_main();
    }
    xtask::sandbox::helper_is_self();
    xtask::cli::start();
    let (bundle, args) = match parse(args) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    let reports = args.run.reports();
    let result = (|| {
        let folder = xtask::kit::case_folder()?;
        let root = xtask::kit::extract(&bundle, folder.path())?;
        let options = args.options(root, &bundle.spec)?;
        reports.check_writable(&options, &args.target)?;
        let code = reports.finish(xtask::cli::check_drawn(&options));
        drop(folder);
        code
    })();
    // Gradescope shows a 0 with the reason, whatever kept the check from running.
    if let Err(err) = &result {
        if !matches!(err, Error::CouldNotRun { .. }) {
            let _ = reports.write_failure(err);
        }
    }
    xtask::cli::conclude(result)
}

/// The bundle this file carries, and the command line, parsed under this file's name and with
/// the bundle's version; a bad one is the exit status to end with.
fn parse(args: Vec<OsString>) -> Result<(Bundle, StudentArgs), ExitCode> {
    let exe = std::env::current_exe().map_err(|err| {
        eprintln!("error: cannot find this program's own file: {err}");
        ExitCode::from(2)
    })?;
    let bundle = xtask::kit::attached(&exe).map_err(|err| {
        eprintln!("error: {err}");
        ExitCode::from(2)
    })?;
    let name = exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("check-{}", bundle.spec));
    // Leaked once: clap keeps its command's name and version for the life of the program.
    let name: &'static str = Box::leak(name.into_boxed_str());
    let version: &'static str = Box::leak(
        format!(
            "{} (gridjudge {}, spec {}, corpus {}: {} public cases, {} hidden)",
            env!("CARGO_PKG_VERSION"),
            env!("CARGO_PKG_VERSION"),
            bundle.spec,
            bundle.corpus,
            bundle.public,
            bundle.hidden
        )
        .into_boxed_str(),
    );
    let command = StudentArgs::command()
        .name(name)
        .bin_name(name)
        .version(version);
    // `-j2` as `-j 2`, before the program only.
    let mut line = args[..1.min(args.len())].to_vec();
    line.extend(xtask::cli::split_attached_values(
        &command,
        args.get(1..).unwrap_or_default(),
    ));
    let parsed = command
        .try_get_matches_from(line)
        .and_then(|mut matches| StudentArgs::from_arg_matches_mut(&mut matches));
    match parsed {
        Ok(args) => Ok((bundle, args)),
        Err(err) => Err(xtask::cli::parse_error(err)),
    }
}
