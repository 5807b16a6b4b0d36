//! The web side: the server's state, its answers, its routes, the headers every answer
//! carries (a Content-Security-Policy that allows no script but the server's own file, no
//! framing by others, no referrer), logging in and out, and taking an upload in.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, DefaultBodyLimit, Path as UrlPath, State as Shared};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use sqlx::SqlitePool;

use crate::auth::{self, Who};
use crate::course::{Course, Late};
use crate::db::now;
use crate::grading::{self, Job, Queue};
use crate::store::{clean_name, Store};
use crate::Fault;

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
    pub db: SqlitePool,
    pub store: Store,
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

pub fn not_found() -> Reply {
    Reply::Status(StatusCode::NOT_FOUND, "there is nothing here".into())
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        match self {
            Reply::Status(status, message) => {
                (status, crate::pages::message(status.as_str(), &message)).into_response()
            }
            Reply::SignIn => (
                StatusCode::UNAUTHORIZED,
                crate::pages::message(
                    "Sign in",
                    "Open the link your instructor sent you: it signs you in on this browser.",
                ),
            )
                .into_response(),
            Reply::TooMany {
                retry_after,
                message,
            } => {
                let mut response = (
                    StatusCode::TOO_MANY_REQUESTS,
                    crate::pages::message("429", &message),
                )
                    .into_response();
                if let Ok(value) = HeaderValue::from_str(&retry_after.to_string()) {
                    response.headers_mut().insert(header::RETRY_AFTER, value);
                }
                response
            }
        }
    }
}

/// The policy of every page: scripts from the server only, styles inline (the check report is
/// one file), images inline, forms to the server, no framing but by the server's own pages.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-src 'self'; \
    frame-ancestors 'self'; base-uri 'none'";

async fn headers(request: axum::extract::Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("SAMEORIGIN"),
    );
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

pub fn router(state: Arc<State>) -> Router {
    // Multipart framing around the files: a little over the cap.
    let body_limit = state.max_upload + 64 * 1024;
    Router::new()
        .route("/", get(crate::pages::home))
        .route("/login/{token}", get(login))
        .route("/logout", post(logout))
        .route("/static/live.js", get(crate::pages::live_js))
        .route("/assignments/{name}", get(crate::pages::assignment))
        .route(
            "/assignments/{name}/submissions",
            post(crate::pages::submit),
        )
        .route("/submissions/{id}", get(crate::pages::submission))
        .route("/submissions/{id}/events", get(crate::pages::events))
        .route("/submissions/{id}/report", get(crate::pages::report))
        .route("/instructor", get(crate::class::overview))
        .route("/instructor/students/{id}", get(crate::class::student))
        .route(
            "/instructor/assignments/{name}/report",
            get(crate::class::class_report),
        )
        .route(
            "/instructor/assignments/{name}/grades.csv",
            get(crate::class::grades_csv),
        )
        .route(
            "/instructor/assignments/{name}/canvas.csv",
            get(crate::class::canvas_csv),
        )
        .route(
            "/instructor/assignments/{name}/regrade",
            post(crate::class::regrade),
        )
        .route(
            "/instructor/assignments/{name}/regrades",
            get(crate::class::regrades),
        )
        .route(
            "/api/v1/assignments/{name}/submissions",
            post(crate::api::submit),
        )
        .route("/api/v1/submissions/{id}", get(crate::api::submission))
        .route("/api/v1/grades.csv", get(crate::api::grades_csv))
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn(headers))
        .with_state(state)
}

/// `/login/{token}`: a live link opens a fresh session (never one the browser brought: no
/// session fixation) and goes home; a wrong one counts against the address's limit.
async fn login(
    Shared(state): Shared<Arc<State>>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    UrlPath(token): UrlPath<String>,
) -> Result<Response, Reply> {
    let addr = addr.ip().to_string();
    if auth::limited(&state.db, &addr, false).await? {
        return Err(Reply::TooMany {
            retry_after: auth::WINDOW,
            message: "Too many wrong links from this address: wait ten minutes.".into(),
        });
    }
    let live = auth::token_owner(&state.db, &token).await?;
    if live.is_none() {
        auth::limited(&state.db, &addr, true).await?;
        return Err(Reply::Status(
            StatusCode::NOT_FOUND,
            "That link is not a live one: ask your instructor for a new one.".into(),
        ));
    }
    let session = auth::open_session(&state.db, &auth::hash(&token)).await?;
    let mut response = Redirect::to("/").into_response();
    let cookie = HeaderValue::from_str(&auth::cookie(&session, state.secure))
        .map_err(|err| Fault::Harness(err.to_string()))?;
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(response)
}

