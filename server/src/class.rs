//! The instructor's pages: the class table of each assignment (attempts, latest, best, late),
//! a student's history, the class report `grade --html` draws, the grades as `grade`'s
//! grades.csv and as a Canvas gradebook import, and "regrade all" with the audit of whose
//! score moved and why.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, State as Shared};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::html;
use sqlx::Row;

use crate::auth::{CsrfForm, Who};
use crate::course::Assignment;
use crate::db::now;
use crate::pages::{page, points, sub_of, Sub};
use crate::queue::{self, Job};
use crate::state::when;
use crate::state::{not_found, Reply, State};
use crate::Fault;

fn instructor_only(who: &Who) -> Result<(), Reply> {
    // A student asking for an instructor's page is told there is nothing there.
    match who.instructor() {
        true => Ok(()),
        false => Err(not_found()),
    }
}

/// Every submission to `assignment`, by student, newest first.
async fn by_student(state: &State, assignment: &str) -> Result<BTreeMap<String, Vec<Sub>>, Fault> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        crate::sub_columns!(),
        " FROM submissions WHERE assignment = $1 ORDER BY id DESC"
    ))
    .bind(assignment)
    .fetch_all(&state.db)
    .await
    .map_err(Fault::db)?;
    let mut map: BTreeMap<String, Vec<Sub>> = BTreeMap::new();
    for row in &rows {
        let sub = sub_of(row);
        map.entry(sub.student.clone()).or_default().push(sub);
    }
    Ok(map)
}

/// The submission that counts: the best counted score, the latest of equals.
fn chosen<'a>(subs: &'a [Sub], assignment: &Assignment) -> Option<&'a Sub> {
    subs.iter()
        .filter(|s| s.counted(assignment).is_some())
        .fold(None, |best: Option<&Sub>, s| match best {
            Some(b) if b.counted(assignment) >= s.counted(assignment) => Some(b),
            _ => Some(s),
        })
}

