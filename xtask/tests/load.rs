//! Grades that do not move with the machine's load: time limits on the program's own CPU time,
//! a wall-clock backstop for programs that sleep, a starved case rerun alone, and a class
//! graded quietly and under self-made CPU load to the same bytes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::check;
use xtask::check::Options as CheckOptions;
use xtask::corpus::Shard;
use xtask::grade::{grade, Options};
use xtask::judge::Verdict;
use xtask::target::Program;

use crate::support::{both_ways, fixture, options, Busy, Corpus};

#[test]
fn a_program_that_burns_cpu_past_its_limit_is_a_timeout_by_cpu_time() {
    let corpus = Corpus::new(b"x\n", true);
    for mut options in both_ways(&corpus, "spin", Duration::from_millis(700)) {
        // The default backstop (3x + 2 s): a busy machine may slow the burner's CPU time down.
        options.wall = None;
        let run = check(&options).unwrap();
        let judgement = &run.results[0].judgement;
        assert_eq!(judgement.verdict, Verdict::Timeout, "{judgement:?}");
        let detail = judgement.detail.clone().unwrap_or_default();
        let sandboxed = options.confine.sandbox;
        assert!(
            detail.contains("the time limit is 0.7 s of CPU time; it used"),
            "sandboxed {sandboxed}: {detail} {:?}",
            judgement
                .execution
                .as_ref()
                .map(|e| (e.cpu_time, e.elapsed, e.timed_out))
        );
        let execution = judgement.execution.as_ref().unwrap();
        assert!(
            execution.cpu_time >= Duration::from_millis(700),
            "{execution:?}"
        );
    }
}

#[test]
fn a_program_that_sleeps_past_the_wall_backstop_is_a_timeout() {
    let corpus = Corpus::new(b"x\n", true);
    for mut options in both_ways(&corpus, "sleep", Duration::from_millis(500)) {
        options.wall = Some(Duration::from_millis(1500));
        let run = check(&options).unwrap();
        let judgement = &run.results[0].judgement;
        assert_eq!(judgement.verdict, Verdict::Timeout, "{judgement:?}");
        let detail = judgement.detail.clone().unwrap_or_default();
        assert!(detail.contains("sleeps or waits"), "{detail}");
        assert!(judgement.execution.as_ref().unwrap().wall_stopped);
    }
}

/// By default a confined case that neither runs nor waits for a CPU, its input all written, is
/// stopped once idle for [`xtask::check`]'s idle span (2 s, or its time limit if shorter), not
/// at the backstop: it sleeps, and no load of the machine makes a case look like that (a
/// starved one waits for a CPU). A direct target, whose children the harness cannot count,
/// still waits for the backstop.
#[test]
fn a_program_that_sleeps_is_stopped_as_hung_once_idle() {
    let corpus = Corpus::new(b"x\n", true);
    let timeout = Duration::from_millis(500);
    for mut options in both_ways(&corpus, "sleep", timeout) {
        options.wall = None;
        let run = check(&options).unwrap();
        let judgement = &run.results[0].judgement;
        assert_eq!(judgement.verdict, Verdict::Timeout, "{judgement:?}");
        let detail = judgement.detail.clone().unwrap_or_default();
        let execution = judgement.execution.as_ref().unwrap();
        assert!(execution.wall_stopped);
        let backstop = xtask::process::backstop(timeout);
        if options.confine.sandbox {
            assert_eq!(execution.idle_stopped, Some(timeout), "{execution:?}");
            assert!(
                detail.starts_with("no CPU and no output for 0.5 s, its input all written"),
                "{detail}"
            );
            assert!(detail.contains("stopped as hung"), "{detail}");
            assert!(execution.elapsed < backstop, "{execution:?}");
        } else {
            assert!(detail.contains("sleeps or waits"), "{detail}");
            assert_eq!(execution.idle_stopped, None);
            assert!(execution.elapsed >= backstop, "{execution:?}");
        }
    }
}

