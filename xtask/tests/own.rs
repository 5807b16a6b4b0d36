//! An instructor's own assignment, end to end with no Rust: `rev` (print each line reversed),
//! written here in Python with a right and a wrong solution and a seeded generator, set up
//! with `cargo xtask new` and then blessed, generated, checked, fuzzed, graded and turned into
//! a student kit and a Gradescope zip exactly as the built-in assignments are.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

use crate::support::share;

fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

const SOLUTION: &str = "import sys\nfor line in sys.stdin:\n    print(line.rstrip('\\n')[::-1])\n";

/// Right on a line of one word only: a line of several words keeps its words in order.
const WRONG: &str =
    "import sys\nfor line in sys.stdin:\n    words = line.rstrip('\\n').split(' ')\n    \
                     print(' '.join(w[::-1] for w in words))\n";

const GENERATOR: &str = "import random, sys\nrng = random.Random(int(sys.argv[1]))\n\
for _ in range(rng.randint(1, 8)):\n    \
    words = [''.join(rng.choice('abcxyz') for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 3))]\n    \
    print(' '.join(words))\n";

/// A course folder: the solution, the wrong one and the generator, and the `rev` suite set up
/// by `cargo xtask new` in `cases/`, with the handout's one example blessed. `None` (and a
/// printed reason) without python3.
fn course() -> Option<tempfile::TempDir> {
    if Process::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_err()
    {
        println!("skipped: python3 is not installed");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let root = dir.path();
    std::fs::write(root.join("solution.py"), SOLUTION).unwrap();
    std::fs::write(root.join("wrong.py"), WRONG).unwrap();
    std::fs::write(root.join("gen.py"), GENERATOR).unwrap();
    xtask()
        .current_dir(root)
        .args([
            "new",
            "rev",
            "--cases",
            "cases",
            "--reference",
            "python3 solution.py",
        ])
        .args(["--generate", "python3 gen.py {seed}"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "cargo xtask bless --cases cases --spec rev",
        ));
    std::fs::write(
        root.join("cases/rev/handout/001-example.in"),
        "stressed\nlive on\n",
    )
    .unwrap();
    xtask()
        .current_dir(root)
        .args(["bless", "--cases", "cases", "--spec", "rev"])
        .assert()
        .success();
    // The expected output comes from the solution, run in the suite's folder.
    assert_eq!(
        std::fs::read_to_string(root.join("cases/rev/handout/001-example.out")).unwrap(),
        "desserts\nno evil\n"
    );
    Some(dir)
}

fn in_course(dir: &Path, args: &[&str]) -> std::process::Output {
    xtask().current_dir(dir).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_own_assignment_is_generated_checked_fuzzed_and_graded_like_a_built_in_one() {
    let Some(dir) = course() else {
        return;
    };
    let root = dir.path();
    let generated = in_course(
        root,
        &["gen", "--cases", "cases", "--spec", "rev", "--count", "12"],
    );
    assert!(generated.status.success(), "{}", text(&generated.stderr));
    let first = root.join("cases/rev/generated/001-random.in");
    let input = std::fs::read_to_string(&first).unwrap();
    // Seeded: the same seed gives the same input again.
    let again = Process::new("python3")
        .args(["gen.py", "1"])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(text(&again.stdout), input);
    let expected: String = input
        .lines()
        .map(|line| line.chars().rev().collect::<String>() + "\n")
        .collect();
    assert_eq!(
        std::fs::read_to_string(first.with_extension("out")).unwrap(),
        expected
    );

    let right = in_course(
        root,
        &["check", "--cases", "cases", "--", "python3", "solution.py"],
    );
    assert!(right.status.success(), "{}", text(&right.stdout));
    assert!(
        text(&right.stdout).contains("13 passed, 0 failed"),
        "{}",
        text(&right.stdout)
    );
    let wrong = in_course(
        root,
        &["check", "--cases", "cases", "--", "python3", "wrong.py"],
    );
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong.stdout));
    assert!(text(&wrong.stdout).contains("FAIL rev/handout/001-example"));

    // Fuzzing finds the wrong solution's bug and shrinks it to one line of two words or more.
    let fuzzed = in_course(
        root,
        &[
            "fuzz", "--cases", "cases", "--spec", "rev", "--seed", "3", "--runs", "200", "--",
            "python3", "wrong.py",
        ],
    );
    assert_eq!(fuzzed.status.code(), Some(1), "{}", text(&fuzzed.stderr));
    let found = root.join("cases/rev/found/001-fuzz-seed-3.in");
    let shrunk = std::fs::read_to_string(&found).unwrap();
    assert_eq!(shrunk.lines().count(), 1, "{shrunk:?}");
    assert!(shrunk.contains(' '), "{shrunk:?}");
    let clean = in_course(
        root,
        &[
            "fuzz",
            "--cases",
            "cases",
            "--spec",
            "rev",
            "--seed",
            "3",
            "--runs",
            "40",
            "--",
            "python3",
            "solution.py",
        ],
    );
    assert!(clean.status.success(), "{}", text(&clean.stdout));
    assert!(text(&clean.stdout).contains("no disagreement in 40 inputs"));

    // A class: the right solution full marks, the wrong one only the one-word lines.
    let subs = root.join("subs");
    for (id, source) in [("alice", SOLUTION), ("bob", WRONG)] {
        std::fs::create_dir_all(subs.join(id)).unwrap();
        std::fs::write(subs.join(id).join("rev.py"), source).unwrap();
    }
    let graded = in_course(
        root,
        &[
            "grade",
            "--cases",
            "cases",
            "--spec",
            "rev",
            "--submissions",
            "subs",
            "--run",
            "python3 rev.py",
            "--out",
            "grades",
        ],
    );
    assert!(graded.status.success(), "{}", text(&graded.stderr));
    let csv = std::fs::read_to_string(root.join("grades/grades.csv")).unwrap();
    let score = |id: &str| -> (f64, f64) {
        let row: Vec<&str> = csv
            .lines()
            .find(|line| line.starts_with(&format!("{id},")))
            .unwrap()
            .split(',')
            .collect();
        (row[1].parse().unwrap(), row[2].parse().unwrap())
    };
    let (alice, max) = score("alice");
    assert_eq!(alice, max, "{csv}");
    assert!(score("bob").0 < max / 2.0, "{csv}");
}

