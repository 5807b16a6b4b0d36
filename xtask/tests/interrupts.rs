//! Stopping a run: Ctrl-C and SIGTERM end every target and print the partial summary (exit
//! 130), during a build too; a killed harness leaves no process and its cgroups go at the next
//! start.

use crate::cli::check;
use crate::support::{echo_check, fixture, reference, Corpus};

#[test]
fn ctrl_c_kills_every_target_prints_the_partial_summary_and_exits_130() {
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=6 {
        corpus.add(&format!("00{k}-case"), b"x\n", b"y\n");
    }
    let (running, output, interrupted) =
        interrupted_after(&corpus, false, |_, _| std::time::Instant::now());
    assert!(running, "the target never started");
    assert!(
        interrupted.elapsed() < std::time::Duration::from_secs(5),
        "took {:?}",
        interrupted.elapsed()
    );
    assert_eq!(output.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("interrupted: every running target was killed"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("0 passed, 0 failed, 6 skipped\n"),
        "{stdout}"
    );
    let marker = corpus.expected_path().display().to_string();
    let alive = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(&marker))
        .count();
    assert_eq!(alive, 0, "a target survived the interrupt");
}

/// Runs [`sleeping_check`] on `corpus` (confined when `sandbox`), waits until its target runs,
/// lets `look` see the run then (given the harness's pid and the marker of its command lines),
/// and interrupts it as Ctrl-C does: whether the target ran, the harness's output (stdout and
/// stderr), and what `look` saw.
fn interrupted_after<T>(
    corpus: &Corpus,
    sandbox: bool,
    look: impl FnOnce(u32, &str) -> T,
) -> (bool, std::process::Output, T) {
    let child = sleeping_check(corpus, sandbox)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let harness = child.id();
    let marker = corpus.expected_path().display().to_string();
    let running = target_runs(&marker, std::time::Duration::from_secs(60));
    let seen = look(harness, &marker);
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(harness as libc::pid_t, libc::SIGINT);
    }
    (running, child.wait_with_output().unwrap(), seen)
}

/// A check of the fixture's `sleep` on `corpus` (confined when `sandbox`), whose target runs
/// until it is killed, with its command line marked by the corpus's expected file (see
/// `survivors`).
fn sleeping_check(corpus: &Corpus, sandbox: bool) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"));
    command.args(["check", "--spec", "demo", "--timeout", "60"]);
    if !sandbox {
        command.arg("--no-sandbox");
    }
    command
        .arg("--cases")
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg("sleep")
        .arg(corpus.expected_path());
    command
}

/// Waits (at most `within`, bounded on a busy machine) until some process whose command line
/// holds `marker` runs (`present`) or none does; whether that came.
fn survivors_become(marker: &str, present: bool, within: std::time::Duration) -> bool {
    become_within(within, || {
        crate::support::survivors(marker).is_empty() != present
    })
}

/// Waits (at most `within`) until the fixture runs as a target with `marker` in its command
/// line: the harness's own command line holds the marker too, so a process whose command line
/// merely holds it may be the harness, still starting.
fn target_runs(marker: &str, within: std::time::Duration) -> bool {
    let fixture = fixture().to_string_lossy().into_owned();
    become_within(within, || !target_pids(marker, &fixture).is_empty())
}

