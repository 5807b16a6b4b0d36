//! The hostile suite: programs that attack the harness, the corpus or the machine, run with the
//! sandbox and limits on. Each gets its verdict within its limit plus a margin, the corpus is
//! unchanged afterwards, and no process of it survives.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::check;
use xtask::check::Options;
use xtask::confine::ResourceLimits;
use xtask::judge::Verdict;
use xtask::target::Program;

use crate::support::{fixture, options, survivors, Corpus, EXPECTED};

pub(crate) const MARGIN: Duration = Duration::from_secs(5);

/// What the `attacks` fixture prints when confinement holds: each attack it tries, blocked.
pub(crate) fn all_attacks_blocked() -> String {
    [
        "read-checkout",
        "exec-from-checkout",
        "chmod-binary",
        "read-corpus",
        "chmod-corpus",
        "chown-corpus",
        "prlimit-others",
        "signal-harness",
        "raw-socket",
        "keyring",
        "dev-tty",
        "mount",
        "ptrace",
        "clone-new-namespaces",
        "clone3",
        "io-uring",
        "widen-affinity",
        "x32-syscall",
        "pid1-cmdline",
        "harness-environ",
        "tcp-to-host",
        "write-outside-temp",
    ]
    .iter()
    .map(|n| format!("{n}: blocked\n"))
    .collect()
}

/// Every file and folder of the corpus with its contents, mode and owner, to compare before
/// and after.
pub(crate) fn snapshot(root: &Path) -> Vec<(String, Vec<u8>, u32, u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let mut files: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let meta = e.metadata().unwrap();
            let bytes = if meta.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            let path = e.path().display().to_string();
            (path, bytes, meta.mode(), meta.uid(), meta.gid())
        })
        .collect();
    files.sort();
    files
}

