//! Who is asking and what about, read from the request before a handler runs: [`Who`] (a
//! session cookie or a bearer token), [`Instructor`] (the instructor, else nothing is here),
//! [`AssignmentOf`] (the `{name}` of the address, an assignment of the course) and
//! [`SubmissionId`] (the `{id}` of the address, a number). A handler then reads as "who,
//! what, answer".

use std::sync::Arc;

use axum::extract::{FromRequestParts, Path as UrlPath};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};

use crate::auth::{hash, token_owner, Who, COOKIE};
use crate::course::Assignment;
use crate::db::sessions;
use crate::error::{not_found, Reply};
use crate::state::State;

fn cookie_value(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
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
            return match token_owner(pool, token).await? {
                Some(student) => Ok(Who {
                    student,
                    csrf: None,
                    session: None,
                }),
                None => Err(Reply::Status(
                    StatusCode::UNAUTHORIZED,
                    "that token is not a live one".into(),
                )),
            };
        }
        let Some(session) = cookie_value(parts) else {
            return Err(Reply::SignIn);
        };
        match sessions::live(pool, &hash(&session)).await? {
            Some((student, csrf)) => Ok(Who {
                student,
                csrf: Some(csrf),
                session: Some(hash(&session)),
            }),
            None => Err(Reply::SignIn),
        }
    }
}

/// The instructor, signed in; a student asking for an instructor's page is told there is
/// nothing there.
pub struct Instructor(pub Who);

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
pub struct AssignmentOf(pub Assignment);

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
pub struct SubmissionId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for SubmissionId {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let UrlPath(id) = UrlPath::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| not_found())?;
        id.parse().map(SubmissionId).map_err(|_| not_found())
    }
}
