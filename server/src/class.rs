//! The instructor's pages: the class table of each assignment (attempts, latest, best, late),
//! a student's history, the class report `grade --html` draws, the grades as `grade`'s
//! grades.csv and as a Canvas gradebook import, and "regrade all" with the audit of whose
//! score moved and why.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, State as Shared};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::html;

use crate::auth::CsrfForm;
use crate::course::Assignment;
use crate::db::{regrades, submissions};
use crate::error::{not_found, Fault, Reply};
use crate::extract::{AssignmentOf, Instructor};
use crate::frame::page;
use crate::gradebook::{by_student, download, enrolled, gradebook, grades_csv_of};
use crate::queue::{self, Job};
use crate::standing::terms_of;
use crate::state::State;
use crate::view::{deadline, points, when};

/// Where each student's latest grade passback of `assignment` stands, in words.
async fn passbacks(state: &State, assignment: &str) -> Result<BTreeMap<String, String>, Fault> {
    let mut words = BTreeMap::new();
    for (student, sent_at, attempts, error) in
        crate::db::lti::passback_states(&state.db, assignment).await?
    {
        let text = match (sent_at, error) {
            (Some(at), _) => format!("sent {}", when(at)),
            (None, Some(error)) => format!("waiting (tried {attempts}×: {error})"),
            (None, None) => "waiting".to_string(),
        };
        words.insert(student, text);
    }
    Ok(words)
}

