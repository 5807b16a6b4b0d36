//! Reports for CI: a Markdown job summary (`--summary FILE`, and on GitHub Actions
//! `$GITHUB_STEP_SUMMARY`) with the totals, a table of groups and each cause (its id, its
//! words, its example's first difference); and workflow-command annotations (`--annotations`,
//! and on Actions), one `::error` line per cause, pointing at its example's input file. Both only format the
//! run's summaries.

use std::fmt::Write;

use super::gradebook::{Change, Grades};
use crate::judge::CaseResult;
use crate::judge::Run;

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

/// Text for a Markdown table cell shown as text: [`cell`], and every other ASCII punctuation
/// character backslash-escaped (CommonMark lets any be), so that no student-controlled string
/// becomes HTML, an image, a link or emphasis.
fn text(text: &str) -> String {
    let mut out = String::new();
    for c in cell(text).chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
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
    if totals.unjudged > 0 {
        let _ = write!(
            out,
            ", {} not judged (the machine was too busy)",
            totals.unjudged
        );
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
            text(&tally.spec),
            text(&tally.group),
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
                "{}. `[{}]` **{}**: {} {}, first `{}`: {}",
                k + 1,
                cause.id,
                text(&first.judgement.cause_text()),
                results.len(),
                if results.len() == 1 { "case" } else { "cases" },
                first.case.id(),
                first_difference(first)
            );
        }
    }
    out
}

/// The Markdown job summary of a grading: how many submissions, the mean score, how many
/// could not run, the score of each group across the class, and the scores a regrade moved.
pub fn class_markdown(grades: &Grades, changes: &[Change]) -> String {
    let n = grades.submissions.len();
    // A fold from 0.0, not `sum`: the sum of no floats is -0.0, shown as "-0.00".
    let mean = grades.submissions.iter().fold(0.0, |sum, s| sum + s.score) / n.max(1) as f64;
    let could_not_run = grades.could_not_run();
    let mut out = format!(
        "## gridjudge: {} submissions of {}\n\n",
        n,
        text(&grades.spec)
    );
    let _ = writeln!(
        out,
        "mean score **{mean:.2}** of {:.2} · {could_not_run} could not be graded\n",
        grades.max_score
    );
    out += "| group | points | mean |\n|---|---:|---:|\n";
    for (group, points) in &grades.groups {
        let sum = grades.submissions.iter().fold(0.0, |sum, s| {
            sum + s.groups.get(group).copied().unwrap_or(0.0)
        });
        let _ = writeln!(
            out,
            "| {} | {points:.2} | {:.2} |",
            text(group),
            sum / n.max(1) as f64
        );
    }
    if !changes.is_empty() {
        out += "\n### Scores this regrade moved\n\n| student | before | now | why |\n|---|---:|---:|---|\n";
        for change in changes {
            let _ = writeln!(
                out,
                "| `{}` | {:.2} | {:.2} | {} |",
                cell(&change.id),
                change.old_score,
                change.new_score,
                text(&change.why)
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
/// Each names its case's input relative to `GITHUB_WORKSPACE` (GitHub attaches an annotation to
/// a file by its path in the workspace only); an input outside it names none.
pub fn annotations(run: &Run) -> String {
    let workspace = std::env::var_os("GITHUB_WORKSPACE").map(|workspace| {
        let workspace = std::path::PathBuf::from(workspace);
        workspace.canonicalize().unwrap_or(workspace)
    });
    let mut out = String::new();
    for cause in &run.summaries.causes {
        let results: Vec<&CaseResult> = run.cases_of(cause).collect();
        let first = results[0];
        let input = &first.case.input;
        let file = match &workspace {
            _ if input.is_relative() => Some(input.to_path_buf()),
            Some(workspace) => input
                .canonicalize()
                .unwrap_or_else(|_| input.clone())
                .strip_prefix(workspace)
                .ok()
                .map(std::path::Path::to_path_buf),
            None => Some(input.clone()),
        };
        let file = file
            .map(|file| format!("file={},", escape_property(&file.display().to_string())))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "::error {file}title={}::{} ({} {}): {}",
            escape_property(&format!(
                "gridjudge [{}]: {}",
                cause.id,
                first.judgement.cause_text()
            )),
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
    fn a_grading_summary_gives_the_mean_each_group_and_the_moved_scores() {
        use crate::report::gradebook::Submission;
        let student = |id: &str, alpha: f64, error: Option<&str>| Submission {
            id: id.into(),
            score: alpha,
            groups: [("alpha".to_string(), alpha)].into(),
            verdicts: Default::default(),
            error: error.map(String::from),
            cases: Vec::new(),
        };
        let grades = Grades {
            schema: 1,
            spec: "echo".into(),
            run: "sh solution.sh".into(),
            groups: [("alpha".to_string(), 6.0)].into(),
            max_score: 6.0,
            shard: None,
            submissions: vec![student("s00", 6.0, None), student("s01", 0.0, Some("no"))],
            skipped: Vec::new(),
        };
        let moved = Change {
            id: "s01".into(),
            old_score: 6.0,
            new_score: 0.0,
            why: "the submission changed".into(),
        };
        let text = class_markdown(&grades, &[moved]);
        assert!(
            text.starts_with("## gridjudge: 2 submissions of echo\n"),
            "{text}"
        );
        assert!(
            text.contains("mean score **3.00** of 6.00 · 1 could not be graded"),
            "{text}"
        );
        assert!(text.contains("| alpha | 6.00 | 3.00 |"), "{text}");
        assert!(
            text.contains("| `s01` | 6.00 | 0.00 | the submission changed |"),
            "{text}"
        );
    }

    #[test]
    fn a_student_controlled_string_never_becomes_html_an_image_or_a_link() {
        use pulldown_cmark::{Event, Options, Parser, Tag};
        let hostile = [
            "<img src=x onerror=alert(1)>",
            "![x](http://evil.example/x.png)",
            "[grades](http://evil.example)",
            "<http://evil.example>",
            "**bold** _it_ `code` | pipe",
        ];
        let grades = Grades {
            schema: 1,
            spec: "<b>echo</b>".into(),
            run: "sh solution.sh".into(),
            groups: [("[alpha](http://evil.example)".to_string(), 6.0)].into(),
            max_score: 6.0,
            shard: None,
            submissions: Vec::new(),
            skipped: Vec::new(),
        };
        let changes: Vec<Change> = hostile
            .iter()
            .map(|id| Change {
                id: id.to_string(),
                old_score: 1.0,
                new_score: 0.0,
                why: id.to_string(),
            })
            .collect();
        let markdown = class_markdown(&grades, &changes);
        for event in Parser::new_ext(&markdown, Options::ENABLE_TABLES) {
            let bad = matches!(
                event,
                Event::Html(_)
                    | Event::InlineHtml(_)
                    | Event::Start(Tag::Link { .. } | Tag::Image { .. })
            );
            assert!(!bad, "{event:?} in\n{markdown}");
        }
        // The text is still there to read.
        assert!(markdown.contains("onerror"), "{markdown}");
    }

    #[test]
    fn workflow_command_values_are_escaped() {
        assert_eq!(escape_data("50%\na"), "50%25%0Aa");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(cell("a|b`c\nd"), "a¦b'c d");
    }
}
