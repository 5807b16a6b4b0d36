//! `--gradescope FILE`: Gradescope's `results.json`. One test per graded group, scored by the
//! suite's points times the fraction of the group's cases that pass; failures are summarised
//! in each test's output.

use serde::Serialize;

use crate::run::Run;

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
    let tests: Vec<Test> = run
        .group_scores()
        .iter()
        .map(|group| {
            let output: Vec<String> = group
                .cases
                .iter()
                .filter(|r| !r.judgement.verdict.passed())
                .map(|r| format!("{}: {}", r.case.name, r.judgement.cause()))
                .collect();
            let all_pass = group.passed == group.cases.len();
            Test {
                name: format!("{}/{}", group.suite.name, group.group),
                score: group.score(),
                max_score: group.points,
                status: if all_pass { "passed" } else { "failed" },
                output: format!(
                    "{}/{} cases pass\n{}",
                    group.passed,
                    group.cases.len(),
                    output.join("\n")
                ),
            }
        })
        .collect();
    let score = tests.iter().map(|t| t.score).sum();
    let results = Results {
        score,
        output: format!("graded by gridjudge against {}", run.target),
        tests,
    };
    serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"
}
