//! The flag groups several tasks share, flattened into each: where the corpus and the
//! reference are ([`CorpusArgs`]), how targets are confined ([`ConfineArgs`]), how reports show
//! cases ([`ReportArgs`]), and how a check runs and reports ([`RunArgs`], `cargo xtask check`'s
//! and the student kit's). Each converts into the options its tasks take; none decides.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::values::{command_line, count, jobs, mebibytes, seconds};
use crate::confine::ResourceLimits;
use crate::confine::Settings;
use crate::error::Error;
use crate::report::{Format, FORMATS};
use crate::target::Program;

/// Where the cases and the reference are: the flags every task that reads the corpus takes.
#[derive(clap::Args, Clone, Default)]
pub struct CorpusArgs {
    /// Another corpus root (a folder of `<spec>/suite.toml` and `<spec>/<group>/` cases).
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    pub reference: Option<PathBuf>,
}

impl CorpusArgs {
    /// The corpus: the one given, or the bundled one.
    pub fn root(&self) -> Result<PathBuf, Error> {
        cases_root(&self.cases)
    }

    /// The reference binary: the one given, or a fresh release build; none (an empty path)
    /// for a corpus whose every suite names its own reference, which needs no build.
    pub fn reference(&self) -> Result<PathBuf, Error> {
        crate::check::reference_for(self.cases.as_deref(), self.reference.as_deref())
    }
}

#[derive(clap::Args, Clone, Default)]
pub struct ConfineArgs {
    /// Run targets without the sandbox (namespaces, seccomp, Landlock): with rlimits and a
    /// scrubbed environment only.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Seconds of CPU time per case.
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    cpu: Option<Duration>,
    /// MiB of memory per case.
    #[arg(long, value_name = "MIB", value_parser = mebibytes, allow_hyphen_values = true)]
    memory: Option<u64>,
    /// Processes and threads per case.
    #[arg(long, value_name = "N", value_parser = count, allow_hyphen_values = true)]
    processes: Option<u64>,
    /// MiB one written file may grow to.
    #[arg(long, value_name = "MIB", value_parser = mebibytes, allow_hyphen_values = true)]
    file_size: Option<u64>,
    /// Open files per process.
    #[arg(long, value_name = "N", value_parser = count, allow_hyphen_values = true)]
    open_files: Option<u64>,
    /// Pass this environment variable through to targets (besides PATH and LANG; HOME and TMPDIR
    /// are the case's temporary folder). Repeatable.
    #[arg(long, value_name = "VAR")]
    pass_env: Vec<String>,
    /// Fail (exit 2) rather than warn when a layer of the sandbox is missing on this machine.
    #[arg(long)]
    require_isolation: bool,
    /// Run targets in DIR instead of the folder of their program; a file the command line
    /// names relative to DIR must then be in DIR (a link out of it is refused).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Keep PATH out of every target's sight too (besides the checkout, the corpus, the
    /// reference and the reports), even inside a folder the target may read. Repeatable.
    #[arg(long, value_name = "PATH")]
    hide: Vec<PathBuf>,
}

impl ConfineArgs {
    /// The settings as given; what must stay out of sight is decided where the run is planned.
    pub fn settings(&self) -> Settings {
        let mut settings = Settings::default();
        settings.sandbox = !self.no_sandbox;
        settings.require_isolation = self.require_isolation;
        settings.cwd = self.cwd.clone();
        settings.limits = ResourceLimits {
            cpu: self.cpu,
            memory: self.memory,
            processes: self.processes,
            file_size: self.file_size,
            open_files: self.open_files,
        };
        settings.pass_env = self.pass_env.clone();
        for path in &self.hide {
            settings.hide(path);
        }
        settings
    }
}

/// How many cases run at once and how long each may take: `check`'s, the kit's and `grade`'s.
#[derive(clap::Args, Clone, Default)]
pub struct PaceArgs {
    /// Cases run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Seconds of CPU time a case may use, all its processes together (default: the suite's).
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Seconds of wall-clock time after which a case is stopped whatever its CPU time, for
    /// programs that sleep or block (default: 3 times the timeout and 2 more)
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub wall: Option<Duration>,
    /// Seconds a confined case may stay idle (no CPU used or waited for, its input all
    /// written) before it is stopped as hung (default: 2, or the timeout if shorter; off when
    /// --wall is given, unless --idle is given too)
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub idle: Option<Duration>,
}

/// How reports show cases to students.
#[derive(clap::Args, Clone, Default)]
pub struct ReportArgs {
    /// The corpus is hidden: reports show no expected text.
    #[arg(long)]
    pub hidden: bool,
    /// Gradescope's visibility of each test.
    #[arg(long, value_name = "WHEN", value_parser = ["visible", "hidden", "after_due_date", "after_published"])]
    pub gradescope_visibility: Option<String>,
}

impl ReportArgs {
    pub fn gradescope(&self) -> crate::report::Settings {
        crate::report::Settings {
            hidden: self.hidden,
            visibility: self.gradescope_visibility.clone(),
        }
    }
}

/// The reference binary: the one given, or a fresh release build.
#[cfg(all(feature = "reference", feature = "similarity"))]
pub(super) fn reference_binary(given: &Option<PathBuf>) -> Result<PathBuf, Error> {
    crate::check::reference_binary(given.as_deref())
}

/// The corpus: the one given, or the bundled one.
pub(super) fn cases_root(given: &Option<PathBuf>) -> Result<PathBuf, Error> {
    crate::check::corpus_root(given.as_deref())
}

