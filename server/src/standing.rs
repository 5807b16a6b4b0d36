//! Where a submission stands, decided once for every door (the students' pages, the JSON API,
//! the class, the LMS passback): which submission counts and for how much (a student's late
//! days spent over the term, oldest assignment first), who may see it and
//! which of its reports, and its status in words.

use std::collections::BTreeMap;

use xtask::report::JsonReport;

use crate::auth::Who;
use crate::course::{Assignment, Late, ShowHidden};
use crate::db::{now, submissions, Audience, Status, Sub};
use crate::error::{not_found, Fault, Reply};
use crate::state::State;
use crate::view::points;

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
        Status::Queued => match (
            submissions::waiting_before(&state.db, sub.id).await?,
            stalled(state).await?,
        ) {
            (_, Some(span)) => format!(
                "queued: grading has stalled: no submission has moved for {span} while work \
                 waits (the instructor is shown this too)"
            ),
            (0, None) => "queued: yours is next".into(),
            (n, None) => format!("queued: {n} before yours"),
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

/// How long the course's grading has stalled (work has waited past `--stall-after` and no
/// grading of any process has moved as long), in words: `6 minutes`.
pub(crate) async fn stalled(state: &State) -> Result<Option<String>, Fault> {
    let after = i64::try_from(state.watch.after().as_secs()).unwrap_or(i64::MAX);
    Ok(submissions::stalled_for(&state.db, after)
        .await?
        .map(|secs| match secs / 60 {
            0 => format!("{secs} s"),
            1 => "1 minute".to_string(),
            n => format!("{n} minutes"),
        }))
}

/// Which of a graded submission's reports `who` sees: the instructor every case whole; a
/// student the hidden cases by verdict, or not at all before their deadline (their own, where
/// they have one) where the course says so.
pub(crate) async fn audience(state: &State, who: &Who, sub: &Sub) -> Result<Audience, Fault> {
    let assignment = state.course.assignment(&sub.assignment);
    Ok(match assignment {
        _ if who.instructor() => Audience::Instructor,
        Some(a) if a.show_hidden == ShowHidden::AfterDeadline => {
            // The student's own deadline: one with an extension sees them when it has passed.
            let due = crate::db::extensions::deadline_for(&state.db, &sub.student, a).await?;
            match now() <= due.timestamp() {
                true => Audience::BeforeDeadline,
                false => Audience::Students,
            }
        }
        _ => Audience::Students,
    })
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
    let text =
        submissions::report(&state.db, sub.id, audience(state, who, sub).await?, false).await?;
    Ok(text.and_then(|text| serde_json::from_str(&text).ok()))
}

/// Whole days `created_at` is after `deadline`, a started day counting whole; 0 on time.
pub(crate) fn days_late(created_at: i64, deadline: i64) -> u32 {
    match created_at - deadline {
        ..=0 => 0,
        after => u32::try_from((after + 86_399) / 86_400).unwrap_or(u32::MAX),
    }
}

/// The submission of an assignment that counts for a student, and how.
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    pub(crate) sub: Sub,
    /// Its score as counted: lateness applied.
    pub(crate) score: f64,
    /// Days late, from the student's own deadline.
    pub(crate) days_late: u32,
    /// Late days of the student's allowance it spends.
    pub(crate) days_used: u32,
    /// Points its lateness costs.
    pub(crate) penalty: f64,
}

/// A student's term: per assignment, the submission that counts; the late days spent of
/// their allowance (none: the course gives no late days).
#[derive(Debug, Clone, Default)]
pub(crate) struct Term {
    pub(crate) counted: BTreeMap<String, Counted>,
    pub(crate) used: u32,
    pub(crate) allowance: Option<u32>,
}

/// How graded submission `sub`, `days` late, counts under `late` with `left` late days: its
/// score's factor and the late days it spends (the fewest that give that factor); none where
/// it is not counted (more days late than the assignment takes).
fn lateness(late: Late, days: u32, left: u32) -> Option<(f64, u32)> {
    match late {
        _ if days == 0 => Some((1.0, 0)),
        // Late work the assignment refused counts as it was taken (an extension since gone).
        Late::Refused => Some((1.0, 0)),
        Late::Accepted { penalty } if penalty > 0.0 && left >= days => Some((1.0, days)),
        Late::Accepted { penalty } => Some((1.0 - penalty, 0)),
        Late::PerDay {
            most_days: Some(most),
            ..
        } if days > most => None,
        Late::PerDay { penalty, .. } if penalty > 0.0 => {
            let spent = days.min(left);
            Some(((1.0 - penalty * f64::from(days - spent)).max(0.0), spent))
        }
        Late::PerDay { .. } => Some((1.0, 0)),
    }
}