/// `/instructor`: each assignment's class table.
pub(crate) async fn overview(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
) -> Result<Response, Reply> {
    let mut tables = Vec::new();
    for assignment in &state.course.assignments {
        let subs = by_student(&state, &assignment.name).await?;
        tables.push((assignment, subs, passbacks(&state, &assignment.name).await?));
    }
    let students = enrolled(&state).await?;
    let terms = terms_of(&state, &students).await?;
    let lms = state.course.lti.is_some();
    let csrf = who.csrf.clone().unwrap_or_default();
    let open_requests = crate::db::requests::open_ones(&state.db).await?.len();
    let stalled = crate::standing::stalled(&state).await?;
    let body = html! {
        @if let Some(span) = &stalled {
            p.late role="alert" { "Grading has stalled: work waits and no submission has moved for "
                (span) ". The server's log says why: a grading that stops moving is given up and \
                queued again by itself, and a worker that takes no work starts again." }
        }
        p { a href="/instructor/requests" { "Regrade requests" } " (" (open_requests) " open)" }
        @if lms {
            form method="post" action="/instructor/lti/roster" {
                input type="hidden" name="csrf" value=(csrf);
                button type="submit" { "Read the roster from the LMS again" }
            }
        }
        @for (assignment, subs, passback) in &tables {
            h2 { (assignment.title) }
            p { "Due " (deadline(&assignment.deadline)) " · "
                a href={ "/instructor/assignments/" (assignment.name) "/grades.csv" } { "grades.csv" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/canvas.csv" } { "Canvas import" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/report" } { "class report" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/extensions" } { "extensions" } " · "
                a href={ "/instructor/assignments/" (assignment.name) "/regrades" } { "regrades" } }
            form method="post" action={ "/instructor/assignments/" (assignment.name) "/regrade" } {
                input type="hidden" name="csrf" value=(csrf);
                button type="submit" { "Regrade all (after the cases changed)" }
            }
            @let late_days = crate::gradebook::counts_late_days(&state, assignment);
            table.class {
                tr { th { "student" } th { "attempts" } th { "latest" } th { "counted" } th { "late" }
                    @if late_days { th { "late days used" } th { "late penalty" } }
                    @if lms { th { "LMS gradebook" } } }
                @for student in &students {
                    @let own = subs.get(&student.id).map(Vec::as_slice).unwrap_or_default();
                    @let counted = terms.get(&student.id).and_then(|t| t.counted.get(&assignment.name));
                    @let best = counted.map(|c| &c.sub);
                    tr data-student=(student.id) {
                        td { a href={ "/instructor/students/" (student.id) } { (student.name) } " " span.muted { (student.id) } }
                        td { (own.len()) }
                        td { @match own.first() { Some(sub) => { a href={ "/submissions/" (sub.id) } { (points(sub.score)) } " " span.muted { (sub.status) } }, None => "–" } }
                        td.best { (points(counted.map(|c| c.score))) }
                        td { @if best.is_some_and(|b| b.late) { span.late { "late" } } @else if own.iter().any(|s| s.late) { span.muted { "late attempts" } } }
                        @if late_days { td.late-days { (counted.map_or(0, |c| c.days_used)) } td.penalty { (points(counted.map(|c| c.penalty))) } }
                        @if lms { td.passback { (passback.get(&student.id).map_or("–", String::as_str)) } }
                    }
                }
            }
        }
    };
    Ok(page(&state, Some(&who), "The class", body).into_response())
}

/// `/instructor/students/{id}`: every submission of one student.
pub(crate) async fn student(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    UrlPath(id): UrlPath<String>,
) -> Result<Response, Reply> {
    let known = match state.course.student(&id) {
        Some(student) => Some(student.clone()),
        None => crate::db::lti::student(&state.db, &id).await?,
    };
    let Some(student) = known else {
        return Err(not_found());
    };
    let subs = submissions::of_student(&state.db, &id).await?;
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

pub(crate) async fn grades_csv(
    Shared(state): Shared<Arc<State>>,
    _: Instructor,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    grades_csv_of(&state, &assignment).await
}

/// The grades as a Canvas gradebook import: the student columns Canvas matches on, a
/// "Points Possible" row, and one column for the assignment.
pub(crate) async fn canvas_csv(
    Shared(state): Shared<Arc<State>>,
    _: Instructor,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    let (grades, _) = gradebook(&state, &assignment).await?;
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
        .map_err(Fault::from)?;
    writer
        .write_record([
            "Points Possible",
            "",
            "",
            "",
            "",
            &format!("{:.2}", grades.max_score),
        ])
        .map_err(Fault::from)?;
    for (student, row) in enrolled(&state).await?.iter().zip(&grades.submissions) {
        writer
            .write_record([
                xtask::report::csv_text(&student.name),
                String::new(),
                xtask::report::csv_text(&student.id),
                xtask::report::csv_text(&student.email),
                String::new(),
                format!("{:.2}", row.score),
            ])
            .map_err(Fault::from)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| Fault::Harness(err.to_string()))?;
    Ok(download(&format!("canvas-{}.csv", assignment.name), bytes))
}

/// `/instructor/assignments/{name}/report`: the class report `grade --html` draws.
pub(crate) async fn class_report(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    let body = html! {
        p { a href="/instructor" { "← the class" } " · "
            a href={ "/instructor/assignments/" (assignment.name) "/report.html" } { "the report alone" } }
        iframe.report src={ "/instructor/assignments/" (assignment.name) "/report.html" } sandbox="" title="the class report" {}
    };
    let title = format!("{}: the class report", assignment.title);
    Ok(page(&state, Some(&who), &title, body).into_response())
}

/// `/instructor/assignments/{name}/report.html`: the class report `grade --html` draws, its
/// similarity section included (the code of each student's counted submission).
pub(crate) async fn class_report_document(
    Shared(state): Shared<Arc<State>>,
    _: Instructor,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    let (grades, (blocks, _)) = gradebook(&state, &assignment).await?;
    let similarity = class_similarity(&state, &assignment).await?;
    let html = xtask::report::class_report(
        &grades,
        &[],
        &|id| blocks.get(id).cloned().unwrap_or_default(),
        similarity.as_ref().map(xtask::report::similarity_section),
    );
    Ok(Html(html).into_response())
}

/// A submission's files: (name, bytes).
type Files = Vec<(String, Vec<u8>)>;

/// The similarity of the class's counted submissions to `assignment`, as `similar` reports it
/// on their files (written out on a blocking thread, then removed); none where no student has
/// one.
async fn class_similarity(
    state: &State,
    assignment: &Assignment,
) -> Result<Option<xtask::report::Similarity>, Fault> {
    // Each student's counted submission: its files, by name.
    let mut class: Vec<(String, Files)> = Vec::new();
    let students = enrolled(state).await?;
    let terms = terms_of(state, &students).await?;
    for student in students {
        let term = &terms[&student.id];
        let Some(sub) = term.counted.get(&assignment.name).map(|c| &c.sub) else {
            continue;
        };
        let mut files = Vec::new();
        for (name, hash) in submissions::files(&state.db, sub.id).await? {
            let bytes = crate::db::blobs::get(&state.db, &hash)
                .await
                .map_err(|err| Fault::Database(format!("`{name}`: {err}")))?;
            files.push((name, bytes));
        }
        class.push((student.id, files));
    }
    if class.is_empty() {
        return Ok(None);
    }
    let work = state.work.clone();
    tokio::task::spawn_blocking(move || {
        let scratch = tempfile::tempdir_in(&work)
            .map_err(|err| Fault::Io(format!("{}: {err}", work.display())))?;
        for (student, files) in &class {
            // A lone archive is the student's entry as it is; else a folder of the files.
            let lone_archive = match files.as_slice() {
                [(name, _)] => xtask::submission::archive_extension(std::path::Path::new(name))
                    .map(|extension| format!("{student}.{extension}")),
                _ => None,
            };
            for (name, bytes) in files {
                let target = match &lone_archive {
                    Some(entry) => scratch.path().join(entry),
                    None => scratch.path().join(student).join(name),
                };
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|err| Fault::Io(format!("{}: {err}", parent.display())))?;
                }
                std::fs::write(&target, bytes)
                    .map_err(|err| Fault::Io(format!("{}: {err}", target.display())))?;
            }
        }
        let options = xtask::grade::SimilarOptions {
            submissions: scratch.path().to_path_buf(),
            grades: None,
            base: None,
            shard: None,
            common: xtask::grade::COMMON,
        };
        let mut similarity = xtask::grade::similar(&options)
            .map_err(|err| Fault::Harness(format!("the similarity of the class: {err}")))?;
        // The command line's note names a flag; here the instructor has a page, not a flag.
        for note in &mut similarity.notes {
            if note.starts_with("mistakes: not compared") {
                *note = "mistakes: not compared on this page, which compares code only (`cargo \
                         xtask similar --grades OUT` on a grading of the class compares the wrong \
                         outputs its students share too)"
                    .into();
            }
        }
        Ok(Some(similarity))
    })
    .await
    .map_err(|err| Fault::Harness(format!("the similarity of the class: {err}")))?
}

