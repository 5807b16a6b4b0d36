//! `cargo xtask grade` and `merge`: rows per submission, shards that merge into exactly one
//! run's outputs, and a resumed run that equals an uninterrupted one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use xtask::check::Options as CheckOptions;
use xtask::corpus::Shard;
use xtask::grade::{grade, Options};
use xtask::report::merge;

use crate::support::{fixture, reference};

/// A corpus `echo` whose cases expect their input back, and a class of submissions whose
/// behaviour the fixture reads from each folder's `mode` file.
struct Class {
    dir: tempfile::TempDir,
}

const MODES: [&str; 6] = ["echo", "shout", "abort", "echo", "missing", "sleep"];

impl Class {
    fn new(n_students: usize) -> Class {
        let dir = tempfile::tempdir().unwrap();
        let modes: Vec<&str> = (0..n_students).map(|k| MODES[k % MODES.len()]).collect();
        crate::support::echo_class(dir.path(), &modes);
        Class { dir }
    }

    fn options(&self, out: &Path, shard: Option<Shard>) -> Options {
        Options {
            check: CheckOptions {
                jobs: 2,
                timeout: Some(Duration::from_millis(500)),
                wall: Some(Duration::from_millis(1500)),
                ..CheckOptions::new(
                    self.dir.path().join("cases"),
                    PathBuf::from("/nonexistent/reference"),
                    PathBuf::new(),
                )
            },
            spec: "echo".into(),
            submissions: self.dir.path().join("class"),
            run: vec![fixture(), "by-folder".into()],
            build: Vec::new(),
            out: out.to_path_buf(),
            shard,
            force: false,
            dry_run: false,
            gradescope: None,
            html: false,
        }
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Submission `id`'s row of `grades`.
fn row<'a>(grades: &'a xtask::report::Grades, id: &str) -> &'a xtask::report::Submission {
    grades
        .submissions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no row `{id}`"))
}

fn outputs(dir: &Path) -> (String, String) {
    (
        std::fs::read_to_string(dir.join("grades.csv")).unwrap(),
        std::fs::read_to_string(dir.join("grades.json")).unwrap(),
    )
}

#[test]
fn each_submission_gets_its_row_whatever_it_does() {
    let class = Class::new(6);
    let summary = grade(&class.options(&class.out("all"), None), &|_| {}).unwrap();
    assert_eq!(summary.n_graded, 6);
    let (csv, _) = outputs(&class.out("all"));
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(&rows[0][..5], ["id", "score", "max_score", "alpha", "beta"]);
    let score = |id: &str| rows.iter().find(|r| r[0] == id).unwrap()[1];
    assert_eq!(score("s00"), "10.00", "echo passes everything");
    assert_eq!(score("s01"), "0.00", "shout fails everything");
    assert_eq!(score("s03"), "10.00");
    let error = |id: &str| {
        rows.iter()
            .find(|r| r[0] == id)
            .unwrap()
            .last()
            .unwrap()
            .to_string()
    };
    // A crash without output did start: its cases are runtime errors, the signal named.
    assert_eq!(error("s02"), "", "a crash is no could-not-run");
    let runtime_errors = rows[0].iter().position(|h| *h == "runtime-error").unwrap();
    assert_eq!(
        rows.iter().find(|r| r[0] == "s02").unwrap()[runtime_errors],
        "5"
    );
    assert!(
        error("s04").contains("can't open file 'project4.py'"),
        "{}",
        error("s04")
    );
    assert_eq!(error("s00"), "");
    let timeout_column = rows[0].iter().position(|h| *h == "timeout").unwrap();
    assert_eq!(
        rows.iter().find(|r| r[0] == "s05").unwrap()[timeout_column],
        "5"
    );
}

