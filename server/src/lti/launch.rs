//! The tool's LTI endpoints: `/lti/login` (OIDC login initiation, GET or POST: a fresh state
//! bound to the browser by a cookie, a fresh nonce, and a redirect to the platform's
//! authorization endpoint), `/lti/launch` (the form post of the id_token: checked, then a
//! session of the student or the instructor) and `/lti/jwks` (the tool's public key).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State as Shared};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Form, Json};
use maud::html;

use super::claims::{self, Launch, Role};
use crate::auth;
use crate::db::{lti, sessions};
use crate::error::{Fault, Reply};
use crate::state::State;

pub(crate) const STATE_COOKIE: &str = "gj_lti_state";
/// How long a login flow may take, from the redirect to the launch.
const FLOW: i64 = 600;

fn refused(why: impl std::fmt::Display) -> Reply {
    Reply::Status(
        StatusCode::UNAUTHORIZED,
        format!("The launch from your course's LMS was refused: {why}. Open the assignment from the LMS again; if this goes on, tell your instructor."),
    )
}

fn platform(state: &State) -> Result<Arc<crate::lms::Platform>, Reply> {
    state.lti.clone().ok_or_else(crate::error::not_found)
}

/// The server's own address as the platform reaches it: `tool_url`, else the request's host.
fn tool_url(state: &State, headers: &HeaderMap) -> String {
    if let Some(url) = state.lti.as_ref().and_then(|p| p.config.tool_url.clone()) {
        return url;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = if state.secure { "https" } else { "http" };
    format!("{scheme}://{host}")
}

/// `/lti/jwks`.
pub(crate) async fn jwks(Shared(state): Shared<Arc<State>>) -> Result<Response, Reply> {
    Ok(Json(platform(&state)?.key.jwks()).into_response())
}

/// `/lti/login` by GET: its parameters in the query.
pub(crate) async fn login_get(
    Shared(state): Shared<Arc<State>>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, Reply> {
    login(&state, &headers, &params).await
}

/// `/lti/login` by POST: its parameters in the form.
pub(crate) async fn login_post(
    Shared(state): Shared<Arc<State>>,
    headers: HeaderMap,
    Form(params): Form<HashMap<String, String>>,
) -> Result<Response, Reply> {
    login(&state, &headers, &params).await
}

async fn login(
    state: &State,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<Response, Reply> {
    let platform = platform(state)?;
    let config = &platform.config;
    let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
    if param("iss") != config.issuer {
        return Err(refused(format!(
            "the sign-in comes from `{}`, not from this course's LMS",
            param("iss")
        )));
    }
    if !param("client_id").is_empty() && param("client_id") != config.client_id {
        return Err(refused("the sign-in is for another tool (client_id)"));
    }
    let deployment = param("lti_deployment_id");
    if !deployment.is_empty() && !config.deployment_ids.iter().any(|d| d == deployment) {
        return Err(refused(format!(
            "the deployment `{deployment}` is not this course's"
        )));
    }
    if param("login_hint").is_empty() {
        return Err(refused("the sign-in names no user (login_hint)"));
    }
    let (state_token, state_hash) = auth::new_token();
    let (nonce, _) = auth::new_token();
    if !lti::save_state(&state.db, &state_hash, &nonce).await? {
        return Err(Reply::TooMany {
            retry_after: 60,
            message: "Too many sign-ins from the LMS are under way: try again in a minute.".into(),
        });
    }
    let redirect_uri = format!("{}/lti/launch", tool_url(state, headers));
    let mut query = vec![
        ("scope", "openid"),
        ("response_type", "id_token"),
        ("response_mode", "form_post"),
        ("prompt", "none"),
        ("client_id", config.client_id.as_str()),
        ("redirect_uri", redirect_uri.as_str()),
        ("login_hint", param("login_hint")),
        ("state", state_token.as_str()),
        ("nonce", nonce.as_str()),
    ];
    if !param("lti_message_hint").is_empty() {
        query.push(("lti_message_hint", param("lti_message_hint")));
    }
    let query =
        serde_urlencoded::to_string(&query).map_err(|err| Fault::Harness(err.to_string()))?;
    let mut response = Redirect::to(&format!("{}?{query}", config.auth_url)).into_response();
    // The launch comes back as a form post from the LMS's site: the cookie must go along
    // with a cross-site POST, which only `SameSite=None` (and so `Secure`) allows.
    let same_site = if state.secure { "None; Secure" } else { "Lax" };
    let cookie = format!(
        "{STATE_COOKIE}={state_token}; Path=/lti; HttpOnly; Max-Age={FLOW}; SameSite={same_site}"
    );
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie).map_err(|err| Fault::Harness(err.to_string()))?,
    );
    Ok(response)
}

#[derive(serde::Deserialize)]
pub(crate) struct LaunchForm {
    #[serde(default)]
    id_token: String,
    #[serde(default)]
    state: String,
}

/// `/lti/launch`: the state is this browser's and was issued by this server (and is used up
/// now), the id_token passes every check; then the user is signed in.
pub(crate) async fn launch(
    Shared(state): Shared<Arc<State>>,
    headers: HeaderMap,
    Form(form): Form<LaunchForm>,
) -> Result<Response, Reply> {
    let platform = platform(&state)?;
    if form.state.is_empty() || form.id_token.is_empty() {
        return Err(refused("the launch carries no id_token or no state"));
    }
    let bound = crate::extract::cookie_value(&headers, STATE_COOKIE)
        .is_some_and(|c| auth::same(&c, &form.state));
    if !bound {
        return Err(refused(
            "its state is not the one this browser began the sign-in with (cookies off, or a forged launch)",
        ));
    }
    let Some((nonce, began)) = lti::take_state(&state.db, &auth::hash(&form.state)).await? else {
        return Err(refused("its state was never issued, or was used already"));
    };
    if began < crate::db::now() - FLOW {
        return Err(refused("the sign-in took more than ten minutes"));
    }
    let checking = Arc::clone(&platform);
    let verified =
        tokio::task::spawn_blocking(move || claims::verify(&checking, &form.id_token, &nonce))
            .await
            .map_err(|err| Fault::Harness(format!("the launch check: {err}")))?;
    let launch = verified.map_err(refused)?;
    sign_in(&state, launch).await
}

/// Opens a session for `launch`'s user, records where their grade goes, and goes to the
/// assignment the link names (else home, or the class for an instructor).
async fn sign_in(state: &Arc<State>, launch: Launch) -> Result<Response, Reply> {
    let assignment = match &launch.assignment {
        Some(name) if state.course.assignment(name).is_none() => {
            return Err(Reply::Status(
                StatusCode::NOT_FOUND,
                format!("This LMS link names the assignment `{name}`, which the course does not have: the instructor sets `assignment` on the link to one of course.toml's names."),
            ));
        }
        other => other.clone(),
    };
    let student = match launch.role {
        Role::Instructor => None,
        Role::Student => {
            Some(super::roster::enrol(state, &launch.sub, &launch.name, &launch.email).await?)
        }
    };
    if let (Some(id), Some(name)) = (&student, &assignment) {
        lti::save_link(&state.db, id, name, &launch.link).await?;
    }
    if let Some(url) = &launch.link.memberships {
        lti::save_memberships(&state.db, url).await?;
    }
    if let (Role::Instructor, Some(url)) = (launch.role, launch.link.memberships.clone()) {
        // The roster is read in the background; the class page lists it once it is in.
        let state = Arc::clone(state);
        tokio::spawn(async move {
            if let Err(why) = super::roster::sync(&state, &url).await {
                eprintln!("lti: the roster from {url}: {why}");
            }
        });
    }
    let (token, token_hash) = auth::new_token();
    drop(token);
    sessions::issue_beside(&state.db, student.as_deref(), &token_hash, true).await?;
    let opened = auth::open_session(&state.db, &token_hash, None).await?;
    let target = match (&student, &assignment) {
        (None, _) => "/instructor".to_string(),
        (Some(_), Some(name)) => format!("/assignments/{name}"),
        (Some(_), None) => "/".to_string(),
    };
    // The session cookie is SameSite=Strict: a redirect that follows the LMS's cross-site
    // post would not carry it, so the page moves on by itself, from this site.
    let page = html! {
        (maud::DOCTYPE)
        html { head { meta charset="utf-8"; meta http-equiv="refresh" content={ "0; url=" (target) };
            title { "Signed in" } }
            body { p { "Signed in from your LMS. " a href=(target) { "Continue" } } } }
    };
    let mut response = axum::response::Html(page.into_string()).into_response();
    let cleared = format!("{STATE_COOKIE}=; Path=/lti; HttpOnly; Max-Age=0");
    auth::set_cookies(
        &mut response,
        opened.cookies(state.secure).into_iter().chain([cleared]),
    )?;
    Ok(response)
}
