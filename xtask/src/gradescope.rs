//! `--gradescope FILE`: Gradescope's `results.json`. One test per graded group, scored by the
//! suite's points times the fraction of the group's cases that pass; failures are summarised
//! in each test's output.

use serde::Serialize;

use crate::check::Run;
use crate::message::cause;

#[derive(Serialize)]
struct Results {
    score: f64,
    output: String,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
}

/// Gradescope's results JSON for `run`.
pub fn render(run: &Run) -> String {
    let mut tests = Vec::new();
    for suite in &run.suites {
        for (group, points) in &suite.file.groups {
            let cases: Vec<_> = run
                .results
                .iter()
                .filter(|r| r.case.spec == suite.name && &r.case.group == group)
                .collect();
            if cases.is_empty() {
                continue;
            }
            let passed = cases.iter().filter(|r| r.verdict.passed()).count();
            let output: Vec<String> = cases
                .iter()
                .filter(|r| !r.verdict.passed())
                .map(|r| format!("{}: {}", r.case.name, cause(r)))
                .collect();
            tests.push(Test {
                name: format!("{}/{group}", suite.name),
                score: points * passed as f64 / cases.len() as f64,
                max_score: *points,
                status: if passed == cases.len() {
                    "passed"
                } else {
                    "failed"
                },
                output: format!("{passed}/{} cases pass\n{}", cases.len(), output.join("\n")),
            });
        }
    }
    let score = tests.iter().map(|t| t.score).sum();
    let results = Results {
        score,
        output: format!("graded by gridjudge against {}", run.target),
        tests,
    };
    serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"
}
