//! The class's grades of an assignment, as `grade` writes them: for every enrolled student
//! (the roster's, then the LMS's), the submission that counts ([`crate::standing::chosen`]) as
//! a gradebook row, and `grades.csv` as a download. The class's pages and the JSON API both
//! read them here.

use std::collections::BTreeMap;

use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::course::Assignment;
use crate::db::{submissions, Sub};
use crate::error::{Fault, Reply};
use crate::standing::{chosen, counted};
use crate::state::State;

/// Every submission to `assignment`, by student, newest first.
pub(crate) async fn by_student(
    state: &State,
    assignment: &str,
) -> Result<BTreeMap<String, Vec<Sub>>, Fault> {
    let mut map: BTreeMap<String, Vec<Sub>> = BTreeMap::new();
    for sub in submissions::of_assignment(&state.db, assignment).await? {
        map.entry(sub.student.clone()).or_default().push(sub);
    }
    Ok(map)
}

/// The class: the roster's students, then those the LMS named (by a launch or its roster).
pub(crate) async fn enrolled(state: &State) -> Result<Vec<crate::course::Student>, Fault> {
    let mut students = state.course.roster.clone();
    if state.course.lti.is_some() {
        for student in crate::db::lti::lms_students(&state.db).await? {
            if !students.iter().any(|s| s.id == student.id) {
                students.push(student);
            }
        }
    }
    Ok(students)
}

/// The gradebook of `assignment`: one row per student of the roster, from the submission that
/// counts (its score as counted), or "no submission".
pub(crate) async fn gradebook(
    state: &State,
    assignment: &Assignment,
) -> Result<
    (
        xtask::report::Grades,
        BTreeMap<String, BTreeMap<String, String>>,
    ),
    Fault,
> {
    let graded = state.assignments.get(&assignment.name).ok_or_else(|| {
        Fault::Harness(format!("assignment `{}` has no grading", assignment.name))
    })?;
    let mut grades = graded.gradebook.clone();
    let subs = by_student(state, &assignment.name).await?;
    let mut blocks = BTreeMap::new();
    for student in &enrolled(state).await? {
        let own = subs.get(&student.id).map(Vec::as_slice).unwrap_or_default();
        let row = match chosen(own, assignment) {
            Some(sub) => {
                let (row, block) = submissions::row_and_blocks(&state.db, sub.id).await?;
                if let Some(block) = block.and_then(|b| serde_json::from_str(&b).ok()) {
                    blocks.insert(student.id.clone(), block);
                }
                let mut row: xtask::report::Submission = row
                    .and_then(|r| serde_json::from_str(&r).ok())
                    .unwrap_or_else(|| empty_row(&student.id, sub.error.clone()));
                row.id = student.id.clone();
                row.score = counted(sub, assignment).unwrap_or(0.0);
                row
            }
            None => empty_row(&student.id, Some("no submission".into())),
        };
        grades.submissions.push(row);
    }
    Ok((grades, blocks))
}

fn empty_row(id: &str, error: Option<String>) -> xtask::report::Submission {
    xtask::report::Submission {
        id: id.to_string(),
        score: 0.0,
        groups: BTreeMap::new(),
        verdicts: xtask::report::verdict_counts(),
        error,
        cases: Vec::new(),
    }
}

pub(crate) fn download(name: &str, bytes: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// The grades of `assignment` as `grade`'s grades.csv (the same columns).
pub(crate) async fn grades_csv_of(
    state: &State,
    assignment: &Assignment,
) -> Result<Response, Reply> {
    let (grades, _) = gradebook(state, assignment).await?;
    let bytes =
        xtask::report::grades_csv(&grades).map_err(|err| Fault::Harness(err.to_string()))?;
    Ok(download(&format!("grades-{}.csv", assignment.name), bytes))
}
