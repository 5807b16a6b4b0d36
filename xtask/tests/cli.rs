//! The `cargo xtask check` command-line contract: exit statuses, error messages naming what is
//! at fault, spec inference, and localisation of a difference to its input line.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::{fixture, reference, Corpus};

fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

/// `check` with `options` on the corpus, the fixture in `mode` as the target (and as the
/// reference).
fn check_with(corpus: &Corpus, options: &[&str], mode: &str) -> assert_cmd::assert::Assert {
    xtask()
        .env("NO_COLOR", "1")
        .args(["check", "--no-sandbox"])
        .args(options)
        .arg("--cases")
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg(mode)
        .arg(corpus.expected_path())
        .assert()
}

/// `check` of the suite `demo` with the fixture in `mode`.
fn check(corpus: &Corpus, mode: &str) -> assert_cmd::assert::Assert {
    check_with(corpus, &["--spec", "demo"], mode)
}

#[test]
fn a_passing_target_exits_0_with_the_verdict_line_last() {
    let corpus = Corpus::new(b"x\n", true);
    check(&corpus, "right")
        .code(0)
        .stdout(predicate::str::ends_with("1 passed, 0 failed\n"));
}

#[test]
fn a_failing_target_exits_1_and_shows_where_it_differs() {
    let corpus = Corpus::new(b"x\n", true);
    check(&corpus, "wrong").code(1).stdout(
        predicate::str::contains("FAIL demo/basic/001-case: wrong output")
            .and(predicate::str::contains(
                "first difference: line 4, column 15",
            ))
            .and(predicate::str::contains("expected: `---·the·end·---`"))
            .and(predicate::str::contains("     got: `---·the·end·--#`"))
            .and(predicate::str::ends_with("0 passed, 1 failed\n")),
    );
}

#[test]
fn the_difference_is_traced_to_the_input_line_it_answers() {
    let corpus = Corpus::new(b"first\nsecond\nthird\nfourth\n", true);
    let suite = corpus.root().join("demo/suite.toml");
    let text = std::fs::read_to_string(&suite).unwrap().replace(
        "args = [\"demo\"]",
        &format!("args = [\"reference\", {:?}]", corpus.expected_path()),
    );
    std::fs::write(&suite, text).unwrap();
    check(&corpus, "wrong")
        .code(1)
        .stdout(predicate::str::contains(
            "line 4, column 15, in the output after input line 4: `fourth`",
        ));
}