#[test]
fn shards_merged_equal_one_run() {
    let class = Class::new(12);
    grade(&class.options(&class.out("all"), None), &|_| {}).unwrap();
    let mut files = Vec::new();
    let mut total = 0;
    for index in 1..=3 {
        let out = class.out(&format!("shard-{index}"));
        let summary = grade(
            &class.options(&out, Some(Shard { index, count: 3 })),
            &|_| {},
        )
        .unwrap();
        total += summary.grades.submissions.len();
        files.push(out.join("grades.json"));
    }
    assert_eq!(total, 12);
    merge(&files, &class.out("merged"), false).unwrap();
    assert!(
        outputs(&class.out("merged")) == outputs(&class.out("all")),
        "merged shards differ from one run"
    );
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let class = Class::new(8);
    let options = class.options(&class.out("all"), None);
    grade(&options, &|_| {}).unwrap();
    let uninterrupted = outputs(&class.out("all"));
    // As if grading had stopped after the first five students.
    let results = class.out("all/results");
    for id in ["s05", "s06", "s07"] {
        std::fs::remove_file(results.join(format!("{id}.json"))).unwrap();
    }
    std::fs::remove_file(class.out("all/grades.csv")).unwrap();
    std::fs::remove_file(class.out("all/grades.json")).unwrap();
    let kept = std::fs::metadata(results.join("s00.json"))
        .unwrap()
        .modified()
        .unwrap();
    let summary = grade(&options, &|_| {}).unwrap();
    assert_eq!((summary.n_reused, summary.n_graded), (5, 3));
    assert_eq!(
        std::fs::metadata(results.join("s00.json"))
            .unwrap()
            .modified()
            .unwrap(),
        kept
    );
    assert!(
        outputs(&class.out("all")) == uninterrupted,
        "the resumed run differs"
    );
}

#[test]
fn the_cli_grades_and_merges() {
    let class = Class::new(4);
    let xtask = || Command::cargo_bin("xtask").unwrap();
    for index in 1..=2 {
        xtask()
            .args(["grade", "--spec", "echo", "--timeout", "0.5", "--cases"])
            .arg(class.dir.path().join("cases"))
            .arg("--submissions")
            .arg(class.dir.path().join("class"))
            .arg("--run")
            .arg(format!("{} by-folder", fixture().to_string_lossy()))
            .arg("--out")
            .arg(class.out(&format!("shard-{index}")))
            .args([
                "--shard",
                &format!("{index}/2"),
                "--gradescope",
                "--reference",
            ])
            .arg(reference())
            .assert()
            .code(0)
            .stdout(predicate::str::contains("graded now"));
    }
    xtask()
        .args(["merge", "--out"])
        .arg(class.out("merged"))
        .arg(class.out("shard-1/grades.json"))
        .arg(class.out("shard-2/grades.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "merged 4 submissions from 2 files",
        ));
    let (csv, _) = outputs(&class.out("merged"));
    assert_eq!(csv.lines().count(), 5);
    let any_gradescope = ["shard-1", "shard-2"].iter().any(|s| {
        class
            .out(&format!("{s}/gradescope/s00/results.json"))
            .is_file()
    });
    assert!(
        any_gradescope,
        "--gradescope writes one results.json per submission"
    );
}

