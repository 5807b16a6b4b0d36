//! Grading again: results reused only while nothing they depend on changed, a grading killed at
//! any moment resumes to the same bytes, and a regrade names whose score moved and why.

use crate::grade::{outputs, Class};
use crate::support::{fixture, reference};
use std::path::Path;
use std::time::Duration;
use xtask::grade::{grade, Options};

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
