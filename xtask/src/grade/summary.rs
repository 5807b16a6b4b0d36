//! What a grading comes to: its [`Summary`], and the gradebook it starts from (the groups a
//! `--filter` keeps, and the points the scores are out of).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::options::Options;
use crate::report::{Change, Grades};

/// What `grade` did.
#[derive(Debug)]
pub struct Summary {
    /// The grades, each submission without its cases (they are in `grades.json` and in
    /// `results/<id>.json`).
    pub grades: Grades,
    pub n_reused: usize,
    pub n_graded: usize,
    pub interrupted: bool,
    pub warnings: Vec<String>,
    /// `report.html` was written too.
    pub html: bool,
    /// The students whose score moved since the earlier grading in the same `--out`, and why.
    pub changes: Vec<Change>,
    /// Where the earlier gradebook was kept, when scores moved.
    pub earlier: Option<PathBuf>,
    /// `--dry-run`: per submission, what a grading would do.
    pub plan: Vec<(String, String)>,
    /// With `--filter`: the points the scores are out of, and the whole suite's.
    pub filtered: Option<(f64, f64)>,
    /// `--fail-fast` stopped the grading here: the student and the case (or why the
    /// submission could not be graded).
    pub stopped_at: Option<String>,
}

impl Summary {
    /// A summary of nothing graded yet.
    pub(super) fn new(grades: Grades) -> Summary {
        Summary {
            grades,
            n_reused: 0,
            n_graded: 0,
            interrupted: false,
            warnings: Vec::new(),
            html: false,
            changes: Vec::new(),
            earlier: None,
            plan: Vec::new(),
            filtered: None,
            stopped_at: None,
        }
    }
}

/// The cases a grading runs (those `--filter` keeps), its empty gradebook, and with `--filter`
/// the points the scores are out of and the whole suite's.
pub(super) fn gradebook(
    options: &Options,
    suite: &crate::corpus::Suite,
    cases: Vec<crate::corpus::Case>,
    run_text: &str,
) -> (Vec<crate::corpus::Case>, Grades, Option<(f64, f64)>) {
    let whole = empty_gradebook(options, suite, &cases, run_text).max_score;
    let (selected, _, _) = crate::check::select(&options.check, cases);
    // Scores are out of the groups the filter keeps.
    let grades = empty_gradebook(options, suite, &selected, run_text);
    let filtered = options
        .check
        .filter
        .is_some()
        .then_some((grades.max_score, whole));
    (selected, grades, filtered)
}

/// The gradebook of a grading before any submission: only groups with graded cases count (an
/// empty `found` group is worth nothing yet).
fn empty_gradebook(
    options: &Options,
    suite: &crate::corpus::Suite,
    cases: &[crate::corpus::Case],
    run_text: &str,
) -> Grades {
    let groups: BTreeMap<String, f64> = suite
        .file
        .groups
        .iter()
        .filter(|(group, _)| cases.iter().any(|c| c.graded && &c.group == *group))
        .map(|(group, points)| (group.clone(), *points))
        .collect();
    Grades {
        schema: 1,
        spec: suite.name.clone(),
        run: run_text.to_string(),
        max_score: groups.values().sum(),
        groups,
        shard: options.shard.map(|shard| shard.to_string()),
        submissions: Vec::new(),
        skipped: Vec::new(),
    }
}
