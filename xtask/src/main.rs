//! `cargo xtask`: the command line. It parses the flags (`flags`), calls the task, and prints
//! what the task returns; every decision is in the library.
//!
//! Exit status: 0 success; 1 some graded case failed (or `bless --check` found changes, or
//! `fuzz` found a disagreement); 2 the harness could not do its job (bad arguments, a missing or
//! invalid corpus, a target that cannot be started); 3 nothing failed but some case could not
//! be judged (the machine too busy to measure it); 130 interrupted. A broken pipe on stdout
//! counts as success.

use std::process::ExitCode;

use xtask::cli::{print_report, show_progress, warn};
use xtask::cli::{
    AdequacyArgs, AutograderArgs, BenchArgs, BlessArgs, CheckArgs, Cli, FuzzArgs, GenArgs,
    GradeArgs, KitArgs, MergeArgs, NewArgs, ServeArgs, SimilarArgs, Task,
};
use xtask::error::Error;

/// Prints `report`: the task is done, exit status 0.
fn done(report: &str) -> Result<ExitCode, Error> {
    print_report(report)?;
    Ok(ExitCode::SUCCESS)
}

/// Exit status 1 when something was found wanting, else 0.
fn failed_if(failed: bool) -> ExitCode {
    ExitCode::from(u8::from(failed))
}

fn run_check(args: CheckArgs) -> Result<ExitCode, Error> {
    if args.list {
        return done(&xtask::cli::suite_listing(
            &args.corpus.root()?,
            args.spec.as_deref(),
        )?);
    }
    let reports = args.run.reports();
    let options = args.options()?;
    reports.check_writable(&options, &args.target)?;
    let run = xtask::cli::check_drawn(&options);
    reports.finish(run)
}

fn run_bless(args: BlessArgs) -> Result<ExitCode, Error> {
    let summary = xtask::bless::bless(&args.options()?)?;
    warn(&summary.warnings);
    print_report(&summary.render(args.check))?;
    Ok(failed_if(args.check && !summary.is_clean()))
}

fn run_new(args: NewArgs) -> Result<ExitCode, Error> {
    let request = args.request()?;
    let folder = xtask::scaffold::create(&request)?;
    done(&xtask::cli::new_suite_report(&folder, &request))
}

fn run_gen(args: GenArgs) -> Result<ExitCode, Error> {
    let (oracle, dir) = args.options()?;
    let written = xtask::tools::write(&oracle, args.seed, args.count, &dir)?;
    done(&xtask::cli::gen_report(written.len(), &args.spec, &dir))
}

fn run_bench(args: BenchArgs) -> Result<ExitCode, Error> {
    if let Some(students) = args.server {
        return run_server_bench(students, args.jobs.first().copied(), &args.server_args);
    }
    if args.similar {
        let figures = xtask::bench::similar_bench()?;
        print_report(&figures.text)?;
        return Ok(failed_if(figures.worse_than_dolos));
    }
    let (base, measure) = args.options()?;
    let figures = xtask::bench::measure(&base, &measure)?;
    if let Some(path) = &args.json {
        xtask::bench::write_json(&figures, path)?;
    }
    done(&figures.text)
}

fn run_fuzz(args: FuzzArgs) -> Result<ExitCode, Error> {
    let options = args.options()?;
    warn(&xtask::tools::warnings(&options)?);
    let seed = options.seed;
    eprintln!("{}", xtask::cli::fuzz_banner(&args.spec, seed));
    let outcome = xtask::tools::fuzz(&options, &|event| eprintln!("  {event}"))?;
    let found = matches!(outcome, xtask::tools::Outcome::Found(_));
    print_report(&xtask::tools::report(&options, outcome)?)?;
    Ok(failed_if(found))
}

fn run_grade(args: GradeArgs) -> Result<ExitCode, Error> {
    let options = args.options()?;
    let progress = xtask::cli::GradeProgress::new(show_progress());
    let summary = xtask::grade::grade(&options, &|step| progress.step(step))?;
    progress.finish();
    warn(&summary.warnings);
    xtask::cli::write_grade_summary(&summary, &args.summary)?;
    print_report(&xtask::cli::grade_report(&summary, &options.out))?;
    // --fail-fast found a failure: 1, as check's; 130 is for Ctrl-C.
    Ok(ExitCode::from(
        match (&summary.stopped_at, summary.interrupted) {
            (Some(_), _) => 1,
            (None, true) => 130,
            (None, false) => 0,
        },
    ))
}

fn run_similar(args: SimilarArgs) -> Result<ExitCode, Error> {
    let (options, out) = args.options()?;
    let report = xtask::grade::similar(&options)?;
    let written = xtask::grade::write_similarity(&report, &out)?;
    done(&xtask::cli::similar_report(&report, &written))
}

