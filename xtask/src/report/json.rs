//! `--json FILE`: every case's verdict, group, timing and first difference, for scripts.
//!
//! [`JsonReport`] is the document itself, a public serde type: [`json_report`] writes it, and
//! a reader (the course server's pages, a script in Rust) reads the same fields back.

use serde::{Deserialize, Serialize};

use crate::judge::Run;
use crate::judge::Verdict;

/// The `check --json` document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JsonReport {
    /// Bumped when a field changes meaning.
    pub schema: u32,
    pub target: String,
    pub elapsed_ms: u128,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Run but not judged (an unreliable measurement): neither passed nor failed.
    pub unjudged: usize,
    /// How the sources were built, for a check of sources (build time apart from run time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<JsonBuild>,
    pub cases: Vec<JsonCase>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JsonBuild {
    pub language: String,
    /// The build command, with its output folder; none for a script.
    pub command: Option<String>,
    /// `built`, `reused` (an earlier build of the same sources) or `failed`.
    pub status: String,
    pub build_ms: u128,
    /// The compiler's first lines, when it failed.
    pub message: Option<String>,
}

fn build(build: &crate::judge::Build) -> JsonBuild {
    use crate::judge::BuildStatus;
    JsonBuild {
        language: build.language.clone(),
        command: build.command.clone(),
        status: match build.status {
            BuildStatus::Built => "built",
            BuildStatus::Reused => "reused",
            BuildStatus::Failed(_) => "failed",
        }
        .to_string(),
        build_ms: build.time.as_millis(),
        message: build.failure().map(str::to_string),
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JsonCase {
    pub id: String,
    pub spec: String,
    pub group: String,
    pub name: String,
    pub graded: bool,
    pub verdict: Verdict,
    /// The cause in words that hold no case's input (the case's own lines are in
    /// `first_difference`), and its stable short id, the same in every report.
    pub cause: Option<String>,
    pub cause_id: Option<String>,
    /// What this case did after the difference its cause is keyed by (`then it crashed
    /// (...)`, `then it exited with status 1`): the case's own, apart from the cause's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consequence: Option<String>,
    pub detail: Option<String>,
    /// Wall-clock time of the case.
    pub elapsed_ms: f64,
    /// CPU time of the case's processes (what its time limit is judged by).
    pub cpu_ms: Option<f64>,
    /// The time limit that stopped it: `cpu` (its CPU time limit), `idle` (no CPU used or
    /// waited for over the idle span: a program that sleeps or blocks), `wall` (the
    /// wall-clock backstop), or none.
    pub stopped_by: Option<String>,
    pub first_difference: Option<JsonDifference>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JsonDifference {
    pub line: usize,
    pub column: usize,
    pub cause: String,
    pub location: Option<String>,
    pub expected_line: Option<String>,
    pub actual_line: Option<String>,
}

/// The JSON document of `run`.
pub fn json_document(run: &Run) -> JsonReport {
    let totals = run.totals();
    JsonReport {
        schema: 1,
        target: run.target.clone(),
        elapsed_ms: run.elapsed.as_millis(),
        passed: totals.passed,
        failed: totals.failed,
        unjudged: totals.unjudged,
        skipped: totals.skipped,
        build: run.build.as_ref().map(build),
        cases: (0..run.results.len()).map(|k| case(run, k)).collect(),
    }
}

/// Case `k` of `run`, as the document holds it.
fn case(run: &Run, k: usize) -> JsonCase {
    let result = &run.results[k];
    let judgement = &result.judgement;
    JsonCase {
        id: result.case.id(),
        spec: result.case.spec.clone(),
        group: result.case.group.clone(),
        name: result.case.name.clone(),
        graded: result.case.graded,
        verdict: judgement.verdict,
        cause: (!judgement.verdict.passed() && judgement.verdict != Verdict::Skipped)
            .then(|| judgement.cause_text()),
        cause_id: run.cause_id_of(k).map(str::to_string),
        consequence: judgement.consequence(),
        detail: judgement.detail.clone(),
        elapsed_ms: judgement.elapsed.as_secs_f64() * 1000.0,
        cpu_ms: judgement
            .execution
            .as_ref()
            .map(|e| e.cpu_time.as_secs_f64() * 1000.0),
        stopped_by: judgement.execution.as_ref().and_then(|e| {
            match (e.timed_out, e.idle_stopped, e.wall_stopped) {
                (true, _, _) => Some("cpu".to_string()),
                (false, Some(_), _) => Some("idle".to_string()),
                (false, None, true) => Some("wall".to_string()),
                (false, None, false) => None,
            }
        }),
        first_difference: judgement.difference.as_ref().map(|d| JsonDifference {
            line: d.line,
            column: d.column,
            cause: d.cause.clone(),
            location: judgement.location.clone(),
            expected_line: d.expected_line.clone(),
            actual_line: d.actual_line.clone(),
        }),
    }
}

/// The JSON report of `run`, as `--json` writes it.
pub fn json_report(run: &Run) -> String {
    serde_json::to_string_pretty(&json_document(run)).unwrap_or_default() + "\n"
}

/// A verdict read back from its slug, as the JSON report writes it.
impl<'de> Deserialize<'de> for Verdict {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Verdict, D::Error> {
        let slug = String::deserialize(deserializer)?;
        Verdict::ALL
            .into_iter()
            .find(|verdict| verdict.slug() == slug)
            .ok_or_else(|| serde::de::Error::custom(format!("`{slug}` is no verdict")))
    }
}
