//! The result model every reporter reads: a finished [`Run`] of cases and its summaries,
//! computed once when the run is finished: its causes of failure ([`Cause`], in first-seen
//! order, each with its first case and the others), its groups with their passes and failures
//! ([`GroupTally`]), its [`Totals`] and scored groups, and the tail of a case's stderr
//! ([`stderr_tail`]). `check` builds it; `message`, `html`, `json`, `junit`, `gradescope` and
//! `grade` only format it.

use std::time::Duration;

use super::outcome::{CaseResult, Judgement, Verdict};
use crate::corpus::Suite;

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
    /// The causes and group tallies of `results`, computed once by [`Summaries::of`].
    pub summaries: Summaries,
    /// How the sources were built, for a check of sources.
    pub build: Option<Build>,
}

/// What building the submission came to, as every report tells it. `check` makes it from the
/// builder's own outcome, so the result model does not depend on how sources are built.
#[derive(Debug, Clone)]
pub struct Build {
    /// The language's title: `C++`.
    pub language: String,
    /// The build command, as shown to the user; `None` for a script run from its sources.
    pub command: Option<String>,
    pub status: BuildStatus,
    /// Wall time of the build; zero when an earlier build was reused.
    pub time: std::time::Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildStatus {
    Built,
    /// An earlier build of the same sources was reused.
    Reused,
    /// The sources did not build: a first line saying what failed, then the compiler's first
    /// lines.
    Failed(String),
}

impl Build {
    /// One line for the terminal: what was built, how, and in how long.
    pub fn summary(&self) -> String {
        let language = &self.language;
        let seconds = self.time.as_secs_f64();
        match (&self.status, &self.command) {
            (BuildStatus::Failed(_), _) => format!("{language}: could not build ({seconds:.1} s)"),
            (_, None) => format!("{language}: run from its sources"),
            (BuildStatus::Reused, Some(build)) => {
                format!("{language}: built earlier with `{build}` (reused)")
            }
            (BuildStatus::Built, Some(build)) => {
                format!("{language}: built with `{build}` in {seconds:.1} s")
            }
        }
    }

    /// The compiler's message, when the sources did not build.
    pub fn failure(&self) -> Option<&str> {
        match &self.status {
            BuildStatus::Failed(message) => Some(message),
            _ => None,
        }
    }
}

/// Lines of stderr shown under a failing case, in every report.
pub(super) const STDERR_LINES: usize = 12;

/// What makes two failures one cause (see [`Judgement::cause_key`]).
pub(super) type CauseKey = (Verdict, String, String);

/// One cause of failure: the failing cases whose judgements share a key.
#[derive(Debug, Clone)]
pub struct Cause {
    pub key: CauseKey,
    /// A short name of the key, the same in every run and report
    /// ([`Judgement::cause_id`]).
    pub id: String,
    /// Indices into [`Run::results`]: its example first (the smallest public hand-written
    /// case, see [`example_order`]), then its other examples, then the others in case order.
    pub cases: Vec<usize>,
    /// How many of `cases` are examples: one, and where no misreading fits, one more of each
    /// other kind of failure the cause groups (another command, another kind of difference),
    /// up to [`EXAMPLES`], so that each bug a cause holds shows in a case of its own.
    pub examples: usize,
}

/// The most examples a cause shows.
const EXAMPLES: usize = 3;

/// Puts after `cases[0]` the best case of each other kind of failure, where no misreading
/// fits (the kind each was grouped by); returns how many examples that makes.
fn order_examples(results: &[CaseResult], cases: &mut Vec<usize>) -> usize {
    let kind = |k: usize| Some(&results[k].judgement.unexplained.as_ref()?.shows);
    let mut shown = vec![kind(cases[0])];
    if shown[0].is_none() {
        return 1;
    }
    while shown.len() < EXAMPLES {
        let next = (shown.len()..cases.len())
            .filter(|&j| !shown.contains(&kind(cases[j])) && !results[cases[j]].case.hidden)
            .min_by_key(|&j| example_order(&results[cases[j]], cases[j]));
        let Some(next) = next else { break };
        shown.push(kind(cases[next]));
        let case = cases.remove(next);
        cases.insert(shown.len() - 1, case);
    }
    shown.len()
}

/// How good an example of its cause a failing case is, lower first: public before hidden,
/// hand-written before generated, fewer input lines, then case order.
fn example_order(result: &CaseResult, k: usize) -> (bool, bool, usize, usize) {
    (
        result.case.hidden,
        result.case.group == "generated",
        result.input_lines,
        k,
    )
}

/// One group of a run (graded or not) with its passes and failures; skipped cases count in
/// neither.
#[derive(Debug, Clone)]
pub struct GroupTally {
    pub spec: String,
    pub group: String,
    pub passed: usize,
    pub failed: usize,
    pub graded: bool,
}

/// A run's summaries: what every reporter would otherwise compute for itself.
#[derive(Debug, Clone, Default)]
pub struct Summaries {
    /// Every cause of failure, in the order reports show them: causes whose example is a
    /// hand-written case first (they are in the handout's words, and small), then the most
    /// cases first, then by key.
    pub causes: Vec<Cause>,
    /// For each result, the index of its cause in `causes` (`None`: passed or skipped).
    pub cause_of: Vec<Option<usize>>,
    /// Every group of the run, in spec then group order.
    pub groups: Vec<GroupTally>,
}

impl Summaries {
    /// The summaries of `results` (in case order).
    pub fn of(results: &[CaseResult]) -> Summaries {
        let keys: Vec<CauseKey> = results.iter().map(|r| r.judgement.cause_key()).collect();
        Summaries::keyed(results, &keys)
    }

