//! Regrade requests, through the result page and the API alike: a student asks about one case
//! of their graded submission (one open request per submission and case); the instructor
//! answers once, with points (possibly 0) added to that submission's score, kept within 0 and
//! the maximum, and kept through a regrade of the class. Every check is here, once.

use axum::http::StatusCode;

use crate::auth::Who;
use crate::db::requests;
use crate::error::{not_found, Reply};
use crate::standing::{report_of, visible};
use crate::state::State;

/// A case's name in a request: `GROUP/NAME`.
pub(crate) fn key(case: &xtask::report::JsonCase) -> String {
    format!("{}/{}", case.group, case.name)
}

/// The open requests, oldest first, each with its submission and its case as the report
/// `who` sees has it (the instructor's Requests page and `GET /api/v1/requests`).
pub(crate) async fn open_with_cases(
    state: &State,
    who: &Who,
) -> Result<
    Vec<(
        requests::Request,
        crate::db::Sub,
        Option<xtask::report::JsonCase>,
    )>,
    Reply,
> {
    let mut listed = Vec::new();
    for request in requests::open_ones(&state.db).await? {
        let sub = visible(state, who, request.submission).await?;
        let report = report_of(state, who, &sub).await?;
        let case = report
            .into_iter()
            .flat_map(|r| r.cases)
            .find(|c| key(c) == request.case);
        listed.push((request, sub, case));
    }
    Ok(listed)
}

/// The longest question or answer taken, in characters.
pub(crate) const MOST_TEXT: usize = 2_000;

fn unprocessable(field: &str, why: String) -> Reply {
    Reply::Status(
        StatusCode::UNPROCESSABLE_ENTITY,
        format!("`{field}`: {why}"),
    )
}

/// `text` as taken: trimmed, not empty, at most [`MOST_TEXT`] characters.
fn checked_text(text: &str) -> Result<&str, Reply> {
    let text = text.trim();
    match text.chars().count() {
        0 => Err(unprocessable("text", "empty: say what you ask".into())),
        n if n > MOST_TEXT => Err(unprocessable(
            "text",
            format!("{n} characters; at most {MOST_TEXT}"),
        )),
        _ => Ok(text),
    }
}

/// Student `who` asks about `case` (`GROUP/NAME`) of their submission `id`: the request's id.
pub(crate) async fn ask(
    state: &State,
    who: &Who,
    id: i64,
    case: &str,
    text: &str,
) -> Result<i64, Reply> {
    let sub = visible(state, who, id).await?;
    if who.instructor() {
        return Err(Reply::Status(
            StatusCode::BAD_REQUEST,
            "A regrade request is the student's: answer one on the Requests page.".into(),
        ));
    }
    let text = checked_text(text)?;
    // The cases of the report the student sees (hidden ones by verdict, or none yet).
    let report = report_of(state, who, &sub).await?;
    let Some(case) = report
        .iter()
        .flat_map(|r| &r.cases)
        .map(key)
        .find(|key| key == case || case.ends_with(&format!("/{key}")))
    else {
        return Err(unprocessable(
            "case",
            format!("`{case}` is no case of this submission's report (GROUP/NAME)"),
        ));
    };
    match requests::open(&state.db, sub.id, &case, text).await? {
        Some(request) => Ok(request),
        None => Err(Reply::Status(
            StatusCode::CONFLICT,
            format!("A request about `{case}` of this submission is open already."),
        )),
    }
}

/// The instructor answers request `id` with `text` and `points` given to its submission.
pub(crate) async fn answer(
    state: &State,
    who: &Who,
    id: i64,
    text: &str,
    points: f64,
) -> Result<(), Reply> {
    let request = requests::by_id(&state.db, id)
        .await?
        .ok_or_else(not_found)?;
    let text = checked_text(text)?;
    let sub = visible(state, who, request.submission).await?;
    let most = sub.max_score.unwrap_or(0.0);
    if !points.is_finite() || points.abs() > most.max(0.0) {
        return Err(unprocessable(
            "points",
            format!("{points}: points between -{most} and {most} (the submission's maximum)"),
        ));
    }
    let by = who.name.clone().unwrap_or_else(|| "the instructor".into());
    match requests::answer(&state.db, id, text, points, &by).await? {
        true => {
            crate::lti::passback::changed(state, &sub.student, &sub.assignment).await?;
            Ok(())
        }
        false => Err(Reply::Status(
            StatusCode::CONFLICT,
            "This request is answered already.".into(),
        )),
    }
}
