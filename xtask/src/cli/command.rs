//! The command line's top: [`Cli`] and its [`Task`]s, each run by [`Task::run`].

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser};

use super::parse::{parse_error, split_attached_values};

use super::adequacy::AdequacyArgs;
use super::autograder::AutograderArgs;
use super::bench::BenchArgs;
use super::bless::BlessArgs;
use super::check::CheckArgs;
use super::export::ExportArgs;
use super::fuzz::FuzzArgs;
use super::gen::GenArgs;
use super::grade::GradeArgs;
use super::kit::KitArgs;
use super::merge::MergeArgs;
use super::new::NewArgs;
use super::serve::ServeArgs;
#[cfg(feature = "similarity")]
use super::similar::SimilarArgs;
use super::verify::VerifyArgs;
use crate::error::Error;

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
        let args: Vec<OsString> = std::env::args_os().collect();
        // A check, the task run most and in a loop, builds only its own flags; what does not
        // parse cleanly (a mistake, --help) is parsed again with every task's, and reads the
        // same as it would have.
        if let Some(check) = Cli::check_only(&args) {
            return Ok(Cli {
                task: Task::Check(check),
            });
        }
        // The command is built once (all its tasks' flags: most of the parse's time).
        let mut command = Cli::command();
        let args = Cli::normalized_for(&command, args);
        command
            .try_get_matches_from_mut(args)
            .and_then(|matches| Cli::from_arg_matches(&matches))
            .map_err(|err| parse_error(err.format(&mut command)))
    }

    /// Whether `args` (the whole command line) is, at a glance, a check of a program that runs
    /// confined: `check`, neither `--no-sandbox`, `--list` nor a call for help, and a word that
    /// is neither an option nor follows one with no value attached (`--spec go`, `-j 2`: what
    /// follows may be its value; `--spec=go`, `-j2`: it is not). Read without clap, so that
    /// the sandbox helper starts before the command line is parsed: it sets itself up
    /// meanwhile. A program right after an option that takes no value is missed; a missed
    /// guess starts the helper where the check would anyway, a wrong one starts it for
    /// nothing.
    pub fn confines_a_program(args: &[OsString]) -> bool {
        let rest = match args.get(1) {
            Some(task) if task == "check" => &args[2..],
            _ => return false,
        };
        let quits = ["--no-sandbox", "--list", "-h", "--help"];
        if rest.iter().any(|arg| quits.iter().any(|quit| arg == quit)) {
            return false;
        }
        let option = |arg: &OsString| arg.to_str().is_some_and(|a| a.starts_with('-'));
        // An option whose value, if it takes one, is the next word.
        let bare = |arg: &OsString| {
            arg.to_str().is_some_and(|a| match a.strip_prefix("--") {
                Some(long) => !long.is_empty() && !long.contains('='),
                None => a.len() == 2 && a.starts_with('-'),
            })
        };
        let mut before: Option<&OsString> = None;
        for (at, arg) in rest.iter().enumerate() {
            if arg == "--" {
                return at + 1 < rest.len();
            }
            if !option(arg) && !before.is_some_and(bare) {
                return true;
            }
            before = Some(arg);
        }
        false
    }

    /// A `check` command line parsed with the check's own flags only; `None` when it is not a
    /// check or does not parse cleanly.
    fn check_only(args: &[OsString]) -> Option<CheckArgs> {
        let mut command = Cli::check_command();
        let matches = command
            .try_get_matches_from_mut(Cli::check_line(&command, args)?)
            .ok()?;
        CheckArgs::from_arg_matches(&matches).ok()
    }

    /// The `check` task's command, without the other tasks'.
    fn check_command() -> clap::Command {
        CheckArgs::augment_args(clap::Command::new("check"))
    }

    /// `args` as [`Cli::check_command`] parses them (`check`, then the flags, normalized);
    /// `None` when they are not a check's.
    fn check_line(check: &clap::Command, args: &[OsString]) -> Option<Vec<OsString>> {
        if args.get(1)? != "check" {
            return None;
        }
        let mut line = vec![OsString::from("check")];
        line.extend(split_attached_values(check, &args[2..]));
        Some(line)
    }

    /// The command line with `-j2` written `-j 2` before the task's program (see
    /// [`split_attached_values`]).
    #[cfg(test)]
    fn normalized(args: Vec<OsString>) -> Vec<OsString> {
        Cli::normalized_for(&Cli::command(), args)
    }

    /// [`Cli::normalized`] with the command built already.
    fn normalized_for(command: &clap::Command, args: Vec<OsString>) -> Vec<OsString> {
        let task = args
            .get(1)
            .and_then(|name| name.to_str())
            .and_then(|name| command.find_subcommand(name));
        match task {
            Some(task) => {
                let mut split = args[..2].to_vec();
                split.extend(split_attached_values(task, &args[2..]));
                split
            }
            None => args,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    /// Each task's long help ends with the page of the guide that explains it, and the page
    /// exists.
    #[test]
    fn every_task_names_its_page_of_the_guide() {
        use clap::CommandFactory;
        let root = crate::workspace::root();
        let command = Cli::command();
        let mut named = 0;
        for task in command.get_subcommands() {
            let help = task
                .get_after_long_help()
                .map(|help| help.to_string())
                .unwrap_or_default();
            let page = help
                .strip_prefix("The guide: ")
                .unwrap_or_else(|| panic!("`{}` names no page: {help:?}", task.get_name()));
            assert!(root.join(page).is_file(), "{}: {page}", task.get_name());
            named += 1;
        }
        assert!(named >= 15, "{named}");
    }

    #[test]
    fn a_confined_programs_check_is_told_at_a_glance() {
        let confines = |line: &str| {
            let args: Vec<&str> = line.split_whitespace().collect();
            Cli::confines_a_program(&words(&args))
        };
        for line in [
            "xtask check ./prog",
            "xtask check --spec go ./prog",
            "xtask check -j 2 --spec=go ./prog -x",
            "xtask check --spec go -- ./prog",
            "xtask check -j2 java Main",
        ] {
            assert!(confines(line), "{line}");
        }
        for line in [
            "xtask check",
            "xtask check --spec go",
            "xtask check --spec go --filter handout",
            "xtask check --no-sandbox ./prog",
            "xtask check --list",
            "xtask check ./prog --help",
            "xtask check --",
            "xtask grade class",
            "xtask",
            // Missed: the program follows an option that takes no value.
            "xtask check --fail-fast ./prog",
        ] {
            assert!(!confines(line), "{line}");
        }
    }

    #[test]
    fn an_attached_value_is_split_before_the_program_only() {
        let line = words(&[
            "xtask", "check", "-j2", "--spec", "go", "./prog", "-j3", "-x",
        ]);
        assert_eq!(
            Cli::normalized(line),
            words(&["xtask", "check", "-j", "2", "--spec", "go", "./prog", "-j3", "-x"])
        );
        let line = words(&["xtask", "check", "--spec", "-j4", "-j=5", "--", "-j6"]);
        assert_eq!(
            Cli::normalized(line),
            words(&["xtask", "check", "--spec", "-j4", "-j", "5", "--", "-j6"])
        );
        let Task::Check(check) = Cli::try_parse_from(Cli::normalized(words(&[
            "xtask", "check", "-j2", "./prog", "-j3",
        ])))
        .unwrap()
        .task
        else {
            panic!("not a check");
        };
        assert_eq!(check.run.pace.jobs, Some(2));
        assert_eq!(check.target, words(&["./prog", "-j3"]));
    }

    #[test]
    fn a_check_parsed_with_its_own_flags_only_reads_as_with_every_task_s() {
        let lines: &[&[&str]] = &[
            &["xtask", "check"],
            &["xtask", "check", "./prog"],
            &[
                "xtask", "check", "-j2", "--spec", "go", "--filter", "handout", "./a.out", "-x",
            ],
            &[
                "xtask",
                "check",
                "--no-sandbox",
                "--cases",
                "c",
                "--",
                "java",
                "Main",
            ],
            &["xtask", "check", "--list", "--spec", "columns"],
            &[
                "xtask", "check", "--shard", "1/3", "--json", "r.json", "-v", "--hide", "x",
            ],
            &[
                "xtask", "check", "--memory", "256", "--cpu", "2", "--wall", "9", "p.py",
            ],
            &["xtask", "check", "--build", "make", "./main", "--", "-j4"],
            &["xtask", "check", "--bogus"],
            &["xtask", "check", "--jobs", "x"],
            &["xtask", "check", "--help"],
            &["xtask", "bless"],
        ];
        let mut parsed = 0;
        for line in lines {
            let args = words(line);
            let mut full = Cli::command();
            let full = full
                .try_get_matches_from_mut(Cli::normalized(args.clone()))
                .ok()
                .and_then(|m| m.subcommand_matches("check").cloned());
            let mut own = Cli::check_command();
            let own = Cli::check_line(&own.clone(), &args)
                .and_then(|line| own.try_get_matches_from_mut(line).ok());
            assert_eq!(own, full, "{line:?}");
            parsed += usize::from(own.is_some());
        }
        // `--bogus` parses as a program (the run then refuses it); `--jobs x` and `--help` do not.
        assert_eq!(parsed, 9, "every check line but two parses");
    }
}

/// The words that end a task's long help: the page of the guide that explains it.
macro_rules! guide {
    ($page:literal) => {
        concat!("The guide: docs/guide/src/", $page, ".md")
    };
}

#[derive(clap::Subcommand)]
pub enum Task {
    /// Run a program (or, with none, the reference) against the cases.
    #[command(after_long_help = guide!("checking"))]
    Check(CheckArgs),
    /// Rewrite every expected output from the reference.
    #[command(after_long_help = guide!("corpus"))]
    Bless(BlessArgs),
    /// Set up an assignment of your own: a corpus suite around your solution.
    #[command(after_long_help = guide!("own-assignment"))]
    New(NewArgs),
    /// Write reproducible random cases into `<corpus>/<spec>/generated/`.
    #[command(after_long_help = guide!("corpus"))]
    Gen(GenArgs),
    /// Measure the harness's overhead against raw spawning, and throughput per --jobs.
    #[command(after_long_help = guide!("measuring"))]
    Bench(BenchArgs),
    /// Look for an input where the target and the reference disagree, and shrink it.
    #[command(after_long_help = guide!("fuzzing"))]
    Fuzz(FuzzArgs),
    /// Grade a folder of submissions (one folder per student, named by id).
    #[command(after_long_help = guide!("grading"))]
    Grade(GradeArgs),
    /// Combine the grades.json of several shards into the outputs of one run.
    #[command(after_long_help = guide!("grading"))]
    Merge(MergeArgs),
    /// Measure what the corpus proves: run wrong variants of the reference on every case.
    #[command(after_long_help = guide!("corpus"))]
    Adequacy(AdequacyArgs),
    /// Build the student kit: one static file that checks a program against a spec's public
    /// cases and, by verdict only, the instructor's hidden ones.
    #[command(after_long_help = guide!("students"))]
    Kit(KitArgs),
    /// Build a Gradescope autograder zip around the student kit.
    #[command(after_long_help = guide!("gradescope"))]
    Autograder(AutograderArgs),
    /// Run the course server: students hand in work in a browser, the instructor sees the
    /// class (`serve --help` for its flags).
    #[command(after_long_help = guide!("course"))]
    Serve(ServeArgs),
    /// Rank every pair of a class by shared code and shared wrong outputs (for the
    /// instructor): similarity.html, .csv and .json.
    #[cfg(feature = "similarity")]
    #[command(after_long_help = guide!("similarity"))]
    Similar(SimilarArgs),
    /// Judge a problem package's own submissions: each must get its folder's verdict.
    #[command(after_long_help = guide!("packages"))]
    Verify(VerifyArgs),
    /// Write a built-in suite as a problem package (Kattis's format; verifyproblem accepts it).
    #[command(after_long_help = guide!("packages"))]
    Export(ExportArgs),
}

impl Task {
    /// Runs the task: its exit status, or the error that stopped it.
    pub fn run(self) -> Result<ExitCode, Error> {
        match self {
            Task::Check(args) => super::check::run(args),
            Task::Bless(args) => super::bless::run(args),
            Task::New(args) => super::new::run(args),
            Task::Gen(args) => super::gen::run(args),
            Task::Bench(args) => super::bench::run(args),
            #[cfg(feature = "similarity")]
            Task::Similar(args) => super::similar::run(args),
            Task::Fuzz(args) => super::fuzz::run(args),
            Task::Grade(args) => super::grade::run(args),
            Task::Merge(args) => super::merge::run(args),
            Task::Adequacy(args) => super::adequacy::run(args),
            Task::Kit(args) => super::kit::run(args),
            Task::Autograder(args) => super::autograder::run(args),
            Task::Serve(args) => super::serve::run(args),
            Task::Verify(args) => super::verify::run(args),
            Task::Export(args) => super::export::run(args),
        }
    }
}
