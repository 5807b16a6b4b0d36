//! Signing in and out, and the credentials a person holds. A login link is spent by the
//! session it opens (it sits in a URL, so in proxy logs and browser history: used once, it
//! opens nothing more); a signed-in person makes a link for another device, and an API token
//! of their own for scripts, on `/access`, and revokes it there. A link of someone else, opened
//! in a browser that holds a live session, asks before it replaces that session: what is handed
//! in afterwards would be the other person's.

use std::sync::Arc;

use axum::extract::{Path as UrlPath, State as Shared};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;

use crate::auth::{self, check_csrf, CsrfForm, Who, BROWSER};
use crate::db::{api_tokens, sessions};
use crate::error::Reply;
use crate::extract::{cookie_value, too_many_guesses, ClientAddr};
use crate::frame::page;
use crate::state::State;

/// `GET /login/{token}`: a live link signs in (whatever wrong guesses came from its address:
/// behind a proxy or a campus network a whole class shares one), unless the browser holds a
/// live session of someone else: then it asks first. A spent link says so; a wrong one counts
/// against the address's limit, and past it is refused outright.
pub(crate) async fn login(
    Shared(state): Shared<Arc<State>>,
    ClientAddr(addr): ClientAddr,
    UrlPath(token): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Response, Reply> {
    let token_hash = auth::hash(&token);
    let owner = match sessions::link(&state.db, &token_hash).await? {
        sessions::Link::Live(owner) => owner,
        sessions::Link::Spent => return Err(spent()),
        sessions::Link::Unknown => {
            if auth::limited(&state.db, &addr, false).await? {
                return Err(too_many_guesses());
            }
            auth::limited(&state.db, &addr, true).await?;
            return Err(Reply::Status(
                StatusCode::NOT_FOUND,
                "That link is not a live one: ask your instructor for a new one.".into(),
            ));
        }
    };
    let browser = cookie_value(&headers, BROWSER);
    if let Some(browser) = &browser {
        let since = crate::db::now() - auth::TERM;
        if let Some((current, name, csrf)) =
            sessions::in_browser(&state.db, &auth::hash(browser), since).await?
        {
            if current != owner {
                return Ok(ask(&state, &token, &current, name, &owner, &csrf).into_response());
            }
        }
    }
    sign_in(&state, &token_hash, browser.as_deref()).await
}

/// `POST /login/{token}`: the answer to [`ask`], from a page of this server (the session's
/// cookie and its CSRF token, which no other site's form carries).
pub(crate) async fn login_confirmed(
    Shared(state): Shared<Arc<State>>,
    UrlPath(token): UrlPath<String>,
    headers: HeaderMap,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    let browser = cookie_value(&headers, BROWSER);
    sign_in(&state, &auth::hash(&token), browser.as_deref()).await
}

/// Spends the link stored as `token_hash` and opens its session in `browser` (the sessions
/// the browser held end), or says it is spent (two tabs opening one link: one signs in).
async fn sign_in(
    state: &State,
    token_hash: &str,
    browser: Option<&str>,
) -> Result<Response, Reply> {
    if sessions::spend(&state.db, token_hash).await?.is_none() {
        return Err(spent());
    }
    if let Some(browser) = browser {
        sessions::end_browser(&state.db, &auth::hash(browser)).await?;
    }
    let opened = auth::open_session(&state.db, token_hash, browser).await?;
    let mut response = Redirect::to("/").into_response();
    auth::set_cookies(&mut response, opened.cookies(state.secure))?;
    Ok(response)
}

fn spent() -> Reply {
    Reply::Status(
        StatusCode::GONE,
        "That link has signed in once and opens nothing more: a link works once. Open the \
         server in the browser it signed in, or make a link for another device there (Your \
         access); else ask your instructor for a new one."
            .into(),
    )
}

/// Whom a session or link is of, in words.
fn person(state: &State, student: &Option<String>, name: Option<String>) -> String {
    match student {
        None => "the instructor".into(),
        Some(id) => {
            let name = name.or_else(|| state.course.student(id).map(|s| s.name.clone()));
            match name {
                Some(name) => format!("{name} ({id})"),
                None => id.clone(),
            }
        }
    }
}

/// The page that asks before a link replaces a live session of someone else.
fn ask(
    state: &State,
    token: &str,
    current: &Option<String>,
    current_name: Option<String>,
    owner: &Option<String>,
    csrf: &str,
) -> axum::response::Html<String> {
    let current = person(state, current, current_name);
    let other = person(state, owner, None);
    let body = html! {
        p { "This browser is signed in as " strong { (current) } ". The link you opened signs in "
            strong { (other) } ": what is handed in after that counts as theirs, not yours." }
        form method="post" action={ "/login/" (token) } {
            input type="hidden" name="csrf" value=(csrf);
            button type="submit" { "Sign in as " (other) }
        }
        p { a href="/" { "Stay signed in as " (current) } }
    };
    page(state, None, "Sign in as someone else?", body)
}

/// `POST /logout`: ends this session, clears its cookies.
pub(crate) async fn logout(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    sessions::end(&state.db, who.session.as_deref()).await?;
    let mut response = crate::view::message(
        "Signed out",
        "You are signed out. A link signs you in again: make one for this device before you \
         sign out (Your access), or ask your instructor.",
    )
    .into_response();
    auth::set_cookies(&mut response, auth::cleared(state.secure))?;
    Ok(response)
}

/// `GET /access`: the links and the API token of the signed-in person.
pub(crate) async fn access(Shared(state): Shared<Arc<State>>, who: Who) -> Result<Response, Reply> {
    access_page(&state, &who, html! {}).await
}

/// The access page, with `shown` (a link or token just made) at its top.
async fn access_page(state: &State, who: &Who, shown: maud::Markup) -> Result<Response, Reply> {
    let made = api_tokens::made(&state.db, who.student.as_deref()).await?;
    let csrf = who.csrf.clone().unwrap_or_default();
    let body = html! {
        (shown)
        h2 { "Another device" }
        p { "A link signs in once. For another device (or this one, after you sign out), make a
             link here and open it there; it works once." }
        form method="post" action="/access/link" {
            input type="hidden" name="csrf" value=(csrf);
            button type="submit" { "Make a link for another device" }
        }
        h2 { "API token" }
        p { "For scripts: send it as " code { "Authorization: Bearer TOKEN" } " to "
            code { "/api/v1/" } ". Keep it secret; making a new one revokes the earlier one." }
        @match made {
            Some(at) => p { "You have a token, made " (crate::view::when(at)) "." },
            None => p { "You have no token." },
        }
        form method="post" action="/access/token" {
            input type="hidden" name="csrf" value=(csrf);
            button type="submit" { "Make a new token" }
        }
        @if made.is_some() {
            form method="post" action="/access/token/revoke" {
                input type="hidden" name="csrf" value=(csrf);
                button type="submit" { "Revoke the token" }
            }
        }
    };
    Ok(page(state, Some(who), "Your access", body).into_response())
}

/// `POST /access/link`: a one-time link for another device, beside the person's own session.
pub(crate) async fn make_link(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    let (token, hash) = auth::new_token();
    sessions::issue_beside(&state.db, who.student.as_deref(), &hash, false).await?;
    let link = format!("{}/login/{token}", state.base_url);
    let shown = html! {
        p.shown { "Your link for another device (it works once): " code #link { (link) } }
    };
    access_page(&state, &who, shown).await
}

/// `POST /access/token`: a new API token, shown this once (only its hash is kept).
pub(crate) async fn make_token(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    let token = auth::issue_api(&state.db, who.student.as_deref()).await?;
    let shown = html! {
        p.shown { "Your new API token (shown this once; copy it now): " code #token { (token) } }
    };
    access_page(&state, &who, shown).await
}

/// `POST /access/token/revoke`: the API token stops working.
pub(crate) async fn revoke_token(
    Shared(state): Shared<Arc<State>>,
    who: Who,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    api_tokens::revoke(&state.db, who.student.as_deref()).await?;
    Ok(Redirect::to("/access").into_response())
}
