//! The server's two kinds of failure, each turned into its answer in one place: a [`Fault`]
//! (the course folder, the database, a file, the listen address, the harness) stops the
//! server with its exit status, or, while serving, is logged and answered 500; a [`Reply`] is
//! an answer other than a page (a status with its sentence, "sign in", "too many"). Every
//! error of the database converts into a `Fault` by `?`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::view::message;

/// What stops the server before it serves, each with its exit status.
#[derive(Debug)]
pub enum Fault {
    /// `course.toml` or `roster.csv` (or a flag) is wrong: 2.
    Course(String),
    /// The database cannot be opened or written: 4.
    Database(String),
    /// A file of the server's state cannot be written: 4.
    Io(String),
    /// The listen address cannot be bound: 5.
    Listen(String),
    /// The harness could not be set up (its reference, its cases): 1.
    Harness(String),
}

impl Fault {
    /// The exit status of a server stopped by this fault.
    pub fn status(&self) -> u8 {
        match self {
            Fault::Course(_) => 2,
            Fault::Database(_) | Fault::Io(_) => 4,
            Fault::Listen(_) => 5,
            Fault::Harness(_) => 1,
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Course(m)
            | Fault::Database(m)
            | Fault::Io(m)
            | Fault::Listen(m)
            | Fault::Harness(m) => f.write_str(m),
        }
    }
}

impl From<sqlx::Error> for Fault {
    fn from(err: sqlx::Error) -> Fault {
        Fault::Database(format!("the database: {err}"))
    }
}

impl From<csv::Error> for Fault {
    fn from(err: csv::Error) -> Fault {
        Fault::Io(err.to_string())
    }
}

impl From<serde_json::Error> for Fault {
    fn from(err: serde_json::Error) -> Fault {
        Fault::Harness(err.to_string())
    }
}

/// An answer other than a page: a status with its sentence, a redirect, or "sign in first".
#[derive(Debug)]
pub(crate) enum Reply {
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

impl From<sqlx::Error> for Reply {
    fn from(err: sqlx::Error) -> Reply {
        Reply::from(Fault::from(err))
    }
}

/// There is nothing here: the answer for what does not exist and for what the asker may not
/// see alike (it never writes back what was asked for, markup included).
pub(crate) fn not_found() -> Reply {
    Reply::Status(StatusCode::NOT_FOUND, "there is nothing here".into())
}

/// The sentence of an answer other than a page, kept with its response: what the JSON API
/// answers in place of the page ([`as_json`]).
#[derive(Clone)]
pub(crate) struct Said(pub String);

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let said = Said(match &self {
            Reply::Status(_, text) | Reply::TooMany { message: text, .. } => text.clone(),
            Reply::SignIn => "sign in: send the token of your link as a bearer token".into(),
        });
        let mut response = self.page();
        response.extensions_mut().insert(said);
        response
    }
}

/// An answer of the JSON API: one that carries a [`Said`] (an error) is given as
/// `{"error": "..."}` with the same status and headers, not as a page.
pub(crate) async fn as_json(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let response = next.run(request).await;
    let Some(Said(text)) = response.extensions().get::<Said>().cloned() else {
        return response;
    };
    let (mut parts, _) = response.into_parts();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let body = serde_json::json!({ "error": text }).to_string();
    Response::from_parts(parts, axum::body::Body::from(body))
}

impl Reply {
    /// The answer as a page.
    fn page(self) -> Response {
        match self {
            Reply::Status(status, text) => {
                (status, message(crate::view::heading(status), &text)).into_response()
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
                    (StatusCode::TOO_MANY_REQUESTS, message("Too many", &text)).into_response();
                if let Ok(value) = HeaderValue::from_str(&retry_after.to_string()) {
                    response.headers_mut().insert(header::RETRY_AFTER, value);
                }
                response
            }
        }
    }
}
