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
pub(crate) struct Class {
    pub(crate) dir: tempfile::TempDir,
}

pub(crate) const MODES: [&str; 6] = ["echo", "shout", "abort", "echo", "missing", "sleep"];

impl Class {
    pub(crate) fn new(n_students: usize) -> Class {
        let dir = tempfile::tempdir().unwrap();
        let modes: Vec<&str> = (0..n_students).map(|k| MODES[k % MODES.len()]).collect();
        crate::support::echo_class(dir.path(), &modes);
        Class { dir }
    }

    pub(crate) fn options(&self, out: &Path, shard: Option<Shard>) -> Options {
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

    pub(crate) fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `cargo xtask grade` of the folder `submissions` with this class's corpus and the
    /// fixture run by folder, into `out`; the caller adds its own flags.
    pub(crate) fn cli(&self, submissions: &Path, out: &str) -> Command {
        let mut command = Command::cargo_bin("xtask").unwrap();
        command
            .args(["grade", "--spec", "echo", "--cases"])
            .arg(self.dir.path().join("cases"))
            .arg("--submissions")
            .arg(submissions)
            .arg("--run")
            .arg(format!("{} by-folder", fixture().to_string_lossy()))
            .arg("--out")
            .arg(self.out(out))
            .arg("--reference")
            .arg(reference());
        command
    }
}

/// Submission `id`'s row of `grades`.
pub(crate) fn row<'a>(
    grades: &'a xtask::report::Grades,
    id: &str,
) -> &'a xtask::report::Submission {
    grades
        .submissions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no row `{id}`"))
}

pub(crate) fn outputs(dir: &Path) -> (String, String) {
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
    let students = class.dir.path().join("class");
    for index in 1..=2 {
        class
            .cli(&students, &format!("shard-{index}"))
            .args([
                "--timeout",
                "0.5",
                "--shard",
                &format!("{index}/2"),
                "--gradescope",
            ])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("graded now"))
            // Its stderr is no terminal: a line per submission graded.
            .stderr(
                predicate::str::is_match(
                    r"(?m)^graded s0\d \(1 submission graded, \d+ of \d+ cases, \d+ s\)$",
                )
                .unwrap()
                .and(predicate::str::contains("(2 submissions graded, ")),
            );
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
    // --fail-fast at a failing case: exit status 1 (130 is Ctrl-C's), and where it stopped.
    class
        .cli(&students, "fail-fast")
        .args(["--timeout", "0.5", "--fail-fast", "-j", "1"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "stopped by --fail-fast at s01, case echo/",
        ));
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
    // Where it stopped is said: the student, and why (no Ctrl-C was pressed).
    let place = first.stopped_at.clone().unwrap_or_default();
    assert!(place.starts_with("s01 ("), "{place}");
    let report = xtask::cli::grade_report(&first, &fail_fast.out);
    assert!(
        report.contains("stopped by --fail-fast at s01 ("),
        "{report}"
    );
    // The next run reuses what was finished and goes on from there.
    let second = grade(&fail_fast, &|_| {}).unwrap();
    assert_eq!(second.n_reused, 2);
}

/// Grading the echo class under `root` as `sh solution.sh` in each student's folder, into
/// `root/out`.
pub(crate) fn shell_class_options(root: &Path, out: &str) -> Options {
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

/// A mistake that would grade the whole class to zeros is refused before any case runs, as a
/// usage error (exit status 2) that says what to give instead.
#[test]
fn a_class_wide_mistake_is_refused_up_front() {
    let class = Class::new(2);
    let refused = |options: &Options, says: &str| {
        let err = grade(options, &|_| {}).unwrap_err();
        assert!(
            matches!(err, xtask::error::Error::Usage(_)),
            "{err:?} should be a usage error"
        );
        let text = err.to_string();
        assert!(text.contains(says), "{text}");
        assert!(
            !options.out.join("grades.csv").exists(),
            "nothing is graded"
        );
    };
    // A first word that is no program on PATH.
    let mut options = class.options(&class.out("typo"), None);
    options.run = vec!["pyhton3".into(), "connect.py".into()];
    refused(&options, "`pyhton3` is no program on PATH");
    // An empty submissions folder.
    let empty = class.out("empty");
    std::fs::create_dir(&empty).unwrap();
    let mut options = class.options(&class.out("none"), None);
    options.submissions = empty.clone();
    refused(&options, "holds no submission: it is empty");
    // One student's folder given as the class.
    let student = class.out("student");
    std::fs::create_dir(&student).unwrap();
    std::fs::write(student.join("connect.py"), "print(1)\n").unwrap();
    std::fs::write(student.join("notes.txt"), "mine\n").unwrap();
    options.submissions = student;
    refused(&options, "looks like one student's folder");
    // An export wrapped in one more folder.
    let export = class.out("export");
    std::fs::create_dir(&export).unwrap();
    std::fs::rename(class.dir.path().join("class"), export.join("export")).unwrap();
    options.submissions = export.clone();
    refused(&options, "an export wrapped in one more folder");
    std::fs::rename(export.join("export"), class.dir.path().join("class")).unwrap();
    // Results inside the submissions.
    let options = class.options(&class.dir.path().join("class/results"), None);
    refused(&options, "is inside --submissions");
    // And from the command line: exit status 2.
    class
        .cli(&empty, "cli")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds no submission"));
}

/// `--filter` scores a class out of the groups it keeps, and the closing lines say so.
#[test]
fn a_filtered_grading_is_scored_out_of_the_groups_it_keeps() {
    let class = Class::new(1);
    let mut options = class.options(&class.out("alpha"), None);
    options.check.filter = Some("alpha".into());
    let summary = grade(&options, &|_| {}).unwrap();
    // `alpha` is worth 6 of the suite's 10 points.
    assert_eq!(summary.grades.max_score, 6.0);
    assert_eq!(summary.filtered, Some((6.0, 10.0)));
    let report = xtask::cli::grade_report(&summary, &options.out);
    assert!(
        report.starts_with(
            "--filter: scores are out of 6 points, the groups it keeps (the whole suite: 10)\n"
        ),
        "{report}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(options.out.join("grades.json")).unwrap()).unwrap();
    assert_eq!(json["max_score"], 6.0);
}
