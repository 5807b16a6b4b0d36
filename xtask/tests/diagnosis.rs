//! What `check` tells a bug nobody listed: a wrong variant of the reference checked with its
//! own misreading and its twins' held out of the traces. Its failures fall into at most two
//! causes, and no misreading is named that the run refutes, checked here apart from the
//! harness's own account: the named variant, run as a program, passes every case the checked
//! program passes and parts from the expected output no earlier than it on every case it is
//! named for.

use std::path::Path;

use crate::support::mutant;
use std::process::{Command, Stdio};

/// What the variant `name` of `spec` prints on the input file `input`.
fn variant_output(spec: &str, name: &str, input: &Path) -> Vec<u8> {
    let output = Command::new(mutant())
        .args([name, spec])
        .stdin(std::fs::File::open(input).unwrap())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    output.stdout
}

/// The first byte where two outputs part, `None` where they are the same.
fn parts(a: &[u8], b: &[u8]) -> Option<usize> {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (same < a.len() || same < b.len()).then_some(same)
}

#[test]
fn a_bug_nobody_listed_is_told_two_causes_at_most_and_no_refuted_misreading() {
    for (spec, name) in [
        // Not readings of any rule another variant misreads.
        ("columns", "columns-min-run-four"),
        ("columns", "columns-removal-same-tick"),
        ("columns", "columns-column-off-by-one"),
        // Among the worst before refutation.
        ("columns", "columns-landed-as-falling"),
        ("columns", "columns-no-game-over"),
        ("collapse", "collapse-no-fall"),
        ("connect4", "connect4-no-diagonal-up"),
        ("go", "go-stone-liberties"),
    ] {
        let hold_out = xtask::adequacy::twins(name);
        assert!(hold_out.contains(&name.to_string()));
        let run = crate::support::check_variant(spec, name, hold_out.clone());
        let graded: Vec<_> = run.results.iter().filter(|r| r.case.graded).collect();
        let failing: Vec<_> = graded
            .iter()
            .filter(|r| !r.judgement.verdict.passed())
            .collect();
        assert!(!failing.is_empty(), "{name}: nothing fails");
        let causes: std::collections::BTreeSet<_> =
            failing.iter().map(|r| r.judgement.cause_key()).collect();
        assert!(causes.len() <= 2, "{name}: {causes:#?}");
        let named: std::collections::BTreeSet<&str> = failing
            .iter()
            .filter_map(|r| r.judgement.rule.as_ref())
            .filter(|rule| rule.misread)
            .map(|rule| rule.slug.as_str())
            .collect();
        for misreading in named {
            assert!(
                !hold_out.iter().any(|held| held == misreading),
                "{name}: told its own misreading {misreading}"
            );
            for result in &graded {
                let expected = std::fs::read(&result.case.expected).unwrap();
                let theirs = variant_output(spec, misreading, &result.case.input);
                let at = parts(&theirs, &expected);
                if result.judgement.verdict.passed() {
                    // Go compares without trailing spaces: none of its variants differs there.
                    assert_eq!(
                        at,
                        None,
                        "{name}: told {misreading}, which fails {}, passed",
                        result.case.id()
                    );
                } else if result
                    .judgement
                    .rule
                    .as_ref()
                    .is_some_and(|r| r.slug == misreading)
                {
                    let own = variant_output(spec, name, &result.case.input);
                    let program_at = parts(&own, &expected).unwrap_or(expected.len());
                    assert!(
                        at.unwrap_or(usize::MAX) >= program_at,
                        "{name}: told {misreading} on {}, which parts from the expected output first",
                        result.case.id()
                    );
                }
            }
        }
        if name == "columns-min-run-four" {
            // The issue's own example: not "horizontal runs never match" and its kin.
            for result in &failing {
                let text = result.judgement.cause_text();
                assert!(
                    !text.contains("never match") && !text.contains("only the first run"),
                    "{text}"
                );
            }
        }
    }
}
