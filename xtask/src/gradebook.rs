//! The grade files' model: `grades.json` is a [`Grades`], one [`Submission`] per student with a
//! [`CaseRow`] per case. `grade` writes it, `merge` reads and writes it, `html` draws it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One case of one submission, as the grade files keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRow {
    pub id: String,
    pub group: String,
    pub verdict: String,
    pub cause: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// One submission's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    pub id: String,
    pub score: f64,
    /// Score per graded group.
    pub groups: BTreeMap<String, f64>,
    /// Cases per verdict.
    pub verdicts: BTreeMap<String, usize>,
    /// Why the submission could not be graded at all.
    pub error: Option<String>,
    pub cases: Vec<CaseRow>,
}

/// The whole grading: what `grades.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grades {
    pub schema: u32,
    pub spec: String,
    pub run: String,
    /// Points per graded group.
    pub groups: BTreeMap<String, f64>,
    pub max_score: f64,
    /// The shard this file holds (`K/N`); absent for a whole class, and after a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub submissions: Vec<Submission>,
}
