//! The web side: the routes, the headers every answer carries (a Content-Security-Policy that
//! allows no script but the server's own file, no framing by others, no referrer), and logging
//! in and out.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path as UrlPath, State as Shared};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::auth::{self, check_csrf, CsrfForm, Who};
use crate::db::sessions;
use crate::error::{Fault, Reply};
use crate::extract::{too_many_guesses, ClientAddr};
use crate::state::State;

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
            "/instructor/assignments/{name}/report.html",
            get(crate::class::class_report_document),
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
            "/lti/login",
            get(crate::lti::launch::login_get).post(crate::lti::launch::login_post),
        )
        .route("/lti/launch", post(crate::lti::launch::launch))
        .route("/lti/jwks", get(crate::lti::launch::jwks))
        .route("/instructor/lti/roster", post(crate::lti::roster::refresh))
        .nest("/api/v1", api_routes())
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn(headers))
        .with_state(state)
}

/// The JSON API's routes: their errors are JSON too, and so is an address that is none of them.
fn api_routes() -> Router<Arc<State>> {
    Router::new()
        .route("/assignments/{name}/submissions", post(crate::api::submit))
        .route("/submissions/{id}", get(crate::api::submission))
        .route("/grades.csv", get(crate::api::grades_csv))
        .fallback(|| async { crate::error::not_found() })
        .layer(middleware::from_fn(crate::error::as_json))
}

/// `/login/{token}`: a live link opens a fresh session (never one the browser brought: no
/// session fixation) and goes home, whatever wrong guesses came from its address (behind a
/// proxy or a campus network, a whole class shares one); a wrong one counts against the
/// address's limit, and past it is refused outright.
async fn login(
    Shared(state): Shared<Arc<State>>,
    ClientAddr(addr): ClientAddr,
    UrlPath(token): UrlPath<String>,
) -> Result<Response, Reply> {
    let live = auth::token_owner(&state.db, &token).await?;
    if live.is_none() {
        if auth::limited(&state.db, &addr, false).await? {
            return Err(too_many_guesses());
        }
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

async fn logout(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    sessions::end(&state.db, who.session.as_deref()).await?;
    let mut response = crate::view::message(
        "Signed out",
        "You are signed out. Your link signs you in again.",
    )
    .into_response();
    let cookie = HeaderValue::from_str(&auth::cleared(state.secure))
        .map_err(|err| Fault::Harness(err.to_string()))?;
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(response)
}
