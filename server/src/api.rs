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
