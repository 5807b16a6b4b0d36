//! The command line's top: [`Cli`], its [`Task`]s, and what a line that did not parse prints.

use std::process::ExitCode;

use clap::Parser;

use super::tasks::*;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "gridjudge's tasks: grade programs against the corpus"
)]
pub struct Cli {
    #[command(subcommand)]
    pub task: Task,
}

impl Cli {
    /// Parses the command line; a bad flag is one `error:` line naming it, exit 2.
    pub fn parse_args() -> Result<Cli, ExitCode> {
        Cli::try_parse().map_err(parse_error)
    }
}

/// What a command line that did not parse prints, and its exit status: help and version on
/// stdout (0), a bad flag as one `error:` line naming it (2).
pub fn parse_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
    }
    // clap's first paragraph, on one line: its tips (like `-- -1`, which would make the value
    // a target) mislead more than they help.
    let text = err.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    eprintln!("{}", first.join(" "));
    ExitCode::from(2)
}

#[derive(clap::Subcommand)]
pub enum Task {
    /// Run a program (or, with none, the reference) against the cases.
    Check(CheckArgs),
    /// Rewrite every expected output from the reference.
    Bless(BlessArgs),
    /// Set up an assignment of your own: a corpus suite around your solution.
    New(NewArgs),
    /// Write reproducible random cases into `<corpus>/<spec>/generated/`.
    Gen(GenArgs),
    /// Measure the harness's overhead against raw spawning, and throughput per --jobs.
    Bench(BenchArgs),
    /// Look for an input where the target and the reference disagree, and shrink it.
    Fuzz(FuzzArgs),
    /// Grade a folder of submissions (one folder per student, named by id).
    Grade(GradeArgs),
    /// Combine the grades.json of several shards into the outputs of one run.
    Merge(MergeArgs),
    /// Measure what the corpus proves: run wrong variants of the reference on every case.
    Adequacy(AdequacyArgs),
    /// Build the student kit: one static file that checks a program against a spec's public
    /// cases and, by verdict only, the instructor's hidden ones.
    Kit(KitArgs),
    /// Build a Gradescope autograder zip around the student kit.
    Autograder(AutograderArgs),
}