#[derive(serde::Deserialize)]
struct CsrfForm {
    csrf: String,
}

/// Refuses a form whose CSRF token is not its session's.
pub fn check_csrf(who: &Who, given: &str) -> Result<(), Reply> {
    match &who.csrf {
        Some(csrf) if auth::same(csrf, given) => Ok(()),
        _ => Err(Reply::Status(
            StatusCode::FORBIDDEN,
            "The form is stale or forged (its CSRF token is not this session's): reload the page."
                .into(),
        )),
    }
}

async fn logout(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    sqlx::query("UPDATE sessions SET ended_at = ?1 WHERE hash = ?2")
        .bind(now())
        .bind(&who.session)
        .execute(&state.db)
        .await
        .map_err(Fault::db)?;
    let mut response = crate::pages::message(
        "Signed out",
        "You are signed out. Your link signs you in again.",
    )
    .into_response();
    let cookie = HeaderValue::from_str(&auth::cleared(state.secure))
        .map_err(|err| Fault::Harness(err.to_string()))?;
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(response)
}

/// Reads a multipart body: its `file` fields (name and bytes) and its `csrf` field. A body
/// over the cap ends here (413), before anything is stored.
pub async fn read_upload(
    mut multipart: axum::extract::Multipart,
) -> Result<(Vec<(String, Vec<u8>)>, Option<String>), Reply> {
    let too_big = |err: axum::extract::multipart::MultipartError| {
        let status = err.status();
        Reply::Status(
            status,
            match status {
                StatusCode::PAYLOAD_TOO_LARGE => {
                    "The upload is larger than the course allows; nothing was stored.".into()
                }
                _ => format!("The upload could not be read: {}", err.body_text()),
            },
        )
    };
    let (mut files, mut csrf) = (Vec::new(), None);
    while let Some(field) = multipart.next_field().await.map_err(too_big)? {
        match field.name() {
            Some("csrf") => csrf = Some(field.text().await.map_err(too_big)?),
            Some("file") => {
                let name = field.file_name().unwrap_or_default().to_string();
                let bytes = field.bytes().await.map_err(too_big)?;
                // A file input left empty sends one nameless empty part.
                if name.is_empty() && bytes.is_empty() {
                    continue;
                }
                files.push((name, bytes.to_vec()));
            }
            _ => {}
        }
    }
    Ok((files, csrf))
}