/// A class of shell-script students: `good` echoes its input, `nosy` tries to read `good`'s
/// secret (by a relative and by an absolute path) before echoing, and `escaper` moves its main
/// process into its child's process group and sleeps.
fn hostile_class() -> (Class, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let class = Class::new(0);
    let students = class.dir.path().join("class");
    std::fs::create_dir_all(&students).unwrap();
    let good = students.join("good");
    let script = |name: &str, text: String| {
        let dir = students.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("run.sh"), text).unwrap();
        std::fs::set_permissions(dir.join("run.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        dir
    };
    script("good", "#!/bin/sh\ncat\n".into());
    std::fs::write(good.join("secret"), "the answers\n").unwrap();
    script(
        "nosy",
        format!(
            "#!/bin/sh\ncat ../good/secret {}/secret 2>/dev/null\ncat\n",
            good.display()
        ),
    );
    let escaper = script("escaper", "#!/bin/sh\nexec ./fixture escape-group\n".into());
    std::fs::copy(fixture(), escaper.join("fixture")).unwrap();
    (class, students)
}

#[test]
fn a_student_can_neither_read_another_nor_hold_up_the_class() {
    let (class, students) = hostile_class();
    let mut options = class.options(&class.out("all"), None);
    options.submissions = students.clone();
    options.run = vec!["./run.sh".into(), ".".into()];
    let start = std::time::Instant::now();
    let summary = grade(&options, &|_| {}).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    let score = |id: &str| row(&summary.grades, id).score;
    assert_eq!(
        score("good"),
        10.0,
        "`./run.sh` runs in the student's folder"
    );
    assert_eq!(
        score("nosy"),
        10.0,
        "the other student's secret stayed out of reach"
    );
    assert_eq!(score("escaper"), 0.0);
    // The good student's row is what grading it alone gives.
    let alone = class.dir.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::rename(students.join("good"), alone.join("good")).unwrap();
    options.submissions = alone;
    // Not the submissions folder itself: --out is kept out of every target's sight.
    options.out = class.out("alone-grades");
    let summary_alone = grade(&options, &|_| {}).unwrap();
    assert_eq!(
        row(&summary.grades, "good"),
        row(&summary_alone.grades, "good")
    );
}

#[test]
fn results_are_reused_only_while_nothing_they_depend_on_changed() {
    let class = Class::new(2);
    let out = class.out("all");
    let options = class.options(&out, None);
    let regrade = |options: &Options| grade(options, &|_| {}).unwrap();
    assert_eq!(regrade(&options).n_graded, 2);
    assert_eq!(regrade(&options).n_reused, 2, "nothing changed");
    // A student replaces the program (here: the mode the fixture reads).
    std::fs::write(class.dir.path().join("class/s01/mode"), "echo").unwrap();
    let summary = regrade(&options);
    assert_eq!(
        (summary.n_graded, summary.n_reused),
        (1, 1),
        "a changed submission"
    );
    // An expected output changes.
    let out_file = class.dir.path().join("cases/echo/alpha/001-line.out");
    std::fs::write(&out_file, "changed\n").unwrap();
    assert_eq!(regrade(&options).n_graded, 2, "a changed `.out`");
    // A limit changes.
    let mut tighter = options.clone();
    tighter.check.confine.limits.memory = Some(512 << 20);
    assert_eq!(regrade(&tighter).n_graded, 2, "a changed limit");
    assert_eq!(regrade(&tighter).n_reused, 2);
    let mut forced = tighter.clone();
    forced.force = true;
    assert_eq!(regrade(&forced).n_graded, 2, "--force");
}

#[test]
fn dot_folders_and_files_are_skipped_and_listed() {
    let class = Class::new(2);
    let students = class.dir.path().join("class");
    std::fs::create_dir_all(students.join(".git/objects")).unwrap();
    std::fs::write(students.join("README.md"), "the class\n").unwrap();
    let summary = grade(&class.options(&class.out("all"), None), &|_| {}).unwrap();
    let ids: Vec<&str> = summary
        .grades
        .submissions
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(ids, ["s00", "s01"]);
    let names: Vec<&str> = summary
        .grades
        .skipped
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(names, [".git", "README.md"]);
    let report = xtask::cli::grade_report(&summary, &class.out("all"));
    assert!(
        report.contains("skipped `.git`: a hidden entry"),
        "{report}"
    );
    assert!(
        report.contains(
            "skipped `README.md`: not a folder, an archive (.zip, .tar.gz) or a source file"
        ),
        "{report}"
    );
    // The gradebook lists them too.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(class.out("all").join("grades.json")).unwrap())
            .unwrap();
    assert_eq!(json["skipped"][1][0], "README.md", "{json}");
}

#[test]
fn an_incomplete_set_of_shards_is_refused_unless_allowed() {
    let class = Class::new(6);
    let out = class.out("shard-1");
    grade(
        &class.options(&out, Some(Shard { index: 1, count: 2 })),
        &|_| {},
    )
    .unwrap();
    let files = [out.join("grades.json")];
    let err = merge(&files, &class.out("merged"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("merging 1 of 2 shards: missing 2/2"), "{err}");
    assert!(merge(&files, &class.out("merged"), true).is_ok());
}

#[test]
fn a_grading_killed_at_any_moment_resumes_to_the_same_bytes() {
    let class = Class::new(24);
    // A word on every target's command line, to find them in /proc whatever else runs.
    let marker = format!("killed-grading-{}", std::process::id());
    let grade_cli = |out: &Path| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"));
        command
            .args([
                "grade",
                "--spec",
                "echo",
                "--timeout",
                "0.4",
                "--wall",
                "1",
                "--cases",
            ])
            .arg(class.dir.path().join("cases"))
            .arg("--submissions")
            .arg(class.dir.path().join("class"))
            .arg("--run")
            .arg(format!(
                "{} by-folder {marker}",
                fixture().to_string_lossy()
            ))
            .arg("--out")
            .arg(out)
            .arg("--reference")
            .arg(reference())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        command
    };
    let whole = class.out("whole");
    assert!(grade_cli(&whole).status().unwrap().success());
    let killed = class.out("killed");
    // SIGKILL at moments spread over a run (a fixed sequence, so a failure repeats).
    let results = killed.join("results");
    for delay_ms in [150, 900, 400, 1300, 50] {
        let mut child = grade_cli(&killed).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        // What is there under a result's name is whole: every result file parses (a temporary
        // file a write was cut off in goes at the next start).
        for entry in std::fs::read_dir(&results).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp") {
                continue;
            }
            let bytes = std::fs::read(entry.path()).unwrap();
            serde_json::from_slice::<serde_json::Value>(&bytes)
                .unwrap_or_else(|err| panic!("{name} is not whole: {err}"));
        }
    }
    let finished_before = std::fs::read_dir(&results).map_or(0, |d| {
        d.flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with(".tmp"))
            .count()
    });
    let output = grade_cli(&killed).output().unwrap();
    assert!(output.status.success());
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.contains(&format!("{finished_before} reused from an earlier run")),
        "{finished_before} results were there: {report}"
    );
    assert!(
        outputs(&whole) == outputs(&killed),
        "the resumed grades differ"
    );
    let leftovers = std::fs::read_dir(&results)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .count();
    assert_eq!(leftovers, 0, "temporary files of killed runs are removed");
    // The kernel ends a killed grading's cases with their namespaces; on a busy machine that
    // takes a moment: wait for it, bounded.
    let start = std::time::Instant::now();
    let mut left = crate::support::survivors(&marker).len();
    while left > 0 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
        left = crate::support::survivors(&marker).len();
    }
    assert_eq!(left, 0, "a target outlived a killed grading");
}