/// `POST /instructor/assignments/{name}/regrade`: every submission to the assignment graded
/// again against the cases as they are now; the audit records whose score moved.
pub(crate) async fn regrade(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    AssignmentOf(assignment): AssignmentOf,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    crate::auth::check_csrf(&who, &form.csrf)?;
    for job in start_regrade(&state, &assignment.name).await? {
        queue::enqueue(&state.queue, &state.db, job).await?;
    }
    Ok(Redirect::to(&format!(
        "/instructor/assignments/{}/regrades",
        assignment.name
    ))
    .into_response())
}

/// Opens a regrade of `assignment` (each submission's generation moves on and it waits
/// again): the jobs to queue.
pub(crate) async fn start_regrade(state: &State, assignment: &str) -> Result<Vec<Job>, Fault> {
    let started = regrades::start(&state.db, assignment).await?;
    Ok(started
        .into_iter()
        .map(|(submission, generation)| Job {
            submission,
            generation,
        })
        .collect())
}

/// `/instructor/assignments/{name}/regrades`: each regrade, whose score it moved and why.
pub(crate) async fn regrades(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    let rows = regrades::audit(&state.db, &assignment.name).await?;
    let answered = crate::db::requests::answered(&state.db, &assignment.name).await?;
    let waiting = submissions::still_to_grade(&state.db, &assignment.name).await?;
    let body = html! {
        @if waiting > 0 { p.late { (waiting) " submissions still to grade: reload to see more." } }
        table.regrades {
            tr { th { "regrade" } th { "at" } th { "student" } th { "submission" } th { "before" } th { "after" } th { "why" } }
            @for row in &rows {
                tr { td { (row.regrade) } td { (when(row.at)) }
                    @match &row.moved {
                        Some(moved) => { td { (moved.student) } td { a href={ "/submissions/" (moved.submission) } { (moved.submission) } }
                            td { (points(moved.old_score)) } td { (points(moved.new_score)) } td { (moved.why) } },
                        None => { td colspan="5" { span.muted { "no score moved" } } },
                    } }
            }
        }
        h2 { "Answered regrade requests" }
        @if answered.is_empty() { p.muted { "None." } } @else {
            table.requests {
                tr { th { "answered" } th { "student" } th { "submission" } th { "case" } th { "points" } th { "by" } th { "why" } }
                @for request in &answered { @if let Some(answer) = &request.answer {
                    tr { td { (when(answer.at)) } td { (request.student) } td { a href={ "/submissions/" (request.submission) } { (request.submission) } }
                        td { code { (request.case) } } td { (points(Some(answer.points))) } td { (answer.by) } td { (answer.text) } }
                } }
            }
        }
    };
    Ok(page(
        &state,
        Some(&who),
        &format!("Regrades of {}", assignment.title),
        body,
    )
    .into_response())
}

