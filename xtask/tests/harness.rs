//! The harness against a fixture program that misbehaves on purpose: every misbehaviour gets
//! its verdict, within the timeout plus a margin, and leaves no process behind.

use std::time::{Duration, Instant};

use crate::support::check;
use xtask::judge::Verdict;

use crate::support::{options, Corpus};

const TIMEOUT: Duration = Duration::from_secs(2);
/// Generous: the bound checks that nothing hangs, not how fast things are.
const MARGIN: Duration = Duration::from_secs(5);

fn verdict_of(mode: &str, input: &[u8], grade_exit_status: bool) -> (Verdict, Option<String>) {
    let corpus = Corpus::new(input, grade_exit_status);
    let start = Instant::now();
    let run = check(&options(&corpus, mode, TIMEOUT)).unwrap();
    let elapsed = start.elapsed();
    assert!(
        elapsed < xtask::process::backstop(TIMEOUT) + MARGIN,
        "{mode}: took {elapsed:?}"
    );
    assert_eq!(run.results.len(), 1);
    let result = &run.results[0];
    (
        result.judgement.verdict,
        result
            .judgement
            .difference
            .as_ref()
            .map(|d| d.cause.clone()),
    )
}

#[test]
fn each_misbehaviour_gets_its_verdict() {
    let table = [
        ("right", Verdict::Pass, None),
        ("wrong", Verdict::WrongOutput, Some("a line differs")),
        (
            "trailing-space",
            Verdict::PresentationError,
            Some("a line has extra trailing spaces"),
        ),
        (
            "crlf",
            Verdict::PresentationError,
            Some("lines end in CRLF (\\r\\n) instead of \\n"),
        ),
        (
            "no-final-newline",
            Verdict::PresentationError,
            Some("the final newline is missing"),
        ),
        ("exit-1", Verdict::ExitStatus, None),
        // A crash is a runtime error, its own verdict, whatever the suite grades.
        ("crash", Verdict::RuntimeError, Some("a line differs")),
        ("signal", Verdict::RuntimeError, Some("a line differs")),
        (
            "sleep",
            Verdict::Timeout,
            Some("the output ends before the expected end"),
        ),
        ("flood", Verdict::OutputLimit, Some("a line differs")),
        (
            "exit-early",
            Verdict::WrongOutput,
            Some("the output ends before the expected end"),
        ),
        ("non-utf8", Verdict::WrongOutput, Some("a line differs")),
        ("no-read", Verdict::Pass, None),
        ("orphan", Verdict::Pass, None),
    ];
    for (mode, verdict, cause) in table {
        let got = verdict_of(mode, b"9\n..B\n", true);
        assert_eq!(got, (verdict, cause.map(String::from)), "{mode}");
    }
}

#[test]
fn a_non_zero_exit_passes_where_the_suite_does_not_grade_it() {
    assert_eq!(verdict_of("exit-1", b"x\n", false).0, Verdict::Pass);
    assert_eq!(
        verdict_of("crash", b"x\n", false).0,
        Verdict::RuntimeError,
        "a signal always counts"
    );
}

#[test]
fn targets_that_never_read_a_large_input_are_judged_normally() {
    let input = vec![b'.'; 8 << 20];
    assert_eq!(verdict_of("no-read", &input, true).0, Verdict::Pass);
    assert_eq!(
        verdict_of("exit-early", &input, true).0,
        Verdict::WrongOutput
    );
}

/// Processes whose command line is exactly `sleep 3600`, as the orphan fixture starts.
fn orphaned_sleepers() -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
        .filter(|cmdline| cmdline == b"sleep\x003600\x00")
        .count()
}

#[test]
fn a_child_that_keeps_the_pipes_open_is_killed_with_its_parent() {
    let corpus = Corpus::new(b"x\n", true);
    let start = Instant::now();
    let run = check(&options(&corpus, "orphan", Duration::from_secs(60))).unwrap();
    assert!(
        start.elapsed() < MARGIN,
        "waited {:?} for the orphan",
        start.elapsed()
    );
    assert_eq!(run.results[0].judgement.verdict, Verdict::Pass);
    // Give the kernel a moment to reap the killed child.
    for _ in 0..50 {
        if orphaned_sleepers() == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the orphaned `sleep 3600` survived its case");
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let corpus = Corpus::new(b"x\n", true);
    let run = check(&options(&corpus, "sleep", Duration::from_millis(300))).unwrap();
    let result = &run.results[0];
    assert_eq!(result.judgement.verdict, Verdict::Timeout);
    assert!(result.judgement.elapsed >= Duration::from_millis(300));
}

#[test]
fn cases_run_in_parallel_and_report_in_path_order() {
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=9 {
        corpus.add(
            &format!("00{k}-case"),
            b"x\n",
            crate::support::EXPECTED.as_bytes(),
        );
    }
    let run = check(&options(&corpus, "right", Duration::from_secs(5))).unwrap();
    let names: Vec<&str> = run.results.iter().map(|r| r.case.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 9);
    assert!(run.all_graded_passed());
}

#[test]
fn fail_fast_skips_what_is_left() {
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=9 {
        corpus.add(&format!("00{k}-case"), b"x\n", b"something else\n");
    }
    let mut opts = options(&corpus, "right", Duration::from_secs(5));
    opts.jobs = 1;
    opts.fail_fast = true;
    let run = check(&opts).unwrap();
    let skipped = run
        .results
        .iter()
        .filter(|r| r.judgement.verdict == Verdict::Skipped)
        .count();
    assert_eq!(skipped, 7, "001 passes, 002 fails, the rest are skipped");
}

#[test]
fn check_shards_split_the_cases_without_overlap() {
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=9 {
        corpus.add(
            &format!("00{k}-case"),
            b"x\n",
            crate::support::EXPECTED.as_bytes(),
        );
    }
    let mut seen = Vec::new();
    for index in 1..=3 {
        let mut opts = options(&corpus, "right", Duration::from_secs(5));
        opts.shard = Some(xtask::corpus::Shard { index, count: 3 });
        let run = check(&opts).unwrap();
        seen.extend(run.results.iter().map(|r| r.case.id()));
    }
    seen.sort();
    let before = seen.len();
    seen.dedup();
    assert_eq!(
        (before, seen.len()),
        (9, 9),
        "each case in exactly one shard"
    );
}

/// A program that segfaults on every case, printing nothing, did start: each case is a
/// runtime error that names the signal, not "could not run"; and nothing suggests a lost
/// buffer, since the harness did not kill it.
#[test]
fn a_program_that_segfaults_everywhere_is_a_named_crash_not_could_not_run() {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-case", b"y\n", crate::support::EXPECTED.as_bytes());
    let run = check(&options(&corpus, "segfault", TIMEOUT)).expect("a crash is a verdict");
    for result in &run.results {
        let judgement = &result.judgement;
        assert_eq!(judgement.verdict, Verdict::RuntimeError);
        let detail = judgement.detail.clone().unwrap_or_default();
        assert!(
            detail.contains("killed by SIGSEGV (segmentation fault)"),
            "{detail}"
        );
        assert!(!detail.contains("flush"), "{detail}");
    }
}
