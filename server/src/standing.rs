//! Where a submission stands, decided once for every door (the students' pages, the JSON API,
//! the class, the LMS passback): which submission counts and for how much, who may see it and
//! which of its reports, and its status in words.

use xtask::report::JsonReport;

use crate::auth::Who;
use crate::course::{Assignment, Late, ShowHidden};
use crate::db::{now, submissions, Audience, Status, Sub};
use crate::error::{not_found, Fault, Reply};
use crate::state::State;
use crate::view::points;

/// `sub`'s score as it counts for `assignment`: a late one's times `1 - penalty`; none
/// before it is graded.
pub(crate) fn counted(sub: &Sub, assignment: &Assignment) -> Option<f64> {
    let score = sub.score.filter(|_| sub.status.is_final())?;
    Some(match (sub.late, assignment.late) {
        (true, Late::Accepted { penalty }) => score * (1.0 - penalty),
        _ => score,
    })
}

/// Submission `id` if `who` may see it (the student's own, or any for the instructor): else
/// not found, the same answer as for an id that does not exist.
pub(crate) async fn visible(state: &State, who: &Who, id: i64) -> Result<Sub, Reply> {
    match submissions::by_id(&state.db, id).await? {
        Some(sub) if who.instructor() || who.student.as_ref() == Some(&sub.student) => Ok(sub),
        _ => Err(not_found()),
    }
}

/// Where a submission stands, in words.
pub(crate) async fn status_text(state: &State, sub: &Sub) -> Result<String, Fault> {
    if let Some((status, done, total)) = state.live.get(sub.id) {
        return Ok(match status {
            Status::Running => format!("running: case {} of {total}", (done + 1).min(total)),
            other => other.to_string(),
        });
    }
    Ok(match sub.status {
        Status::Queued => match submissions::waiting_before(&state.db, sub.id).await? {
            0 => "queued: yours is next".into(),
            n => format!("queued: {n} before yours"),
        },
        Status::Running => format!(
            "running: case {} of {}",
            sub.cases_done + 1,
            sub.cases_total
        ),
        Status::Graded => format!(
            "graded: {} of {} points",
            points(sub.score),
            points(sub.max_score)
        ),
        other => other.to_string(),
    })
}

/// Which of a graded submission's reports `who` sees: the instructor every case whole; a
/// student the hidden cases by verdict, or not at all before the deadline where the course
/// says so.
pub(crate) fn audience(state: &State, who: &Who, sub: &Sub) -> Audience {
    let assignment = state.course.assignment(&sub.assignment);
    match assignment {
        _ if who.instructor() => Audience::Instructor,
        Some(a)
            if a.show_hidden == ShowHidden::AfterDeadline && now() <= a.deadline.timestamp() =>
        {
            Audience::BeforeDeadline
        }
        _ => Audience::Students,
    }
}

/// The check --json document of graded submission `sub` that `who` sees; none before it is
/// graded.
pub(crate) async fn report_of(
    state: &State,
    who: &Who,
    sub: &Sub,
) -> Result<Option<JsonReport>, Fault> {
    if !sub.status.is_final() {
        return Ok(None);
    }
    let text = submissions::report(&state.db, sub.id, audience(state, who, sub), false).await?;
    Ok(text.and_then(|text| serde_json::from_str(&text).ok()))
}

/// The submission that counts: the best counted score, the latest of equals.
pub(crate) fn chosen<'a>(subs: &'a [Sub], assignment: &Assignment) -> Option<&'a Sub> {
    subs.iter()
        .filter(|s| counted(s, assignment).is_some())
        .fold(None, |best: Option<&Sub>, s| match best {
            Some(b) if counted(b, assignment) >= counted(s, assignment) => Some(b),
            _ => Some(s),
        })
}