/// The form that grants a student their own deadline.
#[derive(serde::Deserialize)]
pub(crate) struct GrantForm {
    csrf: String,
    id: String,
    deadline: String,
}

/// `/instructor/assignments/{name}/extensions`: the students with a deadline of their own
/// (from `extensions.csv` or granted here), a form to grant one, a button to take one away.
pub(crate) async fn extensions(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    let rows = crate::db::extensions::of_assignment(&state.db, &assignment.name).await?;
    let refused = state
        .extensions_refused
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    let csrf = who.csrf.clone().unwrap_or_default();
    let base = format!("/instructor/assignments/{}/extensions", assignment.name);
    let body = html! {
        p { "The class's deadline: " (deadline(&assignment.deadline)) ". A student's own deadline holds for them everywhere: whether their work is late, what their pages show. "
            "Lines of " code { "extensions.csv" } " in the course folder (" code { "id,assignment,deadline" } ") are read again when it changes, and hold over a grant made here for the same student." }
        @if let Some(refused) = &refused {
            p.bad #refused { "The last change of extensions.csv was refused, and the extensions granted before it stay: " (refused) }
        }
        @if rows.is_empty() { p.muted { "No student has a deadline of their own." } } @else {
            table.extensions {
                tr { th { "student" } th { "their deadline" } th { "from" } th { span.muted { "take away" } } }
                @for row in &rows {
                    tr { td { (row.student) } td { (deadline(&row.deadline)) }
                        td { @if row.source == crate::db::extensions::FROM_FILE { "extensions.csv" } @else { "granted here" } }
                        td { form method="post" action={ (base) "/" (row.student) "/remove" } {
                            input type="hidden" name="csrf" value=(csrf);
                            button type="submit" aria-label={ "Take away " (row.student) "'s own deadline" } { "Take away" } } } }
                }
            }
        }
        h2 { "Grant a deadline" }
        form method="post" action=(base) {
            input type="hidden" name="csrf" value=(csrf);
            p { label { "Student id: " input #id name="id" required list="students"; } }
            datalist #students { @for student in &state.course.roster { option value=(student.id) {} } }
            p { label { "Their deadline, with its offset: " input #deadline name="deadline" required placeholder=(assignment.deadline.to_rfc3339()); } }
            button type="submit" { "Grant" }
        }
    };
    let title = format!("Extensions of {}", assignment.title);
    Ok(page(&state, Some(&who), &title, body).into_response())
}

/// The form's grant: back to the page, or the field at fault (422).
pub(crate) async fn grant_extension(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    AssignmentOf(assignment): AssignmentOf,
    axum::Form(form): axum::Form<GrantForm>,
) -> Result<Response, Reply> {
    crate::auth::check_csrf(&who, &form.csrf)?;
    let fields = (
        form.id.trim(),
        assignment.name.as_str(),
        form.deadline.as_str(),
    );
    match crate::extensions::grant(&state, fields).await? {
        Ok(_) => Ok(Redirect::to(&format!(
            "/instructor/assignments/{}/extensions",
            assignment.name
        ))
        .into_response()),
        Err((field, why)) => Err(Reply::Status(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            format!("`{field}`: {why}"),
        )),
    }
}

/// The page's "Take away".
pub(crate) async fn remove_extension(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    axum::extract::Path((name, id)): axum::extract::Path<(String, String)>,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    crate::auth::check_csrf(&who, &form.csrf)?;
    let assignment = state.course.assignment(&name).ok_or_else(not_found)?;
    crate::extensions::remove(&state, &id, assignment).await?;
    Ok(Redirect::to(&format!("/instructor/assignments/{name}/extensions")).into_response())
}

/// `/instructor/requests`: the open regrade requests, oldest first, each with its case as the
/// submission's full report has it and a form to answer it.
pub(crate) async fn requests(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
) -> Result<Response, Reply> {
    let listed = crate::requests::open_with_cases(&state, &who).await?;
    let csrf = who.csrf.clone().unwrap_or_default();
    let body = html! {
        @if listed.is_empty() { p.muted { "No open request." } }
        @for (request, sub, case) in &listed {
            section.request {
                h2 { (request.student) ", " a href={ "/submissions/" (sub.id) } { "submission " (sub.id) } " to " (request.assignment) ": " code { (request.case) } }
                @if let Some(case) = case {
                    p { (case.verdict.slug()) ": " (case.cause.as_deref().unwrap_or("no difference")) }
                    @if let Some(diff) = &case.first_difference {
                        pre.difference { "line " (diff.line) ", column " (diff.column) "\nexpected: " (diff.expected_line.as_deref().unwrap_or("(nothing)")) "\nactual:   " (diff.actual_line.as_deref().unwrap_or("(nothing)")) }
                    }
                }
                blockquote { (request.text) }
                form method="post" action={ "/instructor/requests/" (request.id) "/answer" } {
                    input type="hidden" name="csrf" value=(csrf);
                    p { label { "Answer: " br; textarea name="text" maxlength="2000" rows="3" cols="60" required {} } }
                    p { label { "Points given (0 for none, at most the maximum " (points(sub.max_score)) "): " input name="points" type="number" step="any" value="0" required; } }
                    button type="submit" { "Answer request " (request.id) }
                }
            }
        }
    };
    Ok(page(&state, Some(&who), "Regrade requests", body).into_response())
}

/// The form that answers a request.
#[derive(serde::Deserialize)]
pub(crate) struct AnswerForm {
    csrf: String,
    text: String,
    points: String,
}

/// The Requests page's answer: back to the page, or the field at fault.
pub(crate) async fn answer_request(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    axum::extract::Path(id): axum::extract::Path<i64>,
    axum::Form(form): axum::Form<AnswerForm>,
) -> Result<Response, Reply> {
    crate::auth::check_csrf(&who, &form.csrf)?;
    let Ok(points) = form.points.trim().parse::<f64>() else {
        return Err(Reply::Status(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            format!("`points`: `{}` is no number", form.points),
        ));
    };
    crate::requests::answer(&state, &who, id, &form.text, points).await?;
    Ok(Redirect::to("/instructor/requests").into_response())
}
