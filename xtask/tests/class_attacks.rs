//! A class graded with hostile submissions among honest ones: no student reads another's
//! files or holds the class up, a huge sparse file or a FIFO stops nobody, and nobody swaps the
//! interpreter or links to a classmate.

use crate::grade::{row, shell_class_options, Class};
use crate::support::fixture;
use std::path::{Path, PathBuf};
use std::time::Duration;
use xtask::grade::grade;

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

/// A submission of 64 busy processes waits for its own processes, not for the machine: it is
/// timed out on every case (no rerun alone, no "unreliable measurement"), and its classmates'
/// grades are what they are alone. (What it costs the class in time is measured by
/// `cargo xtask bench`, not here.)
#[test]
fn a_submission_of_many_busy_processes_times_out_and_holds_nobody_up() {
    let dir = tempfile::tempdir().unwrap();
    crate::support::echo_class(dir.path(), &["hog", "echo", "echo"]);
    let class = Class { dir };
    let mut options = class.options(&class.out("hog"), None);
    // The default backstop: the CPU limit is reached long before it, even on a busy machine.
    options.check.wall = None;
    let summary = grade(&options, &|_| {}).unwrap();
    let hog = row(&summary.grades, "s00");
    assert_eq!(hog.score, 0.0);
    assert_eq!(hog.verdicts["timeout"], 5, "{:?}", hog.verdicts);
    assert_eq!(hog.verdicts["unreliable-measurement"], 0);
    for id in ["s01", "s02"] {
        assert_eq!(row(&summary.grades, id).score, 10.0, "{id}");
    }
}