/// Takes student `who`'s upload for `name` in: checked (the assignment, the files, the
/// languages, the deadline, the hourly limit), stored and recorded in one transaction, then
/// queued. The new submission's id.
pub async fn accept(
    state: &State,
    who: &Who,
    name: &str,
    files: Vec<(String, Vec<u8>)>,
) -> Result<i64, Reply> {
    let Some(student) = &who.student else {
        return Err(Reply::Status(
            StatusCode::BAD_REQUEST,
            "The instructor hands nothing in.".into(),
        ));
    };
    let Some(assignment) = state.course.assignment(name) else {
        return Err(not_found());
    };
    let unprocessable = |why: String| Reply::Status(StatusCode::UNPROCESSABLE_ENTITY, why);
    if files.is_empty() {
        return Err(unprocessable("Choose at least one file.".into()));
    }
    let total: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
    if total > state.max_upload {
        return Err(Reply::Status(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The upload is larger than the course allows; nothing was stored.".into(),
        ));
    }
    // Hidden files of a folder (`.git/`, `.DS_Store`) are left out; a name that keeps nothing
    // refuses the upload.
    let mut named: Vec<(String, Vec<u8>)> = Vec::new();
    for (raw, bytes) in files {
        match clean_name(&raw) {
            Some(clean) => named.push((clean, bytes)),
            None if raw
                .split(['/', '\\'])
                .any(|part| part.starts_with('.') && part != "." && part != "..") => {}
            None => {
                return Err(unprocessable(format!(
                    "`{}` is no file name a submission can hold.",
                    raw.escape_debug()
                )))
            }
        }
    }
    if named.is_empty() {
        return Err(unprocessable("Choose at least one file.".into()));
    }
    let mut names: Vec<String> = named.iter().map(|(name, _)| name.clone()).collect();
    crate::store::without_common_folder(&mut names);
    for ((name, _), short) in named.iter_mut().zip(names) {
        *name = short;
    }
    let mut seen = std::collections::HashSet::new();
    if let Some((twice, _)) = named.iter().find(|(name, _)| !seen.insert(name.clone())) {
        return Err(unprocessable(format!("Two files are named `{twice}`.")));
    }
    if !assignment.languages.is_empty() {
        for (file, _) in &named {
            if let Some(language) = xtask::language::of_file(std::path::Path::new(file)) {
                if !assignment.languages.contains(&language.name) {
                    return Err(unprocessable(format!(
                        "`{file}` is {}; this assignment takes {}.",
                        language.title,
                        assignment.languages.join(", ")
                    )));
                }
            }
        }
    }
    let at = now();
    let late = at > assignment.deadline.timestamp();
    if late && assignment.late == Late::Refused {
        return Err(Reply::Status(
            StatusCode::FORBIDDEN,
            format!(
                "The deadline ({}) has passed, and this assignment takes no late work.",
                assignment.deadline.to_rfc3339()
            ),
        ));
    }
    let mut stored = Vec::new();
    for (file, bytes) in &named {
        let hash = state
            .store
            .put(bytes)
            .map_err(|err| Fault::Io(format!("the store: {err}")))?;
        stored.push((file.clone(), hash, bytes.len() as i64));
    }
    let mut tx = state.db.begin().await.map_err(Fault::db)?;
    // One statement counts and inserts: two uploads at once cannot both take the last place.
    let inserted = sqlx::query(
        "INSERT INTO submissions (student, assignment, created_at, late, status)
         SELECT ?1, ?2, ?3, ?4, 'queued'
         WHERE (SELECT COUNT(*) FROM submissions WHERE student = ?1 AND assignment = ?2 AND created_at > ?3 - 3600) < ?5",
    )
    .bind(student)
    .bind(name)
    .bind(at)
    .bind(late)
    .bind(assignment.per_hour as i64)
    .execute(&mut *tx)
    .await
    .map_err(Fault::db)?;
    if inserted.rows_affected() == 0 {
        drop(tx);
        let next = next_allowed(state, student, name, assignment.per_hour).await?;
        return Err(Reply::TooMany {
            retry_after: (next - at).max(1),
            message: format!(
                "You have handed in {} times in the last hour, this assignment's limit; your next submission is allowed at {}.",
                assignment.per_hour,
                crate::pages::when(next)
            ),
        });
    }
    let id = inserted.last_insert_rowid();
    for (file, hash, size) in &stored {
        sqlx::query("INSERT INTO files (submission, name, hash, size) VALUES (?1, ?2, ?3, ?4)")
            .bind(id)
            .bind(file)
            .bind(hash)
            .bind(size)
            .execute(&mut *tx)
            .await
            .map_err(Fault::db)?;
    }
    tx.commit().await.map_err(Fault::db)?;
    grading::enqueue(
        &state.queue,
        Job {
            submission: id,
            generation: 0,
        },
    )
    .await?;
    Ok(id)
}

/// When student's next submission to `assignment` is allowed: an hour after the oldest of the
/// last `per_hour`.
pub async fn next_allowed(
    state: &State,
    student: &str,
    assignment: &str,
    per_hour: u32,
) -> Result<i64, Fault> {
    let at = now();
    let oldest: Option<i64> = sqlx::query_scalar(
        "SELECT created_at FROM submissions WHERE student = ?1 AND assignment = ?2 AND created_at > ?3 - 3600
         ORDER BY created_at DESC LIMIT 1 OFFSET ?4",
    )
    .bind(student)
    .bind(assignment)
    .bind(at)
    .bind(per_hour as i64 - 1)
    .fetch_optional(&state.db)
    .await
    .map_err(Fault::db)?;
    Ok(oldest.map_or(at, |oldest| oldest + 3600))
}