#[test]
fn a_target_that_cannot_start_is_reported_once_with_exit_2() {
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=9 {
        corpus.add(&format!("00{k}-case"), b"x\n", b"y\n");
    }
    let output = xtask()
        .args(["check", "--no-sandbox", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .args(["--", "/nonexistent/student-program"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.matches("could not run").count(), 1, "{stderr}");
    assert!(
        stderr.contains("`/nonexistent/student-program`"),
        "{stderr}"
    );
}

#[test]
fn corpus_problems_exit_2_naming_the_file() {
    let corpus = Corpus::new(b"x\n", true);
    std::fs::write(corpus.root().join("demo/basic/002-orphan.in"), "x\n").unwrap();
    check(&corpus, "right").code(2).stderr(
        predicate::str::contains("002-orphan.in").and(predicate::str::contains("no `.out`")),
    );

    let corpus = Corpus::new(b"x\n", true);
    std::fs::create_dir(corpus.root().join("demo/mystery")).unwrap();
    check(&corpus, "right")
        .code(2)
        .stderr(predicate::str::contains("group `mystery` is not listed"));

    let corpus = Corpus::new(b"x\n", true);
    std::fs::write(corpus.root().join("demo/suite.toml"), "args = 3\n").unwrap();
    check(&corpus, "right")
        .code(2)
        .stderr(predicate::str::contains("suite.toml"));
}

#[test]
fn bad_arguments_exit_2_naming_the_argument() {
    let corpus = Corpus::new(b"x\n", true);
    xtask()
        .args(["check", "--cases", "/nonexistent/corpus", "--reference"])
        .arg(fixture())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--cases: `/nonexistent/corpus`"));
    xtask()
        .args(["check", "--no-sandbox", "--spec", "tetris", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown spec `tetris`"));
    xtask().args(["check", "--jobs", "0"]).assert().code(2);
}

/// A corpus with two suites, `demo` and `other`, each with a `handout` case.
fn two_suites() -> Corpus {
    let corpus = Corpus::new(b"x\n", true);
    for (suite, expected) in [
        ("demo", crate::support::EXPECTED),
        ("other", "something else\n"),
    ] {
        let dir = corpus.root().join(suite);
        std::fs::create_dir_all(dir.join("handout")).unwrap();
        std::fs::write(dir.join("handout/001-example.in"), "x\n").unwrap();
        std::fs::write(dir.join("handout/001-example.out"), expected).unwrap();
        std::fs::write(
            dir.join("suite.toml"),
            "args = []\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 5.0\n[groups]\nhandout = 1\nbasic = 1\n",
        )
        .unwrap();
    }
    std::fs::create_dir_all(corpus.root().join("other/basic")).unwrap();
    corpus
}

#[test]
fn the_spec_is_inferred_from_the_handout_cases() {
    let corpus = two_suites();
    check_with(&corpus, &[], "right")
        .code(0)
        .stdout(predicate::str::starts_with(
        "spec: demo, closest to its handout output (1/1 handout cases pass); --spec to choose\n",
    ));
}

#[test]
fn a_buggy_program_still_gets_its_spec_and_its_diffs() {
    // It passes no handout case, but its output is far closer to demo's than to other's.
    let corpus = two_suites();
    check_with(&corpus, &[], "wrong").code(1).stdout(
        predicate::str::starts_with("spec: demo, closest to its handout output (0/1").and(
            predicate::str::contains("first difference: line 4, column 15"),
        ),
    );
}

#[test]
fn a_program_for_another_assignment_is_told_no_spec_matches() {
    // It echoes its input (`x`): nothing like either handout output.
    let corpus = two_suites();
    check_with(&corpus, &[], "echo").code(2).stderr(
        predicate::str::contains("no spec matches the program: its output is closest to").and(
            predicate::str::contains("% alike (0/1 handout cases pass); pass --spec"),
        ),
    );
}

#[test]
fn only_a_true_tie_asks_for_the_spec_listing_every_spec() {
    let corpus = two_suites();
    // Both suites now expect the same handout output: nothing tells them apart.
    std::fs::write(
        corpus.root().join("other/handout/001-example.out"),
        crate::support::EXPECTED,
    )
    .unwrap();
    check_with(&corpus, &[], "wrong").code(2).stderr(
        predicate::str::contains("pass --spec with one of: demo, other")
            .and(predicate::str::contains("demo (")),
    );
}

#[test]
fn filtering_counts_the_cases_left_out_as_skipped() {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-other", b"x\n", crate::support::EXPECTED.as_bytes());
    check_with(&corpus, &["--spec", "demo", "--filter", "002"], "right")
        .code(0)
        .stdout(predicate::str::ends_with("1 passed, 0 failed, 1 skipped\n"));
}

#[test]
fn bless_writes_atomically_reports_and_checks() {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-new", b"x\n", b"stale\n");
    std::fs::remove_file(corpus.root().join("demo/basic/002-new.out")).unwrap();
    corpus.add("003-changed", b"x\n", b"old\n");
    std::fs::write(corpus.root().join("demo/basic/004-gone.out"), "x").unwrap();
    let bless = |check: bool| {
        let mut command = xtask();
        command.arg("bless");
        if check {
            command.arg("--check");
        }
        // The fixture reads the corpus, which a confined `--from` command may not.
        command
            .arg("--no-sandbox")
            .arg("--cases")
            .arg(corpus.root())
            .arg("--reference")
            .arg(reference())
            .arg("--from")
            .arg("--")
            .arg(fixture())
            .arg("right")
            .arg(corpus.expected_path());
        command.assert()
    };
    bless(true).code(1).stdout(predicate::str::contains(
        "would bless: 1 new, 1 changed, 1 unchanged, 1 stale",
    ));
    assert!(
        !corpus.root().join("demo/basic/002-new.out").exists(),
        "--check writes nothing"
    );
    bless(false).code(0).stdout(predicate::str::contains(
        "blessed: 1 new, 1 changed, 1 unchanged, 1 stale",
    ));
    let blessed =
        std::fs::read_to_string(corpus.root().join("demo/basic/003-changed.out")).unwrap();
    assert_eq!(blessed, crate::support::EXPECTED);
    // Stale files are reported, never deleted.
    std::fs::remove_file(corpus.root().join("demo/basic/004-gone.out")).unwrap();
    bless(true).code(0).stdout(predicate::str::contains(
        "would bless: 0 new, 0 changed, 3 unchanged, 0 stale",
    ));
}

#[test]
fn bless_from_a_command_confines_it_like_check() {
    if xtask::confine::version() == 0 {
        eprintln!("skipped: this kernel has no Landlock, so the sandbox cannot deny the read");
        return;
    }
    let corpus = Corpus::new(b"x\n", true);
    let before = std::fs::read(corpus.expected_path()).unwrap();
    xtask()
        .args(["bless", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .args(["--from", "--"])
        .arg(fixture())
        .arg("right")
        .arg(corpus.expected_path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("refusing to bless"));
    assert_eq!(std::fs::read(corpus.expected_path()).unwrap(), before);
}

#[test]
fn bless_refuses_a_command_line_without_from() {
    xtask()
        .args(["bless", "--check", "--", "python3", "x.py"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--from"));
}

#[test]
fn ctrl_c_kills_every_target_prints_the_partial_summary_and_exits_130() {
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=6 {
        corpus.add(&format!("00{k}-case"), b"x\n", b"y\n");
    }
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("NO_COLOR", "1")
        .args([
            "check",
            "--spec",
            "demo",
            "--no-sandbox",
            "--timeout",
            "60",
            "--cases",
        ])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg("sleep")
        .arg(corpus.expected_path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let start = std::time::Instant::now();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
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

#[test]
fn bless_refuses_a_target_whose_two_runs_differ() {
    let corpus = Corpus::new(b"x\n", true);
    xtask()
        .args(["bless", "--check", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .args(["--from", "--"])
        .arg(fixture())
        .arg("nondeterministic")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("001-case.in").and(predicate::str::contains("two runs")));
}

/// `check` of the fixture in `escape-group` mode on `corpus`, confined, as a child process.
fn spawn_escaping_check(corpus: &Corpus) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["check", "--spec", "demo", "--timeout", "60", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg("escape-group")
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
        // Signal once the targets run (on a busy machine that can take a while), not after a
        // fixed sleep.
        let ready = std::time::Instant::now();
        let targets = || {
            crate::support::survivors("escape-group")
                .into_iter()
                .filter(|line| !line.contains(" check "))
                .count()
        };
        while targets() == 0 && ready.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
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
        assert_eq!(output.status.code(), Some(130), "{signals:?}");
        // The kernel tears the cases' namespaces down after the harness is gone; on a busy
        // machine that takes a moment: wait for it (bounded) rather than a fixed time.
        let gone = std::time::Instant::now();
        let mut left = crate::support::survivors("escape-group").len();
        while left > 0 && gone.elapsed() < std::time::Duration::from_secs(30) {
            std::thread::sleep(std::time::Duration::from_millis(50));
            left = crate::support::survivors("escape-group").len();
        }
        assert_eq!(left, 0, "{signals:?}: a target survived");
    }
}

#[test]
fn a_missing_layer_is_one_warning_or_with_require_isolation_an_error() {
    // A helper that cannot start stands for a machine without namespaces.
    let corpus = Corpus::new(b"x\n", true);
    let run = |require: bool| {
        let mut command = xtask();
        command
            .env("GRIDJUDGE_SANDBOX_HELPER", "/nonexistent/helper")
            .args(["check", "--spec", "demo", "--cases"])
            .arg(corpus.root())
            .arg("--reference")
            .arg(reference());
        if require {
            command.arg("--require-isolation");
        }
        command
            .arg("--")
            .arg(fixture())
            .arg("echo")
            .arg("unused")
            .assert()
    };
    run(true).code(2).stderr(
        predicate::str::contains("--require-isolation").and(predicate::str::contains("namespaces")),
    );
    let degraded = run(false);
    let stderr = String::from_utf8_lossy(&degraded.get_output().stderr).into_owned();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: not contained by namespaces"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
}

#[test]
fn a_killed_harness_leaves_no_process_and_its_cgroups_go_at_the_next_start() {
    let corpus = Corpus::new(b"x\n", true);
    let mut child = spawn_escaping_check(&corpus);
    let killed = child.id();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let targets = || crate::support::survivors("escape-group").len();
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
            if name.starts_with(&format!("gridjudge-{killed}-")) {
                found.push(entry.path().display().to_string());
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_run_that_would_check_nothing_or_cannot_write_its_report_stops_first() {
    let corpus = Corpus::new(b"x\n", true);
    check_with(&corpus, &["--spec", "demo", "--filter", "nomatch"], "right")
        .code(2)
        .stderr(predicate::str::contains(
            "--filter `nomatch` matches no case",
        ));
    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(empty.path().join("demo")).unwrap();
    std::fs::copy(
        corpus.root().join("demo/suite.toml"),
        empty.path().join("demo/suite.toml"),
    )
    .unwrap();
    xtask()
        .args(["check", "--no-sandbox", "--spec", "demo", "--cases"])
        .arg(empty.path())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg("right")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no case to run"));
    // A report that cannot be written is found before the run, not after it.
    check_with(
        &corpus,
        &[
            "--spec",
            "demo",
            "--json",
            "/nonexistent/folder/report.json",
        ],
        "sleep",
    )
    .code(2)
    .stderr(predicate::str::contains("--json: cannot write"));
}

#[test]
fn the_headline_forms_work_without_dashes() {
    let corpus = Corpus::new(b"x\n", true);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("prog.py"),
        format!(
            "import sys\nsys.stdin.read()\nsys.stdout.write({:?})\n",
            crate::support::EXPECTED
        ),
    )
    .unwrap();
    crate::support::share(dir.path());
    for form in [&["prog.py"][..], &["--", "python3", "prog.py"][..]] {
        xtask()
            .current_dir(dir.path())
            .args(["check", "--spec", "demo", "--cases"])
            .arg(corpus.root())
            .arg("--reference")
            .arg(reference())
            .args(form)
            .assert()
            .code(0)
            .stdout(predicate::str::ends_with("1 passed, 0 failed\n"));
    }
    xtask()
        .current_dir(dir.path())
        .args(["check", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("student_binary")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nor a program on PATH"));
}

#[test]
fn a_crash_is_a_runtime_error_with_its_stderr_first_and_a_broken_program_is_said_once() {
    let corpus = Corpus::new(b"x\n", true);
    let output = check(&corpus, "traceback")
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report = String::from_utf8_lossy(&output);
    let stderr_at = report.find("stderr:").expect("stderr shown");
    let diff_at = report.find("first difference").expect("difference shown");
    assert!(
        report.contains("runtime error: ZeroDivisionError: division by zero"),
        "{report}"
    );
    assert!(
        stderr_at < diff_at,
        "stderr comes first for a crash:\n{report}"
    );
    // Every case failing without output and with the same message: one line, exit 2.
    for k in 2..=6 {
        corpus.add(&format!("00{k}-case"), b"x\n", b"y\n");
    }
    check(&corpus, "missing").code(2).stderr(
        predicate::str::contains("every case failed with no output")
            .and(predicate::str::contains("can't open file")),
    );
}

#[test]
fn the_spec_is_inferred_for_correct_crashing_prompting_and_crlf_programs() {
    // Each spec played right by the `mutant` program (variant `none`), then spoiled three ways.
    // The scripts' folder is all a confined script sees: the player goes in it.
    let dir = tempfile::tempdir().unwrap();
    crate::support::share(dir.path());
    let mutant = dir.path().join("mutant");
    std::fs::copy(env!("CARGO_BIN_EXE_mutant"), &mutant).unwrap();
    let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    for spec in ["columns", "collapse", "connect4", "go"] {
        let play = format!("{} none {spec}", mutant.display());
        for (kind, script) in [
            ("correct", format!("{play}\n")),
            ("crlf", format!("{play} | sed 's/$/\\r/'\n")),
            ("prompt", format!("{play} | sed 's/^/> /'\n")),
            (
                "crashing",
                format!("{play} | head -c 60\necho 'Traceback: oops' >&2\nexit 1\n"),
            ),
        ] {
            let path = dir.path().join(format!("{spec}-{kind}.sh"));
            std::fs::write(&path, format!("#!/bin/sh\n{script}")).unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
            let output = xtask()
                .env("NO_COLOR", "1")
                .args(["check", "--filter", "handout", "--cases"])
                .arg(&cases)
                .arg("--reference")
                .arg(reference())
                .arg(&path)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                stdout.starts_with(&format!("spec: {spec}, closest")),
                "{spec} {kind}: {stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
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
        "#!/bin/sh\necho '   Compiling gridjudge' >&2\nwhile :; do sleep 1; done\n",
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
    let start = std::time::Instant::now();
    while crate::support::survivors(&marker).is_empty()
        && start.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill takes integers; the pid is this test's child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("building gridjudge with cargo"), "{stderr}");
    assert!(stderr.contains("Compiling gridjudge"), "{stderr}");
    let gone = std::time::Instant::now();
    while !crate::support::survivors(&marker).is_empty()
        && gone.elapsed() < std::time::Duration::from_secs(30)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        crate::support::survivors(&marker).is_empty(),
        "the build outlived the run"
    );
}
