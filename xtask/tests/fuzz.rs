//! `cargo xtask fuzz` against wrong variants of the reference (the `mutant` program, one
//! variant of `src/mutant.rs` each): each bug is found within 60 s and shrunk to a small input
//! that still fails; the same seed finds the same input; the reference itself raises no false
//! alarm.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use xtask::tools::{fuzz, Budget, Event, Found, Options, Outcome};

use crate::support::{fuzz_options, mutant};

/// Fuzz options for `spec` with the variant `name` (`none`: the reference) as the target.
fn options(spec: &str, name: &str, budget: Budget, seed: u64) -> Options {
    let target = vec![mutant().into(), name.into(), spec.into()];
    fuzz_options(
        spec,
        target,
        Path::new("/nonexistent/reference"),
        budget,
        seed,
    )
}

fn quiet(_: Event) {}

fn find(spec: &str, name: &str, seed: u64) -> Found {
    match fuzz(
        &options(spec, name, Budget::Time(Duration::from_secs(60)), seed),
        &quiet,
    )
    .unwrap()
    {
        Outcome::Found(found) => *found,
        Outcome::Clean { runs, .. } => panic!("{spec}: no failure in 60 s ({runs} runs)"),
    }
}

/// Finds the variant's bug and checks the shrunk input: it still fails, and it is small.
fn check_variant(name: &str, spec: &str, max_lines: usize) -> Found {
    assert!(
        gridjudge::mutant::find(name).is_some(),
        "no variant `{name}`"
    );
    let found = find(spec, name, 1);
    let output = Command::new(mutant())
        .args([name, spec])
        .stdin(std::fs::File::open(write_temp(&found.shrunk)).unwrap())
        .output()
        .unwrap();
    assert_ne!(
        output.stdout, found.judgement.expected,
        "{name}: the shrunk input no longer fails"
    );
    assert!(
        xtask::tools::find(spec)
            .unwrap()
            .graded_output(&found.shrunk)
            .is_some(),
        "{name}: the shrunk input left the graded domain"
    );
    let lines = found.shrunk.lines().count();
    eprintln!(
        "{name}: found after {} runs in {:.2} s; shrunk in {} steps ({} runs, {:.2} s) from {} to {lines} lines, {} bytes:\n{}",
        found.runs,
        found.time_to_find.as_secs_f64(),
        found.shrink_steps,
        found.shrink_runs,
        found.shrink_time.as_secs_f64(),
        found.original.lines().count(),
        found.shrunk.len(),
        found.shrunk
    );
    assert!(
        lines <= max_lines,
        "{name}: shrunk to {lines} lines:\n{}",
        found.shrunk
    );
    found
}

fn write_temp(text: &str) -> PathBuf {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    file.into_temp_path().keep().unwrap()
}

#[test]
fn columns_without_diagonal_matching() {
    check_variant("columns-no-diagonal-down", "columns", 12);
}

#[test]
fn columns_rotating_the_wrong_way() {
    check_variant("columns-rotate-backwards", "columns", 12);
}

#[test]
fn columns_freezing_in_the_tick_that_lands() {
    check_variant("columns-freezes-on-landing", "columns", 12);
}

#[test]
fn connect4_without_diagonal_wins() {
    check_variant("connect4-no-diagonal-up", "connect4", 40);
}

#[test]
fn go_counting_liberties_per_stone() {
    check_variant("go-stone-liberties", "go", 20);
}

#[test]
fn collapse_with_8_connectivity() {
    check_variant("collapse-eight-connected", "collapse", 12);
}

#[test]
fn the_same_seed_finds_and_shrinks_the_same_input() {
    let first = find("columns", "columns-rotate-backwards", 7);
    let second = find("columns", "columns-rotate-backwards", 7);
    assert_eq!(
        (first.case_seed, &first.original, &first.shrunk),
        (second.case_seed, &second.original, &second.shrunk)
    );
}

#[test]
fn no_false_alarm_against_the_reference_itself() {
    let mut total = 0;
    for spec in ["columns", "collapse", "connect4", "go"] {
        match fuzz(&options(spec, "none", Budget::Runs(2500), 3), &quiet).unwrap() {
            Outcome::Clean { runs, .. } => total += runs,
            Outcome::Found(found) => panic!("{spec}: false alarm on\n{}", found.shrunk),
        }
    }
    assert!(total >= 10_000, "{total} runs");
}

#[test]
fn one_injected_bug_gives_a_handful_of_causes() {
    // The variants above, checked against their whole suites: the failures of one bug group
    // into at most five causes, and most into one or two.
    let mut counts = Vec::new();
    for (spec, name) in [
        ("columns", "columns-no-diagonal-down"),
        ("columns", "columns-rotate-backwards"),
        ("columns", "columns-freezes-on-landing"),
        ("connect4", "connect4-no-diagonal-up"),
        ("go", "go-stone-liberties"),
        ("collapse", "collapse-eight-connected"),
    ] {
        let run = crate::support::check_variant(spec, name, Vec::new());
        let causes: std::collections::BTreeSet<_> = run
            .results
            .iter()
            .filter(|r| r.case.graded && !r.judgement.verdict.passed())
            .map(|r| r.judgement.cause_key())
            .collect();
        eprintln!("{name}: {} causes", causes.len());
        assert!(
            !causes.is_empty() && causes.len() <= 5,
            "{name}: {causes:#?}"
        );
        counts.push(causes.len());
    }
    let few = counts.iter().filter(|&&n| n <= 2).count();
    assert!(
        few * 2 > counts.len(),
        "most variants give one or two causes: {counts:?}"
    );
}

/// A time budget covers the shrinking: with a budget shorter than a full shrink takes, the
/// search and the shrink together stop at the budget (give or take the run in flight), and the
/// input reported is the smallest found by then, which still fails.
#[test]
fn a_time_budget_includes_the_shrinking() {
    let budget = Duration::from_millis(300);
    let options = options("go", "go-repeated-liberties", Budget::Time(budget), 1);
    let found = match fuzz(&options, &quiet).unwrap() {
        Outcome::Found(found) => *found,
        // A machine so busy that 300 ms found nothing: nothing to check.
        Outcome::Clean { .. } => return,
    };
    assert!(
        found.time_to_find + found.shrink_time <= budget + options.timeout,
        "{:?} + {:?} past a budget of {budget:?}",
        found.time_to_find,
        found.shrink_time
    );
    assert!(found.shrunk.len() <= found.original.len());
}
