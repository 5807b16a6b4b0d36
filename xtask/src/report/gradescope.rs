//! `--gradescope FILE`: Gradescope's `results.json`, one test per case.
//!
//! Each test is named `group/case`, worth its group's points divided among the group's cases,
//! and carries what a student needs: the verdict, the first difference with its line, column
//! and input line, what was expected and what came (unless the corpus is hidden), and the end
//! of stderr. A program that could not start still gets a results.json: score 0 and the reason.

use serde::Serialize;

use crate::judge::CaseResult;
use crate::judge::Run;

/// How the report shows cases to students.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The corpus is hidden: no expected text in any output.
    pub hidden: bool,
    /// Gradescope's visibility of each test (`visible`, `hidden`, `after_due_date`,
    /// `after_published`); `None` leaves Gradescope's default.
    pub visibility: Option<String>,
}

#[derive(Serialize)]
struct Results {
    score: f64,
    /// Whole seconds the grading took.
    execution_time: u64,
    output: String,
    /// How Gradescope shows `output` (and each test's): as plain text, never as HTML.
    output_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout_visibility: Option<String>,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    visibility: Option<String>,
}

/// The output of one case's test.
fn case_output(result: &CaseResult, settings: &Settings) -> String {
    let judgement = &result.judgement;
    let mut out = judgement.verdict.to_string();
    if let Some(detail) = &judgement.detail {
        out += &format!(": {detail}");
    }
    out.push('\n');
    if !result.case.hidden {
        out += &format!(
            "cause [{}]: {}\n",
            judgement.cause_id(),
            judgement.cause_text()
        );
    }
    if let Some(difference) = &judgement.difference {
        out += &format!(
            "first difference: line {}, column {}{}\n{}\n",
            difference.line,
            difference.column,
            judgement
                .location
                .as_deref()
                .map(|l| format!(", {l}"))
                .unwrap_or_default(),
            difference.cause
        );
        let show = |line: &Option<String>| match line {
            Some(line) if line.is_empty() => "(an empty line)".to_string(),
            Some(line) => format!("`{}`", crate::judge::visible_line(line)),
            None => "(nothing)".into(),
        };
        if !settings.hidden {
            out += &format!("expected: {}\n", show(&difference.expected_line));
        }
        out += &format!("     got: {}\n", show(&difference.actual_line));
    }
    if let Some(tail) = crate::judge::stderr_tail(judgement) {
        out += "stderr:\n";
        for line in &tail.lines {
            out += &format!("| {}\n", crate::judge::visible_line(line));
        }
    }
    out
}

/// Gradescope's results JSON for `run`.
pub fn gradescope_report(run: &Run, settings: &Settings) -> String {
    let mut tests = Vec::new();
    for group in run.group_scores() {
        let each = group.points / group.cases.len() as f64;
        for result in &group.cases {
            let passed = result.judgement.verdict.passed();
            tests.push(Test {
                name: format!("{}/{}", group.group, result.case.name),
                score: if passed { each } else { 0.0 },
                max_score: each,
                status: if passed { "passed" } else { "failed" },
                output: if passed {
                    String::new()
                } else {
                    case_output(result, settings)
                },
                visibility: settings.visibility.clone(),
            });
        }
    }
    let results = Results {
        score: tests.iter().map(|t| t.score).sum(),
        execution_time: run.elapsed.as_secs_f64().ceil() as u64,
        output_format: "text",
        output: format!("graded by gridjudge against {}", run.target),
        stdout_visibility: settings.visibility.clone(),
        tests,
    };
    serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"
}

/// Gradescope's results JSON for a program that could not be graded at all: score 0, and why.
pub fn render_failure(reason: &str) -> String {
    let results = Results {
        score: 0.0,
        execution_time: 0,
        output_format: "text",
        output: format!("gridjudge could not grade this submission: {reason}"),
        stdout_visibility: None,
        tests: Vec::new(),
    };
    serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"
}

/// `message` with every absolute path outside `root` cut to its last component: what a student
/// sees of an error names the files of the submission, never a folder of the grading machine.
pub fn redact(message: &str, root: &std::path::Path) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find('/') {
        let starts_word = at == 0
            || rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_whitespace() || "`'\"(=".contains(c));
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || "`'\"):,".contains(c))
            .map_or(rest.len(), |n| at + n);
        let path = &rest[at..end];
        if starts_word && !std::path::Path::new(path).starts_with(root) {
            let name = path.rsplit('/').find(|part| !part.is_empty()).unwrap_or("");
            out.push_str(&format!("…/{name}"));
        } else {
            out.push_str(path);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_submission_are_cut_to_their_name() {
        let root = std::path::Path::new("/autograder/submission");
        let message = "could not run `python3 /autograder/submission/go.py`: it would run in \
                       `/autograder/source/cases`, inside /tmp/gridjudge-kit-x1/go: no";
        assert_eq!(
            redact(message, root),
            "could not run `python3 /autograder/submission/go.py`: it would run in \
             `…/cases`, inside …/go: no"
        );
        assert_eq!(redact("a/b and 1/2", root), "a/b and 1/2", "not absolute");
    }
}
