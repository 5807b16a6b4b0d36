//! `--json FILE`: every case's verdict, group, timing and first difference, for scripts.

use serde::Serialize;

use crate::judge::Run;
use crate::judge::Verdict;

#[derive(Serialize)]
struct Report<'a> {
    /// Bumped when a field changes meaning.
    schema: u32,
    target: &'a str,
    elapsed_ms: u128,
    passed: usize,
    failed: usize,
    skipped: usize,
    /// Run but not judged (an unreliable measurement): neither passed nor failed.
    unjudged: usize,
    /// How the sources were built, for a check of sources (build time apart from run time).
    #[serde(skip_serializing_if = "Option::is_none")]
    build: Option<Build<'a>>,
    cases: Vec<Case<'a>>,
}

#[derive(Serialize)]
struct Build<'a> {
    language: &'a str,
    /// The build command, with its output folder; none for a script.
    command: Option<&'a str>,
    /// `built`, `reused` (an earlier build of the same sources) or `failed`.
    status: &'static str,
    build_ms: u128,
    /// The compiler's first lines, when it failed.
    message: Option<&'a str>,
}

fn build(build: &crate::judge::Build) -> Build<'_> {
    use crate::judge::BuildStatus;
    Build {
        language: &build.language,
        command: build.command.as_deref(),
        status: match build.status {
            BuildStatus::Built => "built",
            BuildStatus::Reused => "reused",
            BuildStatus::Failed(_) => "failed",
        },
        build_ms: build.time.as_millis(),
        message: build.failure(),
    }
}

#[derive(Serialize)]
struct Case<'a> {
    id: String,
    spec: &'a str,
    group: &'a str,
    name: &'a str,
    graded: bool,
    verdict: Verdict,
    /// The cause in words that hold no case's input (the case's own lines are in
    /// `first_difference`), and its stable short id, the same in every report.
    cause: Option<String>,
    cause_id: Option<&'a str>,
    /// What this case did after the difference its cause is keyed by (`then it crashed
    /// (...)`, `then it exited with status 1`): the case's own, apart from the cause's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    consequence: Option<String>,
    detail: Option<&'a str>,
    /// Wall-clock time of the case.
    elapsed_ms: f64,
    /// CPU time of the case's processes (what its time limit is judged by).
    cpu_ms: Option<f64>,
    /// The time limit that stopped it: `cpu` (its CPU time limit), `idle` (no CPU used or
    /// waited for over the idle span: a program that sleeps or blocks), `wall` (the
    /// wall-clock backstop), or none.
    stopped_by: Option<&'static str>,
    first_difference: Option<FirstDifference<'a>>,
}

#[derive(Serialize)]
struct FirstDifference<'a> {
    line: usize,
    column: usize,
    cause: &'a str,
    location: Option<&'a str>,
    expected_line: Option<&'a str>,
    actual_line: Option<&'a str>,
}

/// The JSON report of `run`.
pub fn json_report(run: &Run) -> String {
    let totals = run.totals();
    let report =
        Report {
            schema: 1,
            target: &run.target,
            elapsed_ms: run.elapsed.as_millis(),
            passed: totals.passed,
            failed: totals.failed,
            unjudged: totals.unjudged,
            skipped: totals.skipped,
            build: run.build.as_ref().map(build),
            cases: run
                .results
                .iter()
                .enumerate()
                .map(|(k, result)| Case {
                    id: result.case.id(),
                    spec: &result.case.spec,
                    group: &result.case.group,
                    name: &result.case.name,
                    graded: result.case.graded,
                    verdict: result.judgement.verdict,
                    cause: (!result.judgement.verdict.passed()
                        && result.judgement.verdict != Verdict::Skipped)
                        .then(|| result.judgement.cause_text()),
                    cause_id: run.cause_id_of(k),
                    consequence: result.judgement.consequence(),
                    detail: result.judgement.detail.as_deref(),
                    elapsed_ms: result.judgement.elapsed.as_secs_f64() * 1000.0,
                    cpu_ms: result
                        .judgement
                        .execution
                        .as_ref()
                        .map(|e| e.cpu_time.as_secs_f64() * 1000.0),
                    stopped_by: result.judgement.execution.as_ref().and_then(|e| {
                        match (e.timed_out, e.idle_stopped, e.wall_stopped) {
                            (true, _, _) => Some("cpu"),
                            (false, Some(_), _) => Some("idle"),
                            (false, None, true) => Some("wall"),
                            (false, None, false) => None,
                        }
                    }),
                    first_difference: result.judgement.difference.as_ref().map(|d| {
                        FirstDifference {
                            line: d.line,
                            column: d.column,
                            cause: &d.cause,
                            location: result.judgement.location.as_deref(),
                            expected_line: d.expected_line.as_deref(),
                            actual_line: d.actual_line.as_deref(),
                        }
                    }),
                })
                .collect(),
        };
    serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
}
