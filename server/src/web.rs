//! The web side: the routes, the headers every answer carries (a Content-Security-Policy that
//! allows no script but the server's own file, no framing by others, no referrer).

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

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

pub(crate) fn router(state: Arc<State>) -> Router {
    // Multipart framing around the files: a little over the cap.
    let body_limit = state.max_upload + 64 * 1024;
    Router::new()
        .route("/", get(crate::pages::home))
        .route(
            "/login/{token}",
            get(crate::access::login).post(crate::access::login_confirmed),
        )
        .route("/logout", post(crate::access::logout))
        .route("/access", get(crate::access::access))
        .route("/access/link", post(crate::access::make_link))
        .route("/access/token", post(crate::access::make_token))
        .route("/access/token/revoke", post(crate::access::revoke_token))
        .route("/static/live.js", get(crate::pages::live_js))
        .route("/assignments/{name}", get(crate::pages::assignment))
        .route(
            "/assignments/{name}/submissions",
            post(crate::pages::submit),
        )
        .route("/submissions/{id}", get(crate::pages::submission))
        .route("/submissions/{id}/events", get(crate::pages::events))
        .route("/submissions/{id}/report", get(crate::pages::report))
        .route("/submissions/{id}/requests", post(crate::pages::ask))
        .route("/instructor/requests", get(crate::class::requests))
        .route(
            "/instructor/requests/{id}/answer",
            post(crate::class::answer_request),
        )
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
            "/instructor/assignments/{name}/extensions",
            get(crate::class::extensions).post(crate::class::grant_extension),
        )
        .route(
            "/instructor/assignments/{name}/extensions/{id}/remove",
            post(crate::class::remove_extension),
        )
        .route(
            "/lti/login",
            get(crate::lti::launch::login_get).post(crate::lti::launch::login_post),
        )
        .route("/lti/launch", post(crate::lti::launch::launch))
        .route("/lti/jwks", get(crate::lti::launch::jwks))
        .route("/instructor/lti/roster", post(crate::lti::roster::refresh))
        .nest("/api/v1", api_routes())
        // An address that is none of the above: the page that says so, not an empty answer.
        .fallback(|| async { crate::error::not_found() })
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
        .route("/submissions/{id}/requests", post(crate::api::ask))
        .route("/requests", get(crate::api::requests))
        .route("/requests/{id}/answer", post(crate::api::answer))
        .route(
            "/assignments/{name}/extensions/{id}",
            axum::routing::put(crate::api::put_extension).delete(crate::api::delete_extension),
        )
        .fallback(|| async { crate::error::not_found() })
        .layer(middleware::from_fn(crate::error::as_json))
}