/// Whether `came` says yes within `within`, asked every 20 ms.
fn become_within(within: std::time::Duration, came: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        if came() {
            return true;
        }
        if start.elapsed() >= within {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `check` of the fixture in `escape-group` mode on `corpus`, confined, as a child process;
/// its targets' command lines are marked by the corpus's expected file (other tests run the
/// same mode at the same time).
fn spawn_escaping_check(corpus: &Corpus) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["check", "--spec", "demo", "--timeout", "60", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg("escape-group")
        .arg(corpus.expected_path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn sigterm_and_a_second_interrupt_end_a_confined_run() {
    // A first SIGTERM makes the run stop and report; a second one ends it at once, whatever
    // it was doing. Either way no target survives.
    for signals in [&[libc::SIGTERM][..], &[libc::SIGINT, libc::SIGINT][..]] {
        let corpus = Corpus::new(b"x\n", true);
        for k in 2..=6 {
            corpus.add(&format!("00{k}-case"), b"x\n", b"y\n");
        }
        let child = spawn_escaping_check(&corpus);
        // Signal once this run's targets run (on a busy machine that can take a while), not
        // after a fixed sleep: a signal before the harness catches it would end it outright.
        let marker = corpus.expected_path().display().to_string();
        let running = target_runs(&marker, std::time::Duration::from_secs(60));
        let start = std::time::Instant::now();
        for &signal in signals {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(child.id() as libc::pid_t, signal);
            }
        }
        let output = child.wait_with_output().unwrap();
        // Generous: the bound checks that the run ends, not how fast.
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "{signals:?}"
        );
        assert!(running, "{signals:?}: the targets never started");
        assert_eq!(output.status.code(), Some(130), "{signals:?}");
        // The kernel tears the cases' namespaces down after the harness is gone; on a busy
        // machine that takes a moment: wait for it (bounded) rather than a fixed time.
        let gone = survivors_become(&marker, false, std::time::Duration::from_secs(30));
        assert!(gone, "{signals:?}: a target survived");
    }
}

#[test]
fn a_killed_harness_leaves_no_process_and_its_cgroups_go_at_the_next_start() {
    let corpus = Corpus::new(b"x\n", true);
    let mut child = spawn_escaping_check(&corpus);
    let killed = child.id();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    // This run's own targets, by their corpus's path: other tests run `escape-group` too.
    let marker = corpus.expected_path().display().to_string();
    let targets = || crate::support::survivors(&marker).len();
    let mut left = targets();
    for _ in 0..50 {
        if left == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = targets();
    }
    assert_eq!(left, 0, "a target outlived the SIGKILLed harness");
    // The next run removes the cgroups the killed one left.
    check(&corpus, "right");
    assert_eq!(cgroups_of(killed), Vec::<String>::new());
}

/// The cgroup folders of the harness `pid` (`gridjudge-PID-N`) in every hierarchy.
fn cgroups_of(pid: u32) -> Vec<String> {
    let mut found = Vec::new();
    for root in [
        "/sys/fs/cgroup/memory",
        "/sys/fs/cgroup/pids",
        "/sys/fs/cgroup",
    ] {
        for entry in walkdir::WalkDir::new(root)
            .max_depth(4)
            .into_iter()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&format!("gridjudge-{pid}-")) {
                found.push(entry.path().display().to_string());
            }
        }
    }
    found
}

