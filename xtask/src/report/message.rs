//! Everything `check` prints for a person: failing-case blocks, causes, totals, the verdict line.
//!
//! All terminal wording lives here; other modules decide and hand over data. Output is in case
//! order, so two runs of the same corpus print the same text. Failures that differ the same
//! way are grouped under one cause, and only the first case of each cause gets a full block
//! (all of them with `-v`), so a student reads causes, not hundreds of diffs.

use std::fmt::Write;

use anstyle::{AnsiColor, Effects, Style};

use crate::judge::{line_diff, visible, visible_line};
use crate::judge::{stderr_tail, Cause, Run, Totals};
use crate::judge::{CaseResult, Judgement, Verdict};

const FAIL: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
const PASS: Style = AnsiColor::Green.on_default().effects(Effects::BOLD);
const DIM: Style = Style::new().effects(Effects::DIMMED);

/// The full report for a finished run, with ANSI styles (print through `anstream`).
pub fn text_report(run: &Run, verbose: bool) -> String {
    let mut out = String::new();
    if run.interrupted {
        let _ = writeln!(
            out,
            "interrupted: every running target was killed; the results below are partial"
        );
    }
    if let Some(build) = &run.build {
        let _ = writeln!(out, "{}", build.summary());
    }
    if let Some(note) = &run.inferred {
        let _ = writeln!(out, "{note}");
    }
    let summaries = &run.summaries;
    if verbose {
        // Every case in case order, each failure in full.
        for (k, result) in run.results.iter().enumerate() {
            let id = result.case.id();
            if result.judgement.verdict.passed() {
                let ungraded = if result.case.graded {
                    ""
                } else {
                    " (ungraded)"
                };
                let _ = writeln!(out, "{PASS}PASS{PASS:#} {id}{ungraded}");
            } else if summaries.cause_of[k].is_some() {
                out += &case_block(&id, result.case.graded, &result.judgement);
            }
        }
    } else {
        // Each cause's example in full, in the order of the causes list; its other cases
        // folded into a line.
        for cause in &summaries.causes {
            for &k in &cause.cases[..cause.examples] {
                let result = &run.results[k];
                out += &case_block(&result.case.id(), result.case.graded, &result.judgement);
            }
            out += &folded(run, cause);
        }
    }
    if !summaries.causes.is_empty() {
        let _ = writeln!(out, "\ncauses:");
        for cause in &summaries.causes {
            let results: Vec<&CaseResult> = run.cases_of(cause).collect();
            let n = results.len();
            let plural = if n == 1 { "case" } else { "cases" };
            let _ = writeln!(
                out,
                "  {n} {plural} [{}]: {}",
                cause.id,
                results[0].judgement.cause_text()
            );
            let names: Vec<String> = results.iter().take(5).map(|r| r.case.id()).collect();
            let more = if n > 5 {
                format!(", and {} more", n - 5)
            } else {
                String::new()
            };
            let _ = writeln!(out, "    {DIM}{}{more}{DIM:#}", names.join(", "));
        }
    }
    out += &totals(run);
    out
}

/// The other cases of `cause` on one line, counted per group: `  and 163 more cases of this
/// cause: generated 80, size-9 7 (-v shows each)`.
fn folded(run: &Run, cause: &Cause) -> String {
    let others = &cause.cases[cause.examples..];
    if others.is_empty() {
        return String::new();
    }
    let mut groups: Vec<(String, usize)> = Vec::new();
    for &k in others {
        let case = &run.results[k].case;
        let group = format!("{}/{}", case.spec, case.group);
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, n)) => *n += 1,
            None => groups.push((group, 1)),
        }
    }
    let counts: Vec<String> = groups.iter().map(|(g, n)| format!("{g} {n}")).collect();
    let n = others.len();
    format!(
        "  {DIM}and {n} more {} of this cause [{}]: {} (-v shows each){DIM:#}\n",
        if n == 1 { "case" } else { "cases" },
        cause.id,
        counts.join(", ")
    )
}