/// The term of one student: `assignments` with the student's own deadline of each and their
/// submissions (newest first), their late days spent assignment by assignment, oldest
/// deadline first. Per assignment, the submission that counts is the best counted score; of
/// equals, the one that spends fewer late days, then the latest.
pub(crate) fn spend(allowance: Option<u32>, assignments: &[(&Assignment, i64, &[Sub])]) -> Term {
    let mut order: Vec<usize> = (0..assignments.len()).collect();
    order.sort_by_key(|&k| (assignments[k].0.deadline.timestamp(), k));
    let mut term = Term {
        allowance,
        ..Term::default()
    };
    for k in order {
        let (assignment, deadline, subs) = assignments[k];
        let left = allowance.unwrap_or(0).saturating_sub(term.used);
        let mut best: Option<Counted> = None;
        for sub in subs {
            let Some(score) = sub.score.filter(|_| sub.status.is_final()) else {
                continue;
            };
            let days = match sub.late {
                true => days_late(sub.created_at, deadline).max(1),
                false => 0,
            };
            let Some((factor, spent)) = lateness(assignment.late, days, left) else {
                continue;
            };
            let candidate = Counted {
                sub: sub.clone(),
                score: score * factor,
                days_late: days,
                days_used: spent,
                penalty: score - score * factor,
            };
            let better = best.as_ref().is_none_or(|b| {
                (candidate.score, std::cmp::Reverse(spent), sub.id)
                    > (b.score, std::cmp::Reverse(b.days_used), b.sub.id)
            });
            if better {
                best = Some(candidate);
            }
        }
        if let Some(best) = best {
            term.used += best.days_used;
            term.counted.insert(assignment.name.clone(), best);
        }
    }
    term
}

/// The terms of `students`, each assignment's submissions and extensions read once for all
/// (the class's pages and grades, where [`term_of`] per student would read them again and
/// again).
pub(crate) async fn terms_of(
    state: &State,
    students: &[crate::course::Student],
) -> Result<BTreeMap<String, Term>, Fault> {
    let mut subs: BTreeMap<(String, String), Vec<Sub>> = BTreeMap::new();
    let mut own: BTreeMap<(String, String), i64> = BTreeMap::new();
    for assignment in &state.course.assignments {
        // Newest first, as a student's history is.
        for sub in submissions::of_assignment(&state.db, &assignment.name).await? {
            let key = (sub.student.clone(), assignment.name.clone());
            subs.entry(key).or_default().push(sub);
        }
        for extension in crate::db::extensions::of_assignment(&state.db, &assignment.name).await? {
            let key = (extension.student, assignment.name.clone());
            own.insert(key, extension.deadline.timestamp());
        }
    }
    let mut terms = BTreeMap::new();
    for student in students {
        let assignments: Vec<(&Assignment, i64, &[Sub])> = state
            .course
            .assignments
            .iter()
            .map(|a| {
                let key = (student.id.clone(), a.name.clone());
                let due = own.get(&key).copied().unwrap_or(a.deadline.timestamp());
                (
                    a,
                    due,
                    subs.get(&key).map(Vec::as_slice).unwrap_or_default(),
                )
            })
            .collect();
        terms.insert(
            student.id.clone(),
            spend(state.course.late_days, &assignments),
        );
    }
    Ok(terms)
}