/// `/instructor`: each assignment's class table.
pub async fn overview(Shared(state): Shared<Arc<State>>, who: Who) -> Result<Response, Reply> {
    instructor_only(&who)?;
    let mut tables = Vec::new();
    for assignment in &state.course.assignments {
        tables.push((assignment, by_student(&state, &assignment.name).await?));
    }
    let csrf = who.csrf.clone().unwrap_or_default();
    let body = html! {
        @for (assignment, subs) in &tables {
            h2 { (assignment.title) }
            p { "Due " (when(assignment.deadline.timestamp())) " · "
                a href={ "/instructor/assignments/" (assignment.name) "/grades.csv" } { "grades.csv" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/canvas.csv" } { "Canvas import" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/report" } { "class report" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/regrades" } { "regrades" } }
            form method="post" action={ "/instructor/assignments/" (assignment.name) "/regrade" } {
                input type="hidden" name="csrf" value=(csrf);
                button type="submit" { "Regrade all (after the cases changed)" }
            }
            table.class {
                tr { th { "student" } th { "attempts" } th { "latest" } th { "best" } th { "late" } }
                @for student in &state.course.roster {
                    @let own = subs.get(&student.id).map(Vec::as_slice).unwrap_or_default();
                    @let best = chosen(own, assignment);
                    tr data-student=(student.id) {
                        td { a href={ "/instructor/students/" (student.id) } { (student.name) } " " span.muted { (student.id) } }
                        td { (own.len()) }
                        td { @match own.first() { Some(sub) => { a href={ "/submissions/" (sub.id) } { (points(sub.score)) } " " span.muted { (sub.status) } }, None => "–" } }
                        td.best { (points(best.and_then(|b| b.counted(assignment)))) }
                        td { @if best.is_some_and(|b| b.late) { span.late { "late" } } @else if own.iter().any(|s| s.late) { span.muted { "late attempts" } } }
                    }
                }
            }
        }
    };
    Ok(page(&state, Some(&who), "The class", body).into_response())
}

/// `/instructor/students/{id}`: every submission of one student.
pub async fn student(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(id): UrlPath<String>,
) -> Result<Response, Reply> {
    instructor_only(&who)?;
    let Some(student) = state.course.student(&id) else {
        return Err(not_found());
    };
    let rows = sqlx::query(concat!(
        "SELECT ",
        crate::sub_columns!(),
        " FROM submissions WHERE student = $1 ORDER BY id DESC"
    ))
    .bind(&id)
    .fetch_all(&state.db)
    .await
    .map_err(Fault::db)?;
    let subs: Vec<Sub> = rows.iter().map(sub_of).collect();
    let body = html! {
        p { (student.email) }
        table {
            tr { th { "#" } th { "assignment" } th { "handed in" } th { "status" } th { "score" } }
            @for sub in &subs {
                tr { td { a href={ "/submissions/" (sub.id) } { (sub.id) } } td { (sub.assignment) }
                    td { (when(sub.created_at)) @if sub.late { " " span.late { "late" } } }
                    td { (sub.status) } td { (points(sub.score)) } }
            }
        }
    };
    Ok(page(&state, Some(&who), &student.name, body).into_response())
}

/// The gradebook of `assignment`: one row per student of the roster, from the submission that
/// counts (its score as counted), or "no submission".
pub async fn gradebook(
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
    for student in &state.course.roster {
        let own = subs.get(&student.id).map(Vec::as_slice).unwrap_or_default();
        let row = match chosen(own, assignment) {
            Some(sub) => {
                let stored = sqlx::query("SELECT row, blocks FROM submissions WHERE id = $1")
                    .bind(sub.id)
                    .fetch_one(&state.db)
                    .await
                    .map_err(Fault::db)?;
                let row: Option<String> = stored.get(0);
                let block: Option<String> = stored.get(1);
                if let Some(block) = block.and_then(|b| serde_json::from_str(&b).ok()) {
                    blocks.insert(student.id.clone(), block);
                }
                let mut row: xtask::report::Submission = row
                    .and_then(|r| serde_json::from_str(&r).ok())
                    .unwrap_or_else(|| empty_row(&student.id, sub.error.clone()));
                row.id = student.id.clone();
                row.score = sub.counted(assignment).unwrap_or(0.0);
                row.cases.clear();
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

fn download(name: &str, bytes: Vec<u8>) -> Response {
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

pub fn find<'a>(state: &'a State, name: &str) -> Result<&'a Assignment, Reply> {
    state.course.assignment(name).ok_or_else(not_found)
}

/// The grades of `assignment` as `grade`'s grades.csv (the same columns).
pub async fn grades_csv_of(state: &State, assignment: &Assignment) -> Result<Response, Reply> {
    let (grades, _) = gradebook(state, assignment).await?;
    let bytes =
        xtask::report::grades_csv(&grades).map_err(|err| Fault::Harness(err.to_string()))?;
    Ok(download(&format!("grades-{}.csv", assignment.name), bytes))
}

pub async fn grades_csv(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, Reply> {
    instructor_only(&who)?;
    let assignment = find(&state, &name)?;
    grades_csv_of(&state, assignment).await
}

/// The grades as a Canvas gradebook import: the student columns Canvas matches on, a
/// "Points Possible" row, and one column for the assignment.
pub async fn canvas_csv(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, Reply> {
    instructor_only(&who)?;
    let assignment = find(&state, &name)?;
    let (grades, _) = gradebook(&state, assignment).await?;
    let fault = |err: csv::Error| Fault::Harness(err.to_string());
    let mut writer = csv::Writer::from_writer(Vec::new());
    let column = format!("{} ({})", assignment.title, assignment.name);
    writer
        .write_record([
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            &column,
        ])
        .map_err(fault)?;
    writer
        .write_record([
            "Points Possible",
            "",
            "",
            "",
            "",
            &format!("{:.2}", grades.max_score),
        ])
        .map_err(fault)?;
    for (student, row) in state.course.roster.iter().zip(&grades.submissions) {
        writer
            .write_record([
                xtask::report::csv_text(&student.name),
                String::new(),
                xtask::report::csv_text(&student.id),
                xtask::report::csv_text(&student.email),
                String::new(),
                format!("{:.2}", row.score),
            ])
            .map_err(fault)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| Fault::Harness(err.to_string()))?;
    Ok(download(&format!("canvas-{}.csv", assignment.name), bytes))
}

/// `/instructor/assignments/{name}/report`: the class report `grade --html` draws.
pub async fn class_report(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, Reply> {
    instructor_only(&who)?;
    let assignment = find(&state, &name)?;
    let (grades, blocks) = gradebook(&state, assignment).await?;
    let html = xtask::report::class_report(
        &grades,
        &[],
        &|id| blocks.get(id).cloned().unwrap_or_default(),
        None,
    );
    Ok(Html(html).into_response())
}

/// `POST /instructor/assignments/{name}/regrade`: every submission to the assignment graded
/// again against the cases as they are now; the audit records whose score moved.
pub async fn regrade(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    instructor_only(&who)?;
    crate::auth::check_csrf(&who, &form.csrf)?;
    find(&state, &name)?;
    let jobs = start_regrade(&state, &name).await?;
    for job in jobs {
        queue::enqueue(&state.queue, &state.db, job).await?;
    }
    Ok(Redirect::to(&format!("/instructor/assignments/{name}/regrades")).into_response())
}

/// Opens a regrade of `assignment` in one transaction: each submission's generation moves on
/// and it waits again (its old score kept, to say what moved). The jobs to queue.
pub async fn start_regrade(state: &State, assignment: &str) -> Result<Vec<Job>, Fault> {
    let mut tx = state.db.begin().await.map_err(Fault::db)?;
    sqlx::query("INSERT INTO regrades (assignment, at) VALUES ($1, $2)")
        .bind(assignment)
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(Fault::db)?;
    let rows = sqlx::query(
        "UPDATE submissions SET generation = generation + 1, status = 'queued', cases_done = 0
         WHERE assignment = $1 RETURNING id, generation",
    )
    .bind(assignment)
    .fetch_all(&mut *tx)
    .await
    .map_err(Fault::db)?;
    tx.commit().await.map_err(Fault::db)?;
    Ok(rows
        .iter()
        .map(|row| Job {
            submission: row.get(0),
            generation: row.get(1),
        })
        .collect())
}

/// `/instructor/assignments/{name}/regrades`: each regrade, whose score it moved and why.
pub async fn regrades(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, Reply> {
    instructor_only(&who)?;
    let assignment = find(&state, &name)?;
    let rows = sqlx::query(
        "SELECT regrades.id, regrades.at, c.student, c.submission, c.old_score, c.new_score, c.why
         FROM regrades LEFT JOIN regrade_changes c ON c.regrade = regrades.id
         WHERE regrades.assignment = $1 ORDER BY regrades.id DESC, c.student",
    )
    .bind(&name)
    .fetch_all(&state.db)
    .await
    .map_err(Fault::db)?;
    let waiting: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM submissions WHERE assignment = $1 AND status IN ('queued', 'building', 'running')",
    )
    .bind(&name)
    .fetch_one(&state.db)
    .await
    .map_err(Fault::db)?;
    let body = html! {
        @if waiting > 0 { p.late { (waiting) " submissions still to grade: reload to see more." } }
        table.regrades {
            tr { th { "regrade" } th { "at" } th { "student" } th { "submission" } th { "before" } th { "after" } th { "why" } }
            @for row in &rows {
                @let student: Option<String> = row.get(2);
                tr { td { (row.get::<i64, _>(0)) } td { (when(row.get(1))) }
                    @match student {
                        Some(student) => { td { (student) } td { a href={ "/submissions/" (row.get::<i64, _>(3)) } { (row.get::<i64, _>(3)) } }
                            td { (points(row.get(4))) } td { (points(row.get(5))) } td { (row.get::<String, _>(6)) } },
                        None => { td colspan="5" { span.muted { "no score moved" } } },
                    } }
            }
        }
    };
    let _ = StatusCode::OK;
    Ok(page(
        &state,
        Some(&who),
        &format!("Regrades of {}", assignment.title),
        body,
    )
    .into_response())
}
