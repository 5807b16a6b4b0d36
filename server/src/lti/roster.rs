//! The roster from the LMS (Names and Role Provisioning Services 2.0): on an instructor's
//! launch, and when the instructor asks, every active learner of the context becomes a
//! student of the course, so that the class table lists those who never launched too; and
//! [`enrol`], who the course's student for an LMS user is (a launch's too).

use std::sync::Arc;

use axum::extract::State as Shared;
use axum::response::{IntoResponse, Redirect, Response};

use super::claims::{self, role_of, Role};
use crate::auth::{check_csrf, CsrfForm};
use crate::course::Student;
use crate::db::lti;
use crate::error::{Fault, Reply};
use crate::extract::Instructor;
use crate::state::State;

/// Reads the members at `url` and enrols every active learner; how many.
pub(crate) async fn sync(state: &Arc<State>, url: &str) -> Result<usize, String> {
    let platform = state.lti.clone().ok_or("the course has no [lti]")?;
    let address = url.to_string();
    let members = tokio::task::spawn_blocking(move || platform.members(&address))
        .await
        .map_err(|err| err.to_string())??;
    let mut enrolled = 0;
    for member in members {
        if !member.active || role_of(&member.roles) != Some(Role::Student) {
            continue;
        }
        if member.user_id.is_empty() {
            continue;
        }
        let name = match member.name.trim() {
            "" => member.user_id.clone(),
            name => name.to_string(),
        };
        enrol(state, &member.user_id, &name, &member.email)
            .await
            .map_err(|err| err.to_string())?;
        enrolled += 1;
    }
    Ok(enrolled)
}

/// `/instructor/lti/roster`: reads the roster again, from the address the latest launch gave.
pub(crate) async fn refresh(
    Shared(state): Shared<Arc<State>>,
    Instructor(who): Instructor,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Result<Response, Reply> {
    check_csrf(&who, &form.csrf)?;
    let Some(url) = lti::memberships(&state.db).await? else {
        return Ok(crate::view::message(
            "No roster yet",
            "The LMS has not told the course where its roster is: open the course's tool link from the LMS as its instructor once.",
        )
        .into_response());
    };
    match sync(&state, &url).await {
        Ok(_) => Ok(Redirect::to("/instructor").into_response()),
        Err(why) => Err(Reply::from(Fault::Harness(format!(
            "lti: the roster from {url}: {why}"
        )))),
    }
}

/// The course's student for the LMS user `sub`: one the LMS named before, else the roster's
/// student with that email, else a new one; their name and email as the LMS says (a roster
/// student's as the roster says).
pub(crate) async fn enrol(
    state: &State,
    sub: &str,
    name: &str,
    email: &str,
) -> Result<String, Fault> {
    let id = match lti::student_of(&state.db, sub, email).await? {
        Some(id) => id,
        None => claims::student_id(sub),
    };
    // A student of roster.csv keeps the name and email the instructor wrote there.
    let student = match state.course.student(&id) {
        Some(listed) => listed.clone(),
        None => Student {
            id: id.clone(),
            name: name.to_string(),
            email: email.to_string(),
        },
    };
    lti::upsert_student(&state.db, &student, sub, "student").await?;
    Ok(id)
}