#[test]
fn an_own_assignment_needs_a_generator_for_gen_and_says_how_to_name_one() {
    let Some(dir) = course() else {
        return;
    };
    let suite = dir.path().join("cases/rev/suite.toml");
    let text_of = std::fs::read_to_string(&suite).unwrap();
    let without: String = text_of
        .lines()
        .filter(|line| !line.starts_with("generate"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&suite, without).unwrap();
    let out = in_course(dir.path(), &["gen", "--cases", "cases", "--spec", "rev"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("generate = \\\"python3 gen.py {seed}\\\"")
            || text(&out.stderr).contains("generate = \"python3 gen.py {seed}\""),
        "{}",
        text(&out.stderr)
    );
    // A suite with neither the bundled reference's `args` nor a `reference` says what to add.
    let none: String = std::fs::read_to_string(&suite)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("reference"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&suite, none).unwrap();
    let out = in_course(
        dir.path(),
        &["check", "--cases", "cases", "--", "python3", "x.py"],
    );
    assert!(
        text(&out.stderr).contains("names no reference: add `reference = \"CMD\"`"),
        "{}",
        text(&out.stderr)
    );
}

/// The kit of `rev`, built into the course folder: it judges with no cargo and no python3 of
/// the instructor's, only the student's program.
#[test]
fn an_own_assignment_gets_a_student_kit_and_an_autograder_zip() {
    let Some(dir) = course() else {
        return;
    };
    let root = dir.path();
    let kit: PathBuf = root.join("check-rev");
    let built = in_course(
        root,
        &[
            "kit",
            "--cases",
            "cases",
            "--spec",
            "rev",
            "--out",
            "check-rev",
        ],
    );
    assert!(built.status.success(), "{}", text(&built.stderr));
    let student = tempfile::tempdir().unwrap();
    share(student.path());
    std::fs::copy(&kit, student.path().join("check-rev")).unwrap();
    std::fs::write(student.path().join("rev.py"), WRONG).unwrap();
    let run = Process::new(student.path().join("check-rev"))
        .args(["python3", "rev.py"])
        .current_dir(student.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("FAIL rev/handout/001-example"),
        "{}",
        text(&run.stdout)
    );
    let zip = in_course(
        root,
        &[
            "autograder",
            "--cases",
            "cases",
            "--spec",
            "rev",
            "--run",
            "python3 rev.py",
            "--out",
            "autograder.zip",
        ],
    );
    assert!(zip.status.success(), "{}", text(&zip.stderr));
    assert!(root.join("autograder.zip").is_file());
}