/// The cgroup a run makes to learn whether it can make cgroups is its first worker's, and goes
/// at the run's end with the worker; a `--no-sandbox` run makes none.
#[test]
fn a_run_leaves_no_cgroup_whether_or_not_it_made_a_worker() {
    let corpus = Corpus::new(b"x\n", true);
    for sandbox in [true, false] {
        let flags: &[&str] = if sandbox { &[] } else { &["--no-sandbox"] };
        let harness = std::path::Path::new(env!("CARGO_BIN_EXE_xtask"));
        let child = echo_check(harness, &corpus, flags)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // A verdict, whichever: the harness did its job.
        assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
        if stderr.contains("cgroup") {
            eprintln!("skipped: no cgroups here to leave behind: {stderr}");
            return;
        }
        assert_eq!(cgroups_of(pid), Vec::<String>::new(), "sandbox: {sandbox}");
    }
    // A check of a program starts its helper before its command line is read; a line that
    // then does not parse still ends it, and its cgroup.
    let harness = std::path::Path::new(env!("CARGO_BIN_EXE_xtask"));
    let output = echo_check(harness, &corpus, &["--jobs", "x"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = output.id();
    let output = output.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        cgroups_of(pid),
        Vec::<String>::new(),
        "a line that did not parse"
    );
}

/// A `--no-sandbox` run runs nothing in a cgroup, and makes none: not even the one a confined
/// run makes first to learn whether it can (each memory cgroup made and removed costs a run
/// a few tenths of a millisecond and leaves the kernel one more to free). Looked at while the
/// run's target is running, when a confined run's cgroup would be there.
#[test]
fn a_no_sandbox_run_makes_no_cgroup() {
    if xtask::sandbox::available().is_err() {
        eprintln!("skipped: no sandbox here, so no cgroup to tell apart; CI runs as root");
        return;
    }
    let corpus = Corpus::new(b"x\n", true);
    // Ctrl-C once the target runs: the harness kills it, which runs outside any sandbox.
    let (running, output, made) =
        interrupted_after(&corpus, false, |harness, _| cgroups_of(harness));
    assert!(running, "the target never started");
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(made, Vec::<String>::new());
}

/// A confined case runs in its worker's cgroup in every hierarchy the harness uses (v1's
/// memory, pids and cpuacct, or v2's one), whether the harness moved its helper there or, on
/// v1, the helper moved itself: that is where its memory, processes and CPU are counted and
/// limited.
#[test]
fn a_confined_target_runs_in_its_workers_cgroup_in_every_hierarchy() {
    if xtask::sandbox::available().is_err() {
        eprintln!("skipped: no sandbox here, so no worker cgroup; CI runs as root");
        return;
    }
    let corpus = Corpus::new(b"x\n", true);
    let fixture = fixture().to_string_lossy().into_owned();
    let (running, output, (harness, cgroups, made)) =
        interrupted_after(&corpus, true, |harness, marker| {
            let cgroups: Vec<String> = target_pids(marker, &fixture)
                .iter()
                .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok())
                .collect();
            (harness, cgroups, cgroups_of(harness))
        });
    assert!(running, "the target never started");
    if made.is_empty() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!("skipped: the harness made no cgroup here: {stderr}");
        return;
    }
    assert_eq!(cgroups.len(), 1, "{cgroups:?}");
    // v1: a line per controller the harness made a folder for; v2: the unified one, `0::`.
    let under = |controller: &str| {
        let root = format!("/sys/fs/cgroup/{controller}/");
        made.iter().any(|dir| dir.starts_with(&root))
    };
    let controllers: Vec<&str> = match under("memory") {
        true => ["memory", "pids", "cpuacct"]
            .into_iter()
            .filter(|c| under(c))
            .collect(),
        false => vec![""],
    };
    let worker = format!("/gridjudge-{harness}-");
    for controller in controllers {
        let line = cgroups[0]
            .lines()
            .find(|line| {
                let listed = line.split(':').nth(1).unwrap_or("-");
                listed.split(',').any(|c| c == controller)
            })
            .unwrap_or_else(|| panic!("no {controller:?} line in {}", cgroups[0]));
        assert!(line.contains(&worker), "not in the worker's cgroup: {line}");
    }
}

/// The pids of the live processes (not zombies) whose command line starts with `program` and
/// holds `marker`.
fn target_pids(marker: &str, program: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let state = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let zombie = state.rsplit(") ").next()?.starts_with('Z');
            (text.starts_with(program) && text.contains(marker) && !zombie).then_some(pid)
        })
        .collect()
}

/// A build the harness waits for shows itself and ends with the run: SIGTERM (a cancelled CI
/// job) during `cargo build` ends the build and the run, exit status 130. The build here is a
/// stand-in cargo (`CARGO`) that says it compiles and then sleeps, for a target folder with no
/// reference binary yet.
#[test]
fn sigterm_during_a_build_ends_the_build_and_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("fake-cargo-{}", std::process::id());
    // Its own file name carries the marker, to find it in /proc.
    let cargo = dir.path().join(&marker);
    std::fs::write(
        &cargo,
        "#!/bin/sh\necho '   Compiling gridjudge' >&2\n: > \"$0.said\"\nwhile :; do sleep 1; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("CARGO", &cargo)
        // An empty target folder: no fresh reference binary there, so the build must run.
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .args(["check", "--filter", "handout"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once it said it compiles: a SIGTERM before that ends a build that showed nothing yet.
    let said = dir.path().join(format!("{marker}.said"));
    become_within(std::time::Duration::from_secs(60), || said.exists());
    // SAFETY: kill takes integers; the pid is this test's child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("building gridjudge with cargo"), "{stderr}");
    assert!(stderr.contains("Compiling gridjudge"), "{stderr}");
    assert!(
        survivors_become(&marker, false, std::time::Duration::from_secs(30)),
        "the build outlived the run"
    );
}
