//! The result model every reporter reads: a finished [`Run`] of cases, its [`Totals`] and its
//! scored groups. `check` builds it; `message`, `json`, `junit`, `gradescope` and `grade` only
//! read it.

use std::time::Duration;

use crate::outcome::{CaseResult, Verdict};
use crate::suite::Suite;

/// A finished run: every selected case's result, in path order.
#[derive(Debug)]
pub struct Run {
    pub suites: Vec<Suite>,
    pub results: Vec<CaseResult>,
    /// Cases left out by `--filter`.
    pub n_filtered: usize,
    /// Ungraded cases left out because `--include-unspecified` was not given.
    pub n_ungraded_left_out: usize,
    pub target: String,
    pub elapsed: Duration,
    /// The note printed when the spec was inferred.
    pub inferred: Option<String>,
    /// Lines about the confinement the user should see once.
    pub warnings: Vec<String>,
    /// Ctrl-C stopped the run: the results are partial.
    pub interrupted: bool,
}

/// One graded group of a run, scored: its points times the fraction of its cases that pass.
pub struct GroupScore<'a> {
    pub suite: &'a Suite,
    pub group: &'a str,
    pub points: f64,
    pub cases: Vec<&'a CaseResult>,
    pub passed: usize,
}

impl GroupScore<'_> {
    pub fn score(&self) -> f64 {
        self.points * self.passed as f64 / self.cases.len() as f64
    }
}

/// The graded cases of a run, counted as the verdict line reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    /// Not run: left out by `--filter`, or stopped by `--fail-fast` or Ctrl-C.
    pub skipped: usize,
}

impl Run {
    /// The counts of the verdict line `N passed, N failed, N skipped`.
    pub fn totals(&self) -> Totals {
        let graded = || self.results.iter().filter(|r| r.case.graded);
        let passed = graded().filter(|r| r.judgement.verdict.passed()).count();
        let not_run = graded()
            .filter(|r| r.judgement.verdict == Verdict::Skipped)
            .count();
        Totals {
            passed,
            failed: graded().count() - passed - not_run,
            skipped: not_run + self.n_filtered,
        }
    }

    /// Each graded group that has cases in this run, scored, in suite then group order.
    pub fn group_scores(&self) -> Vec<GroupScore<'_>> {
        let mut scores = Vec::new();
        for suite in &self.suites {
            for (group, points) in &suite.file.groups {
                let cases: Vec<&CaseResult> = self
                    .results
                    .iter()
                    .filter(|r| r.case.spec == suite.name && &r.case.group == group)
                    .collect();
                if !cases.is_empty() {
                    let passed = cases
                        .iter()
                        .filter(|r| r.judgement.verdict.passed())
                        .count();
                    scores.push(GroupScore {
                        suite,
                        group,
                        points: *points,
                        cases,
                        passed,
                    });
                }
            }
        }
        scores
    }

    /// Whether every graded case that ran passed.
    pub fn all_graded_passed(&self) -> bool {
        self.results
            .iter()
            .filter(|r| r.case.graded)
            .all(|r| r.judgement.verdict.passed())
    }
}
