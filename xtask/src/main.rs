//! `cargo xtask`: the command line. Each subcommand parses its flags here and calls the library.
//!
//! Exit status: 0 success; 1 some graded case failed (or `bless --check` found changes);
//! 2 the harness could not do its job (bad arguments, a missing or invalid corpus, a target
//! that cannot be started); a broken pipe on stdout counts as success.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use xtask::check::{self, Options};
use xtask::error::{write_atomically, Error};
use xtask::{gradescope, json, junit, message, workspace};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "gridjudge's tasks: grade programs against the corpus"
)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
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
}

#[derive(clap::Args)]
struct GradeArgs {
    #[arg(long)]
    spec: String,
    /// The folder of submissions: one folder per student, its name the student's id.
    #[arg(long, value_name = "DIR")]
    submissions: PathBuf,
    /// The command to run inside each submission folder, e.g. 'python3 project4.py' (split on
    /// spaces).
    #[arg(long, value_name = "CMD")]
    run: String,
    /// Where grades.csv, grades.json and results/ go (default: grades-<spec>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Only shard K of N of the submissions (split by id, the same on every machine).
    #[arg(long, value_name = "K/N")]
    shard: Option<xtask::shard::Shard>,
    /// Also write gradescope/<id>/results.json for each submission.
    #[arg(long)]
    gradescope: bool,
    /// Cases run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Seconds a case may run (default: the suite's).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Another corpus root.
    #[arg(long, value_name = "DIR")]
    cases: Option<PathBuf>,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    #[command(flatten)]
    confine: ConfineArgs,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// Where the merged grades.csv and grades.json go.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The shards' grades.json files.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
}

