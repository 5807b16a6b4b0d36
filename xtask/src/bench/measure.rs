//! `cargo xtask bench`: what the harness costs on top of running the targets.
//!
//! For a target and a suite, it times `check` over every case against the floor: a C
//! fork/exec loop (`xtask/bench/spawn.c`, compiled by the bench, so that it shares no code
//! with the harness) that runs the target on every input with the same parallelism, stdout to
//! `/dev/null`, and nothing else; and against a baseline in the harness's process that also
//! feeds stdin and collects stdout. Each figure is the median of a few alternating runs, since
//! these machines are shared and noisy. It reports throughput for each `--jobs` value, and, for
//! a full run, what each confinement layer costs a case ([`layers`]).

use super::class;
use super::figures::{median, outside_checkout, Figures};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::check::{self, Options};
use crate::corpus::discover;
use crate::corpus::load_all;
use crate::error::Error;
use crate::target::Program;

/// One measured program: a [`Program`] with its label, spec and confinement.
pub(super) struct BenchProgram {
    pub label: String,
    /// The reference runs over every suite, a command over `spec`'s.
    pub program: Program,
    pub spec: Option<String>,
    /// Confined with the sandbox (a command only).
    pub sandbox: bool,
}

/// How many removed memory cgroups the kernel may still hold before the bench warns that its
/// figures are slower for them (a quiet machine here held about a dozen; right after the test
/// suite, about 200, and a one-case check took 16 to 18 ms instead of 10 to 12).
const DYING: usize = 100;

/// What `cargo xtask bench` measures.
pub enum Measure {
    /// The harness against raw spawning, per job count, the median of `repeats` runs.
    Overhead {
        reference_only: bool,
        jobs: Vec<usize>,
        repeats: usize,
    },
    /// What each confinement layer costs a case.
    Layers,
    /// A check of one case, as a whole process, against one plain run.
    OneCase,
    /// A synthetic class.
    Class(class::Settings),
    /// A submission of 64 busy processes beside an honest classmate.
    Hog,
}

/// The figures of `measure`, from the settings every measured run starts from.
pub fn measure(base: &Options, measure: &Measure) -> Result<Figures, Error> {
    if let Some(dying) = crate::confine::dying_memory_cgroups().filter(|n| *n >= DYING) {
        eprintln!(
            "warning: the kernel still holds {dying} memory cgroups that earlier runs removed \
             (the test suite leaves a few hundred for a while): every case's cgroup is slower \
             to make and remove until they are freed, and so are the figures (as root, \
             `sync; echo 3 > /proc/sys/vm/drop_caches` frees them at once)"
        );
    }
    match measure {
        Measure::Class(settings) => {
            let text = class::class(base, settings)?;
            let rows = vec![serde_json::json!({ "what": "class", "report": text })];
            Ok(Figures { text, rows })
        }
        Measure::Layers => layers(300, &base.cases_root),
        Measure::Hog => {
            let text = super::hog::hog(base)?;
            let rows = vec![serde_json::json!({ "what": "hog", "report": text })];
            Ok(Figures { text, rows })
        }
        Measure::OneCase => super::one_case::one_case(&base.cases_root, &base.reference),
        Measure::Overhead {
            reference_only,
            jobs,
            repeats,
        } => {
            let (programs, _folders) = programs(*reference_only, &base.reference)?;
            let mut figures = bench(base, &programs, jobs, *repeats)?;
            if !*reference_only {
                // Where a confined case's cost goes, layer by layer.
                let split = layers(300, &base.cases_root)?;
                figures.text += &split.text;
                figures.rows.extend(split.rows);
                // And what a check of one case costs above the program's own run.
                let one = super::one_case::one_case(&base.cases_root, &base.reference)?;
                figures.text += &one.text;
                figures.rows.extend(one.rows);
            }
            Ok(figures)
        }
    }
}

/// Writes `figures` as JSON into `path` (whole or not at all), with when they were measured.
pub fn write_json(figures: &Figures, path: &std::path::Path) -> Result<(), Error> {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let json = serde_json::json!({
        "schema": 2,
        "measured_at_unix": seconds,
        "cpus": crate::process::cpus(),
        "rows": figures.rows,
    });
    let text = serde_json::to_string_pretty(&json).map_err(|err| Error::Write(err.to_string()))?;
    crate::files::write_atomically(path, (text + "\n").as_bytes())
}

