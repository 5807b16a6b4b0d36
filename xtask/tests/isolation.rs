//! What a confined case cannot reach or keep: the machine's other processes and SysV objects,
//! a folder of the system the corpus lies under, another uid's files; without root, the same
//! box in a user namespace.

use crate::hostile::{all_attacks_blocked, assert_nothing_left, attack, hostile_options, MARGIN};
use crate::support::check;
use crate::support::{fixture, Corpus};
use std::path::Path;
use std::time::{Duration, Instant};
use xtask::judge::Verdict;
use xtask::target::Program;

#[test]
fn a_process_group_escape_cannot_freeze_the_run() {
    // Its own mark on the targets' command lines: other tests run the same mode meanwhile.
    let marker = "a-process-group-escape-cannot-freeze-the-run";
    let (_corpus, mut options) = attack("escape-group", &[marker.into()], "x\n");
    options.timeout = Some(Duration::from_secs(1));
    options.wall = None;
    let start = Instant::now();
    let run = check(&options).unwrap();
    assert_eq!(run.results[0].judgement.verdict, Verdict::Timeout);
    assert!(start.elapsed() < xtask::process::backstop(Duration::from_secs(1)) + MARGIN);
    assert_nothing_left(marker);
}

#[test]
fn a_target_reads_and_writes_its_standard_streams_by_path() {
    // `fopen("/dev/stdin")`: the pipes are another uid's than the target's, and reopening one
    // by path checks its mode as a file's.
    let (_corpus, options) = attack("by-path", &[], "x\n");
    let run = check(&options).unwrap();
    let result = &run.results[0];
    let execution = result.judgement.execution.as_ref().unwrap();
    assert_eq!(
        result.judgement.verdict,
        Verdict::Pass,
        "printed {:?}, stderr {:?}",
        String::from_utf8_lossy(&execution.stdout),
        String::from_utf8_lossy(&execution.stderr)
    );
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

/// A second corpus beside the one given (`/opt/course/hidden` next to `--cases
/// /opt/course/public`), or a course folder under `/etc` that no package lists, is out of every
/// target's sight: `/opt` is not bound whole, and `/etc` only as its packages make it. Both
/// mounted in a private mount namespace, so the host is untouched.
#[test]
fn a_course_folder_beside_the_corpus_or_under_etc_stays_hidden() {
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
    // `/etc/opt` (the FHS's, empty on Debian) as the instructor's folder, where no package
    // lists it.
    let listed = std::process::Command::new("dpkg-query")
        .args(["-S", "/etc/opt"])
        .output()
        .map_or(true, |out| out.status.success());
    let etc = Path::new("/etc/opt").is_dir() && !listed;
    let corpus = Corpus::new(b"x\n", true);
    let opt = tempfile::tempdir().unwrap();
    for copy in ["course/public", "course/hidden", "etc/hidden"] {
        std::fs::create_dir_all(opt.path().join(copy).parent().unwrap()).unwrap();
        let copied = std::process::Command::new("cp")
            .arg("-a")
            .arg(corpus.root())
            .arg(opt.path().join(copy))
            .status()
            .unwrap();
        assert!(copied.success());
    }
    let reference = opt.path().join("reference");
    std::fs::write(&reference, "").unwrap();
    // Paths the target knows, not ones its command line names (those it is shown).
    let mut reads = vec!["opt/course/hidden/demo/basic/001-case.out"];
    if etc {
        reads.push("etc/opt/hidden/demo/basic/001-case.out");
    } else {
        eprintln!("note: /etc/opt is missing or listed by a package: only /opt is tried");
    }
    for read in reads {
        let script = format!(
            "mount --bind '{opt}' /opt && {{ [ {etc} = false ] || mount --bind '{opt}/etc' \
             /etc/opt; }} && exec '{xtask}' check --spec demo --cases /opt/course/public \
             --reference /opt/reference -- '{program}' read-rooted {read}",
            opt = opt.path().display(),
            xtask = env!("CARGO_BIN_EXE_xtask"),
            program = Path::new(&fixture()).display(),
        );
        let output = std::process::Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c", &script])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(1),
            "the target must not read `{read}`: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("0 passed, 1 failed"), "{stdout}");
    }
}