fn run_grade(args: GradeArgs) -> Result<ExitCode, Error> {
    let run: Vec<OsString> = args.run.split_whitespace().map(OsString::from).collect();
    if run.is_empty() {
        return Err(Error::Usage("--run needs a command".into()));
    }
    if !args.submissions.is_dir() {
        return Err(Error::Usage(format!(
            "--submissions: `{}` is not a folder",
            args.submissions.display()
        )));
    }
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs must be at least 1".into()));
    }
    let cases_root = args.cases.unwrap_or_else(workspace::cases);
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from(format!("grades-{}", args.spec)));
    let options = xtask::grade::Options {
        check: Options {
            cases_root,
            spec: Some(args.spec.clone()),
            filter: None,
            jobs: args.jobs.unwrap_or_else(cpus),
            timeout: args.timeout.map(Duration::from_secs_f64),
            fail_fast: false,
            include_unspecified: false,
            target: None,
            reference: reference_binary(args.reference)?,
            dir: PathBuf::new(),
            progress: false,
            sandbox: !args.confine.no_sandbox,
            limits: args.confine.overrides()?,
            pass_env: args.confine.pass_env.clone(),
            shard: None,
        },
        spec: args.spec,
        submissions: args
            .submissions
            .canonicalize()
            .map_err(|err| Error::io(&args.submissions, err))?,
        run,
        out: out.clone(),
        shard: args.shard,
        gradescope: args.gradescope,
    };
    let show = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let bar = if show {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos} submissions graded, last {msg} {elapsed}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let progress = |id: &str| {
        bar.inc(1);
        bar.set_message(id.to_string());
    };
    let summary = xtask::grade::grade(&options, &progress)?;
    bar.finish_and_clear();
    for warning in &summary.warnings {
        eprintln!("{warning}");
    }
    let failed = summary
        .grades
        .submissions
        .iter()
        .filter(|s| s.error.is_some())
        .count();
    let mut report = format!(
        "{} submissions: {} graded now, {} reused from an earlier run, {} could not run\n",
        summary.grades.submissions.len(),
        summary.n_graded,
        summary.n_reused,
        failed
    );
    if summary.interrupted {
        report += "interrupted: run the same command again to resume\n";
    } else {
        report += &format!(
            "wrote `{}` and `{}`\n",
            out.join("grades.csv").display(),
            out.join("grades.json").display()
        );
    }
    print_report(&report)?;
    Ok(if summary.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_merge(args: MergeArgs) -> Result<ExitCode, Error> {
    let grades = xtask::grade::merge(&args.files, &args.out)?;
    print_report(&format!(
        "merged {} submissions from {} files into `{}`\n",
        grades.submissions.len(),
        args.files.len(),
        args.out.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
struct FuzzArgs {
    /// The spec whose generator makes the inputs.
    #[arg(long)]
    spec: String,
    /// The seed (default: from the clock; printed either way).
    #[arg(long)]
    seed: Option<u64>,
    /// How long to look, like `60s`, `2m` or `90` (seconds); the default is 60s.
    #[arg(long, value_name = "DURATION", conflicts_with = "runs", value_parser = parse_duration)]
    time: Option<Duration>,
    /// How many inputs to try, instead of a time limit.
    #[arg(long, value_name = "K")]
    runs: Option<u64>,
    /// Inputs run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Seconds one run may take (default: the suite's).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Where to write the found case (default: `cases/<spec>/found/`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Another corpus root, for the suite settings.
    #[arg(long, value_name = "DIR")]
    cases: Option<PathBuf>,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    /// Target runs the shrinker may spend.
    #[arg(long, default_value_t = 5000)]
    max_shrink_runs: usize,
    /// The program to fuzz, as a command line (after `--`).
    #[arg(last = true, required = true, value_name = "TARGET")]
    target: Vec<OsString>,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 60s or 2m"))?;
    let seconds = match unit {
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("`{text}`: the unit must be s, m or h")),
    };
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(format!("`{text}` is not a positive duration"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn run_fuzz(args: FuzzArgs) -> Result<ExitCode, Error> {
    use xtask::fuzz::{Budget, Event, Outcome};
    let cases_root = args.cases.unwrap_or_else(workspace::cases);
    let suite = xtask::suite::load_all(&cases_root)?
        .into_iter()
        .find(|s| s.name == args.spec)
        .ok_or_else(|| Error::Usage(format!("unknown spec `{}`", args.spec)))?;
    if xtask::generate::SPECS.iter().all(|s| *s != args.spec) {
        return Err(Error::Usage(format!(
            "no generator for spec `{}`",
            args.spec
        )));
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs() % 1_000_000)
    });
    let reference = reference_binary(args.reference)?;
    let options = xtask::fuzz::Options {
        seed,
        budget: match args.runs {
            Some(runs) => Budget::Runs(runs),
            None => Budget::Time(args.time.unwrap_or(Duration::from_secs(60))),
        },
        jobs: args.jobs.unwrap_or_else(cpus).max(1),
        target: args.target,
        dir: std::env::current_dir().map_err(|err| Error::io(&PathBuf::from("."), err))?,
        timeout: args
            .timeout
            .map_or_else(|| suite.timeout(), Duration::from_secs_f64),
        max_shrink_runs: args.max_shrink_runs,
        suite: suite.clone(),
    };
    eprintln!(
        "fuzzing {} with seed {seed} (repeat with --seed {seed})",
        args.spec
    );
    let progress = |event: Event| match event {
        Event::Searching { runs, elapsed } => {
            eprintln!("  {runs} inputs in {:.1} s", elapsed.as_secs_f64())
        }
        Event::Failed { case_seed, verdict } => {
            eprintln!("  {verdict} on the input of generator seed {case_seed}: shrinking")
        }
        Event::Shrunk {
            steps, runs, size, ..
        } => {
            eprintln!("  shrink step {steps} ({runs} runs): {size} bytes")
        }
    };
    match xtask::fuzz::fuzz(&options, &progress)? {
        Outcome::Clean { runs, elapsed } => {
            print_report(&format!(
                "no disagreement in {runs} inputs ({:.1} s, {:.0} runs/s), seed {seed}\n",
                elapsed.as_secs_f64(),
                runs as f64 / elapsed.as_secs_f64()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Found(found) => {
            let mut result = found.result;
            if let Some(difference) = &result.difference {
                let reference_target =
                    xtask::process::Target::reference(&reference, &suite.file.args, &options.dir);
                result.location = xtask::locate::locate(
                    &reference_target,
                    found.shrunk.as_bytes(),
                    difference.expected_offset,
                );
            }
            let dir = args
                .out
                .unwrap_or_else(|| cases_root.join(&args.spec).join("found"));
            let stem = xtask::fuzz::write_case(&dir, seed, &found.shrunk, &result.expected)?;
            let mut report = format!(
                "seed {seed}: {} after {} inputs in {:.1} s ({:.0} runs/s), on the input of generator seed {}\n",
                result.verdict,
                found.runs,
                found.time_to_find.as_secs_f64(),
                found.runs as f64 / found.time_to_find.as_secs_f64().max(1e-9),
                found.case_seed
            );
            report += &format!(
                "shrunk in {} steps ({} target runs, {:.1} s): {} lines, {} bytes -> {} lines, {} bytes\n\ninput:\n",
                found.shrink_steps,
                found.shrink_runs,
                found.shrink_time.as_secs_f64(),
                found.original.lines().count(),
                found.original.len(),
                found.shrunk.lines().count(),
                found.shrunk.len()
            );
            for line in found.shrunk.lines() {
                report += &format!("  | {line}\n");
            }
            report += "\n";
            report += &message::case_block(&result);
            report += &format!(
                "\nwrote `{}.in` and `.out`: commit them to keep this case\n",
                dir.join(stem).display()
            );
            print_report(&report)?;
            Ok(ExitCode::from(1))
        }
    }
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Job counts to measure (default: 1 and the number of CPUs).
    #[arg(long, value_name = "N", num_args = 1..)]
    jobs: Vec<usize>,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Measure only the reference, not the Python target.
    #[arg(long)]
    reference_only: bool,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
}

fn run_bench(args: BenchArgs) -> Result<ExitCode, Error> {
    let n_cpus = cpus();
    let jobs = if args.jobs.is_empty() {
        vec![1, n_cpus]
    } else {
        args.jobs
    };
    if jobs.contains(&0) || args.repeats == 0 {
        return Err(Error::Usage(
            "--jobs and --repeats must be at least 1".into(),
        ));
    }
    let base = Options {
        cases_root: workspace::cases(),
        spec: None,
        filter: None,
        jobs: n_cpus,
        timeout: None,
        fail_fast: false,
        include_unspecified: false,
        target: None,
        reference: reference_binary(args.reference)?,
        dir: workspace::root(),
        progress: false,
        sandbox: true,
        limits: Default::default(),
        pass_env: Vec::new(),
        shard: None,
    };
    let mut subjects = vec![
        xtask::bench::Subject {
            label: "reference, every suite".into(),
            target: None,
            spec: None,
        },
        xtask::bench::Subject {
            label: "python3 go.py, go suite".into(),
            target: Some(vec!["python3".into(), xtask::bench::python_go().into()]),
            spec: Some("go".into()),
        },
    ];
    if args.reference_only {
        subjects.truncate(1);
    }
    print_report(&xtask::bench::bench(&base, &subjects, &jobs, args.repeats)?)?;
    Ok(ExitCode::SUCCESS)
}

/// How untrusted targets are confined; limits default to the suite file's `[limits]`.
#[derive(clap::Args, Clone, Default)]
struct ConfineArgs {
    /// Run targets without the Landlock sandbox.
    #[arg(long)]
    no_sandbox: bool,
    /// Seconds of CPU time per case.
    #[arg(long, value_name = "SECS")]
    cpu: Option<f64>,
    /// MiB of memory per case.
    #[arg(long, value_name = "MIB")]
    memory: Option<u64>,
    /// Processes and threads per case.
    #[arg(long, value_name = "N")]
    processes: Option<u64>,
    /// MiB one written file may grow to.
    #[arg(long, value_name = "MIB")]
    file_size: Option<u64>,
    /// Open files per process.
    #[arg(long, value_name = "N")]
    open_files: Option<u64>,
    /// Pass this environment variable through to targets (besides PATH and LANG; HOME and TMPDIR
    /// are the case's temporary folder). Repeatable.
    #[arg(long, value_name = "VAR")]
    pass_env: Vec<String>,
}

impl ConfineArgs {
    fn overrides(&self) -> Result<xtask::check::LimitOverrides, Error> {
        if let Some(cpu) = self.cpu {
            if !(cpu > 0.0 && cpu.is_finite()) {
                return Err(Error::Usage(format!(
                    "--cpu must be a positive number of seconds, not {cpu}"
                )));
            }
        }
        Ok(xtask::check::LimitOverrides {
            cpu: self.cpu,
            memory_mib: self.memory,
            processes: self.processes,
            file_size_mib: self.file_size,
            open_files: self.open_files,
        })
    }
}

#[derive(clap::Args)]
struct BlessArgs {
    /// Only this spec's suite.
    #[arg(long)]
    spec: Option<String>,
    /// Change nothing; exit 1 if anything would change.
    #[arg(long)]
    check: bool,
    /// Another corpus root.
    #[arg(long, value_name = "DIR")]
    cases: Option<PathBuf>,
    /// Bless from this command line (after `--`) instead of the reference.
    #[arg(long)]
    from: bool,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    /// The command line for `--from`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

#[derive(clap::Args)]
struct GenArgs {
    /// The spec to generate for.
    #[arg(long)]
    spec: String,
    /// The first seed; case k gets seed + k, and its file name starts with that seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many cases.
    #[arg(long, default_value_t = 1)]
    count: u64,
    /// Where to write (default: `cases/<spec>/generated/`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn run_bless(args: BlessArgs) -> Result<ExitCode, Error> {
    let from = match (args.from, args.command.is_empty()) {
        (true, false) => Some(args.command),
        (false, true) => None,
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
    let options = xtask::bless::Options {
        cases_root: args.cases.unwrap_or_else(workspace::cases),
        spec: args.spec,
        check: args.check,
        from,
        reference: reference_binary(args.reference)?,
        dir: std::env::current_dir().map_err(|err| Error::io(&PathBuf::from("."), err))?,
        jobs: cpus(),
    };
    let summary = xtask::bless::bless(&options)?;
    print_report(&summary.render(args.check))?;
    Ok(if args.check && !summary.is_clean() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_gen(args: GenArgs) -> Result<ExitCode, Error> {
    let dir = args
        .out
        .unwrap_or_else(|| workspace::cases().join(&args.spec).join("generated"));
    let written = xtask::generate::write(&args.spec, args.seed, args.count, &dir)?;
    print_report(&format!(
        "wrote {} {} cases into `{}`\n",
        written.len(),
        args.spec,
        dir.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// The number of CPUs, the default number of jobs.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The reference binary: the one given, or a fresh release build.
fn reference_binary(given: Option<PathBuf>) -> Result<PathBuf, Error> {
    match given {
        Some(path) if path.is_file() => Ok(path),
        Some(path) => Err(Error::Usage(format!(
            "--reference: `{}` is not a file",
            path.display()
        ))),
        None => workspace::build_reference(),
    }
}

/// Prints a report on stdout; a reader that went away is not an error.
fn print_report(report: &str) -> Result<(), Error> {
    let mut stdout = anstream::stdout();
    match stdout
        .write_all(report.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::Command(format!("failed to write the report: {err}")))
        }
        _ => Ok(()),
    }
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The suite to use; without it, the one whose handout cases the target passes.
    #[arg(long)]
    spec: Option<String>,
    /// Another corpus root (a folder of `<spec>/suite.toml` and `<spec>/<group>/` cases).
    #[arg(long, value_name = "DIR")]
    cases: Option<PathBuf>,
    /// Only cases whose group or `spec/group/name` contains PATTERN.
    #[arg(long, value_name = "PATTERN")]
    filter: Option<String>,
    /// Cases run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Seconds a case may run (default: the suite's).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Stop at the first failing graded case.
    #[arg(long)]
    fail_fast: bool,
    /// Also run the cases that touch unspecified behaviour (reported, never graded).
    #[arg(long)]
    include_unspecified: bool,
    /// Also show passing cases, and a full block for every failing one.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Write every case's result as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write Gradescope's results.json.
    #[arg(long, value_name = "FILE")]
    gradescope: Option<PathBuf>,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    /// Only shard K of N of the cases (split by case id, the same on every machine).
    #[arg(long, value_name = "K/N")]
    shard: Option<xtask::shard::Shard>,
    #[command(flatten)]
    confine: ConfineArgs,
    /// The program to check, as a command line (after `--`).
    #[arg(last = true, value_name = "TARGET")]
    target: Vec<OsString>,
}

fn run_check(args: CheckArgs) -> Result<ExitCode, Error> {
    if let Some(timeout) = args.timeout {
        if !(timeout > 0.0 && timeout.is_finite()) {
            return Err(Error::Usage(format!(
                "--timeout must be a positive number of seconds, not {timeout}"
            )));
        }
    }
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs must be at least 1".into()));
    }
    let cases_root = args.cases.unwrap_or_else(workspace::cases);
    if !cases_root.is_dir() {
        return Err(Error::Usage(format!(
            "--cases: `{}` is not a folder",
            cases_root.display()
        )));
    }
    let dir = std::env::current_dir().map_err(|err| Error::io(&PathBuf::from("."), err))?;
    let options = Options {
        cases_root,
        spec: args.spec,
        filter: args.filter,
        jobs: args.jobs.unwrap_or_else(cpus),
        timeout: args.timeout.map(Duration::from_secs_f64),
        fail_fast: args.fail_fast,
        include_unspecified: args.include_unspecified,
        target: (!args.target.is_empty()).then_some(args.target),
        reference: reference_binary(args.reference)?,
        dir,
        progress: std::io::stderr().is_terminal() && std::env::var_os("CI").is_none(),
        sandbox: !args.confine.no_sandbox,
        limits: args.confine.overrides()?,
        pass_env: args.confine.pass_env.clone(),
        shard: args.shard,
    };
    let run = check::check(&options)?;
    for warning in &run.warnings {
        eprintln!("{warning}");
    }
    for (path, text) in [
        (&args.json, json::render as fn(&check::Run) -> String),
        (&args.junit, junit::render),
        (&args.gradescope, gradescope::render),
    ] {
        if let Some(path) = path {
            write_atomically(path, text(&run).as_bytes())?;
        }
    }
    print_report(&message::render(&run, args.verbose))?;
    Ok(if run.interrupted {
        ExitCode::from(130)
    } else if run.all_graded_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C: every running target is killed, the partial summary printed, exit status 130.
    if let Err(err) = ctrlc::set_handler(xtask::process::interrupt) {
        eprintln!("warning: Ctrl-C will not stop targets cleanly: {err}");
    }
    let result = match cli.task {
        Task::Check(args) => run_check(args),
        Task::Bless(args) => run_bless(args),
        Task::Gen(args) => run_gen(args),
        Task::Bench(args) => run_bench(args),
        Task::Fuzz(args) => run_fuzz(args),
        Task::Grade(args) => run_grade(args),
        Task::Merge(args) => run_merge(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
