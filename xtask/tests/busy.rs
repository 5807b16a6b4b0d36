//! A machine far busier than it has cores: twenty busy loops per core, each in a session of
//! its own. It would starve the tests running beside it, so it runs alone: ignored by a plain
//! `cargo test`, and run by itself with `cargo test -- --ignored busy::` (`.ci/run` does:
//! the test binaries `cargo test` built, none compiled again).

use std::path::Path;
use std::time::Duration;

use crate::support::{both_ways, check, Busy, Corpus};

/// Taken by each test here for its whole run: twenty busy loops per core are what each
/// measures under, not forty.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
use xtask::check::Options as CheckOptions;
use xtask::judge::Verdict;
use xtask::target::Program;

/// Under twenty busy loops per core, each in a session of its own, which the harness itself
/// shares the cores with: the
/// correct Python solution of go passes every case of the suite, confined (no case looks hung
/// or starved, and none is left not judged); an endless loop is a timeout by its own CPU time
/// (the backstop waits while the machine keeps it waiting); a sleeping program is hung.
#[test]
#[ignore = "it starves the tests beside it: run alone, `-- --ignored busy::`"]
fn twenty_busy_loops_a_core_decide_no_verdict() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Err(why) = xtask::sandbox::available() {
        eprintln!("skipped: activity is measured for confined cases only: {why}");
        return;
    }
    if !xtask::target::on_path(&"python3".into()) {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    crate::support::share(folder.path());
    let program = folder.path().join("go.py");
    let source = xtask::workspace::root().join("xtask/bench/go.py");
    std::fs::copy(source, &program).unwrap();
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut correct =
        CheckOptions::new(cases, "/nonexistent/reference".into(), folder.path().into());
    correct.spec = Some("go".into());
    correct.program = Program::Command(vec!["python3".into(), program.into()]);
    let corpus = Corpus::new(b"x\n", true);
    let confined = |mode: &str| {
        let mut options = both_ways(&corpus, mode, Duration::from_secs(1)).remove(1);
        options.wall = None;
        options
    };
    let (spin, sleep) = (confined("spin"), confined("sleep"));

    let busy = Busy::spawn(20, true);
    let run = check(&correct).unwrap();
    let spun = check(&spin).unwrap();
    let slept = check(&sleep).unwrap();
    drop(busy);

    let totals = run.totals();
    let failing: Vec<String> = run
        .results
        .iter()
        .filter(|r| r.case.graded && !r.judgement.verdict.passed())
        .map(|r| {
            format!(
                "{}: {:?} {:?}",
                r.case.id(),
                r.judgement.verdict,
                r.judgement.detail
            )
        })
        .collect();
    assert_eq!((totals.failed, totals.unjudged), (0, 0), "{failing:#?}");
    assert!(totals.passed >= 120, "{totals:?}");
    let spun = &spun.results[0].judgement;
    assert_eq!(spun.verdict, Verdict::Timeout, "{spun:?}");
    let execution = spun.execution.as_ref().unwrap();
    assert!(
        execution.cpu_time >= Duration::from_secs(1),
        "{execution:?}"
    );
    let slept = &slept.results[0].judgement;
    assert_eq!(slept.verdict, Verdict::Timeout, "{slept:?}");
    assert!(
        slept.execution.as_ref().unwrap().idle_stopped.is_some(),
        "{slept:?}"
    );
}

/// Under twenty busy loops per core, `--jobs 2` is kept: endless loops on every case, each
/// only waiting for a CPU most of the time, never run in more than 2 cases at once (sampled
/// from `/proc`, a case's processes counted once by its PID namespace), since a case gives up
/// its seat only while none of its processes is runnable; each is a timeout by its own CPU
/// time. A case that waited for a CPU once looked quiet and
/// gave its seat away, and the busier the machine the more loops ran.
#[test]
#[ignore = "it starves the tests beside it: run alone, `-- --ignored busy::`"]
fn jobs_are_kept_under_twenty_busy_loops_a_core() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Err(why) = xtask::sandbox::available() {
        eprintln!("skipped: activity is measured for confined cases only: {why}");
        return;
    }
    if !xtask::target::on_path(&"python3".into()) {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    crate::support::share(folder.path());
    // A name of its own: the processes sampled are this test's loops and no others.
    let marker = format!("seats-{}.py", std::process::id());
    let program = folder.path().join(&marker);
    std::fs::write(&program, "while True:\n    pass\n").unwrap();
    let corpus = Corpus::new(b"x\n", true);
    for n in 2..=6 {
        corpus.add(
            &format!("{n:03}-case"),
            b"x\n",
            crate::support::EXPECTED.as_bytes(),
        );
    }
    let mut options = CheckOptions::new(
        corpus.root().to_path_buf(),
        crate::support::reference().into(),
        folder.path().into(),
    );
    options.spec = Some("demo".into());
    options.program = Program::Command(vec!["python3".into(), program.into()]);
    options.jobs = 2;
    options.timeout = Some(Duration::from_millis(500));

    let busy = Busy::spawn(20, true);
    let done = std::sync::atomic::AtomicBool::new(false);
    let (run, most) = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(crate::support::cases_alive(&marker));
                std::thread::sleep(Duration::from_millis(5));
            }
            most
        });
        let run = check(&options).unwrap();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (run, sampler.join().unwrap())
    });
    drop(busy);

    assert_eq!(run.results.len(), 6);
    for result in &run.results {
        let judgement = &result.judgement;
        assert_eq!(judgement.verdict, Verdict::Timeout, "{judgement:?}");
        let execution = judgement.execution.as_ref().unwrap();
        assert!(
            execution.cpu_time >= Duration::from_millis(500),
            "{execution:?}"
        );
    }
    assert!(most >= 1, "no case was seen running");
    assert!(most <= 2, "{most} cases ran loops at once under --jobs 2");
}