/// Student `student`'s term: every assignment's submissions and their own deadlines, read.
pub(crate) async fn term_of(state: &State, student: &str) -> Result<Term, Fault> {
    let mut read = Vec::new();
    for assignment in &state.course.assignments {
        let history = submissions::history(&state.db, student, &assignment.name).await?;
        let due = crate::db::extensions::deadline_for(&state.db, student, assignment).await?;
        read.push((assignment, due.timestamp(), history));
    }
    let assignments: Vec<(&Assignment, i64, &[Sub])> = read
        .iter()
        .map(|(a, due, history)| (*a, *due, history.as_slice()))
        .collect();
    Ok(spend(state.course.late_days, &assignments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::ShowHidden;

    const DAY: i64 = 86_400;

    fn assignment(name: &str, deadline: i64, late: Late) -> Assignment {
        Assignment {
            name: name.into(),
            title: name.into(),
            spec: "go".into(),
            cases: None,
            reference: None,
            deadline: chrono::DateTime::from_timestamp(deadline, 0)
                .unwrap()
                .fixed_offset(),
            late,
            per_hour: 10,
            languages: Vec::new(),
            hidden: Vec::new(),
            show_hidden: ShowHidden::Verdicts,
            timeout: None,
        }
    }

    /// Graded submission `id` with `score`, handed in at `at` against `deadline`.
    fn sub(id: i64, at: i64, deadline: i64, score: f64) -> Sub {
        Sub {
            id,
            student: "ada".into(),
            assignment: String::new(),
            created_at: at,
            late: at > deadline,
            status: Status::Graded,
            cases_done: 0,
            cases_total: 0,
            score: Some(score),
            max_score: Some(10.0),
            error: None,
        }
    }

    #[test]
    fn a_started_day_counts_whole() {
        assert_eq!(days_late(100, 100), 0);
        assert_eq!(days_late(99, 100), 0);
        assert_eq!(days_late(101, 100), 1);
        assert_eq!(days_late(100 + DAY, 100), 1);
        assert_eq!(days_late(101 + DAY, 100), 2);
    }

    /// 4 late days: the older assignment, 2 days late, spends 2; the newer, 4 days late,
    /// spends the other 2 and pays 10% for each of the 2 days beyond them.
    #[test]
    fn late_days_go_to_the_oldest_assignment_first_and_the_rest_is_paid_per_day() {
        let per_day = Late::PerDay {
            penalty: 0.1,
            most_days: None,
        };
        let (first, second) = (
            assignment("first", 0, per_day),
            assignment("second", DAY, per_day),
        );
        let first_subs = [sub(1, 2 * DAY - 5, 0, 10.0)];
        let second_subs = [sub(2, 5 * DAY - 5, DAY, 10.0)];
        // Given newest assignment first: the order is the deadlines'.
        let term = spend(
            Some(4),
            &[(&second, DAY, &second_subs), (&first, 0, &first_subs)],
        );
        let (a, b) = (&term.counted["first"], &term.counted["second"]);
        assert_eq!((a.days_late, a.days_used, a.score), (2, 2, 10.0));
        assert_eq!((b.days_late, b.days_used), (4, 2));
        assert!((b.score - 8.0).abs() < 1e-9 && (b.penalty - 2.0).abs() < 1e-9);
        assert_eq!(term.used, 4);
    }

    /// A flat penalty: late days are spent only where they cover every day late; a course
    /// without late days counts a late submission at `1 - penalty`, as before.
    #[test]
    fn a_flat_penalty_is_waived_only_by_enough_late_days() {
        let flat = assignment("a", 0, Late::Accepted { penalty: 0.5 });
        let subs = [sub(1, 3 * DAY - 5, 0, 8.0)];
        let short = spend(Some(2), &[(&flat, 0, &subs)]);
        assert_eq!(short.counted["a"].score, 4.0);
        assert_eq!((short.counted["a"].days_used, short.used), (0, 0));
        let enough = spend(Some(3), &[(&flat, 0, &subs)]);
        assert_eq!(enough.counted["a"].score, 8.0);
        assert_eq!(enough.used, 3);
        let none = spend(None, &[(&flat, 0, &subs)]);
        assert_eq!(none.counted["a"].score, 4.0);
        assert_eq!(none.allowance, None);
    }

    /// More days late than `late_days_max`: not counted, so an earlier on-time submission with a
    /// lower score counts; of equal scores, the one that spends no late days.
    #[test]
    fn work_too_late_is_not_counted_and_equal_scores_spend_no_late_days() {
        let capped = assignment(
            "a",
            0,
            Late::PerDay {
                penalty: 0.1,
                most_days: Some(2),
            },
        );
        let subs = [sub(2, 3 * DAY - 5, 0, 10.0), sub(1, -5, 0, 6.0)];
        let term = spend(Some(5), &[(&capped, 0, &subs)]);
        assert_eq!(term.counted["a"].sub.id, 1);
        assert_eq!(term.used, 0);
        let equal = [sub(2, DAY - 5, 0, 6.0), sub(1, -5, 0, 6.0)];
        let term = spend(Some(5), &[(&capped, 0, &equal)]);
        assert_eq!((term.counted["a"].sub.id, term.used), (1, 0));
        let only_late = [sub(2, DAY - 5, 0, 6.0)];
        let term = spend(Some(5), &[(&capped, 0, &only_late)]);
        assert_eq!((term.counted["a"].sub.id, term.used), (2, 1));
    }
}