pub fn current_dir() -> Result<PathBuf, Error> {
    std::env::current_dir().map_err(|err| Error::io(&PathBuf::from("."), err))
}

/// How a check runs and what it reports: the options `cargo xtask check` and the student kit
/// share.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Only cases whose group or `spec/group/name` contains PATTERN.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub pace: PaceArgs,
    /// Stop at the first failing graded case.
    #[arg(long)]
    pub fail_fast: bool,
    /// Also run the cases that touch unspecified behaviour (reported, never graded).
    #[arg(long)]
    pub include_unspecified: bool,
    /// Also show passing cases, and a full block for every failing one.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    #[command(flatten)]
    pub files: ReportFiles,
    /// Print one `::error` annotation per cause (on by itself on GitHub Actions).
    #[arg(long)]
    pub annotations: bool,
    /// Write a report over an existing file that is not a report gridjudge wrote.
    #[arg(long)]
    pub force: bool,
    /// Build first with CMD (`make`, `g++ -O2 -o main *.cpp`), confined, in a copy of the
    /// current folder; the program then runs in that copy (`--build make ./main`).
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub build: Option<super::values::CommandLine>,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

impl RunArgs {
    /// What `target`, typed in `dir`, asks to run: as [`interpret_target`] says, or, with
    /// `--build`, the command as typed (it names what the build makes).
    pub fn program(&self, target: &[OsString], dir: &std::path::Path) -> Result<Program, Error> {
        match (&self.build, target.is_empty()) {
            (Some(_), true) => Err(Error::Usage(
                "--build needs the command that runs what it builds (`--build make ./main`)".into(),
            )),
            (Some(_), false) => Ok(Program::Command(target.to_vec())),
            (None, _) => interpret_target(target, dir),
        }
    }

    /// The arguments the program built from sources gets: the words after the sources.
    pub fn program_args(&self, target: &[OsString], program: &Program) -> Vec<OsString> {
        match (program, &self.build) {
            (Program::Sources(_), None) => target.get(1..).unwrap_or_default().to_vec(),
            _ => Vec::new(),
        }
    }

    /// `base` with these settings.
    pub fn apply(&self, base: crate::check::Options, program: Program) -> crate::check::Options {
        let mut confine = self.confine.settings();
        // The reports this run writes are its outputs: no target reads an earlier one.
        for (_, path) in &self.files.0 {
            confine.hide(path);
        }
        // With --build, the program is the folder, built as the user says, then run.
        let (program, custom_build) = match (&self.build, program) {
            (Some(build), Program::Command(run)) => (
                Program::Sources(base.dir.clone()),
                Some(crate::submission::Custom {
                    build: build.words(),
                    run,
                }),
            ),
            (_, program) => (program, None),
        };
        crate::check::Options {
            custom_build,
            filter: self.filter.clone(),
            jobs: self.pace.jobs.unwrap_or(base.jobs),
            timeout: self.pace.timeout,
            wall: self.pace.wall,
            idle: self.pace.idle,
            fail_fast: self.fail_fast,
            include_unspecified: self.include_unspecified,
            program,
            confine,
            ..base
        }
    }

    /// The reports to write and print.
    pub fn reports(&self) -> super::output::Reports {
        super::output::Reports {
            files: self.files.0.clone(),
            annotations: self.annotations,
            gradescope_settings: self.report.gradescope(),
            verbose: self.verbose,
            student_root: std::env::current_dir().unwrap_or_default(),
            force: self.force,
        }
    }
}

/// What `target`, typed in `dir`, asks to run: sources to build (one folder or source file of
/// a compiled language), the command that runs it, or (empty) the reference; a hint when it
/// cannot be run.
fn interpret_target(target: &[OsString], dir: &std::path::Path) -> Result<Program, Error> {
    // A mistyped option lands here (the program's words may begin with `-`): it is the
    // user's mistake, whatever follows it.
    if let Some(first) = target.first() {
        let shown = first.to_string_lossy();
        if shown.starts_with('-') && shown.len() > 1 && !dir.join(first).exists() {
            return Err(Error::Usage(format!(
                "`{shown}` is no option of this command (see --help), and no program either"
            )));
        }
    }
    // Sources, and what follows them: the built program's arguments.
    let first = target.get(..1).unwrap_or_default();
    if let Some(sources) = crate::submission::names_sources(first, dir).map_err(Error::Usage)? {
        return Ok(Program::Sources(sources));
    }
    crate::target::interpret(target.to_vec(), dir)
        .map(Program::from_argv)
        .map_err(|hint| Error::CouldNotRun {
            command: crate::target::display_argv(target),
            message: hint,
        })
}

/// The report files a check writes: one `--FLAG FILE` per row of the report table
/// (`report::FORMATS`), so that a new format is its writer and its row, never a flag here.
#[derive(Debug, Clone, Default)]
pub struct ReportFiles(pub Vec<(&'static Format, PathBuf)>);

impl clap::FromArgMatches for ReportFiles {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let files = FORMATS
            .iter()
            .filter_map(|format| Some((format, matches.get_one::<PathBuf>(format.flag)?.clone())))
            .collect();
        Ok(ReportFiles(files))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for ReportFiles {
    fn augment_args(command: clap::Command) -> clap::Command {
        FORMATS.iter().fold(command, |command, format| {
            command.arg(
                clap::Arg::new(format.flag)
                    .long(format.flag)
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(format.help),
            )
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}
