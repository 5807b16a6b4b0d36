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

const MARGIN: Duration = Duration::from_secs(5);

/// What the `attacks` fixture prints when confinement holds: each attack it tries, blocked.
fn all_attacks_blocked() -> String {
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
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>, u32, u32, u32)> {
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

fn sandbox_available() -> bool {
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
    let (verdict, _, elapsed) = run_hostile("spin", false, Duration::from_secs(10));
    assert_eq!(verdict, Verdict::CpuLimit);
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
fn attack(mode: &str, args: &[OsString], expected: &str) -> (Corpus, Options) {
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
fn assert_nothing_left(marker: &str) {
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

fn walk_cgroups(dir: &Path, prefix: &str, found: &mut Vec<String>) {
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
    assert_nothing_left("attacks");
}

fn nofile_limit() -> (u64, u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into `limit`.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (limit.rlim_cur, limit.rlim_max)
}

#[test]
fn a_process_group_escape_cannot_freeze_the_run() {
    let (_corpus, mut options) = attack("escape-group", &[], "x\n");
    options.timeout = Some(Duration::from_secs(1));
    options.wall = None;
    let start = Instant::now();
    let run = check(&options).unwrap();
    assert_eq!(run.results[0].judgement.verdict, Verdict::Timeout);
    assert!(start.elapsed() < xtask::process::backstop(Duration::from_secs(1)) + MARGIN);
    assert_nothing_left("escape-group");
}

#[test]
fn sysv_shared_memory_dies_with_its_case() {
    if xtask::sandbox::available().is_err() {
        eprintln!("skipped: no IPC namespace without the sandbox here");
        return;
    }
    let (corpus, mut options) = attack("by-folder", &[], "no segment\n");
    // Two cases in order on one worker: the first leaves a segment, the second looks for it.
    options.jobs = 1;
    let folder = tempfile::tempdir().unwrap();
    crate::support::share(folder.path());
    for (name, mode) in [("writer", "shm-write"), ("reader", "shm-read")] {
        let dir = folder.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("mode"), mode).unwrap();
    }
    options.program = Program::Command(vec![fixture(), "by-folder".into()]);
    options.confine.cwd = Some(folder.path().join("writer"));
    let first = check(&options).unwrap();
    assert_eq!(
        first.results[0]
            .judgement
            .execution
            .as_ref()
            .unwrap()
            .stdout,
        b"written\n"
    );
    options.confine.cwd = Some(folder.path().join("reader"));
    let second = check(&options).unwrap();
    assert_eq!(second.results[0].judgement.verdict, Verdict::Pass);
    drop(corpus);
}

#[test]
fn filling_home_stops_at_the_temporary_folder_cap() {
    if xtask::sandbox::available().is_err() {
        eprintln!("skipped: no capped temporary folder without the sandbox here");
        return;
    }
    let (_corpus, options) = attack("fill-home", &[], "x\n");
    let start = Instant::now();
    let run = check(&options).unwrap();
    let stdout = &run.results[0].judgement.execution.as_ref().unwrap().stdout;
    let text = String::from_utf8_lossy(stdout);
    let mib: u64 = text
        .trim()
        .strip_prefix("wrote ")
        .and_then(|t| t.strip_suffix(" MiB"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        mib <= 16,
        "{text}: the cap is the file-size limit, 16 MiB here"
    );
    assert!(start.elapsed() < MARGIN);
}

#[test]
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped with wait4, for its resource usage"
)]
fn a_flooding_target_cannot_exhaust_the_harness() {
    // 396 cases (the size of the columns suite), each flooding stdout to the 16 MiB cap: kept
    // whole, that is over 6 GB; the harness keeps a bounded excerpt of each.
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=396 {
        corpus.add(
            &format!("{k:03}-flood"),
            b"x\n",
            crate::support::EXPECTED.as_bytes(),
        );
    }
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .args(["check", "--spec", "demo", "--timeout", "20", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(crate::support::reference())
        .arg("--")
        .arg(fixture())
        .arg("flood")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = command.spawn().unwrap();
    let mut status = 0;
    // SAFETY: wait4 writes into `status` and `usage`, both owned here.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32);
    assert_eq!(libc::WEXITSTATUS(status), 1, "every case fails");
    let peak_mib = usage.ru_maxrss as u64 / 1024;
    eprintln!("harness peak resident memory over 396 flooding cases: {peak_mib} MiB");
    assert!(peak_mib < 300, "{peak_mib} MiB");
}

#[test]
fn a_huge_line_and_escape_sequences_reach_the_report_cut_and_escaped() {
    for (mode, wanted) in [("huge-line", "more bytes"), ("escapes", "␛[2J")] {
        let corpus = Corpus::new(b"x\n", true);
        // `escapes` prints the right output after its stderr: make it fail to be reported.
        std::fs::write(corpus.expected_path(), "something else\n").unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
            .env("NO_COLOR", "1")
            .args(["check", "--spec", "demo", "--cases"])
            .arg(corpus.root())
            .arg("--reference")
            .arg(crate::support::reference())
            .arg("--")
            .arg(fixture())
            .arg(mode)
            .arg(corpus.expected_path())
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{mode}: {report}");
        assert!(report.contains(wanted), "{mode}: {report}");
        assert!(
            !report.contains('\x1b') && !report.contains('\x07'),
            "{mode}: a control character reached the terminal"
        );
        let longest = report.lines().map(str::len).max().unwrap_or(0);
        assert!(longest < 4000, "{mode}: a report line of {longest} bytes");
    }
}

#[test]
fn without_root_the_sandbox_holds_in_a_user_namespace() {
    // The student's case: the harness runs as an ordinary user (here uid 65534, switched to
    // with setpriv), so the helper makes a user namespace to hold the others.
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let setpriv = Path::new("/usr/bin/setpriv");
    if !root || !setpriv.exists() {
        eprintln!("skipped: switching to another user needs root and setpriv");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    crate::support::share(dir.path());
    let copy = |source: &Path, name: &str| {
        let target = dir.path().join(name);
        std::fs::copy(source, &target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        target
    };
    let xtask = copy(Path::new(env!("CARGO_BIN_EXE_xtask")), "xtask");
    let fixture = copy(Path::new(&fixture()), "fixture");
    let corpus = dir.path().join("corpus/demo/basic");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        dir.path().join("corpus/demo/suite.toml"),
        "args = []\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 5.0\n[groups]\nbasic = 1\n",
    )
    .unwrap();
    std::fs::write(corpus.join("001-case.in"), "x\n").unwrap();
    let expected = all_attacks_blocked();
    std::fs::write(corpus.join("001-case.out"), expected).unwrap();
    for path in [
        dir.path().join("corpus"),
        dir.path().join("corpus/demo"),
        corpus.clone(),
    ] {
        crate::support::share(&path);
    }
    let output = std::process::Command::new(setpriv)
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg(&xtask)
        .args(["check", "--spec", "demo", "--cases"])
        .arg(dir.path().join("corpus"))
        .args(["--reference", "/bin/true", "--"])
        .arg(&fixture)
        .arg("attacks")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml"))
        .arg(crate::support::reference())
        .arg(corpus.join("001-case.out"))
        .arg("1")
        .arg("9")
        .env_remove("GRIDJUDGE_SANDBOX_HELPER")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("not contained by namespaces") {
        eprintln!("skipped: this kernel gives an ordinary user no user namespace: {stderr}");
        return;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
}

/// A submission folder owned by another user (an instructor who collected it, a student's uid)
/// lends that uid to nobody: the target runs as the uid reserved for targets.
#[test]
fn a_target_runs_as_the_reserved_uid_whoever_owns_its_folder() {
    if xtask::sandbox::available().is_err() || unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root and the sandbox; CI runs as root and runs this test");
        return;
    }
    let corpus = Corpus::new(b"x\n", true);
    std::fs::write(corpus.expected_path(), "65534\n").unwrap();
    let folder = tempfile::tempdir().unwrap();
    let program = folder.path().join("fixture");
    std::fs::copy(fixture(), &program).unwrap();
    for path in [folder.path(), program.as_path()] {
        std::os::unix::fs::chown(path, Some(4242), Some(4242)).unwrap();
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    let mut options = hostile_options(&corpus, "whoami", Path::new("unused"));
    options.program = Program::Command(vec![program.into(), "whoami".into()]);
    let run = check(&options).unwrap();
    let judgement = &run.results[0].judgement;
    assert_eq!(judgement.verdict, Verdict::Pass, "{judgement:?}");
}

/// A corpus kept under a system folder (`/opt/course`, where grading servers put courses) is
/// masked in the view even though `/opt` is bound whole. The test binds a folder of its own
/// over `/opt` in a private mount namespace (`unshare --mount`), so the host's `/opt` is
/// untouched, and runs `cargo xtask check` there against a target that prints the corpus's
/// expected output if it can read it.
#[test]
fn a_corpus_under_a_system_folder_stays_hidden() {
    let unshare = std::process::Command::new("unshare")
        .arg("--version")
        .output();
    if xtask::sandbox::available().is_err()
        || unsafe { libc::geteuid() } != 0
        || unshare.is_err()
        || !Path::new("/opt").is_dir()
    {
        eprintln!("skipped: needs root, the sandbox, unshare and /opt; CI has them all");
        return;
    }
    let corpus = Corpus::new(b"x\n", true);
    let opt = tempfile::tempdir().unwrap();
    let course = opt.path().join("course");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(corpus.root())
        .arg(&course)
        .status()
        .unwrap();
    assert!(copied.success());
    let program = fixture();
    let reference = opt.path().join("reference");
    std::fs::write(&reference, "").unwrap();
    let script = format!(
        "mount --bind '{opt}' /opt && exec '{xtask}' check --spec demo --cases /opt/course \
         --reference /opt/reference -- '{program}' read-corpus /opt/course/demo/basic/001-case.out",
        opt = opt.path().display(),
        xtask = env!("CARGO_BIN_EXE_xtask"),
        program = Path::new(&program).display(),
    );
    let output = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the target must not read the corpus under /opt: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("0 passed, 1 failed"), "{stdout}");
}