/// What `cargo xtask bench` measures: the reference over every suite and, unless
/// `reference_only`, a native program (a copy of the reference outside the checkout) and the
/// bundled Python solution of go over the go suite, each confined and not; and the temporary
/// folders that hold those copies for the time of the measurement.
pub(super) fn programs(
    reference_only: bool,
    reference: &std::path::Path,
) -> Result<(Vec<BenchProgram>, Vec<tempfile::TempDir>), Error> {
    let mut programs = vec![BenchProgram {
        label: "reference, every suite".into(),
        program: Program::Reference,
        spec: None,
        sandbox: false,
    }];
    let mut folders = Vec::new();
    if !reference_only {
        let (dir, native) = outside_checkout(reference, "gridjudge")?;
        folders.push(dir);
        let program = Program::Command(vec![native.into(), "go".into()]);
        for (label, sandbox) in [
            ("native program (go), confined", true),
            ("native program (go), --no-sandbox", false),
        ] {
            programs.push(BenchProgram {
                label: label.into(),
                program: program.clone(),
                spec: Some("go".into()),
                sandbox,
            });
        }
    }
    let mut folder = None;
    if !reference_only {
        if let Ok((dir, go)) = python_go() {
            folder = Some(dir);
            let program = Program::Command(vec!["python3".into(), go.into()]);
            for (label, sandbox) in [
                ("python3 go.py, confined", true),
                ("python3 go.py, --no-sandbox", false),
            ] {
                programs.push(BenchProgram {
                    label: label.into(),
                    program: program.clone(),
                    spec: Some("go".into()),
                    sandbox,
                });
            }
        }
    }
    folders.extend(folder);
    Ok((programs, folders))
}

/// Spawns the command on every input, `jobs` at a time, and waits for all of them.
fn raw_baseline(jobs: usize, runs: &[(Vec<OsString>, Vec<u8>)]) -> Result<Duration, Error> {
    let start = Instant::now();
    let spawned = crate::process::map(jobs, runs, |(argv, input)| -> Result<(), Error> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| Error::Measure(format!("baseline spawn failed: {err}")))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let input = input.clone();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let output = child
            .wait_with_output()
            .map_err(|err| Error::Measure(format!("baseline wait failed: {err}")))?;
        let _ = feeder.join();
        std::hint::black_box(output.stdout.len());
        Ok(())
    })?;
    let elapsed = start.elapsed();
    spawned.into_iter().collect::<Result<(), Error>>()?;
    Ok(elapsed)
}

/// Measures each program at each job count; returns the report.
pub(super) fn bench(
    base: &Options,
    programs: &[BenchProgram],
    jobs: &[usize],
    repeats: usize,
) -> Result<Figures, Error> {
    let suites = load_all(&base.cases_root)?;
    let floor = Floor::build()?;
    let mut report = format!("the floor: {}, stdout to /dev/null\n", floor.label);
    let mut rows = Vec::new();
    for measured in programs {
        let mut runs = Vec::new();
        let mut inputs: Vec<(Vec<OsString>, PathBuf)> = Vec::new();
        for suite in suites
            .iter()
            .filter(|s| measured.spec.as_ref().is_none_or(|spec| &s.name == spec))
        {
            let reference = suite.reference_target(&base.reference, &base.dir);
            let target = measured.program.target(reference, &base.dir);
            let argv: Vec<OsString> = std::iter::once(target.program).chain(target.args).collect();
            for case in discover(suite)?.into_iter().filter(|c| c.graded) {
                let input =
                    std::fs::read(&case.input).map_err(|err| Error::io(&case.input, err))?;
                runs.push((argv.clone(), input));
                inputs.push((argv.clone(), case.input.clone()));
            }
        }
        let mut per_jobs = Vec::new();
        for &n_jobs in jobs {
            let mut options = Options {
                spec: measured.spec.clone(),
                program: measured.program.clone(),
                jobs: n_jobs,
                ..base.clone()
            };
            options.confine.sandbox = measured.sandbox;
            let (mut harness, mut raw, mut external) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..repeats {
                let start = Instant::now();
                let run = check::check(&options, &|_| {})?;
                harness.push(start.elapsed());
                if !run.all_graded_passed() {
                    return Err(Error::Measure(format!(
                        "{} fails some cases: bench needs a passing target",
                        measured.label
                    )));
                }
                raw.push(raw_baseline(n_jobs, &runs)?);
                // One spawner per command line (the reference's differs per suite).
                let mut total = Duration::ZERO;
                let mut by_argv: Vec<(&Vec<OsString>, Vec<PathBuf>)> = Vec::new();
                for (argv, path) in &inputs {
                    match by_argv.iter_mut().find(|(a, _)| *a == argv) {
                        Some((_, paths)) => paths.push(path.clone()),
                        None => by_argv.push((argv, vec![path.clone()])),
                    }
                }
                for (argv, paths) in &by_argv {
                    total += floor.run(n_jobs, argv, paths)?;
                }
                external.push(total);
            }
            let (harness, raw, external) = (median(harness), median(raw), median(external));
            report += &format!(
                "{}: {} cases, --jobs {n_jobs}: harness {:.2} s; floor {:.2} s: {:.2}x; \
                 in-process spawn {:.2} s: {:.2}x; {:.0} cases/s\n",
                measured.label,
                runs.len(),
                harness.as_secs_f64(),
                external.as_secs_f64(),
                harness.as_secs_f64() / external.as_secs_f64(),
                raw.as_secs_f64(),
                harness.as_secs_f64() / raw.as_secs_f64(),
                runs.len() as f64 / harness.as_secs_f64()
            );
            rows.push(serde_json::json!({
                "what": measured.label,
                "cases": runs.len(),
                "jobs": n_jobs,
                "harness_s": harness.as_secs_f64(),
                "floor": floor.label,
                "floor_s": external.as_secs_f64(),
                "ratio_to_floor": harness.as_secs_f64() / external.as_secs_f64(),
                "in_process_spawn_s": raw.as_secs_f64(),
                "ratio_to_in_process_spawn": harness.as_secs_f64() / raw.as_secs_f64(),
                "repeats": repeats,
            }));
            per_jobs.push((n_jobs, runs.len() as f64 / harness.as_secs_f64()));
        }
        if let [(first_jobs, first), .., (last_jobs, last)] = per_jobs[..] {
            report += &format!(
                "{}: throughput at --jobs {last_jobs} is {:.2}x that at --jobs {first_jobs}\n",
                measured.label,
                last / first
            );
        }
    }
    Ok(Figures { text: report, rows })
}