/// The confined check of the fixture in `mode` on `corpus` (a 10 s limit) with an idle span of
/// `idle`; `None`, saying the test skipped, where cases cannot be confined.
fn confined_idle(corpus: &Corpus, mode: &str, idle: Duration) -> Option<CheckOptions> {
    if let Err(why) = xtask::sandbox::available() {
        eprintln!("skipped: the idle span is measured for confined cases only: {why}");
        return None;
    }
    let mut options = both_ways(corpus, mode, Duration::from_secs(10)).remove(1);
    options.idle = Some(idle);
    Some(options)
}

/// A confined case that starts one short process after another, each sleeping (a shell script
/// waiting on one command after another, or a version manager's shim under a busy machine, whose
/// processes' waits for a CPU end with them), is not idle: it ends on its own and passes.
#[test]
fn a_program_that_starts_process_after_process_is_not_hung() {
    let corpus = Corpus::new(b"x\n", true);
    let Some(mut options) = confined_idle(&corpus, "relay", Duration::from_millis(500)) else {
        return;
    };
    options.wall = None;
    let run = check(&options).unwrap();
    let judgement = &run.results[0].judgement;
    assert!(judgement.verdict.passed(), "{judgement:?}");
    let execution = judgement.execution.as_ref().unwrap();
    assert!(
        execution.elapsed >= Duration::from_millis(1500),
        "each of its 15 processes sleeps 0.1 s: {execution:?}"
    );
}

/// `--idle` sets the span, and holds with a `--wall` given too (without it, a given `--wall` is
/// how long a program may sleep).
#[test]
fn the_idle_span_is_settable() {
    let corpus = Corpus::new(b"x\n", true);
    let Some(mut options) = confined_idle(&corpus, "sleep", Duration::from_millis(700)) else {
        return;
    };
    options.wall = Some(Duration::from_secs(30));
    let run = check(&options).unwrap();
    let judgement = &run.results[0].judgement;
    assert_eq!(judgement.verdict, Verdict::Timeout, "{judgement:?}");
    let execution = judgement.execution.as_ref().unwrap();
    assert_eq!(execution.idle_stopped, Some(Duration::from_millis(700)));
    let detail = judgement.detail.clone().unwrap_or_default();
    assert!(
        detail.starts_with("no CPU and no output for 0.7 s"),
        "{detail}"
    );
    assert!(execution.elapsed < Duration::from_secs(30), "{execution:?}");
}

/// A case gone idle gives its CPU seat to the next while it waits out the idle span: with one
/// job, a submission that sleeps on every case has several of them asleep side by side (one
/// after another, each would cost its class the whole span). Only one of them is ever seen
/// when a case runs alone.
#[test]
fn hung_cases_wait_out_the_idle_span_side_by_side() {
    let corpus = Corpus::new(b"x\n", true);
    let Some(sleeper) = confined_idle(&corpus, "sleep", Duration::from_millis(1500)) else {
        return;
    };
    let most_at_once = |cases: usize| {
        for k in 2..=cases {
            corpus.add(&format!("00{k}-case"), b"x\n", b"x\n");
        }
        let marker = format!("side-by-side-{}-{cases}", std::process::id());
        let mut options = sleeper.clone();
        options.jobs = 1;
        if let Program::Command(argv) = &mut options.program {
            argv.push(marker.clone().into());
        }
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let watcher = scope.spawn(|| {
                let mut most = 0;
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    most = most.max(crate::support::survivors(&marker).len());
                    std::thread::sleep(Duration::from_millis(10));
                }
                most
            });
            let run = check(&options).unwrap();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(run.results.len(), cases);
            for result in &run.results {
                let execution = result.judgement.execution.as_ref().unwrap();
                assert!(execution.idle_stopped.is_some(), "{execution:?}");
            }
            watcher.join().unwrap()
        })
    };
    assert_eq!(most_at_once(1), 1, "one case is one process");
    let most = most_at_once(4);
    assert!(
        most >= 2,
        "the hung cases ran one after another ({most} at most at once)"
    );
}

/// The pid of the first process whose command line holds `marker`.
fn find(marker: &str) -> Option<i32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(marker)
                .then_some(pid)
        })
}

