//! The students' pages: the assignments with their deadlines and the student's own scores,
//! an assignment's submit form and history, a submission's page (it follows its grading by
//! server-sent events, then shows the result: the score, each cause with its first difference,
//! and the check report the student knows from `check --html`). Every string a student or a
//! program chose is escaped by the templates (maud); no page names a path of the grader.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Multipart, Path as UrlPath, State as Shared};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{html, Markup};
use xtask::report::JsonReport;

use crate::auth::Who;
use crate::course::Late;
use crate::db::{now, submissions};
use crate::error::Reply;
use crate::extract::{AssignmentOf, SubmissionId};
use crate::frame::page;
use crate::standing::{audience, report_of, status_text, term_of, visible, Term};
use crate::state::{State, Streaming, STREAMS_PER_SESSION};
use crate::upload::{hand_in, Csrf};
use crate::view::{deadline, points, when};

/// `/`: the student's assignments (the instructor's home is the class).
pub(crate) async fn home(Shared(state): Shared<Arc<State>>, who: Who) -> Result<Response, Reply> {
    let Some(student) = who.student.clone() else {
        return Ok(Redirect::to("/instructor").into_response());
    };
    let term = term_of(&state, &student).await?;
    let mut rows = Vec::new();
    for assignment in &state.course.assignments {
        let subs = submissions::history(&state.db, &student, &assignment.name).await?;
        let best = term.counted.get(&assignment.name).map(|c| c.score);
        let due = crate::db::extensions::deadline_for(&state.db, &student, assignment).await?;
        rows.push((assignment, due, subs.first().cloned(), best, subs.len()));
    }
    let body = html! {
        (late_days_used(&term))
        table {
            tr { th { "assignment" } th { "deadline" } th { "attempts" } th { "latest" } th { "counted" } }
            @for (assignment, due, latest, best, attempts) in &rows {
                tr {
                    td { a href={ "/assignments/" (assignment.name) } { (assignment.title) } }
                    td { (deadline(due))
                        @if *due != assignment.deadline { " (your own)" }
                        @if now() > due.timestamp() { " " span.late { "(passed)" } } }
                    td { (attempts) }
                    td { @match latest { Some(sub) => { a href={ "/submissions/" (sub.id) } { (points(sub.score)) " (" (sub.status) ")" } }, None => "–" } }
                    td { (points(*best)) }
                }
            }
        }
    };
    Ok(page(&state, Some(&who), "Your assignments", body).into_response())
}

