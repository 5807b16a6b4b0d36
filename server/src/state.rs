//! What every part of the server shares: its [`State`] (the course, the database, the queue,
//! the harness's options per assignment, the gradings under way) and its answers other than a
//! page ([`Reply`], and the one-sentence page [`message`] they are shown by).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{html, DOCTYPE};

use crate::course::Course;
use crate::db::Db;
use crate::queue::Queue;
use crate::Fault;

pub const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#222}\
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}\
.muted{color:#666}.late{color:#a40}.bad{color:#b00}.good{color:#070}pre{background:#f4f4f4;padding:.5rem;overflow:auto}\
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5rem}nav form{margin-left:auto}\
iframe{width:100%;height:40rem;border:1px solid #ccc}";

/// What grading an assignment needs: the harness's options (as `grade` would set them), and
/// the groups its students never see.
pub struct Graded {
    pub options: xtask::grade::Options,
    pub hidden: Vec<String>,
    pub gradebook: xtask::report::Grades,
}

/// Where each submission being graded stands, between the database's status changes: the
/// cases run so far.
#[derive(Default)]
pub struct Live(Mutex<HashMap<i64, (String, u64, u64)>>);

impl Live {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, (String, u64, u64)>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
    pub fn set(&self, id: i64, status: &str, done: u64, total: u64) {
        self.lock().insert(id, (status.to_string(), done, total));
    }
    pub fn ran(&self, id: i64) {
        if let Some(entry) = self.lock().get_mut(&id) {
            entry.1 += 1;
        }
    }
    pub fn done(&self, id: i64) {
        self.lock().remove(&id);
    }
    pub fn get(&self, id: i64) -> Option<(String, u64, u64)> {
        self.lock().get(&id).cloned()
    }
}

pub struct State {
    pub course: Course,
    /// The course folder (canonical).
    pub course_dir: PathBuf,
    pub db: Db,
    pub queue: Queue,
    pub assignments: HashMap<String, Graded>,
    pub live: Live,
    /// Where submissions are unpacked for grading (outside the course folder).
    pub work: PathBuf,
    /// Cookies are Secure (the server is reached over TLS, through a proxy).
    pub secure: bool,
    /// The largest upload taken, in bytes.
    pub max_upload: usize,
    /// The CPU seats every grading of this server shares (`--jobs`).
    pub seats: xtask::process::SharedSeats,
    /// Gradings started and not yet recorded.
    pub in_flight: std::sync::atomic::AtomicUsize,
    /// SIGTERM came: event streams end, so that the server can stop.
    pub stopping: std::sync::atomic::AtomicBool,
}

/// An answer other than a page: a status with its sentence, a redirect, or "sign in first".
#[derive(Debug)]
pub enum Reply {
    Status(StatusCode, String),
    /// Not signed in: a page that says how to.
    SignIn,
    /// Too many submissions this hour: when the next one is allowed.
    TooMany {
        retry_after: i64,
        message: String,
    },
}

impl From<Fault> for Reply {
    fn from(fault: Fault) -> Reply {
        eprintln!("{fault}");
        Reply::Status(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the server failed; it is logged".into(),
        )
    }
}

/// A submission's id in the address: a number, else there is nothing here (the answer never
/// writes back what was asked for, markup included).
pub struct SubmissionId(pub i64);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for SubmissionId {
    type Rejection = Reply;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let axum::extract::Path(id) =
            axum::extract::Path::<String>::from_request_parts(parts, state)
                .await
                .map_err(|_| not_found())?;
        id.parse().map(SubmissionId).map_err(|_| not_found())
    }
}

pub fn not_found() -> Reply {
    Reply::Status(StatusCode::NOT_FOUND, "there is nothing here".into())
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        match self {
            Reply::Status(status, text) => {
                (status, message(status.as_str(), &text)).into_response()
            }
            Reply::SignIn => (
                StatusCode::UNAUTHORIZED,
                message(
                    "Sign in",
                    "Open the link your instructor sent you: it signs you in on this browser.",
                ),
            )
                .into_response(),
            Reply::TooMany {
                retry_after,
                message: text,
            } => {
                let mut response =
                    (StatusCode::TOO_MANY_REQUESTS, message("429", &text)).into_response();
                if let Ok(value) = HeaderValue::from_str(&retry_after.to_string()) {
                    response.headers_mut().insert(header::RETRY_AFTER, value);
                }
                response
            }
        }
    }
}

/// A page that only says something (an error, "sign in").
pub fn message(title: &str, text: &str) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" { head { meta charset="utf-8"; title { (title) } style { (STYLE) } }
                body { h1 { (title) } p { (text) } } }
        }
        .into_string(),
    )
}

/// A time as the pages write it (UTC).
pub fn when(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}
