//! The hostile suite: programs that attack the harness, the corpus or the machine, run with the
//! sandbox and limits on. Each gets its verdict within its limit plus a margin, the corpus is
//! unchanged afterwards, and no process of it survives.

use std::path::Path;
use std::time::{Duration, Instant};

use xtask::check::{check, Options};
use xtask::limits::ResourceLimits;
use xtask::outcome::Verdict;
use xtask::target::Program;

use crate::support::{fixture, options, Corpus, EXPECTED};

const MARGIN: Duration = Duration::from_secs(5);

/// Every file of the corpus with its contents, to compare before and after.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Processes still running whose command line mentions `marker`.
fn survivors(marker: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let state = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let zombie = state.rsplit(") ").next()?.starts_with('Z');
            (text.contains(marker) && !zombie).then_some(text)
        })
        .collect()
}

fn hostile_options(corpus: &Corpus, mode: &str, expected_arg: &Path) -> Options {
    let mut options = options(corpus, mode, Duration::from_secs(10));
    options.confine.sandbox = true;
    options.confine.limits = ResourceLimits {
        cpu: Some(Duration::from_secs(1)),
        memory: Some(256 << 20),
        processes: Some(64),
        file_size: Some(16 << 20),
        open_files: Some(128),
    };
    options.program = Program::Command(vec![fixture(), mode.into(), expected_arg.into()]);
    options
}

/// Runs `mode` confined; returns the verdict, its detail and the time to the verdict.
fn run_hostile(
    mode: &str,
    expected_outside: bool,
    timeout: Duration,
) -> (Verdict, String, Duration) {
    let corpus = Corpus::new(b"x\n", true);
    let outside = tempfile::tempdir().unwrap();
    let copy = outside.path().join("expected.out");
    std::fs::write(&copy, EXPECTED).unwrap();
    let expected_arg = if expected_outside {
        copy
    } else {
        corpus.expected_path()
    };
    let mut options = hostile_options(&corpus, mode, &expected_arg);
    options.timeout = Some(timeout);
    let before = snapshot(corpus.root());
    let start = Instant::now();
    let run = check(&options).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(
        snapshot(corpus.root()),
        before,
        "{mode}: the corpus changed"
    );
    // The cases' processes are gone once check returns; give the kernel a moment to reap.
    let marker = expected_arg.display().to_string();
    let mut left = survivors(&marker);
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = survivors(&marker);
    }
    assert!(left.is_empty(), "{mode}: processes survived: {left:?}");
    let result = &run.results[0];
    eprintln!(
        "{mode}: {} in {:.2} s ({})",
        result.judgement.verdict,
        elapsed.as_secs_f64(),
        result.judgement.detail.clone().unwrap_or_default()
    );
    (
        result.judgement.verdict,
        result.judgement.detail.clone().unwrap_or_default(),
        elapsed,
    )
}

fn sandbox_available() -> bool {
    xtask::confine::landlock_version() > 0
}

#[test]
fn reading_the_expected_output_is_denied_and_reported() {
    assert!(
        sandbox_available(),
        "this machine's kernel has Landlock; the hostile suite needs it"
    );
    let (verdict, detail, elapsed) = run_hostile("read-corpus", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::WrongOutput);
    assert!(detail.contains("the sandbox denied an access"), "{detail}");
    assert!(elapsed < MARGIN);
}

#[test]
fn writing_into_the_corpus_is_blocked() {
    let (verdict, detail, _) = run_hostile("write-corpus", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::WrongOutput);
    assert!(detail.contains("the sandbox denied an access"), "{detail}");
}

#[test]
fn a_fork_bomb_is_contained() {
    let (verdict, _, elapsed) = run_hostile("fork-bomb", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::ProcessLimit);
    assert!(elapsed < Duration::from_secs(10) + MARGIN);
}

#[test]
fn allocating_10_gib_hits_the_memory_limit() {
    let (verdict, detail, elapsed) = run_hostile("allocate", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::MemoryLimit, "{detail}");
    assert!(elapsed < MARGIN);
}

#[test]
fn an_endless_loop_hits_the_cpu_limit() {
    let (verdict, _, elapsed) = run_hostile("spin", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::CpuLimit);
    assert!(elapsed < Duration::from_secs(2) + MARGIN);
}

#[test]
fn a_daemon_holding_stdout_is_killed_with_its_case() {
    let (verdict, _, elapsed) = run_hostile("daemon", true, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::Pass);
    assert!(elapsed < MARGIN);
}

#[test]
fn ignoring_sigterm_does_not_outlive_the_timeout() {
    let (verdict, _, elapsed) = run_hostile("ignore-term", false, Duration::from_secs(2));
    assert_eq!(verdict, Verdict::Timeout);
    assert!(elapsed < Duration::from_secs(2) + MARGIN);
}

#[test]
fn a_10_gib_file_hits_the_file_size_limit() {
    let (verdict, _, elapsed) = run_hostile("big-file", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::FileSizeLimit);
    assert!(elapsed < MARGIN);
}

#[test]
fn opening_thousands_of_files_hits_the_open_files_limit() {
    let (verdict, _, elapsed) = run_hostile("many-files", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::OpenFilesLimit);
    assert!(elapsed < MARGIN);
}

#[test]
fn an_interpreted_program_runs_in_the_sandbox() {
    // The usual student program: python3 found through PATH, reading its standard library.
    let corpus = Corpus::new(b"x\n", true);
    let script = tempfile::tempdir().unwrap();
    std::fs::write(
        script.path().join("prog.py"),
        format!("import sys, json\nsys.stdin.read()\nsys.stdout.write({EXPECTED:?})\n"),
    )
    .unwrap();
    let mut options = options(&corpus, "unused", Duration::from_secs(20));
    options.confine.sandbox = true;
    options.dir = script.path().to_path_buf();
    options.program = Program::Command(vec!["python3".into(), "prog.py".into()]);
    let run = check(&options).unwrap();
    let result = &run.results[0];
    let stderr = result
        .judgement
        .execution
        .as_ref()
        .map(|e| String::from_utf8_lossy(&e.stderr).into_owned());
    assert_eq!(result.judgement.verdict, Verdict::Pass, "{stderr:?}");
}

#[test]
fn fuzz_confines_its_target_like_check() {
    if !sandbox_available() {
        eprintln!("skipped: this kernel has no Landlock, so the sandbox cannot deny the read");
        return;
    }
    let corpus_file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cases/go/handout")
        .read_dir()
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "out"))
        .unwrap();
    let before = std::fs::read(&corpus_file).unwrap();
    let mut options = crate::support::fuzz_options(
        "go",
        vec![fixture(), "read-corpus".into(), corpus_file.clone().into()],
        Path::new("/nonexistent/reference"),
        xtask::fuzz::Budget::Runs(4),
        1,
    );
    options.max_shrink_runs = 5;
    match xtask::fuzz::fuzz(&options, &|_| {}).unwrap() {
        xtask::fuzz::Outcome::Found(found) => {
            let detail = found.judgement.detail.unwrap_or_default();
            assert!(detail.contains("sandbox denied"), "{detail}");
        }
        xtask::fuzz::Outcome::Clean { .. } => panic!("the target read the corpus unhindered"),
    }
    assert_eq!(std::fs::read(&corpus_file).unwrap(), before);
}
