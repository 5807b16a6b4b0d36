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
    let mut told: std::collections::BTreeMap<String, &str> = Default::default();
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
        // Pairs that one cause for every failure no misreading fits told alike: a run of
        // three not matched and only the first run matched; two counts of liberties too high.
        ("columns", "columns-one-run"),
        ("go", "go-diagonal-liberties"),
        ("go", "go-repeated-liberties"),
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
        // Bugs of different rules are never told one cause.
        for result in &failing {
            let id = result.judgement.cause_id();
            let earlier = told.insert(id.clone(), name);
            assert!(
                earlier.is_none_or(|other| other == name),
                "{name} and {earlier:?} are both told [{id}] {}",
                result.judgement.cause_text()
            );
        }
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

/// A Columns program with two bugs nobody listed (its rotation swaps the top and bottom jewels;
/// its sideways moves look only at the bottom jewel's neighbour): at most two causes, each bug
/// shown in an example of its own (two examples, each parting from the expected output where
/// the program with one of the bugs alone parts), each cause naming the command and the cell, and the report printing them.
#[test]
fn two_bugs_nobody_listed_each_show_in_an_example_of_their_own() {
    if !xtask::target::on_path(&"python3".into()) {
        println!("skipped: python3 is not installed");
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    crate::support::share(folder.path());
    let source = xtask::workspace::root().join("xtask/bench/similar/columns/procedural.py");
    let text = std::fs::read_to_string(source).unwrap();
    let rotation = |text: &str| text.replacen("= [c, a, b]", "= [c, b, a]", 1);
    let sideways = |text: &str| {
        let check = "\n                r = faller['row'] - 2 + i\n                if r >= 0 and not cell_free";
        text.replacen(
            &format!("for i in range(3):{check}"),
            &format!("for i in [2]:{check}"),
            1,
        )
    };
    let run = |name: &str, text: String| {
        let program = folder.path().join(name);
        std::fs::write(&program, text).unwrap();
        let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let mut options = xtask::check::Options::new(
            cases,
            "/nonexistent/reference".into(),
            folder.path().into(),
        );
        options.spec = Some("columns".into());
        options.program = xtask::target::Program::Command(vec!["python3".into(), program.into()]);
        xtask::check::check(&options, &|_| {}).unwrap()
    };
    // Where each case's output first differs: a bug shows in a case where the program with
    // both parts where the program with that bug alone parts, and the other's does not.
    let parting = |run: &xtask::judge::Run| -> std::collections::BTreeMap<String, usize> {
        let parted = run.results.iter().filter_map(|r| {
            let difference = r.judgement.difference.as_ref()?;
            Some((r.case.id(), difference.expected_offset))
        });
        parted.collect()
    };
    assert_ne!(rotation(&text), text);
    assert_ne!(sideways(&text), text);
    let (only_rotation, only_sideways) = (
        parting(&run("rotation.py", rotation(&text))),
        parting(&run("sideways.py", sideways(&text))),
    );
    let both = run("both.py", rotation(&sideways(&text)));

    let causes = &both.summaries.causes;
    assert!(!causes.is_empty() && causes.len() <= 2, "{causes:#?}");
    let examples: Vec<&xtask::judge::CaseResult> = causes
        .iter()
        .flat_map(|cause| &cause.cases[..cause.examples])
        .map(|&k| &both.results[k])
        .collect();
    let texts: Vec<String> = examples.iter().map(|r| r.judgement.cause()).collect();
    // Two different examples, each parting where one bug alone parts.
    let parted = parting(&both);
    let shows = |bug: &std::collections::BTreeMap<String, usize>, r: &xtask::judge::CaseResult| {
        let at = parted.get(&r.case.id());
        at.is_some() && bug.get(&r.case.id()) == at
    };
    let own = examples.iter().enumerate().any(|(a, x)| {
        let other =
            |(b, y): (usize, &&xtask::judge::CaseResult)| b != a && shows(&only_sideways, y);
        shows(&only_rotation, x) && examples.iter().enumerate().any(other)
    });
    assert!(own, "a bug without an example of its own: {texts:#?}");
    let report = xtask::report::text_report(&both, false);
    for result in &examples {
        let text = result.judgement.cause_text();
        assert!(text.contains(", first after "), "{text}");
        assert!(text.contains(" cell "), "{text}");
        let (words, _) = result.judgement.in_the_field().unwrap();
        let block = format!("{}: wrong output", result.case.id());
        assert!(report.contains(&block), "{block} not in the report");
        assert!(report.contains(&words), "{words} not in the report");
    }
}

/// One bug, one cause, hidden cases included: as a student sees a run whose generated cases
/// are hidden, each hidden failure that a visible case shows the same bug by is in that
/// visible cause (with its id and every case of it), not in a wordless cause of its own.
#[test]
fn a_hidden_cases_failure_joins_the_visible_cause_that_explains_it() {
    let run = crate::support::check_variant("go", "go-diagonal-liberties", Vec::new());
    let hidden = vec!["generated".to_string()];
    let seen = run.for_students(&hidden, false);
    let mixed: Vec<_> = run
        .summaries
        .causes
        .iter()
        .filter(|cause| {
            let groups: Vec<&str> = run.cases_of(cause).map(|r| r.case.group.as_str()).collect();
            groups.contains(&"generated") && groups.iter().any(|g| *g != "generated")
        })
        .collect();
    assert!(!mixed.is_empty(), "no cause holds both kinds of case");
    for cause in mixed {
        let theirs = seen
            .summaries
            .causes
            .iter()
            .find(|c| c.id == cause.id)
            .unwrap_or_else(|| panic!("cause {} is not in the students' run", cause.id));
        assert_eq!(theirs.cases.len(), cause.cases.len(), "cause {}", cause.id);
        // Its example is a case the student may see.
        assert!(!seen.results[theirs.cases[0]].case.hidden);
        assert!(
            seen.results[theirs.cases[0]].judgement.difference.is_some(),
            "{}",
            cause.id
        );
    }
    // No cause of the students' run is of hidden cases alone where the full run has none.
    let hidden_only = |run: &xtask::judge::Run| {
        run.summaries
            .causes
            .iter()
            .filter(|cause| run.cases_of(cause).all(|r| r.case.group == "generated"))
            .count()
    };
    assert_eq!(hidden_only(&seen), hidden_only(&run));
}
