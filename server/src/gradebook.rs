//! The class's grades of an assignment, as `grade` writes them: for every enrolled student
//! (the roster's, then the LMS's), the submission that counts ([`crate::standing::terms_of`]) as
//! a gradebook row, and `grades.csv` as a download. The class's pages and the JSON API both
//! read them here.

use std::collections::BTreeMap;

use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::course::Assignment;
use crate::db::{submissions, Sub};
use crate::error::{Fault, Reply};
use crate::standing::terms_of;
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

/// A student's late days spent on an assignment and the points their lateness cost.
pub(crate) type Lateness = (u32, f64);

/// What the gradebook of an assignment holds beside `grade`'s rows: per student, the first
/// failing case's block of each cause, and their [`Lateness`].
pub(crate) type Beside = (
    BTreeMap<String, BTreeMap<String, String>>,
    BTreeMap<String, Lateness>,
);

/// The gradebook of `assignment`: one row per student of the roster, from the submission that
/// counts (its score as counted, late days spent), or "no submission".
pub(crate) async fn gradebook(
    state: &State,
    assignment: &Assignment,
) -> Result<(xtask::report::Grades, Beside), Fault> {
    let graded = state.assignments.get(&assignment.name).ok_or_else(|| {
        Fault::Harness(format!("assignment `{}` has no grading", assignment.name))
    })?;
    let mut grades = graded.gradebook.clone();
    let mut blocks = BTreeMap::new();
    let mut lateness = BTreeMap::new();
    let students = enrolled(state).await?;
    let terms = terms_of(state, &students).await?;
    for student in &students {
        let row = match terms[&student.id].counted.get(&assignment.name) {
            Some(counted) => {
                let sub = &counted.sub;
                lateness.insert(student.id.clone(), (counted.days_used, counted.penalty));
                let (row, block) = submissions::row_and_blocks(&state.db, sub.id).await?;
                if let Some(block) = block.and_then(|b| serde_json::from_str(&b).ok()) {
                    blocks.insert(student.id.clone(), block);
                }
                let mut row: xtask::report::Submission = row
                    .and_then(|r| serde_json::from_str(&r).ok())
                    .unwrap_or_else(|| empty_row(&student.id, sub.error.clone()));
                row.id = student.id.clone();
                row.score = counted.score;
                row
            }
            None => empty_row(&student.id, Some("no submission".into())),
        };
        grades.submissions.push(row);
    }
    Ok((grades, (blocks, lateness)))
}

/// Whether `assignment`'s grades carry lateness of their own: the course gives late days, or
/// the assignment a penalty per day.
pub(crate) fn counts_late_days(state: &State, assignment: &Assignment) -> bool {
    state.course.late_days.is_some()
        || matches!(assignment.late, crate::course::Late::PerDay { .. })
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
    let (grades, (_, lateness)) = gradebook(state, assignment).await?;
    let mut bytes =
        xtask::report::grades_csv(&grades).map_err(|err| Fault::Harness(err.to_string()))?;
    if counts_late_days(state, assignment) {
        bytes = with_lateness(&bytes, &lateness)?;
    }
    Ok(download(&format!("grades-{}.csv", assignment.name), bytes))
}

/// `grade`'s grades.csv `bytes` with two columns more: `late_days_used` and `late_penalty`
/// (points), per student of the first column (0 and 0 where nothing counts).
fn with_lateness(bytes: &[u8], lateness: &BTreeMap<String, Lateness>) -> Result<Vec<u8>, Fault> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes);
    let mut writer = csv::Writer::from_writer(Vec::new());
    for (k, record) in reader.records().enumerate() {
        let mut record = record?;
        if k == 0 {
            record.push_field("late_days_used");
            record.push_field("late_penalty");
        } else {
            let (days, penalty) = lateness.get(&record[0]).copied().unwrap_or_default();
            record.push_field(&days.to_string());
            record.push_field(&format!("{penalty:.2}"));
        }
        writer.write_record(&record)?;
    }
    writer
        .into_inner()
        .map_err(|err| Fault::Io(err.to_string()))
}