/// A case the machine starves is stopped at the backstop having used little CPU while it
/// waited for one: it runs again, alone, and gets the verdict of that run, not a timeout. The
/// test starves it for real: CPU-bound processes keep both cores busy and the case's process is
/// moved to `SCHED_IDLE`, so that it gets a CPU only when nothing else wants one.
#[test]
fn a_starved_case_is_rerun_alone() {
    let corpus = Corpus::new(b"x\n", true);
    // `burn` echoes its input after 200 ms of CPU time.
    std::fs::write(corpus.expected_path(), "x\n").unwrap();
    let marker = format!("starve-{}", std::process::id());
    let mut options = options(&corpus, "burn", Duration::from_secs(1));
    // Room for the rerun to finish its 200 ms of CPU however many busy loops (these tests'
    // own, run side by side) share the cores with it.
    let wall = Duration::from_secs(8);
    options.wall = Some(wall);
    options.jobs = 1;
    if let Program::Command(argv) = &mut options.program {
        argv.push(marker.clone().into());
    }
    let _busy = Busy::start(3);
    let starver = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(pid) = find(&marker) {
                let param = libc::sched_param { sched_priority: 0 };
                // SAFETY: sched_setscheduler reads `param`; the process is the case this test
                // started, run as this test's own user.
                return unsafe { libc::sched_setscheduler(pid, libc::SCHED_IDLE, &param) } == 0;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    });
    let start = Instant::now();
    let run = check(&options).unwrap();
    let elapsed = start.elapsed();
    assert!(starver.join().unwrap(), "the case was never seen running");
    let judgement = &run.results[0].judgement;
    assert_eq!(judgement.verdict, Verdict::Pass, "{judgement:?}");
    assert!(elapsed >= wall, "no rerun: {elapsed:?}");
}

/// A class whose programs are right, wrong, and right but CPU-hungry (200 ms each case,
/// within a 500 ms CPU limit that a busy machine stretches well past in wall time).
fn class(dir: &Path) -> impl Fn(&str, Option<Shard>) -> Options + '_ {
    crate::support::echo_class(dir, &["echo", "shout", "burn", "burn", "echo", "abort"]);
    // `burn` prints the expected output: its cases expect their input back.
    move |out: &str, shard: Option<Shard>| Options {
        check: CheckOptions {
            jobs: 2,
            timeout: Some(Duration::from_millis(500)),
            ..CheckOptions::new(
                dir.join("cases"),
                PathBuf::from("/nonexistent/reference"),
                PathBuf::new(),
            )
        },
        spec: "echo".into(),
        submissions: dir.join("class"),
        run: vec![fixture(), "by-folder".into()],
        build: Vec::new(),
        out: dir.join(out),
        shard,
        force: false,
        dry_run: false,
        gradescope: None,
        html: false,
    }
}

fn grade_files(out: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(out.join("grades.csv")).unwrap(),
        std::fs::read(out.join("grades.json")).unwrap(),
    )
}

/// The same class graded on a quiet machine and on one running three CPU-bound processes per
/// core gives byte-identical grades, and so do shards graded under load and merged.
#[test]
fn the_same_class_gets_the_same_grades_on_a_busy_machine() {
    let dir = tempfile::tempdir().unwrap();
    let options = class(dir.path());
    grade(&options("quiet", None), &|_| {}).unwrap();
    let quiet = grade_files(&dir.path().join("quiet"));
    let quiet_text = String::from_utf8_lossy(&quiet.0).into_owned();
    assert!(
        quiet_text.contains("\ns02,10.00"),
        "burn passes: {quiet_text}"
    );
    let busy = Busy::start(3);
    grade(&options("loaded", None), &|_| {}).unwrap();
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let name = format!("shard-{k}");
            let shard = Shard { index: k, count: 2 };
            grade(&options(&name, Some(shard)), &|_| {}).unwrap();
            dir.path().join(name).join("grades.json")
        })
        .collect();
    drop(busy);
    assert_eq!(
        grade_files(&dir.path().join("loaded")),
        quiet,
        "{quiet_text}"
    );
    xtask::report::merge(&shards, &dir.path().join("merged"), false).unwrap();
    assert_eq!(grade_files(&dir.path().join("merged")), quiet);
}
