//! The command line's arguments, one struct per task, and their conversion into each task's
//! options.
//!
//! Every value is checked here, by clap value parsers written once: durations are positive,
//! finite and at most a day, job counts and sizes positive and bounded. So no input to a flag
//! can panic or wrap further in, and a bad one is one error line naming the flag, exit 2.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::confine::Settings;
use crate::error::Error;
use crate::limits::{self, ResourceLimits};
use crate::shard::Shard;
use crate::target::Program;
use crate::workspace;

/// The most jobs (targets at once) anyone can mean.
const MAX_JOBS: usize = 1024;

/// A number of seconds (`2`, `0.5`): positive, finite, at most a day.
pub fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    limits::seconds(value)
}

/// A duration like `60s`, `2m`, `1h` or `90` (seconds), at most a day.
pub fn duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 60s or 2m"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("`{text}`: the unit must be s, m or h")),
    };
    limits::seconds(value * scale)
        .map_err(|_| format!("`{text}` is not a duration above 0 and up to a day"))
}

/// A whole number from 1 to `max`.
fn positive(text: &str, max: u64) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(value) if (1..=max).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a whole number from 1 to {max}")),
    }
}

/// How many targets run at once: 1 to 1024.
pub fn jobs(text: &str) -> Result<usize, String> {
    positive(text, MAX_JOBS as u64).map(|n| n as usize)
}

/// A count of runs, cases or repeats: 1 to a billion.
pub fn runs(text: &str) -> Result<u64, String> {
    positive(text, 1_000_000_000)
}

/// The size of a synthetic class: 1 to 100,000 submissions.
pub fn class_size(text: &str) -> Result<usize, String> {
    positive(text, 100_000).map(|n| n as usize)
}

/// A size in MiB, as bytes.
pub fn mebibytes(text: &str) -> Result<u64, String> {
    let value = text
        .parse::<u64>()
        .map_err(|_| format!("`{text}` is not a whole number of MiB"))?;
    limits::mebibytes(value)
}

/// A count of processes or open files.
pub fn count(text: &str) -> Result<u64, String> {
    let value = text
        .parse::<u64>()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    limits::count(value)
}

/// A seed: any whole number that fits in 64 bits.
pub fn seed(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u64::MAX))
}

/// A command line given as one string (`--run 'python3 project4.py'`), split on spaces.
#[derive(Debug, Clone)]
pub struct CommandLine(pub Vec<String>);

impl CommandLine {
    pub fn words(&self) -> Vec<OsString> {
        self.0.iter().map(OsString::from).collect()
    }
}

/// A command line such as `python3 project4.py`: at least one word.
pub fn command_line(text: &str) -> Result<CommandLine, String> {
    let words: Vec<String> = text.split_whitespace().map(String::from).collect();
    if words.is_empty() {
        return Err("needs a command".into());
    }
    Ok(CommandLine(words))
}

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

    /// The reference binary: the one given, or a fresh release build.
    pub fn reference(&self) -> Result<PathBuf, Error> {
        reference_binary(&self.reference)
    }
}

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
    /// Write reproducible random cases into `cases/<spec>/generated/`.
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