pub(crate) fn hostile_options(corpus: &Corpus, mode: &str, expected_arg: &Path) -> Options {
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
pub(crate) fn run_hostile(
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
    options.wall = Some(timeout + Duration::from_secs(1));
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

pub(crate) fn sandbox_available() -> bool {
    xtask::confine::version() > 0
}

#[test]
fn reading_the_expected_output_is_denied_and_reported() {
    assert!(
        sandbox_available(),
        "this machine's kernel has Landlock; the hostile suite needs it"
    );
    let (verdict, detail, elapsed) = run_hostile("read-corpus", false, Duration::from_secs(10));
    // The program dies on the denied read: a runtime error.
    assert_eq!(verdict, Verdict::RuntimeError);
    assert!(detail.contains("the sandbox denied an access"), "{detail}");
    assert!(elapsed < MARGIN);
}

#[test]
fn writing_into_the_corpus_is_blocked() {
    let (verdict, detail, _) = run_hostile("write-corpus", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::RuntimeError);
    assert!(detail.contains("the sandbox denied an access"), "{detail}");
}

#[test]
fn a_fork_bomb_is_contained() {
    let (verdict, _, elapsed) = run_hostile("fork-bomb", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::ProcessLimit);
    assert!(elapsed < xtask::process::backstop(Duration::from_secs(10)) + MARGIN);
}

#[test]
fn allocating_10_gib_hits_the_memory_limit() {
    let (verdict, detail, elapsed) = run_hostile("allocate", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::MemoryLimit, "{detail}");
    assert!(elapsed < MARGIN);
}

#[test]
fn an_endless_loop_hits_the_cpu_limit() {
    let (verdict, detail, elapsed) = run_hostile("spin", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::CpuLimit);
    // The limit that applied and the CPU time used, apart.
    assert!(
        detail.starts_with("the CPU limit (--cpu, or the suite's [limits] cpu) is 1.0 s, below the time limit of 10.0 s; it used "),
        "{detail}"
    );
    assert!(elapsed < xtask::process::backstop(Duration::from_secs(2)) + MARGIN);
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
    assert!(elapsed < xtask::process::backstop(Duration::from_secs(2)) + MARGIN);
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
        xtask::tools::Budget::Runs(4),
        1,
    );
    options.max_shrink_runs = 5;
    match xtask::tools::fuzz(&options, &|_| {}).unwrap() {
        xtask::tools::Outcome::Found(found) => {
            let detail = found.judgement.detail.unwrap_or_default();
            assert!(detail.contains("sandbox denied"), "{detail}");
        }
        xtask::tools::Outcome::Clean { .. } => panic!("the target read the corpus unhindered"),
    }
    assert_eq!(std::fs::read(&corpus_file).unwrap(), before);
}

/// A corpus `demo` whose one case expects `expected`, and options that run the fixture in
/// `mode` with `args` on it, confined, with the hostile suite's limits.
pub(crate) fn attack(mode: &str, args: &[OsString], expected: &str) -> (Corpus, Options) {
    let corpus = Corpus::new(b"x\n", true);
    std::fs::write(corpus.expected_path(), expected).unwrap();
    let mut options = hostile_options(&corpus, mode, Path::new("unused"));
    let mut argv = vec![fixture(), mode.into()];
    argv.extend(args.iter().cloned());
    options.program = Program::Command(argv);
    (corpus, options)
}

/// The cgroups and processes a run of this test process leaves: none, once its worker threads
/// are gone (they end a moment after the run).
pub(crate) fn assert_nothing_left(marker: &str) {
    let prefix = format!("gridjudge-{}-", std::process::id());
    let mut left = Vec::new();
    for _ in 0..100 {
        left = survivors(marker);
        for hierarchy in [
            "/sys/fs/cgroup/memory",
            "/sys/fs/cgroup/pids",
            "/sys/fs/cgroup",
        ] {
            walk_cgroups(Path::new(hierarchy), &prefix, &mut left);
        }
        if left.is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("left behind: {left:?}");
}

pub(crate) fn walk_cgroups(dir: &Path, prefix: &str, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && name.starts_with(prefix) {
            // Worker cgroups of this process still alive belong to helpers of other tests.
            let procs =
                std::fs::read_to_string(entry.path().join("cgroup.procs")).unwrap_or_default();
            if procs.trim().is_empty() {
                found.push(entry.path().display().to_string());
            }
        }
    }
}

#[test]
fn every_attack_class_is_blocked() {
    // Root, namespaces and cgroups are what CI has; elsewhere the sandbox degrades, and says so.
    if xtask::sandbox::available().is_err() {
        eprintln!(
            "skipped: no sandbox here ({:?}); CI runs as root and runs this test",
            xtask::sandbox::available()
        );
        return;
    }
    let checkout_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let udp = std::net::UdpSocket::bind(("127.0.0.1", port)).unwrap();
    udp.set_nonblocking(true).unwrap();
    let expected = all_attacks_blocked();
    let (corpus, mut options) = attack("attacks", &[], &expected);
    let corpus_file = corpus.expected_path();
    if let Program::Command(argv) = &mut options.program {
        argv.extend([
            checkout_file.clone().into(),
            crate::support::reference(),
            corpus_file.into(),
            std::process::id().to_string().into(),
            port.to_string().into(),
        ]);
    }
    let before = snapshot(corpus.root());
    let binary_mode = std::fs::metadata(crate::support::reference())
        .unwrap()
        .permissions();
    let harness_limits = nofile_limit();
    let start = Instant::now();
    let run = check(&options).unwrap();
    let result = &run.results[0];
    let output = result
        .judgement
        .execution
        .as_ref()
        .map(|e| String::from_utf8_lossy(&e.stdout).into_owned())
        .unwrap_or_default();
    assert_eq!(result.judgement.verdict, Verdict::Pass, "{output}");
    assert!(start.elapsed() < MARGIN);
    assert_eq!(snapshot(corpus.root()), before);
    let binary_after = std::fs::metadata(crate::support::reference())
        .unwrap()
        .permissions();
    assert_eq!(
        binary_after, binary_mode,
        "a binary of the checkout changed mode"
    );
    assert_eq!(
        nofile_limit(),
        harness_limits,
        "the harness's own limits changed"
    );
    assert!(listener.accept().is_err(), "a connection reached the host");
    let mut buffer = [0u8; 16];
    assert!(
        udp.recv(&mut buffer).is_err(),
        "a datagram reached the host"
    );
    // This run's own targets, by the pid and port at the end of their command line: another
    // process whose command line says `attacks` is not this test's.
    assert_nothing_left(&format!(" {} {port}", std::process::id()));
}

pub(crate) fn nofile_limit() -> (u64, u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into `limit`.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (limit.rlim_cur, limit.rlim_max)
}
