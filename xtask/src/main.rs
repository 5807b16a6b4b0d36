//! `cargo xtask`: the command line. It parses the flags (`flags`), calls the task, and prints
//! what the task returns; every decision is in the library.
//!
//! Exit status: 0 success; 1 some graded case failed (or `bless --check` found changes, or
//! `fuzz` found a disagreement); 2 the harness could not do its job (bad arguments, a missing or
//! invalid corpus, a target that cannot be started); 130 interrupted. A broken pipe on stdout
//! counts as success.

use std::process::ExitCode;

use xtask::cli::{print_report, show_progress};
use xtask::error::Error;
use xtask::files::write_atomically;
use xtask::flags::{
    AdequacyArgs, AutograderArgs, BenchArgs, BlessArgs, CheckArgs, Cli, FuzzArgs, GenArgs,
    GradeArgs, KitArgs, MergeArgs, Task,
};

fn run_check(args: CheckArgs) -> Result<ExitCode, Error> {
    let reports = args.run.reports();
    reports.check_writable()?;
    let run = xtask::check::check(&args.options(show_progress())?);
    reports.finish(run)
}

fn run_bless(args: BlessArgs) -> Result<ExitCode, Error> {
    let summary = xtask::bless::bless(&args.options()?)?;
    for warning in &summary.warnings {
        eprintln!("{warning}");
    }
    print_report(&summary.render(args.check))?;
    Ok(if args.check && !summary.is_clean() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_gen(args: GenArgs) -> Result<ExitCode, Error> {
    let assignment = xtask::tools::find(&args.spec)?;
    let dir = args
        .out
        .unwrap_or_else(|| xtask::workspace::cases().join(&args.spec).join("generated"));
    let written = xtask::generate::write(assignment, args.seed, args.count, &dir)?;
    print_report(&format!(
        "wrote {} {} cases into `{}`\n",
        written.len(),
        args.spec,
        dir.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn run_bench(args: BenchArgs) -> Result<ExitCode, Error> {
    let (base, jobs) = args.options()?;
    if let Some(size) = args.class {
        let settings = xtask::bench::class::Settings {
            size,
            jobs: *jobs.last().unwrap_or(&base.jobs),
            timeout: args.timeout,
            spec: args.spec.clone(),
        };
        print_report(&xtask::bench::class::class(&base, &settings)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.layers {
        print_report(&xtask::bench::layers(300, &base.cases_root)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (subjects, _python_folder) = xtask::bench::subjects(args.reference_only);
    let repeats = args.repeats as usize;
    print_report(&xtask::bench::bench(&base, &subjects, &jobs, repeats)?)?;
    Ok(ExitCode::SUCCESS)
}

fn run_fuzz(args: FuzzArgs) -> Result<ExitCode, Error> {
    let options = args.options()?;
    for warning in xtask::fuzz::warnings(&options)? {
        eprintln!("{warning}");
    }
    let seed = options.seed;
    eprintln!(
        "fuzzing {} with seed {seed} (repeat with --seed {seed})",
        args.spec
    );
    let outcome = xtask::fuzz::fuzz(&options, &|event| eprintln!("  {event}"))?;
    let found = matches!(outcome, xtask::fuzz::Outcome::Found(_));
    print_report(&xtask::fuzz::report(&options, outcome)?)?;
    Ok(ExitCode::from(u8::from(found)))
}

fn run_grade(args: GradeArgs) -> Result<ExitCode, Error> {
    let options = args.options()?;
    let progress = xtask::cli::GradeProgress::new(show_progress());
    let summary = xtask::grade::grade(&options, &|step| progress.step(step))?;
    progress.finish();
    for warning in &summary.warnings {
        eprintln!("{warning}");
    }
    print_report(&xtask::cli::grade_report(&summary, &options.out))?;
    Ok(if summary.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_merge(args: MergeArgs) -> Result<ExitCode, Error> {
    let grades = xtask::gradebook::merge(&args.files, &args.out, args.allow_partial)?;
    print_report(&format!(
        "merged {} submissions from {} files into `{}`\n",
        grades.submissions.len(),
        args.files.len(),
        args.out.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn run_adequacy(args: AdequacyArgs) -> Result<ExitCode, Error> {
    let (root, jobs) = args.options()?;
    // A variant that panics is killed, and says so in the report: no backtrace on the terminal.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let report = xtask::adequacy::measure(&root, jobs);
    std::panic::set_hook(hook);
    let report = report?;
    if args.table {
        print_report(&report.table())?;
        return Ok(ExitCode::SUCCESS);
    }
    print_report(&report.render())?;
    let gaps = report.survivors().count();
    Ok(ExitCode::from(u8::from(gaps > 0)))
}

fn run_kit(args: KitArgs) -> Result<ExitCode, Error> {
    let plan = args.plan(format!("check-{}", args.spec).into())?;
    let built = xtask::kit::build(
        &plan.cases_root,
        &plan.spec,
        plan.hidden.as_deref(),
        &plan.reference,
        &plan.out,
    )?;
    print_report(&format!(
        "wrote `{}`: {:.1} MB, {} public and {} hidden cases of {}, corpus {}\n",
        built.path.display(),
        built.bytes as f64 / 1e6,
        built.bundle.public,
        built.bundle.hidden,
        built.bundle.spec,
        built.bundle.corpus
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn run_autograder(args: AutograderArgs) -> Result<ExitCode, Error> {
    let run: Vec<String> = args.run.split_whitespace().map(String::from).collect();
    if run.is_empty() {
        return Err(Error::Usage("--run needs a command".into()));
    }
    let plan = args
        .kit
        .plan(format!("autograder-{}.zip", args.kit.spec).into())?;
    let folder = tempfile::tempdir().map_err(|err| Error::Command(err.to_string()))?;
    let kit_name = format!("check-{}", plan.spec);
    let built = xtask::kit::build(
        &plan.cases_root,
        &plan.spec,
        plan.hidden.as_deref(),
        &plan.reference,
        &folder.path().join(&kit_name),
    )?;
    let zip = xtask::autograder::zip(&built.path, &kit_name, &run)?;
    write_atomically(&plan.out, &zip)?;
    print_report(&format!(
        "wrote `{}`: {:.1} MB, the kit of {} ({} public and {} hidden cases, corpus {}) run as `{}`\n",
        plan.out.display(),
        zip.len() as f64 / 1e6,
        built.bundle.spec,
        built.bundle.public,
        built.bundle.hidden,
        built.bundle.corpus,
        run.join(" ")
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    xtask::sys::return_large_buffers();
    // The sandbox helper and the benchmark's plain spawner are this program too.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match args.get(1) {
        Some(arg) if arg == xtask::sandbox::HELPER_ARG => return xtask::sandbox::helper_main(),
        Some(arg) if arg == xtask::bench::SPAWN_ARG => return xtask::bench::spawn_main(&args[2..]),
        _ => {}
    }
    let cli = match Cli::parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // Ctrl-C: every running target is killed, the partial summary printed, exit status 130.
    if let Err(err) = ctrlc::set_handler(xtask::interrupt::interrupt) {
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
        Task::Adequacy(args) => run_adequacy(args),
        Task::Kit(args) => run_kit(args),
        Task::Autograder(args) => run_autograder(args),
    };
    // A run with one job used this thread's sandbox helper: end it (and its cgroup) now.
    xtask::sandbox::release();
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
