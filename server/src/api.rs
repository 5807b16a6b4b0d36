//! The JSON API for scripts (a student's own CI, an LMS bridge), signed in by the token of the
//! student's link (`Authorization: Bearer ...`), or by the browser's session.

use std::sync::Arc;

use axum::extract::{Multipart, Path as UrlPath, Query, State as Shared};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::auth::Who;
use crate::error::{not_found, Reply};
use crate::extract::{Instructor, SubmissionId};
use crate::standing::{report_of, visible};
use crate::state::State;
use crate::upload::{hand_in, Csrf};

/// `POST /api/v1/assignments/{name}/submissions`: multipart `file` fields; 202 with the id.
/// A session (not a bearer token) must send its CSRF token as a `csrf` field.
pub(crate) async fn submit(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    UrlPath(name): UrlPath<String>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Response, Reply> {
    let id = hand_in(&state, &who, &name, multipart, Csrf::ForSessions).await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "id": id }))).into_response())
}

/// `GET /api/v1/submissions/{id}`: where it stands, its score, and the check --json document
/// its owner may see. Another student's is not found.
pub(crate) async fn submission(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    SubmissionId(id): SubmissionId,
) -> Result<Response, Reply> {
    let sub = visible(&state, &who, id).await?;
    let report = report_of(&state, &who, &sub).await?;
    let requests: Vec<serde_json::Value> = crate::db::requests::of_submission(&state.db, sub.id)
        .await?
        .iter()
        .map(request_json)
        .collect();
    let (status, done, total) = match state.live.get(sub.id) {
        Some((status, done, total)) => (status, done as i64, total as i64),
        None => (sub.status, sub.cases_done, sub.cases_total),
    };
    Ok(Json(json!({
        "id": sub.id,
        "student": sub.student,
        "assignment": sub.assignment,
        "status": status.as_str(),
        "late": sub.late,
        "cases_done": done,
        "cases_total": total,
        "score": sub.score.filter(|_| sub.status.is_final()),
        "max_score": sub.max_score,
        "error": sub.error,
        "report": report,
        "requests": requests,
    }))
    .into_response())
}

#[derive(serde::Deserialize)]
pub(crate) struct Which {
    assignment: Option<String>,
}

/// `GET /api/v1/grades.csv[?assignment=NAME]`: the instructor's; the only assignment when the
/// course has one.
pub(crate) async fn grades_csv(
    Shared(state): Shared<Arc<State>>,
    _: Instructor,
    Query(which): Query<Which>,
) -> Result<Response, Reply> {
    let assignment = match (&which.assignment, state.course.assignments.as_slice()) {
        (Some(name), _) => state.course.assignment(name).ok_or_else(not_found)?,
        (None, [only]) => only,
        (None, _) => {
            return Err(Reply::Status(
                StatusCode::BAD_REQUEST,
                "The course has several assignments: add ?assignment=NAME.".into(),
            ))
        }
    };
    crate::gradebook::grades_csv_of(&state, assignment).await
}

#[derive(serde::Deserialize)]
pub(crate) struct OwnDeadline {
    deadline: String,
}

/// `PUT /api/v1/assignments/{name}/extensions/{id}` with `{"deadline": "..."}` (the
/// instructor's): student `id`'s own deadline on the assignment, in place of any earlier one.
/// An unknown student or assignment, or a deadline that is no date, is a 422 naming the field.
pub(crate) async fn put_extension(
    Shared(state): Shared<Arc<State>>,
    _: Instructor,
    UrlPath((name, id)): UrlPath<(String, String)>,
    body: Result<Json<OwnDeadline>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Reply> {
    let Json(body) = body.map_err(|err| {
        Reply::Status(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("`deadline`: {}", err.body_text()),
        )
    })?;
    match crate::extensions::grant(&state, (&id, &name, &body.deadline)).await? {
        Ok(grant) => Ok(Json(json!({
            "student": grant.student,
            "assignment": grant.assignment,
            "deadline": grant.deadline.to_rfc3339(),
        }))
        .into_response()),
        Err((field, why)) => Err(Reply::Status(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("`{field}`: {why}"),
        )),
    }
}

/// `DELETE /api/v1/assignments/{name}/extensions/{id}` (the instructor's): the student's own
/// deadline goes (204); one they did not have is not found.
pub(crate) async fn delete_extension(
    Shared(state): Shared<Arc<State>>,
    _: Instructor,
    UrlPath((name, id)): UrlPath<(String, String)>,
) -> Result<Response, Reply> {
    let assignment = state.course.assignment(&name).ok_or_else(not_found)?;
    match crate::extensions::remove(&state, &id, assignment).await? {
        true => Ok(StatusCode::NO_CONTENT.into_response()),
        false => Err(not_found()),
    }
}

/// A request's document: its question, and its answer once given.
fn request_json(request: &crate::db::requests::Request) -> serde_json::Value {
    json!({
        "id": request.id,
        "submission": request.submission,
        "student": request.student,
        "assignment": request.assignment,
        "case": request.case,
        "text": request.text,
        "created_at": request.created_at,
        "answer": request.answer.as_ref().map(|a| json!({
            "text": a.text, "points": a.points, "by": a.by, "at": a.at,
        })),
    })
}

#[derive(serde::Deserialize)]
pub(crate) struct Question {
    case: String,
    text: String,
}

/// `POST /api/v1/submissions/{id}/requests` with `{"case": "GROUP/NAME", "text": "..."}`
/// (the student's): 201 with the request's id; 409 where one about that case is open.
pub(crate) async fn ask(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    SubmissionId(id): SubmissionId,
    body: Result<Json<Question>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Reply> {
    let Json(body) =
        body.map_err(|err| Reply::Status(StatusCode::UNPROCESSABLE_ENTITY, err.body_text()))?;
    let request = crate::requests::ask(&state, &who, id, &body.case, &body.text).await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": request }))).into_response())
}

/// `GET /api/v1/requests` (the instructor's): the open requests, oldest first, each with its
/// case as the submission's full report has it.
pub(crate) async fn requests(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
) -> Result<Response, Reply> {
    let mut listed = Vec::new();
    for (request, _, case) in crate::requests::open_with_cases(&state, &who).await? {
        let mut document = request_json(&request);
        document["report"] = serde_json::to_value(case).unwrap_or_default();
        listed.push(document);
    }
    Ok(Json(listed).into_response())
}

#[derive(serde::Deserialize)]
pub(crate) struct AnswerBody {
    text: String,
    points: f64,
}

/// `POST /api/v1/requests/{id}/answer` with `{"text": "...", "points": P}` (the instructor's):
/// the answer, its points added to the submission's score.
pub(crate) async fn answer(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    UrlPath(id): UrlPath<i64>,
    body: Result<Json<AnswerBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, Reply> {
    let Json(body) =
        body.map_err(|err| Reply::Status(StatusCode::UNPROCESSABLE_ENTITY, err.body_text()))?;
    crate::requests::answer(&state, &who, id, &body.text, body.points).await?;
    let request = crate::db::requests::by_id(&state.db, id)
        .await?
        .ok_or_else(not_found)?;
    Ok(Json(request_json(&request)).into_response())
}