/// What a submission holds costs the grader a bounded amount: a sparse file far larger than
/// memory, a FIFO, a device-like name and a deep tree are keyed, not read whole, and the other
/// students' grades are what they are alone.
#[test]
fn a_huge_sparse_file_or_a_fifo_in_a_submission_stops_nobody() {
    let class = Class::new(3);
    let alone = class.out("alone");
    grade(&class.options(&alone, None), &|_| {}).unwrap();
    let hostile = class.dir.path().join("class/s01");
    let sparse = std::fs::File::create(hostile.join("huge.bin")).unwrap();
    sparse.set_len(1 << 40).unwrap(); // 1 TiB, no block of it written
    let fifo =
        std::ffi::CString::new(hostile.join("pipe").into_os_string().into_encoded_bytes()).unwrap();
    // SAFETY: mkfifo reads a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let mut deep = hostile.clone();
    for _ in 0..200 {
        deep = deep.join("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    let with_them = class.out("with-them");
    let summary = grade(&class.options(&with_them, None), &|_| {}).unwrap();
    assert_eq!(summary.n_graded, 3);
    let written_row = |dir: &Path, id: &str| {
        let json = std::fs::read_to_string(dir.join("grades.json")).unwrap();
        let grades: xtask::report::Grades = serde_json::from_str(&json).unwrap();
        row(&grades, id).clone()
    };
    for id in ["s00", "s01", "s02"] {
        assert_eq!(written_row(&alone, id), written_row(&with_them, id), "{id}");
    }
}

/// Command words never leave a student's folder: a submission's own `sh` does not replace the
/// `sh` of `--run`, and a file that links to a classmate's is refused for that student alone,
/// with the reason in the gradebook; the others' grades are what they are alone.
#[test]
fn a_submission_cannot_swap_the_interpreter_or_link_to_a_classmate() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    crate::support::echo_class(dir.path(), &["echo", "echo", "echo"]);
    let class = dir.path().join("class");
    let honest = "exec cat\n";
    for id in ["s00", "s01", "s02"] {
        std::fs::write(class.join(id).join("solution.sh"), honest).unwrap();
    }
    let options = |out: &str| shell_class_options(dir.path(), out);
    grade(&options("alone"), &|_| {}).unwrap();
    // s01 hands in a wrong solution and its own `sh`, which would echo (and pass) if it ran.
    std::fs::write(class.join("s01/solution.sh"), "echo wrong\n").unwrap();
    let own_sh = class.join("s01/sh");
    std::fs::write(&own_sh, "#!/bin/sh\nexec cat\n").unwrap();
    std::fs::set_permissions(&own_sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    // s02's solution is s00's.
    std::fs::remove_file(class.join("s02/solution.sh")).unwrap();
    std::os::unix::fs::symlink("../s00/solution.sh", class.join("s02/solution.sh")).unwrap();
    let summary = grade(&options("attacked"), &|_| {}).unwrap();
    assert_eq!(
        row(&summary.grades, "s01").score,
        0.0,
        "the system's sh ran s01's wrong solution"
    );
    let refused = row(&summary.grades, "s02");
    assert_eq!(refused.score, 0.0);
    let error = refused.error.clone().unwrap_or_default();
    assert!(error.contains("links outside the submission"), "{error}");
    let alone = std::fs::read_to_string(dir.path().join("alone/grades.json")).unwrap();
    let alone: xtask::report::Grades = serde_json::from_str(&alone).unwrap();
    let s00 = row(&alone, "s00");
    assert_eq!(s00.score, row(&summary.grades, "s00").score);
    assert_eq!(s00.score, 10.0);
}

/// A regrade is an audit: nothing changed, nothing moves; a changed submission and a changed
/// case each name the students whose score moved and why; the earlier gradebook is kept;
/// `--dry-run` says what would run again without running it.
#[test]
fn a_regrade_names_whose_score_moved_and_why() {
    let class = Class::new(4); // echo, shout, abort, echo
    let out = class.out("grades");
    let mut options = class.options(&out, None);
    options.html = true;
    let first = grade(&options, &|_| {}).unwrap();
    assert!(first.changes.is_empty() && first.earlier.is_none());
    let again = grade(&options, &|_| {}).unwrap();
    assert_eq!(again.n_reused, 4);
    assert!(again.changes.is_empty(), "{:?}", again.changes);
    let kept = |out: &Path| {
        std::fs::read_dir(out)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("grades-"))
            .count()
    };
    assert_eq!(kept(&out), 0, "nothing moved: no copy");

    // s01 fixes its program.
    std::fs::write(class.dir.path().join("class/s01/mode"), "echo").unwrap();
    let dry = grade(
        &Options {
            dry_run: true,
            ..options.clone()
        },
        &|_| {},
    )
    .unwrap();
    let plan: Vec<&str> = dry.plan.iter().map(|(_, what)| what.as_str()).collect();
    assert_eq!(plan[1], "grade again: the submission changed", "{plan:?}");
    assert!(plan[0].starts_with("reuse"), "{plan:?}");
    let fixed = grade(&options, &|_| {}).unwrap();
    assert_eq!(fixed.changes.len(), 1, "{:?}", fixed.changes);
    let change = &fixed.changes[0];
    assert_eq!(
        (change.id.as_str(), change.old_score, change.new_score),
        ("s01", 0.0, 10.0)
    );
    assert_eq!(change.why, "the submission changed");
    assert_eq!(kept(&out), 2, "the earlier grades.json and grades.csv");
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("Scores this regrade moved") && report.contains("data-student=\"s01\"")
    );
    let printed = xtask::cli::grade_report(&fixed, &out);
    assert!(
        printed.contains("s01: 0.00 → 10.00: the submission changed"),
        "{printed}"
    );

    // The instructor changes one expected output: every echo student now fails that case.
    let case = class.dir.path().join("cases/echo/alpha/001-line.out");
    std::fs::write(&case, "something else\n").unwrap();
    let moved = grade(&options, &|_| {}).unwrap();
    let ids: Vec<&str> = moved.changes.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["s00", "s01", "s03"], "{:?}", moved.changes);
    assert!(
        moved.changes[0].why
            == "the corpus or the grading settings changed: echo/alpha/001-line: pass → wrong-output",
        "{:?}",
        moved.changes[0]
    );
    let regrade: Vec<xtask::report::Change> =
        serde_json::from_slice(&std::fs::read(out.join("regrade.json")).unwrap()).unwrap();
    assert_eq!(regrade, moved.changes);
}

