//! Reports for CI: a Markdown job summary (`--summary FILE`, and on GitHub Actions
//! `$GITHUB_STEP_SUMMARY`) with the totals, a table of groups and each cause with its first
//! difference; and workflow-command annotations (`--annotations`, and on Actions), one
//! `::error` line per cause, pointing at the first case's input file. Both only format the
//! run's summaries.

use std::fmt::Write;

use crate::outcome::CaseResult;
use crate::run::Run;

/// Text for a Markdown table cell or inline code: no line breaks, no pipes, no backticks.
fn cell(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '|' => '¦',
            '`' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// The first difference of `result` in one line, for a summary or an annotation.
fn first_difference(result: &CaseResult) -> String {
    let judgement = &result.judgement;
    let Some(difference) = &judgement.difference else {
        return judgement.detail.clone().unwrap_or_default();
    };
    let mut text = format!("line {}, column {}", difference.line, difference.column);
    if let Some(location) = &judgement.location {
        let _ = write!(text, ", {location}");
    }
    if !result.case.hidden {
        let shown = |line: &Option<String>| match line {
            Some(line) => format!("`{}`", cell(line)),
            None => "(nothing)".into(),
        };
        let _ = write!(
            text,
            ": expected {}, got {}",
            shown(&difference.expected_line),
            shown(&difference.actual_line)
        );
    }
    text
}

/// The Markdown job summary of `run`.
pub fn markdown(run: &Run) -> String {
    let totals = run.totals();
    let mut out = format!("## gridjudge: `{}`\n\n", cell(&run.target));
    let verdict = if totals.failed == 0 { "✅" } else { "❌" };
    let _ = write!(
        out,
        "{verdict} **{} passed, {} failed**",
        totals.passed, totals.failed
    );
    if totals.skipped > 0 {
        let _ = write!(out, ", {} skipped", totals.skipped);
    }
    let _ = writeln!(
        out,
        " · {} cases in {:.1} s\n",
        run.results.len(),
        run.elapsed.as_secs_f64()
    );
    out += "| group | passed | failed |\n|---|---:|---:|\n";
    for tally in &run.summaries.groups {
        let ungraded = if tally.graded { "" } else { " (ungraded)" };
        let _ = writeln!(
            out,
            "| {}/{}{ungraded} | {} | {} |",
            cell(&tally.spec),
            cell(&tally.group),
            tally.passed,
            tally.failed
        );
    }
    if !run.summaries.causes.is_empty() {
        out += "\n### Causes\n\n";
        for (k, cause) in run.summaries.causes.iter().enumerate() {
            let results: Vec<&CaseResult> = run.cases_of(cause).collect();
            let first = results[0];
            let _ = writeln!(
                out,
                "{}. **{}**: {} {}, first `{}`: {}",
                k + 1,
                cell(&first.judgement.cause()),
                results.len(),
                if results.len() == 1 { "case" } else { "cases" },
                first.case.id(),
                first_difference(first)
            );
        }
    }
    out
}

/// A value for a workflow command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A value for a workflow command's property.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error` workflow command per cause of `run`, at its first case's input file.
pub fn annotations(run: &Run) -> String {
    let mut out = String::new();
    for cause in &run.summaries.causes {
        let results: Vec<&CaseResult> = run.cases_of(cause).collect();
        let first = results[0];
        let file = first.case.input.display().to_string();
        let _ = writeln!(
            out,
            "::error file={},title={}::{} ({} {}): {}",
            escape_property(&file),
            escape_property(&format!("gridjudge: {}", first.judgement.cause())),
            first.case.id(),
            results.len(),
            if results.len() == 1 { "case" } else { "cases" },
            escape_data(&first_difference(first))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_command_values_are_escaped() {
        assert_eq!(escape_data("50%\na"), "50%25%0Aa");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(cell("a|b`c\nd"), "a¦b'c d");
    }
}
