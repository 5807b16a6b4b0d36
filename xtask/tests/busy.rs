//! A machine far busier than it has cores: twenty busy loops per core, each in a session of
//! its own. It would starve the tests running beside it, so it runs alone: ignored by a plain
//! `cargo test`, and run by itself with `cargo test -p xtask --test tests -- --ignored
//! busy::` (`.ci/run` does).

use std::path::Path;
use std::time::Duration;

use crate::support::{both_ways, check, Busy, Corpus};
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