/// Small things an instructor trips over: a program handed in one folder down is named with
/// the command that would run it (never a silent 0); `--filter` grades one group first;
/// `--fail-fast` stops at the first failing case and the next run grades the rest.
#[test]
fn a_nested_program_is_named_and_filter_and_fail_fast_try_a_class_first() {
    let dir = tempfile::tempdir().unwrap();
    crate::support::echo_class(dir.path(), &["echo", "echo", "echo"]);
    let class = dir.path().join("class");
    for id in ["s00", "s02"] {
        std::fs::write(class.join(id).join("solution.sh"), "exec cat\n").unwrap();
    }
    std::fs::create_dir(class.join("s01/project4")).unwrap();
    std::fs::write(class.join("s01/project4/solution.sh"), "exec cat\n").unwrap();
    let options = |out: &str| shell_class_options(dir.path(), out);
    let summary = grade(&options("all"), &|_| {}).unwrap();
    let nested = row(&summary.grades, "s01");
    let error = nested.error.clone().unwrap_or_default();
    assert!(
        error.contains("`project4/solution.sh` is there: pass --run 'sh project4/solution.sh'"),
        "{error}"
    );
    // One group first.
    let mut filtered = options("alpha");
    filtered.check.filter = Some("alpha".into());
    let summary = grade(&filtered, &|_| {}).unwrap();
    let s00 = row(&summary.grades, "s00");
    assert_eq!(s00.groups.keys().collect::<Vec<_>>(), ["alpha"]);
    // Stop at the first failure (s01's), then grade the rest with the same command.
    let mut fail_fast = options("fail-fast");
    fail_fast.check.fail_fast = true;
    fail_fast.check.jobs = 1;
    let first = grade(&fail_fast, &|_| {}).unwrap();
    assert!(first.interrupted, "stopped at s01");
    assert_eq!(first.n_graded, 2, "s00, then s01 (which could not run)");
    // The next run reuses what was finished and goes on from there.
    let second = grade(&fail_fast, &|_| {}).unwrap();
    assert_eq!(second.n_reused, 2);
}

/// Grading the echo class under `root` as `sh solution.sh` in each student's folder, into
/// `root/out`.
fn shell_class_options(root: &Path, out: &str) -> Options {
    Options {
        check: CheckOptions {
            jobs: 2,
            timeout: Some(Duration::from_secs(5)),
            ..CheckOptions::new(
                root.join("cases"),
                PathBuf::from("/nonexistent/reference"),
                PathBuf::new(),
            )
        },
        spec: "echo".into(),
        submissions: root.join("class"),
        run: vec!["sh".into(), "solution.sh".into()],
        build: Vec::new(),
        out: root.join(out),
        shard: None,
        force: false,
        dry_run: false,
        gradescope: None,
        html: false,
    }
}
