//! How `check` chooses the spec when none is named: from the handout cases' results, for
//! right, buggy, crashing, prompting and CRLF programs; a true tie asks for `--spec`.

use crate::cli::{check_with, xtask};
use crate::support::{reference, Corpus};
use predicates::prelude::*;

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
