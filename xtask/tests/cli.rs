//! The `cargo xtask check` command-line contract: exit statuses, error messages naming what is
//! at fault, the headline forms, crashes, and localisation of a difference to its input line.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::{echo_check, fixture, reference, Corpus};

pub(crate) fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

/// `check` with `options` on the corpus, the fixture in `mode` as the target (and as the
/// reference).
pub(crate) fn check_with(
    corpus: &Corpus,
    options: &[&str],
    mode: &str,
) -> assert_cmd::assert::Assert {
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
pub(crate) fn check(corpus: &Corpus, mode: &str) -> assert_cmd::assert::Assert {
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

#[test]
fn filtering_counts_the_cases_left_out_as_skipped() {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-other", b"x\n", crate::support::EXPECTED.as_bytes());
    check_with(&corpus, &["--spec", "demo", "--filter", "002"], "right")
        .code(0)
        .stdout(predicate::str::ends_with("1 passed, 0 failed, 1 skipped\n"));
}

/// A confined check of the fixture's `echo unused` on `corpus` by `harness` (the harness, or a
/// copy of it), with `helper` as its sandbox helper (`None`: its own), and
/// `--require-isolation` when `require` says.
fn confined_echo(
    harness: &std::path::Path,
    corpus: &Corpus,
    helper: Option<&std::path::Path>,
    require: bool,
) -> Command {
    let flags: &[&str] = if require {
        &["--require-isolation"]
    } else {
        &[]
    };
    let mut command = Command::from_std(echo_check(harness, corpus, flags));
    match helper {
        Some(helper) => command.env("GRIDJUDGE_SANDBOX_HELPER", helper),
        None => command.env_remove("GRIDJUDGE_SANDBOX_HELPER"),
    };
    command
}

#[test]
fn a_missing_layer_is_one_warning_or_with_require_isolation_an_error() {
    // A helper that cannot start stands for a machine without namespaces.
    let corpus = Corpus::new(b"x\n", true);
    let harness = assert_cmd::cargo::cargo_bin("xtask");
    let missing = std::path::Path::new("/nonexistent/helper");
    let run = |require: bool| confined_echo(&harness, &corpus, Some(missing), require).assert();
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
fn a_copy_of_the_harness_under_another_name_is_its_own_sandbox_helper() {
    let corpus = Corpus::new(b"x\n", true);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("renamed-harness");
    std::fs::copy(assert_cmd::cargo::cargo_bin("xtask"), &copy).unwrap();
    let run = |program: &std::path::Path| {
        let output = confined_echo(program, &corpus, None, true)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.code(), stderr)
    };
    let (code, stderr) = run(&assert_cmd::cargo::cargo_bin("xtask"));
    if code == Some(2) {
        eprintln!("skipped: this machine cannot confine a target: {stderr}");
        return;
    }
    // Confined, as `xtask` is: `--require-isolation` would have made a missing helper exit 2.
    let (copy_code, copy_stderr) = run(&copy);
    assert_ne!(copy_code, Some(2), "{copy_stderr}\nas `xtask`: {stderr}");
    assert!(!copy_stderr.contains("not contained"), "{copy_stderr}");
}

#[test]
fn a_helper_built_from_other_sources_is_refused_and_named() {
    // A helper that says it is ready, built from other sources: a `sandbox` program left over
    // from before a change of the harness.
    // The interpreter itself, not a wrapper on PATH: the helper starts with no environment.
    let python = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|path| path.starts_with('/'));
    let Some(python) = python else {
        eprintln!("skipped: no python3 here to stand for an old helper");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let helper = dir.path().join("old-helper");
    std::fs::write(
        &helper,
        format!(
            "#!{python}\n\
             import socket\n\
             s = socket.socket(fileno=0)\n\
             s.send(b'{{\"Ready\":{{\"build\":\"0123456789abcdef\"}}}}')\n\
             s.recv(1)\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&helper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let corpus = Corpus::new(b"x\n", true);
    let harness = assert_cmd::cargo::cargo_bin("xtask");
    confined_echo(&harness, &corpus, Some(&helper), true)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("built from other sources than this program")
                .and(predicate::str::contains(helper.to_str().unwrap()))
                .and(predicate::str::contains("cargo build -p xtask --bins")),
        );
}

#[test]
fn a_run_that_would_check_nothing_or_cannot_write_its_report_stops_first() {
    let corpus = Corpus::new(b"x\n", true);
    check_with(&corpus, &["--spec", "demo", "--filter", "nomatch"], "right")
        .code(2)
        .stderr(predicate::str::contains(
            "--filter `nomatch` matches no case",
        ));
    // A typo of a group is told the group.
    check_with(&corpus, &["--spec", "demo", "--filter", "basci"], "right")
        .code(2)
        .stderr(predicate::str::contains(
            "--filter `basci` matches no case (did you mean `basic`?)",
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

/// `check` on the `demo` corpus with `args` as typed (no program: the fixture as reference).
fn check_typed(corpus: &Corpus, args: &[&std::ffi::OsStr]) -> assert_cmd::assert::Assert {
    xtask()
        .env("NO_COLOR", "1")
        .args(["check", "--no-sandbox", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .args(args)
        .assert()
}

/// A report path that holds a student's program is refused before anything runs, whether the
/// program was named or the path took its place; `--force` replaces a file that is no report,
/// never the program being checked.
#[test]
fn a_report_is_never_written_over_a_program_or_a_file_that_is_not_a_report() {
    let corpus = Corpus::new(b"x\n", true);
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("connect.py");
    std::fs::write(&program, "print(1)\n").unwrap();
    let os = |path: &std::path::Path| path.as_os_str().to_owned();
    // The report's name forgotten: the program's name became the report's.
    check_typed(
        &corpus,
        &[&*std::ffi::OsString::from("--html"), &os(&program)],
    )
    .code(2)
    .stderr(
        predicate::str::contains("exists and is not a report gridjudge wrote")
            .and(predicate::str::contains(
                "with no program named, --html took",
            ))
            .and(predicate::str::contains("--html report.html")),
    );
    assert_eq!(std::fs::read_to_string(&program).unwrap(), "print(1)\n");
    // The program named, and the same file given as the report: refused, --force or not.
    let program_file = std::path::PathBuf::from(fixture());
    let before = std::fs::read(&program_file).unwrap();
    for force in [false, true] {
        let mut args: Vec<std::ffi::OsString> = vec!["--json".into(), os(&program_file)];
        if force {
            args.push("--force".into());
        }
        args.extend([os(&program_file), "echo".into()]);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        check_typed(&corpus, &args)
            .code(2)
            .stderr(predicate::str::contains(
                "that is the program being checked",
            ));
    }
    assert_eq!(std::fs::read(&program_file).unwrap(), before);
    // --force replaces a file that is no report.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let right = [
        "--".into(),
        fixture(),
        "right".into(),
        os(&corpus.expected_path()),
    ];
    let mut args: Vec<std::ffi::OsString> = vec!["--html".into(), os(&notes), "--force".into()];
    args.extend(right.iter().cloned());
    let args: Vec<&std::ffi::OsStr> = args
        .iter()
        .map(|a: &std::ffi::OsString| a.as_os_str())
        .collect();
    check_typed(&corpus, &args).code(0);
    assert!(std::fs::read_to_string(&notes)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    // Into the corpus, or two reports in one file: refused.
    let inside = corpus.root().join("demo/report.json");
    check_typed(&corpus, &["--json".as_ref(), inside.as_os_str()])
        .code(2)
        .stderr(predicate::str::contains("that is inside the corpus"));
    let twice = dir.path().join("r.json");
    check_typed(
        &corpus,
        &[
            "--json".as_ref(),
            twice.as_os_str(),
            "--gradescope".as_ref(),
            twice.as_os_str(),
        ],
    )
    .code(2)
    .stderr(predicate::str::contains(
        "--json and --gradescope both name",
    ));
}

/// Every report gridjudge writes is known as one of its own: a second check writes over the
/// first one's reports without --force.
#[test]
fn a_check_writes_over_its_own_earlier_reports() {
    let corpus = Corpus::new(b"x\n", true);
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    for (flag, name) in [
        ("--json", "r.json"),
        ("--junit", "r.xml"),
        ("--gradescope", "results.json"),
        ("--html", "r.html"),
        ("--summary", "r.md"),
    ] {
        args.push(flag.into());
        args.push(dir.path().join(name).into());
    }
    args.extend([
        "--".into(),
        fixture(),
        "right".into(),
        corpus.expected_path().into(),
    ]);
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    check_typed(&corpus, &args).code(0);
    check_typed(&corpus, &args).code(0);
    for name in ["r.json", "r.xml", "results.json", "r.html", "r.md"] {
        let head = std::fs::read(dir.path().join(name)).unwrap();
        assert!(
            xtask::report::is_ours(&head[..head.len().min(xtask::report::HEAD)]),
            "{name}"
        );
    }
}

/// The FAIL blocks come in the order of the causes list, causes whose example is hand-written
/// first: a generated case's cause, first by path, is shown after a handout case's.
#[test]
fn fail_blocks_follow_the_causes_list_hand_written_first() {
    let corpus = Corpus::new(b"x\n", true);
    let suite = corpus.root().join("demo");
    std::fs::write(
        suite.join("suite.toml"),
        "args = [\"demo\"]\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 5.0\n\
         [groups]\nbasic = 4\ngenerated = 4\nhandout = 4\n",
    )
    .unwrap();
    for (group, expected) in [("generated", "y\n"), ("handout", "x\nmore\n")] {
        std::fs::create_dir_all(suite.join(group)).unwrap();
        std::fs::write(suite.join(group).join("001-case.in"), "x\n").unwrap();
        std::fs::write(suite.join(group).join("001-case.out"), expected).unwrap();
    }
    std::fs::write(corpus.expected_path(), "x\n").unwrap();
    let output = check(&corpus, "echo").code(1).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&output);
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("no {needle}: {text}"))
    };
    assert!(
        at("FAIL demo/handout/001-case") < at("FAIL demo/generated/001-case"),
        "{text}"
    );
    let causes = &text[at("\ncauses:")..];
    assert!(
        causes.find("demo/handout/001-case").unwrap()
            < causes.find("demo/generated/001-case").unwrap(),
        "{text}"
    );
}

/// A mistyped option is a usage error that names it, whatever follows it.
#[test]
fn an_unknown_option_is_a_usage_error_whatever_follows() {
    xtask()
        .args(["check", "--frobnicate", "main.py", "1", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`--frobnicate` is no option of this command",
        ));
}

/// Sources (a folder, or one file of a compiled language) with words after them: built, then
/// run with those words as the program's arguments.
#[test]
fn sources_with_arguments_are_built_and_run_with_them() {
    if !xtask::target::on_path(&"python3".into()) {
        println!("skipped: no python3");
        return;
    }
    let corpus = Corpus::new(b"x\n", true);
    std::fs::write(corpus.expected_path(), "0 0\n").unwrap();
    let folder = tempfile::tempdir().unwrap();
    crate::support::share(folder.path());
    std::fs::write(
        folder.path().join("main.py"),
        "import sys\nprint(' '.join(sys.argv[1:]))\n",
    )
    .unwrap();
    crate::support::share(folder.path());
    xtask()
        .env("NO_COLOR", "1")
        .args(["check", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg(folder.path())
        .args(["0", "0"])
        .assert()
        .code(0)
        .stdout(predicate::str::ends_with("1 passed, 0 failed\n"));
}

/// `check --list` says each group's cases and points and the total a perfect program scores,
/// and runs nothing.
#[test]
fn check_list_gives_the_points_total() {
    let corpus = Corpus::new(b"x\n", true);
    let suite = corpus.root().join("demo/suite.toml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replace("basic = 4\n", "basic = 4\nfound = 5\n"),
    )
    .unwrap();
    corpus.add("002-more", b"x\n", b"x\n");
    xtask()
        .args(["check", "--list", "--cases"])
        .arg(corpus.root())
        .assert()
        .code(0)
        .stdout(
            predicate::str::starts_with("demo: 2 graded cases, 4 points in all\n")
                .and(predicate::str::contains("basic"))
                .and(predicate::str::contains(
                    "(worth nothing until it has some)",
                )),
        );
}
