//! Grade passback (Assignment and Grade Services 2.0): after each grading, the student's
//! counted grade for the assignment (the best counted submission, lateness applied) is queued
//! in the database, once per grading; a sender posts the queued scores to the line item the
//! student's launch named (or one it makes under `lineitems`), and tries a score the platform
//! did not take again later, waiting longer each time. A platform that is down loses no
//! grade, and a server that stops sends what is left when it starts again.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::db::lti::{self, Score};
use crate::db::{now, submissions};
use crate::error::Fault;
use crate::state::State;

/// Seconds a sender holds a score it is posting before another may take it.
const HOLD: i64 = 120;
/// The longest wait between two tries of one score.
const LONGEST: i64 = 600;

/// Queues the grade the grading `key` left its student with, where the student came from the
/// LMS to that assignment; then wakes the sender.
pub(crate) async fn graded(
    state: &State,
    (submission, generation): (i64, i64),
) -> Result<(), Fault> {
    if state.lti.is_none() {
        return Ok(());
    }
    let Some(sub) = submissions::by_id(&state.db, submission).await? else {
        return Ok(());
    };
    if lti::link(&state.db, &sub.student, &sub.assignment)
        .await?
        .is_none()
    {
        return Ok(());
    }
    let (Some(assignment), Some(graded)) = (
        state.course.assignment(&sub.assignment),
        state.assignments.get(&sub.assignment),
    ) else {
        return Ok(());
    };
    let term = crate::standing::term_of(state, &sub.student).await?;
    let given = term.counted.get(&assignment.name).map_or(0.0, |c| c.score);
    let maximum = graded.gradebook.max_score;
    lti::queue_score(
        &state.db,
        (submission, generation),
        &sub.student,
        &sub.assignment,
        (given, maximum),
    )
    .await?;
    state.passback.notify_one();
    Ok(())
}

/// Queues the grade `student` now has for `assignment` after a change that is no grading (an
/// extension granted or taken away, a regrade request answered), where they came from the LMS
/// to it; then wakes the sender. Such a change is queued under a generation of its own below
/// zero (the negated nanosecond it was made at), never one a grading uses.
pub(crate) async fn changed(state: &State, student: &str, assignment: &str) -> Result<(), Fault> {
    if state.lti.is_none() || lti::link(&state.db, student, assignment).await?.is_none() {
        return Ok(());
    }
    let Some(graded) = state.assignments.get(assignment) else {
        return Ok(());
    };
    let term = crate::standing::term_of(state, student).await?;
    let counted = term.counted.get(assignment);
    let change = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    lti::queue_score(
        &state.db,
        (counted.map_or(0, |c| c.sub.id), -change),
        student,
        assignment,
        (counted.map_or(0.0, |c| c.score), graded.gradebook.max_score),
    )
    .await?;
    state.passback.notify_one();
    Ok(())
}

/// The sender: posts due scores until the server stops, waking when a score is queued or
/// every second.
pub(crate) async fn run(state: Arc<State>) {
    while !state.stopping.load(std::sync::atomic::Ordering::Relaxed) {
        match lti::claim_due(&state.db, HOLD, 20).await {
            Ok(due) => {
                for score in due {
                    send(&state, score).await;
                }
            }
            Err(fault) => eprintln!("lti: the scores to post: {fault}"),
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), state.passback.notified()).await;
    }
}

async fn send(state: &Arc<State>, score: Score) {
    let id = score.id;
    let attempts = score.attempts;
    let result = post(state, score).await;
    let recorded = match result {
        Ok(()) => lti::sent(&state.db, id).await,
        Err(why) => {
            let wait = (1i64 << attempts.clamp(0, 10)).min(LONGEST);
            eprintln!("lti: score {id} not taken (try {}): {why}", attempts + 1);
            lti::not_sent(&state.db, id, &why, now() + wait).await
        }
    };
    if let Err(fault) = recorded {
        eprintln!("lti: score {id}: {fault}");
    }
}

/// Posts `score` to its line item, made first where the launch named only `lineitems`.
async fn post(state: &Arc<State>, score: Score) -> Result<(), String> {
    let platform = state.lti.clone().ok_or("the course has no [lti]")?;
    let db = &state.db;
    let link = lti::link(db, &score.student, &score.assignment)
        .await
        .map_err(|f| f.to_string())?
        .ok_or("the student's launch is no longer known")?;
    let user = lti::lms_id(db, &score.student)
        .await
        .map_err(|f| f.to_string())?
        .ok_or("the student has no id in the LMS")?;
    let made = match (&link.lineitem, &link.lineitems) {
        (Some(_), _) => None,
        (None, Some(lineitems)) => lti::made_lineitem(db, lineitems, &score.assignment)
            .await
            .map_err(|f| f.to_string())?,
        (None, None) => return Err("the launch named no line item and no line items".into()),
    };
    let title = state
        .course
        .assignment(&score.assignment)
        .map_or(score.assignment.clone(), |a| a.title.clone());
    let timestamp = chrono::DateTime::from_timestamp(score.created_at, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let body = json!({
        "userId": user,
        "scoreGiven": score.score_given,
        "scoreMaximum": score.score_maximum,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "timestamp": timestamp,
    });
    let (lineitem, lineitems) = (link.lineitem.or(made), link.lineitems);
    let under = lineitems.clone();
    let assignment = score.assignment.clone();
    let maximum = score.score_maximum;
    let (item, was_made) = tokio::task::spawn_blocking(move || {
        let item = match (lineitem, lineitems) {
            (Some(item), _) => (item, false),
            (None, Some(lineitems)) => (
                platform.lineitem_for(&lineitems, &assignment, &title, maximum)?,
                true,
            ),
            (None, None) => return Err("no line item".to_string()),
        };
        platform.post_score(&item.0, &body)?;
        Ok(item)
    })
    .await
    .map_err(|err| err.to_string())??;
    // A line item made now (the launch named only `lineitems`) is kept for the next score.
    if let (true, Some(lineitems)) = (was_made, &under) {
        lti::save_made_lineitem(db, lineitems, &score.assignment, &item)
            .await
            .map_err(|f| f.to_string())?;
    }
    Ok(())
}
