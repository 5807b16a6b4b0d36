//! Who is asking and what about, read from the request before a handler runs: [`Who`] (a
//! session cookie or a bearer token), [`Instructor`] (the instructor, else nothing is here),
//! [`AssignmentOf`] (the `{name}` of the address, an assignment of the course) and
//! [`SubmissionId`] (the `{id}` of the address, a number). A handler then reads as "who,
//! what, answer".

use std::sync::Arc;

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, Path as UrlPath};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};

use crate::auth::{api_owner, hash, limited, Who, COOKIE};
use crate::course::Assignment;
use crate::db::sessions;
use crate::error::{not_found, Reply};
use crate::state::State;

/// The value of the cookie `name` the request carries.
pub(crate) fn cookie_value(headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_string())
}

impl FromRequestParts<Arc<State>> for Who {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<State>) -> Result<Who, Reply> {
        let pool = &state.db;
        let bearer = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim);
        if let Some(token) = bearer {
            if let Some(student) = api_owner(pool, token).await? {
                return Ok(Who {
                    student,
                    csrf: None,
                    session: None,
                    name: None,
                });
            }
            // A wrong token is a guess, counted as a wrong link is.
            let ClientAddr(addr) = ClientAddr::from_request_parts(parts, state).await?;
            if limited(pool, &addr, false).await? {
                return Err(too_many_guesses());
            }
            limited(pool, &addr, true).await?;
            return Err(Reply::Status(
                StatusCode::UNAUTHORIZED,
                "that token is not a live one".into(),
            ));
        }
        let Some(session) = cookie_value(&parts.headers, COOKIE) else {
            return Err(Reply::SignIn);
        };
        let since = crate::db::now() - crate::auth::TERM;
        match sessions::live(pool, &hash(&session), since).await? {
            Some((student, csrf, name)) => Ok(Who {
                student,
                csrf: Some(csrf),
                session: Some(hash(&session)),
                name,
            }),
            None => Err(Reply::SignIn),
        }
    }
}

/// The answer to an address that has guessed wrong too often.
pub(crate) fn too_many_guesses() -> Reply {
    Reply::TooMany {
        retry_after: crate::auth::WINDOW,
        message: "Too many wrong links from this address: wait ten minutes.".into(),
    }
}

/// The client's address, as the limit on wrong links counts it: the peer's, or, where the
/// peer is the trusted proxy (`--trusted-proxy`), the address the proxy says it forwards for
/// (the last of `X-Forwarded-For`, which the proxy appended, else `Forwarded: for=`).
pub(crate) struct ClientAddr(pub String);

impl FromRequestParts<Arc<State>> for ClientAddr {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<State>) -> Result<Self, Reply> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        let forwarded = || {
            let header = |name: &str| {
                parts
                    .headers
                    .get_all(name)
                    .iter()
                    .filter_map(|value| value.to_str().ok())
                    .flat_map(|value| value.split(','))
                    .map(str::trim)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            };
            let from_xff = header("x-forwarded-for").into_iter().next_back();
            let from_forwarded = || {
                header("forwarded").into_iter().rev().find_map(|element| {
                    element.split(';').find_map(|pair| {
                        let value = pair.trim().strip_prefix("for=")?;
                        Some(value.trim_matches('"').to_string())
                    })
                })
            };
            from_xff.or_else(from_forwarded)
        };
        let addr = match (peer, state.trusted_proxy) {
            (Some(peer), Some(proxy)) if peer == proxy => forwarded()
                .and_then(|addr| addr.trim_matches(['[', ']']).parse::<IpAddr>().ok())
                .unwrap_or(peer),
            (Some(peer), _) => peer,
            (None, _) => return Ok(ClientAddr("unknown".into())),
        };
        Ok(ClientAddr(addr.to_string()))
    }
}

/// The instructor, signed in; a student asking for an instructor's page is told there is
/// nothing there.
pub(crate) struct Instructor(pub Who);

impl FromRequestParts<Arc<State>> for Instructor {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<State>) -> Result<Self, Reply> {
        let who = Who::from_request_parts(parts, state).await?;
        match who.instructor() {
            true => Ok(Instructor(who)),
            false => Err(not_found()),
        }
    }
}

/// The assignment the address names (`/.../assignments/{name}/...`); one the course does not
/// have is not found.
pub(crate) struct AssignmentOf(pub Assignment);

impl FromRequestParts<Arc<State>> for AssignmentOf {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<State>) -> Result<Self, Reply> {
        let UrlPath(name) = UrlPath::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| not_found())?;
        state
            .course
            .assignment(&name)
            .cloned()
            .map(AssignmentOf)
            .ok_or_else(not_found)
    }
}

/// A submission's id in the address: a number, else there is nothing here (the answer never
/// writes back what was asked for, markup included).
pub(crate) struct SubmissionId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for SubmissionId {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let UrlPath(id) = UrlPath::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| not_found())?;
        id.parse().map(SubmissionId).map_err(|_| not_found())
    }
}