    /// The summaries of `results`, each failure in the cause `keys` gives it.
    fn keyed(results: &[CaseResult], keys: &[CauseKey]) -> Summaries {
        let mut causes: Vec<Cause> = Vec::new();
        let mut index: std::collections::HashMap<CauseKey, usize> = Default::default();
        let mut cause_of = Vec::with_capacity(results.len());
        let mut groups: std::collections::BTreeMap<(&str, &str), GroupTally> = Default::default();
        for (k, result) in results.iter().enumerate() {
            let verdict = result.judgement.verdict;
            let tally = groups
                .entry((&result.case.spec, &result.case.group))
                .or_insert_with(|| GroupTally {
                    spec: result.case.spec.clone(),
                    group: result.case.group.clone(),
                    passed: 0,
                    failed: 0,
                    graded: result.case.graded,
                });
            match verdict {
                Verdict::Pass => tally.passed += 1,
                // No verdict: neither passed nor failed.
                Verdict::Skipped | Verdict::Unreliable => {}
                _ => tally.failed += 1,
            }
            if verdict.passed() || matches!(verdict, Verdict::Skipped | Verdict::Unreliable) {
                cause_of.push(None);
                continue;
            }
            let key = keys[k].clone();
            let at = *index.entry(key.clone()).or_insert_with(|| {
                causes.push(Cause {
                    id: super::cause::id_of(&key),
                    key,
                    cases: Vec::new(),
                    examples: 1,
                });
                causes.len() - 1
            });
            causes[at].cases.push(k);
            cause_of.push(Some(at));
        }
        for cause in &mut causes {
            let best = (0..cause.cases.len())
                .min_by_key(|&j| example_order(&results[cause.cases[j]], cause.cases[j]));
            if let Some(best) = best {
                let example = cause.cases.remove(best);
                cause.cases.insert(0, example);
                cause.examples = order_examples(results, &mut cause.cases);
            }
        }
        let rank = |cause: &Cause| {
            (
                results[cause.cases[0]].case.group == "generated",
                std::cmp::Reverse(cause.cases.len()),
            )
        };
        causes.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.key.cmp(&b.key)));
        // Each case's cause, where the sort put it.
        for (at, cause) in causes.iter().enumerate() {
            for &k in &cause.cases {
                cause_of[k] = Some(at);
            }
        }
        Summaries {
            causes,
            cause_of,
            groups: groups.into_values().collect(),
        }
    }
}

