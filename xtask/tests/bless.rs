//! `cargo xtask bless`: `.out` files written atomically from the reference or from a confined
//! `--from` command, `--check`, and a target whose two runs differ refused.

use crate::cli::xtask;
use crate::support::{fixture, reference, Corpus};
use predicates::prelude::*;

/// `bless` (with `--check` when `check`) of `corpus` from the fixture printing its expected
/// output.
fn bless_from_the_fixture(corpus: &Corpus, check: bool) -> assert_cmd::assert::Assert {
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
}

#[test]
fn bless_writes_atomically_reports_and_checks() {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-new", b"x\n", b"stale\n");
    std::fs::remove_file(corpus.root().join("demo/basic/002-new.out")).unwrap();
    corpus.add("003-changed", b"x\n", b"old\n");
    std::fs::write(corpus.root().join("demo/basic/004-gone.out"), "x").unwrap();
    let bless = |check: bool| bless_from_the_fixture(&corpus, check);
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

/// With nothing to bless, bless says why: no input anywhere is a usage error naming the suite's
/// folder; an empty group folder is a note beside what was blessed.
#[test]
fn bless_with_nothing_to_bless_says_why() {
    let corpus = Corpus::new(b"x\n", true);
    let bless = || bless_from_the_fixture(&corpus, false);
    // A second group, listed in the suite file, whose folder is empty.
    let suite = corpus.root().join("demo/suite.toml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replace("basic = 4\n", "basic = 4\nhandout = 4\n"),
    )
    .unwrap();
    std::fs::create_dir(corpus.root().join("demo/handout")).unwrap();
    bless().code(0).stdout(predicate::str::contains(
        "note: `demo/handout/` holds no input (`NAME.in`): nothing to bless there",
    ));
    std::fs::remove_file(corpus.root().join("demo/basic/001-case.in")).unwrap();
    bless().code(2).stderr(predicate::str::contains(
        "nothing to bless: no input (`NAME.in`)",
    ));
}