/// `bench --server N`: the server's crate builds its programs, and its bench runs in this
/// process's place.
fn run_server_bench(
    students: usize,
    jobs: Option<usize>,
    more: &[String],
) -> Result<ExitCode, Error> {
    use std::os::unix::process::CommandExt;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = xtask::workspace::root().join("Cargo.toml");
    let built = std::process::Command::new(&cargo)
        .args([
            "build",
            "--package",
            "gridjudge-server",
            "--bins",
            "--manifest-path",
        ])
        .arg(&manifest)
        .status()
        .map_err(|err| Error::CouldNotRun {
            command: format!("{} build", cargo.to_string_lossy()),
            message: err.to_string(),
        })?;
    if !built.success() {
        return Ok(ExitCode::from(1));
    }
    let bench = xtask::workspace::target_dir().join("debug/gridjudge-server-bench");
    let mut command = std::process::Command::new(&bench);
    command.arg(students.to_string());
    if let Some(jobs) = jobs {
        command.args(["--jobs", &jobs.to_string()]);
    }
    command.args(more);
    let err = command.exec();
    Err(Error::CouldNotRun {
        command: bench.display().to_string(),
        message: err.to_string(),
    })
}

/// `serve`: the course server is a crate of its own (the web stack stays out of the harness's
/// build): cargo builds it and runs it in this process's place, with the flags given.
fn run_serve(args: ServeArgs) -> Result<ExitCode, Error> {
    use std::os::unix::process::CommandExt;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = xtask::workspace::root().join("Cargo.toml");
    let err = std::process::Command::new(&cargo)
        .args([
            "run",
            "--package",
            "gridjudge-server",
            "--bin",
            "gridjudge-server",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--")
        .args(&args.args)
        .exec();
    Err(Error::CouldNotRun {
        command: format!("{} run --package gridjudge-server", cargo.to_string_lossy()),
        message: err.to_string(),
    })
}

fn run_merge(args: MergeArgs) -> Result<ExitCode, Error> {
    let grades = xtask::report::merge(&args.files, &args.out, args.allow_partial)?;
    done(&xtask::cli::merge_report(
        grades.submissions.len(),
        args.files.len(),
        &args.out,
    ))
}

fn run_adequacy(args: AdequacyArgs) -> Result<ExitCode, Error> {
    let (root, jobs) = args.options()?;
    let report = xtask::adequacy::measure(&root, jobs)?;
    if args.table {
        return done(&report.table());
    }
    print_report(&report.render(args.causes))?;
    Ok(failed_if(report.survivors().count() > 0))
}

fn run_kit(args: KitArgs) -> Result<ExitCode, Error> {
    let built = xtask::kit::build(&args.plan(format!("check-{}", args.spec).into())?)?;
    done(&xtask::cli::kit_report(
        &built.path,
        built.bytes,
        &built.bundle.summary(),
    ))
}

fn run_autograder(args: AutograderArgs) -> Result<ExitCode, Error> {
    let plan = args
        .kit
        .plan(format!("autograder-{}.zip", args.kit.spec).into())?;
    let (run, packages) = args.plan()?;
    let built = xtask::kit::build_autograder(&plan, &run, &packages)?;
    done(&xtask::cli::autograder_report(
        &plan.out,
        built.bytes,
        &built.kit.bundle,
        &run,
    ))
}

fn main() -> ExitCode {
    // The sandbox helper and the benchmark's plain spawner are this program too.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match args.get(1) {
        Some(arg) if arg == xtask::sandbox::HELPER_ARG => return xtask::sandbox::helper_main(),
        Some(arg) if arg == xtask::bench::SPAWN_ARG => return xtask::bench::spawn_main(&args[2..]),
        _ => {}
    }
    // Ctrl-C: every running target is killed, the partial summary printed, exit status 130.
    xtask::cli::start();
    let cli = match Cli::parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    xtask::cli::conclude(match cli.task {
        Task::Check(args) => run_check(args),
        Task::Bless(args) => run_bless(args),
        Task::New(args) => run_new(args),
        Task::Gen(args) => run_gen(args),
        Task::Bench(args) => run_bench(args),
        Task::Similar(args) => run_similar(args),
        Task::Fuzz(args) => run_fuzz(args),
        Task::Grade(args) => run_grade(args),
        Task::Merge(args) => run_merge(args),
        Task::Adequacy(args) => run_adequacy(args),
        Task::Kit(args) => run_kit(args),
        Task::Autograder(args) => run_autograder(args),
        Task::Serve(args) => run_serve(args),
    })
}