/// The last [`STDERR_LINES`] lines of a case's stderr (a traceback ends with its error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StderrTail {
    pub lines: Vec<String>,
    /// Lines before them that are not shown.
    pub skipped: usize,
    /// The harness kept only the start of a longer stderr.
    pub truncated: bool,
}

/// The tail of `judgement`'s stderr; `None` when it printed nothing there (or never ran).
pub fn stderr_tail(judgement: &Judgement) -> Option<StderrTail> {
    let execution = judgement.execution.as_ref()?;
    if execution.stderr.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&execution.stderr);
    let lines: Vec<&str> = text.lines().collect();
    let skipped = lines.len().saturating_sub(STDERR_LINES);
    Some(StderrTail {
        lines: lines[skipped..].iter().map(|l| l.to_string()).collect(),
        skipped,
        truncated: execution.stderr_truncated,
    })
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
    /// Run, but not judged: the machine was too busy to measure them (no verdict, so neither
    /// passed nor failed).
    pub unjudged: usize,
}

impl Run {
    /// The run as a student may see it, for a server that holds the expected outputs of every
    /// case: the cases of the `hidden` groups keep only their verdicts (each judgement
    /// redacted, as the student kit's hidden cases), or with `leave_out` are not there at all;
    /// the causes are those of what is left.
    pub fn for_students(&self, hidden: &[String], leave_out: bool) -> Run {
        let is_hidden = |result: &CaseResult| hidden.contains(&result.case.group);
        // A hidden case's failure joins the cause a visible case shows with it (one bug, one
        // cause), which tells nothing of the hidden case but that it failed the same way; a
        // failure no visible case shares keeps the cause its redacted verdict gives.
        let shown: std::collections::HashSet<CauseKey> = self
            .results
            .iter()
            .filter(|result| !is_hidden(result))
            .map(|result| result.judgement.cause_key())
            .collect();
        let (results, keys): (Vec<CaseResult>, Vec<CauseKey>) = self
            .results
            .iter()
            .filter(|result| !(leave_out && is_hidden(result)))
            .map(|result| {
                let mut result = result.clone();
                let mut key = result.judgement.cause_key();
                if is_hidden(&result) {
                    result.case.hidden = true;
                    result.judgement.redact();
                    if !shown.contains(&key) {
                        key = result.judgement.cause_key();
                    }
                }
                (result, key)
            })
            .unzip();
        Run {
            suites: self.suites.clone(),
            summaries: Summaries::keyed(&results, &keys),
            results,
            n_filtered: self.n_filtered,
            n_ungraded_left_out: self.n_ungraded_left_out,
            target: self.target.clone(),
            elapsed: self.elapsed,
            inferred: self.inferred.clone(),
            warnings: self.warnings.clone(),
            interrupted: self.interrupted,
            build: self.build.clone(),
        }
    }

    /// The id of the cause result `k` fails by (`None`: it passed or was skipped).
    pub fn cause_id_of(&self, k: usize) -> Option<&str> {
        let cause = (*self.summaries.cause_of.get(k)?)?;
        Some(&self.summaries.causes[cause].id)
    }

    /// The results of cause `cause`: its example, then the others.
    pub fn cases_of<'a>(&'a self, cause: &'a Cause) -> impl Iterator<Item = &'a CaseResult> + 'a {
        cause.cases.iter().map(|&k| &self.results[k])
    }

    /// The counts of the verdict line `N passed, N failed, N skipped`.
    pub fn totals(&self) -> Totals {
        let graded = || self.results.iter().filter(|r| r.case.graded);
        let passed = graded().filter(|r| r.judgement.verdict.passed()).count();
        let not_run = graded()
            .filter(|r| r.judgement.verdict == Verdict::Skipped)
            .count();
        let unjudged = graded()
            .filter(|r| r.judgement.verdict == Verdict::Unreliable)
            .count();
        Totals {
            passed,
            failed: graded().count() - passed - not_run - unjudged,
            skipped: not_run + self.n_filtered,
            unjudged,
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