/// The bundled Python solution of the go assignment, copied out of the checkout (which no
/// confined target may see) into a temporary folder of its own, removed with it.
pub(super) fn python_go() -> Result<(tempfile::TempDir, PathBuf), Error> {
    outside_checkout(&crate::workspace::root().join("xtask/bench/go.py"), "go.py")
}

/// The argument that makes the xtask binary the plain spawner of the benchmark.
pub const SPAWN_ARG: &str = "__spawn";

/// The plain fork/exec loop the harness is measured against, run as a process of its own:
/// `xtask __spawn JOBS LIST -- CMD...` runs CMD once per file named in LIST, with that file as
/// stdin and stdout to /dev/null, JOBS at a time, and nothing else.
pub fn spawn_main(args: &[OsString]) -> std::process::ExitCode {
    let (Some(jobs), Some(list), Some(command)) = (
        args.first().and_then(|j| j.to_str()?.parse::<usize>().ok()),
        args.get(1),
        args.get(3..).filter(|c| !c.is_empty()),
    ) else {
        eprintln!("usage: xtask __spawn JOBS LIST -- CMD...");
        return std::process::ExitCode::from(2);
    };
    let Ok(list) = std::fs::read_to_string(list) else {
        return std::process::ExitCode::from(2);
    };
    let inputs: Vec<&str> = list.lines().collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    crate::process::workers(jobs, || loop {
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(input) = inputs.get(k) else { return };
        let Ok(file) = std::fs::File::open(input) else {
            return;
        };
        let _ = Command::new(&command[0])
            .args(&command[1..])
            .stdin(file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    });
    std::process::ExitCode::SUCCESS
}

/// The plain spawner of the benchmark: the C fork/exec loop of `xtask/bench/spawn.c`, built by
/// the bench with the machine's C compiler, or, without one, this program's own `__spawn`
/// (said in the report).
pub(super) struct Floor {
    command: Vec<OsString>,
    pub label: &'static str,
    /// The folder of the C spawner (removed with the Floor); none for the fallback.
    dir: Option<tempfile::TempDir>,
}

impl Floor {
    /// Builds the C spawner into a temporary folder (removed with the Floor).
    pub(super) fn build() -> Result<Floor, Error> {
        let exe = std::env::current_exe().map_err(|err| Error::Measure(err.to_string()))?;
        let fallback = Floor {
            command: vec![exe.into(), SPAWN_ARG.into()],
            label: "xtask __spawn (no C compiler here)",
            dir: None,
        };
        let dir = tempfile::tempdir().map_err(|err| Error::Measure(err.to_string()))?;
        let source = dir.path().join("spawn.c");
        let binary = dir.path().join("spawn");
        std::fs::write(&source, include_str!("../../bench/spawn.c"))
            .map_err(|err| Error::io(&source, err))?;
        let compiler = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
        let built = Command::new(compiler)
            .args(["-O2", "-o"])
            .arg(&binary)
            .arg(&source)
            .stderr(Stdio::null())
            .status();
        if !built.is_ok_and(|status| status.success()) {
            return Ok(fallback);
        }
        Ok(Floor {
            command: vec![binary.into()],
            label: "a C fork/exec loop",
            dir: Some(dir),
        })
    }

    /// Runs `argv` over `inputs`, `jobs` at a time, as a process of its own; its wall time.
    fn run(&self, jobs: usize, argv: &[OsString], inputs: &[PathBuf]) -> Result<Duration, Error> {
        let list = tempfile::NamedTempFile::new().map_err(|err| Error::Measure(err.to_string()))?;
        let text: String = inputs
            .iter()
            .map(|p| format!("{}\n", p.display()))
            .collect();
        std::fs::write(list.path(), text).map_err(|err| Error::io(list.path(), err))?;
        let mut command = Command::new(&self.command[0]);
        command
            .args(&self.command[1..])
            .arg(jobs.to_string())
            .arg(list.path());
        // `xtask __spawn` takes `--` before the command; the C spawner does not.
        if self.dir.is_none() {
            command.arg("--");
        }
        let start = Instant::now();
        let status = command
            .args(argv)
            .status()
            .map_err(|err| Error::Measure(format!("the spawner did not start: {err}")))?;
        if !status.success() {
            return Err(Error::Measure(format!("the spawner failed ({status})")));
        }
        Ok(start.elapsed())
    }
}

/// The cost of each confinement layer: the mean time to run `true` once, sequentially, with
/// the layers switched on one after another; each layer's cost is its difference from the
/// line before.
pub(super) fn layers(runs: usize, cases_root: &std::path::Path) -> Result<Figures, Error> {
    use crate::confine::{Layers, Mode, Policy, Settings};
    use crate::process::{execute, Bounds};
    use crate::target::Target;
    let dir = tempfile::tempdir().map_err(|err| Error::Measure(err.to_string()))?;
    let program = Program::Command(vec!["true".into()]);
    let plain = Target::command(&["true".into()], dir.path());
    let (target, confined, _) = Policy::for_program(
        &program,
        &Settings::default(),
        crate::confine::ResourceLimits::default(),
        cases_root,
        &plain,
        crate::sandbox::available,
    )?;
    if confined.mode != Mode::Sandboxed {
        return Err(Error::Measure(
            "the sandbox is not available here: nothing to measure".into(),
        ));
    }
    let with = |mode: Mode, view_on, seccomp, landlock| Policy {
        mode,
        layers: Layers {
            view_on,
            seccomp,
            landlock,
            ..confined.layers.clone()
        },
        ..confined.clone()
    };
    let direct = |landlock| with(Mode::Direct, true, true, landlock);
    let sandboxed = |view_on, seccomp, landlock| with(Mode::Sandboxed, view_on, seccomp, landlock);
    let steps: Vec<(&str, Policy)> = vec![
        ("spawn, unconfined", Policy::trusted()),
        ("+ rlimits, environment, temporary folder", direct(false)),
        ("+ Landlock (without namespaces)", direct(true)),
        (
            "namespaces, uid and cgroup (helper)",
            sandboxed(false, false, false),
        ),
        ("+ the mount view", sandboxed(true, false, false)),
        ("+ seccomp", sandboxed(true, true, false)),
        ("+ Landlock: everything", sandboxed(true, true, true)),
    ];
    let bounds = Bounds {
        timeout: Duration::from_secs(10),
        wall: crate::process::backstop(Duration::from_secs(10)),
        asleep_after: None,
        stdout_cap: 1 << 20,
        stderr_cap: 4096,
    };
    let mut report = format!("mean time to run `true` once, {runs} runs each, one at a time:\n");
    let mut rows = Vec::new();
    let mut previous: Option<f64> = None;
    for (label, policy) in steps {
        // One run first: the helper starts (once per worker, not per case).
        let target = if policy.is_trusted() { &plain } else { &target };
        execute(target, b"", &bounds, &policy).map_err(|err| Error::Measure(err.to_string()))?;
        let start = Instant::now();
        for _ in 0..runs {
            execute(target, b"", &bounds, &policy)
                .map_err(|err| Error::Measure(err.to_string()))?;
        }
        let mean_ms = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
        let delta = match (label.starts_with('+'), previous) {
            (true, Some(before)) => format!(" ({:+.2} ms)", mean_ms - before),
            _ => String::new(),
        };
        report += &format!("  {label:<44} {mean_ms:6.2} ms{delta}\n");
        rows.push(serde_json::json!({ "what": label, "runs": runs, "mean_ms": mean_ms }));
        previous = Some(mean_ms);
    }
    Ok(Figures { text: report, rows })
}