#[derive(clap::Args)]
pub struct KitArgs {
    /// The spec whose cases the kit holds.
    #[arg(long)]
    pub spec: String,
    /// A folder of hidden cases: `GROUP/NAME.in` (with `NAME.out`, or the reference's output),
    /// GROUP a graded group of the spec. The kit holds their hashes, never their outputs.
    #[arg(long, value_name = "DIR")]
    pub hidden: Option<PathBuf>,
    /// Where to write the kit (default: `check-<spec>`).
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

#[derive(clap::Args)]
pub struct AutograderArgs {
    #[command(flatten)]
    pub kit: KitArgs,
    /// The command that runs a submission, in its folder: `python3 project4.py`, `java Main`.
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub run: CommandLine,
}

/// How untrusted targets are confined; limits default to the suite file's `[limits]`.
#[derive(clap::Args, Clone, Default)]
pub struct ConfineArgs {
    /// Run targets without the sandbox (namespaces, seccomp, Landlock): with rlimits and a
    /// scrubbed environment only.
    #[arg(long)]
    no_sandbox: bool,
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
    /// Run targets in DIR instead of the folder of their program.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

impl ConfineArgs {
    /// The settings as given; what must stay out of sight is decided where the run is planned.
    pub fn settings(&self) -> Settings {
        Settings {
            sandbox: !self.no_sandbox,
            require_isolation: self.require_isolation,
            cwd: self.cwd.clone(),
            protected: Vec::new(),
            limits: ResourceLimits {
                cpu: self.cpu,
                memory: self.memory,
                processes: self.processes,
                file_size: self.file_size,
                open_files: self.open_files,
            },
            pass_env: self.pass_env.clone(),
        }
    }
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
    pub fn gradescope(&self) -> crate::gradescope::Settings {
        crate::gradescope::Settings {
            hidden: self.hidden,
            visibility: self.gradescope_visibility.clone(),
        }
    }
}

/// The reference binary: the one given, or a fresh release build.
fn reference_binary(given: &Option<PathBuf>) -> Result<PathBuf, Error> {
    match given {
        Some(path) if path.is_file() => Ok(path.clone()),
        Some(path) => Err(Error::Usage(format!(
            "--reference: `{}` is not a file",
            path.display()
        ))),
        None => workspace::build_reference(),
    }
}

/// The corpus: the one given, or the bundled one.
fn cases_root(given: &Option<PathBuf>) -> Result<PathBuf, Error> {
    let root = given.clone().unwrap_or_else(workspace::cases);
    if !root.is_dir() {
        return Err(Error::Usage(format!(
            "--cases: `{}` is not a folder",
            root.display()
        )));
    }
    Ok(root)
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
    /// Cases run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Seconds a case may run (default: the suite's).
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Stop at the first failing graded case.
    #[arg(long)]
    pub fail_fast: bool,
    /// Also run the cases that touch unspecified behaviour (reported, never graded).
    #[arg(long)]
    pub include_unspecified: bool,
    /// Also show passing cases, and a full block for every failing one.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Write every case's result as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write Gradescope's results.json.
    #[arg(long, value_name = "FILE")]
    pub gradescope: Option<PathBuf>,
    /// Write an HTML report: a card per cause of failure, the boards side by side.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

impl RunArgs {
    /// `base` with these settings.
    pub fn apply(
        &self,
        base: crate::check::Options,
        target: Vec<OsString>,
        progress: bool,
    ) -> crate::check::Options {
        crate::check::Options {
            filter: self.filter.clone(),
            jobs: self.jobs.unwrap_or(base.jobs),
            timeout: self.timeout,
            fail_fast: self.fail_fast,
            include_unspecified: self.include_unspecified,
            program: Program::from_argv(target),
            progress,
            confine: self.confine.settings(),
            ..base
        }
    }

    /// The reports to write and print.
    pub fn reports(&self) -> crate::cli::Reports {
        crate::cli::Reports {
            json: self.json.clone(),
            junit: self.junit.clone(),
            gradescope: self.gradescope.clone(),
            html: self.html.clone(),
            gradescope_settings: self.report.gradescope(),
            verbose: self.verbose,
        }
    }
}

/// `target` as the command to run, from `dir`; a hint when it cannot be.
pub fn interpret_target(
    target: &[OsString],
    dir: &std::path::Path,
) -> Result<Vec<OsString>, Error> {
    crate::target::interpret(target.to_vec(), dir).map_err(|hint| Error::CouldNotRun {
        command: crate::target::display_argv(target),
        message: hint,
    })
}

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
    pub fn options(&self, progress: bool) -> Result<crate::check::Options, Error> {
        let dir = current_dir()?;
        let target = interpret_target(&self.target, &dir)?;
        let base = crate::check::Options::new(self.corpus.root()?, self.corpus.reference()?, dir);
        Ok(crate::check::Options {
            spec: self.spec.clone(),
            shard: self.shard,
            ..self.run.apply(base, target, progress)
        })
    }
}

#[derive(clap::Args)]
pub struct BlessArgs {
    /// Only this spec's suite.
    #[arg(long)]
    pub spec: Option<String>,
    /// Change nothing; exit 1 if anything would change.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Bless from this command line (after `--`) instead of the reference.
    #[arg(long)]
    pub from: bool,
    #[command(flatten)]
    pub confine: ConfineArgs,
    /// The command line for `--from`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

impl BlessArgs {
    pub fn options(&self) -> Result<crate::bless::Options, Error> {
        let program = match (self.from, self.command.is_empty()) {
            (true, false) => Program::Command(self.command.clone()),
            (false, true) => Program::Reference,
            (true, true) => {
                return Err(Error::Usage(
                    "--from needs a command line after `--`".into(),
                ))
            }
            (false, false) => return Err(Error::Usage(
                "bless only takes a command line with --from: it blesses from the reference otherwise"
                    .into(),
            )),
        };
        Ok(crate::bless::Options {
            cases_root: self.corpus.root()?,
            spec: self.spec.clone(),
            check: self.check,
            program,
            confine: self.confine.settings(),
            reference: self.corpus.reference()?,
            dir: current_dir()?,
            jobs: crate::pool::cpus(),
        })
    }
}

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
    /// Where to write (default: `cases/<spec>/generated/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[cfg(feature = "reference")]
impl GenArgs {
    /// The spec's tools and the folder to write into.
    pub fn options(&self) -> Result<(crate::tools::Assignment<'static>, PathBuf), Error> {
        let dir = self
            .out
            .clone()
            .unwrap_or_else(|| workspace::cases().join(&self.spec).join("generated"));
        Ok((crate::tools::find(&self.spec)?, dir))
    }
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Job counts to measure (default: 1 and the number of CPUs).
    #[arg(long, value_name = "N", num_args = 1.., value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Vec<usize>,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 3, value_parser = runs, allow_hyphen_values = true)]
    pub repeats: u64,
    /// Measure only the reference, not the Python target.
    #[arg(long)]
    pub reference_only: bool,
    /// Measure instead what each confinement layer costs a case.
    #[arg(long)]
    pub layers: bool,
    /// Grade instead a synthetic class of N submissions (right, wrong, crashing, hanging and
    /// flooding; Python and native) against the raw spawn floor for the same runs.
    #[arg(long, value_name = "N", value_parser = class_size, allow_hyphen_values = true)]
    pub class: Option<usize>,
    /// The spec of the synthetic class.
    #[arg(long, default_value = "go", requires = "class")]
    pub spec: String,
    /// Seconds per case for the synthetic class (its hanging submissions cost this).
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = seconds, allow_hyphen_values = true, requires = "class")]
    pub timeout: Duration,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    pub reference: Option<PathBuf>,
}

impl BenchArgs {
    /// The settings every measured run starts from, and what to measure.
    pub fn options(&self) -> Result<(crate::check::Options, crate::bench::Measure), Error> {
        use crate::bench::Measure;
        let base = crate::check::Options::new(
            workspace::cases(),
            reference_binary(&self.reference)?,
            workspace::root(),
        );
        let jobs = if self.jobs.is_empty() {
            vec![1, base.jobs]
        } else {
            self.jobs.clone()
        };
        let measure = match self.class {
            Some(size) => Measure::Class(crate::bench::class::Settings {
                size,
                jobs: *jobs.last().unwrap_or(&base.jobs),
                timeout: self.timeout,
                spec: self.spec.clone(),
            }),
            None if self.layers => Measure::Layers,
            None => Measure::Overhead {
                reference_only: self.reference_only,
                jobs,
                repeats: self.repeats as usize,
            },
        };
        Ok((base, measure))
    }
}

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
    pub fn options(&self) -> Result<crate::fuzz::Options, Error> {
        use crate::fuzz::Budget;
        let cases_root = self.corpus.root()?;
        let assignment = crate::tools::find(&self.spec)?;
        let suite = crate::suite::find(&cases_root, &self.spec)?;
        let reference = self.corpus.reference()?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs() % 1_000_000)
        });
        Ok(crate::fuzz::Options {
            assignment,
            seed,
            budget: match self.runs {
                Some(runs) => Budget::Runs(runs),
                None => Budget::Time(self.time.unwrap_or(Duration::from_secs(60))),
            },
            jobs: self.jobs.unwrap_or_else(crate::pool::cpus),
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

#[derive(clap::Args)]
pub struct GradeArgs {
    #[arg(long)]
    pub spec: String,
    /// The folder of submissions: one folder per student, its name the student's id.
    #[arg(long, value_name = "DIR")]
    pub submissions: PathBuf,
    /// The command to run inside each submission folder, e.g. 'python3 project4.py' (split on
    /// spaces).
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub run: CommandLine,
    /// Where grades.csv, grades.json and results/ go (default: grades-<spec>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only shard K of N of the submissions (split by id, the same on every machine).
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// Also write `report.html` beside `grades.csv`: the class at a glance (one file, offline).
    #[arg(long)]
    pub html: bool,
    /// Also write gradescope/<id>/results.json for each submission.
    #[arg(long)]
    pub gradescope: bool,
    /// Grade every submission again instead of reusing results that are still valid.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Cases run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Seconds a case may run (default: the suite's).
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

impl GradeArgs {
    pub fn options(&self) -> Result<crate::grade::Options, Error> {
        if !self.submissions.is_dir() {
            return Err(Error::Usage(format!(
                "--submissions: `{}` is not a folder",
                self.submissions.display()
            )));
        }
        let base = crate::check::Options::new(
            self.corpus.root()?,
            self.corpus.reference()?,
            PathBuf::new(),
        );
        Ok(crate::grade::Options {
            check: crate::check::Options {
                jobs: self.jobs.unwrap_or(base.jobs),
                timeout: self.timeout,
                confine: self.confine.settings(),
                ..base
            },
            spec: self.spec.clone(),
            submissions: self
                .submissions
                .canonicalize()
                .map_err(|err| Error::io(&self.submissions, err))?,
            run: self.run.words(),
            out: self
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("grades-{}", self.spec))),
            shard: self.shard,
            force: self.force,
            gradescope: self.gradescope.then(|| self.report.gradescope()),
            html: self.html,
        })
    }
}

#[derive(clap::Args)]
pub struct AdequacyArgs {
    /// Another corpus root.
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Runs at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Print the coverage table (Markdown: each rule, its variants, the cases that kill them).
    #[arg(long)]
    pub table: bool,
}

impl AdequacyArgs {
    /// The corpus and the number of jobs.
    pub fn options(&self) -> Result<(PathBuf, usize), Error> {
        Ok((
            cases_root(&self.cases)?,
            self.jobs.unwrap_or_else(crate::pool::cpus),
        ))
    }
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Where the merged grades.csv and grades.json go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The shards' grades.json files.
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Merge even when some shards are missing.
    #[arg(long)]
    pub allow_partial: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_and_refuse_the_absurd() {
        assert_eq!(duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(duration("1.5h"), Ok(Duration::from_secs(5400)));
        for bad in ["0", "-1", "1e300", "nan", "2d", "", "99999999999999999999h"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_are_positive_and_bounded() {
        assert_eq!(jobs("2"), Ok(2));
        for bad in [
            "0",
            "-1",
            "1e300",
            "nan",
            "100000",
            "999999999999999999999999999999",
        ] {
            assert!(jobs(bad).is_err(), "{bad}");
        }
        assert_eq!(mebibytes("3"), Ok(3 << 20));
        assert!(mebibytes("0").is_err() && seconds("inf").is_err());
        assert_eq!(seed("0"), Ok(0));
    }
}