/// The full block for one failing case `id`: verdict, first difference, diff and stderr.
pub fn case_block(id: &str, graded: bool, judgement: &Judgement) -> String {
    let mut out = String::new();
    let ungraded = if graded { "" } else { " (ungraded)" };
    let _ = writeln!(
        out,
        "{FAIL}FAIL{FAIL:#} {id}{ungraded}: {}",
        judgement.verdict
    );
    if let Some(detail) = &judgement.detail {
        // A compiler's message is several lines: each indented under the case.
        for line in detail.lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    // A crash is told by its stderr: it comes first, before what the output lacks.
    let crashed = judgement.verdict == Verdict::RuntimeError;
    if crashed {
        out += &stderr_block(judgement);
    }
    if let Some(difference) = &judgement.difference {
        let location = judgement
            .location
            .as_deref()
            .map(|l| format!(", {l}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  first difference: line {}, column {}{location}",
            difference.line, difference.column
        );
        let _ = writeln!(out, "  {}", difference.cause);
        if let Some((words, before)) = judgement.in_the_field() {
            let _ = writeln!(out, "  in the field: {words}");
            if !before.is_empty() {
                let _ = writeln!(
                    out,
                    "  the field before that command, as the reference showed it:"
                );
                for line in before {
                    let _ = writeln!(out, "    {}", visible(&line));
                }
            }
        }
        if let Some(then) = judgement.consequence() {
            let _ = writeln!(out, "  {then}");
        }
        let show = |line: &Option<String>| match line {
            Some(line) if line.is_empty() => "(an empty line)".into(),
            // A long line comes cut, with its note at the end: the note is no part of the text.
            Some(line) => match line.rsplit_once(" … ") {
                Some((body, note)) if note.ends_with(" more bytes") => {
                    format!("`{}` … {note}", visible(body))
                }
                _ => format!("`{}`", visible(line)),
            },
            None => "(nothing)".into(),
        };
        let _ = writeln!(out, "  expected: {}", show(&difference.expected_line));
        let _ = writeln!(out, "       got: {}", show(&difference.actual_line));
        match (&judgement.diff, &judgement.execution) {
            (Some(rendered), _) => out += rendered,
            (None, Some(execution)) => {
                out += &line_diff(&judgement.expected, &execution.stdout, "  ")
            }
            (None, None) => {}
        }
    }
    if !crashed {
        out += &stderr_block(judgement);
    }
    out
}

/// The last lines of a case's stderr (a traceback ends with its error), escaped and cut.
fn stderr_block(judgement: &Judgement) -> String {
    let mut out = String::new();
    let Some(tail) = stderr_tail(judgement) else {
        return out;
    };
    let _ = writeln!(out, "  stderr:");
    if tail.skipped > 0 || tail.truncated {
        let _ = writeln!(out, "  {DIM}| … ({} lines before){DIM:#}", tail.skipped);
    }
    for line in &tail.lines {
        let _ = writeln!(out, "  {DIM}|{DIM:#} {}", visible_line(line));
    }
    out
}

fn totals(run: &Run) -> String {
    let mut out = String::from("\n");
    for tally in &run.summaries.groups {
        let ungraded = if tally.graded { "" } else { " (ungraded)" };
        let _ = writeln!(
            out,
            "  {:<9} {:<28} {:>4} passed, {:>3} failed{ungraded}",
            tally.spec, tally.group, tally.passed, tally.failed
        );
    }
    let Totals {
        passed,
        failed,
        skipped,
        unjudged,
    } = run.totals();
    let _ = writeln!(
        out,
        "\n{} cases of {} in {:.1} s",
        run.results.len(),
        run.target,
        run.elapsed.as_secs_f64()
    );
    if run.n_ungraded_left_out > 0 {
        let _ = writeln!(
            out,
            "{} ungraded cases (unspecified behaviour) not run: --include-unspecified runs them",
            run.n_ungraded_left_out
        );
    }
    let skipped = if skipped > 0 {
        format!(", {skipped} skipped")
    } else {
        String::new()
    };
    if unjudged > 0 {
        let ids: Vec<String> = run
            .results
            .iter()
            .filter(|r| r.case.graded && r.judgement.verdict == Verdict::Unreliable)
            .take(5)
            .map(|r| r.case.id())
            .collect();
        let _ = writeln!(
            out,
            "{} not judged: the machine was too busy to measure {} ({}{}); run again on a \
             quieter machine",
            if unjudged == 1 { "1 case" } else { "cases" },
            if unjudged == 1 { "it" } else { "them" },
            ids.join(", "),
            if unjudged > 5 { ", ..." } else { "" }
        );
    }
    let unjudged = if unjudged > 0 {
        format!(", {unjudged} not judged")
    } else {
        String::new()
    };
    let _ = writeln!(out, "{passed} passed, {failed} failed{skipped}{unjudged}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{Judgement, Summaries};

    /// A grid as a built-in spec's reader tells it (the readers' own words are tested in
    /// `tools`): the first cell of a field row, and the display before the one that differs.
    #[derive(Debug)]
    struct Field;

    impl crate::corpus::Grid for Field {
        fn kind(&self, _: &str, _: &str, _: &str, _: &str, _: usize) -> String {
            "a matched cell where a frozen one should be".into()
        }

        fn cell(&self, _: &str, line: usize, want: &str, got: &str) -> Option<String> {
            let at = want.chars().zip(got.chars()).position(|(w, g)| w != g)?;
            Some(format!(
                "the cell at row {}, column {}",
                (line - 1) % 3 + 1,
                at / 3 + 1
            ))
        }

        fn before(&self, expected: &str, line: usize) -> Option<Vec<String>> {
            let lines = expected.lines().map(String::from);
            Some(lines.take((line - 1) / 3 * 3).collect())
        }
    }

    /// Where no misreading fits a failure inside the suite's grid, its block tells the cell and
    /// the field the reference showed before the command.
    #[test]
    fn a_block_tells_the_field_before_the_command() {
        let field = "|         |\n|    X    |\n ---------\n";
        let rules = crate::corpus::Rules {
            compare: crate::corpus::CompareMode::Exact,
            grade_exit_status: false,
        };
        let execution = crate::process::Execution::finished(
            crate::process::Exit::Code(0),
            format!("{field}|         |\n|   *X*   |\n ---------\n").into_bytes(),
            Vec::new(),
        );
        let mut judgement = crate::judge::judge(
            rules,
            format!("{field}{field}").into_bytes(),
            execution,
            std::time::Duration::from_secs(1),
        );
        judgement.answers = Some(String::new());
        judgement.rule = Some(crate::judge::RuleAt {
            slug: "13-horizontal".into(),
            words: "horizontal matching".into(),
            section: "matching and removing jewels".into(),
            misread: false,
            whole: false,
        });
        judgement.line_command = Some(crate::judge::Command {
            key: "tick".into(),
            words: "a tick".into(),
        });
        judgement.grid = Some(&Field);
        let block = case_block("c/1", true, &judgement);
        assert!(
            block.contains("in the field: the cell at row 2, column 2"),
            "{block}"
        );
        assert!(block.contains("the field before that command"), "{block}");
        assert!(block.contains("····X····"), "{block}");
    }

    /// A run of one passing case and one the machine was too busy to judge.
    fn run_with_an_unjudged_case() -> Run {
        let case = |name: &str| crate::corpus::Case {
            spec: "demo".into(),
            group: "basic".into(),
            name: name.into(),
            input: format!("{name}.in").into(),
            expected: format!("{name}.out").into(),
            graded: true,
            hidden: false,
        };
        let mut busy = Judgement::skipped(b"x\n".to_vec());
        busy.verdict = Verdict::Unreliable;
        let mut passed = Judgement::skipped(b"x\n".to_vec());
        passed.verdict = Verdict::Pass;
        let results = vec![
            CaseResult {
                case: case("001-pass"),
                judgement: passed,
                input_lines: 1,
            },
            CaseResult {
                case: case("002-busy"),
                judgement: busy,
                input_lines: 1,
            },
        ];
        Run {
            suites: Vec::new(),
            summaries: Summaries::of(&results),
            results,
            n_filtered: 0,
            n_ungraded_left_out: 0,
            target: "prog".into(),
            elapsed: std::time::Duration::ZERO,
            inferred: None,
            warnings: Vec::new(),
            interrupted: false,
            build: None,
        }
    }

    #[test]
    fn a_case_not_judged_is_no_failure_and_no_cause() {
        let run = run_with_an_unjudged_case();
        assert!(run.summaries.causes.is_empty());
        let totals = run.totals();
        assert_eq!((totals.passed, totals.failed, totals.unjudged), (1, 0, 1));
        let text = text_report(&run, false);
        assert!(!text.contains("causes:"), "{text}");
        assert!(
            text.contains(
                "1 case not judged: the machine was too busy to measure it (demo/basic/002-busy)"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("1 passed, 0 failed, 1 not judged\n"),
            "{text}"
        );
    }
}