/// `/assignments/{name}`: the deadline, the form, the history.
pub(crate) async fn assignment(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    AssignmentOf(assignment): AssignmentOf,
) -> Result<Response, Reply> {
    let name = &assignment.name;
    let Some(student) = who.student.clone() else {
        return Ok(Redirect::to("/instructor").into_response());
    };
    let subs = submissions::history(&state.db, &student, name).await?;
    let next = submissions::next_allowed(&state.db, &student, name, assignment.per_hour).await?;
    let at = now();
    let due = crate::db::extensions::deadline_for(&state.db, &student, &assignment).await?;
    let passed = at > due.timestamp();
    let term = term_of(&state, &student).await?;
    let body = html! {
        p { "Due " strong { (deadline(&due)) } "."
            @if due != assignment.deadline { " This is your own deadline; the class's is " (deadline(&assignment.deadline)) "." }
            @if passed { " " span.late { "The deadline has passed: "
                @match assignment.late {
                    Late::Refused => "no more work is taken.",
                    Late::Accepted { penalty } => { "work is still taken, marked late, its score counted at " (format!("{:.0}", (1.0 - penalty) * 100.0)) "%" @if term.allowance.is_some() { " where your late days do not cover it" } "." },
                    Late::PerDay { penalty, most_days } => { "work is still taken, marked late; each day late "
                        @if term.allowance.is_some() { "beyond your late days " }
                        "costs " (format!("{:.0}", penalty * 100.0)) "% of its score"
                        @if let Some(most) = most_days { ", and work more than " (most) " days late is not counted" } "." },
                } } } }
        (late_days_used(&term))
        @if let Some(counted) = term.counted.get(name).filter(|c| c.days_late > 0) {
            p { "Your counted submission (#" (counted.sub.id) ") is " (counted.days_late) " days late: "
                (counted.days_used) " late days spent on it, " (points(Some(counted.penalty))) " points off." }
        }
        p.muted { (assignment.per_hour) " submissions per hour."
            @if !assignment.languages.is_empty() { " Languages: " (assignment.languages.join(", ")) "." } }
        @if next > at {
            p.late #limit { "You have reached this hour's limit: your next submission is allowed at " (when(next)) "." }
        } @else if !(passed && assignment.late == Late::Refused) {
            form method="post" action={ "/assignments/" (name) "/submissions" } enctype="multipart/form-data" {
                input type="hidden" name="csrf" value=(who.csrf.clone().unwrap_or_default());
                p { label { "Files (your sources, or one .zip): " input #files type="file" name="file" multiple; } }
                p { label { "Or a folder: " input #folder type="file" name="file" webkitdirectory; } }
                button #submit type="submit" { "Hand in" }
            }
        }
        h2 { "Your submissions" }
        @if subs.is_empty() { p.muted { "None yet." } } @else {
            table {
                tr { th { "#" } th { "handed in" } th { "status" } th { "score" } }
                @for sub in &subs {
                    tr { td { a href={ "/submissions/" (sub.id) } { (sub.id) } }
                        td { (when(sub.created_at)) @if sub.late { " " span.late { "late" } } }
                        td { (sub.status) } td { (points(sub.score)) " / " (points(sub.max_score)) } }
                }
            }
        }
    };
    Ok(page(&state, Some(&who), &assignment.title, body).into_response())
}

/// The form's upload: stored, queued, then the submission's page.
pub(crate) async fn submit(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Response, Reply> {
    let id = hand_in(&state, &who, &name, multipart, Csrf::Always).await?;
    Ok(Redirect::to(&format!("/submissions/{id}")).into_response())
}

/// The failing causes of a report, each with its first case's first difference: a student's
/// way, the causes of cases they can see first, and the cases of `hidden` groups last, as one
/// line ("3 hidden cases failed"), since they say nothing more than their verdict.
fn differences(report: &JsonReport, hidden: &[String]) -> Markup {
    let is_hidden = |case: &&xtask::report::JsonCase| hidden.contains(&case.group);
    let mut seen = std::collections::HashSet::new();
    let firsts = report
        .cases
        .iter()
        .filter(|case| !is_hidden(case))
        .filter(|case| {
            let cause = case.cause_id.as_deref().unwrap_or_default();
            !cause.is_empty() && seen.insert(cause.to_string())
        });
    let hidden_failed = report
        .cases
        .iter()
        .filter(|case| is_hidden(case) && case.graded && case.cause_id.is_some())
        .count();
    html! {
        @for case in firsts {
            section.cause {
                h3 { code { (case.id) } " " (case.verdict.slug()) }
                p { (case.cause.as_deref().unwrap_or_default()) " " (case.consequence.as_deref().unwrap_or_default()) }
                @if let Some(diff) = &case.first_difference {
                    p { "line " (diff.line) ", column " (diff.column) ": " (diff.cause) }
                    pre.difference { "expected: " (diff.expected_line.as_deref().unwrap_or("(nothing)")) "\n" "actual:   " (diff.actual_line.as_deref().unwrap_or("(nothing)")) }
                }
            }
        }
        @match hidden_failed {
            0 => {},
            1 => p #hidden { "1 hidden case failed." },
            n => p #hidden { (n) " hidden cases failed." },
        }
    }
}

/// `/submissions/{id}`: its status, following the grading, then its result.
pub(crate) async fn submission(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    SubmissionId(id): SubmissionId,
) -> Result<Response, Reply> {
    let sub = visible(&state, &who, id).await?;
    let status = status_text(&state, &sub).await?;
    let report = report_of(&state, &who, &sub).await?;
    // The instructor sees every case whole; a student, the hidden groups' by verdict.
    let hidden = match (who.instructor(), state.course.assignment(&sub.assignment)) {
        (false, Some(assignment)) => assignment.hidden.clone(),
        _ => Vec::new(),
    };
    let asked = crate::db::requests::of_submission(&state.db, sub.id).await?;
    let title = format!("Submission {} to {}", sub.id, sub.assignment);
    let body = html! {
        p { "Handed in " (when(sub.created_at)) " by " (sub.student) @if sub.late { " " span.late { "(late)" } } }
        @if sub.status.is_final() {
            p #status data-final="1" { (status) }
        } @else {
            p #status data-events={ "/submissions/" (sub.id) "/events" } { (status) }
        }
        @if let Some(error) = &sub.error { pre.bad { (error) } }
        @if let Some(report) = &report {
            p #totals { (report.passed) " passed, " (report.failed) " failed" }
            (differences(report, &hidden))
            h2 { "The report" }
            iframe src={ "/submissions/" (sub.id) "/report" } sandbox="" title="the check report" {}
        }
        (requests_section(&who, &sub, report.as_ref(), &asked))
        p { a href={ "/assignments/" (sub.assignment) } { "back to the assignment" } }
    };
    Ok(page(&state, Some(&who), &title, body).into_response())
}

/// `/submissions/{id}/report`: the check --html page of the submission, as `who` may see it.
pub(crate) async fn report(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    SubmissionId(id): SubmissionId,
) -> Result<Response, Reply> {
    let sub = visible(&state, &who, id).await?;
    let html =
        submissions::report(&state.db, id, audience(&state, &who, &sub).await?, true).await?;
    match html {
        Some(html) => Ok(Html(html).into_response()),
        None => Err(Reply::Status(
            StatusCode::NOT_FOUND,
            "This submission has no report (yet).".into(),
        )),
    }
}

/// `/submissions/{id}/events`: its status as it changes (`progress` events), then `final`;
/// the stream ends by itself after an hour.
pub(crate) async fn events(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    SubmissionId(id): SubmissionId,
) -> Result<Response, Reply> {
    visible(&state, &who, id).await?;
    let owner = who
        .session
        .clone()
        .unwrap_or_else(|| format!("{:?}", who.student));
    let Some(streaming) = Streaming::open(&state, owner) else {
        return Err(Reply::TooMany {
            retry_after: 60,
            message: format!(
                "This session follows {STREAMS_PER_SESSION} submissions already: close a page first."
            ),
        });
    };
    // Bounded: an hour of looks, or the server stopping. A look follows a change of a grading
    // in this process at once, and a grading elsewhere (a worker) within two seconds; never
    // more than four a second.
    let until = std::time::Instant::now() + Duration::from_secs(3600);
    let changed = state.live.subscribe();
    let stream = futures::stream::unfold(
        (state, String::new(), false, changed, streaming),
        move |(state, last, ended, mut changed, streaming)| async move {
            while !ended
                && std::time::Instant::now() < until
                && !state.stopping.load(std::sync::atomic::Ordering::Relaxed)
            {
                let sub = submissions::by_id(&state.db, id).await.ok().flatten()?;
                let text = status_text(&state, &sub).await.ok()?;
                if sub.status.is_final() {
                    let event = Event::default().event("final").data(text);
                    let next = (state, last, true, changed, streaming);
                    return Some((Ok::<Event, Infallible>(event), next));
                }
                if text != last {
                    let event = Event::default().event("progress").data(text.clone());
                    return Some((Ok(event), (state, text, false, changed, streaming)));
                }
                let looked = tokio::time::Instant::now();
                let _ = tokio::time::timeout(Duration::from_secs(2), changed.changed()).await;
                tokio::time::sleep_until(looked + Duration::from_millis(250)).await;
            }
            None
        },
    );
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// The one script of the pages: a submission's page follows its events, and shows the result
/// when grading ends.
pub(crate) async fn live_js() -> Response {
    const SCRIPT: &str = "for (const t of document.querySelectorAll('time[datetime]')) {\n\
  const at = new Date(t.getAttribute('datetime'));\n\
  if (!isNaN(at)) { t.after(' (your time: ' + at.toLocaleString() + ')'); }\n\
}\n\
const s = document.getElementById('status');\n\
if (s && s.dataset.events) {\n\
  const events = new EventSource(s.dataset.events);\n\
  events.addEventListener('progress', (e) => { s.textContent = e.data; });\n\
  events.addEventListener('final', (e) => { s.textContent = e.data; events.close(); location.reload(); });\n\
}\n";
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

/// "2 of 4 late days used", where the course gives late days.
fn late_days_used(term: &Term) -> maud::Markup {
    html! {
        @if let Some(allowance) = term.allowance {
            p #late-days { (term.used) " of " (allowance) " late days used this term." }
        }
    }
}

/// The regrade requests of a submission, each with its answer once given; for its student, a
/// form to ask about one case of its report.
fn requests_section(
    who: &Who,
    sub: &crate::db::Sub,
    report: Option<&xtask::report::JsonReport>,
    asked: &[crate::db::requests::Request],
) -> maud::Markup {
    let mut cases: Vec<&xtask::report::JsonCase> = report.iter().flat_map(|r| &r.cases).collect();
    // The failing cases first.
    cases.sort_by_key(|case| case.cause_id.is_none());
    html! {
        @if !asked.is_empty() || (report.is_some() && !who.instructor()) { h2 { "Regrade requests" } }
        @for request in asked {
            section.request {
                p { "About " code { (request.case) } ", " (when(request.created_at)) ":" }
                blockquote { (request.text) }
                @match &request.answer {
                    Some(answer) => p.answer { "Answered by " (answer.by) " (" (points(Some(answer.points))) " points): " (answer.text) },
                    None => p.muted { "Not answered yet." },
                }
            }
        }
        @if let (Some(csrf), false, true) = (&who.csrf, who.instructor(), report.is_some()) {
            form method="post" action={ "/submissions/" (sub.id) "/requests" } {
                input type="hidden" name="csrf" value=(csrf);
                p { label { "The case: " select #case name="case" {
                    @for case in &cases { @let key = crate::requests::key(case); option value=(key) { (key) " (" (case.verdict.slug()) ")" } }
                } } }
                p { label { "Your question (at most 2,000 characters): " br; textarea #question name="text" maxlength="2000" rows="4" cols="60" required {} } }
                button type="submit" { "Ask for a regrade of this case" }
            }
        }
    }
}

/// The form that asks for a regrade of one case.
#[derive(serde::Deserialize)]
pub(crate) struct AskForm {
    csrf: String,
    case: String,
    text: String,
}

/// `POST /submissions/{id}/requests`: the result page's form; back to the page.
pub(crate) async fn ask(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    SubmissionId(id): SubmissionId,
    axum::Form(form): axum::Form<AskForm>,
) -> Result<Response, Reply> {
    crate::auth::check_csrf(&who, &form.csrf)?;
    crate::requests::ask(&state, &who, id, &form.case, &form.text).await?;
    Ok(Redirect::to(&format!("/submissions/{id}")).into_response())
}
