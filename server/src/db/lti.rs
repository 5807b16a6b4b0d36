//! The LTI tables: the login flows under way (`lti_states`), the students the LMS named
//! (`students.lms_id`), each student's link to an assignment's line item (`lti_links`), the
//! line items the server made (`lti_lineitems`), and the scores to post (`lti_scores`, one per
//! grading, kept until the platform took them).

use sqlx::Row;

use super::{now, Db};
use crate::course::Student;
use crate::error::Fault;

/// Login flows under way at most: a flood of login initiations fills no disk.
const STATES_UNDER_WAY: i64 = 20_000;

/// Stores a login flow's `state` (its SHA-256) and the `nonce` its launch must carry; false
/// where too many flows are under way.
pub(crate) async fn save_state(pool: &Db, state_hash: &str, nonce: &str) -> Result<bool, Fault> {
    // Flows older than an hour were never finished: they go.
    sqlx::query("DELETE FROM lti_states WHERE created_at < $1")
        .bind(now() - 3600)
        .execute(pool)
        .await?;
    let under_way: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM lti_states")
        .fetch_one(pool)
        .await?;
    if under_way >= STATES_UNDER_WAY {
        return Ok(false);
    }
    sqlx::query("INSERT INTO lti_states (state, nonce, created_at) VALUES ($1, $2, $3)")
        .bind(state_hash)
        .bind(nonce)
        .bind(now())
        .execute(pool)
        .await?;
    Ok(true)
}

/// Takes the flow stored as `state_hash` (once: a second take finds nothing): its nonce and
/// when it began.
pub(crate) async fn take_state(
    pool: &Db,
    state_hash: &str,
) -> Result<Option<(String, i64)>, Fault> {
    let row = sqlx::query("DELETE FROM lti_states WHERE state = $1 RETURNING nonce, created_at")
        .bind(state_hash)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|row| (row.get(0), row.get(1))))
}

/// The student the LMS knows as `lms_id`, else the one of the roster with `email`.
pub(crate) async fn student_of(
    pool: &Db,
    lms_id: &str,
    email: &str,
) -> Result<Option<String>, Fault> {
    let by_id = sqlx::query("SELECT id FROM students WHERE lms_id = $1")
        .bind(lms_id)
        .fetch_optional(pool)
        .await?;
    if let Some(row) = by_id {
        return Ok(Some(row.get(0)));
    }
    if email.is_empty() {
        return Ok(None);
    }
    let by_email = sqlx::query("SELECT id FROM students WHERE email = $1 AND lms_id IS NULL")
        .bind(email)
        .fetch_optional(pool)
        .await?;
    Ok(by_email.map(|row| row.get(0)))
}

/// Adds or updates student `id` as the LMS names them (`role`: student or instructor).
pub(crate) async fn upsert_student(
    pool: &Db,
    student: &Student,
    lms_id: &str,
    role: &str,
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO students (id, name, email, lms_id, lms_role) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email,
         lms_id = excluded.lms_id, lms_role = excluded.lms_role",
    )
    .bind(&student.id)
    .bind(&student.name)
    .bind(&student.email)
    .bind(lms_id)
    .bind(role)
    .execute(pool)
    .await?;
    Ok(())
}

/// The students the LMS named as students (by a launch or its roster), by name.
pub(crate) async fn lms_students(pool: &Db) -> Result<Vec<Student>, Fault> {
    let rows = sqlx::query(
        "SELECT id, name, email FROM students WHERE lms_role = 'student' ORDER BY name, id",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| Student {
            id: row.get(0),
            name: row.get(1),
            email: row.get(2),
        })
        .collect())
}

/// Student `id` as the database has them.
pub(crate) async fn student(pool: &Db, id: &str) -> Result<Option<Student>, Fault> {
    let row = sqlx::query("SELECT id, name, email FROM students WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|row| Student {
        id: row.get(0),
        name: row.get(1),
        email: row.get(2),
    }))
}

/// The LMS's id of student `id`.
pub(crate) async fn lms_id(pool: &Db, id: &str) -> Result<Option<String>, Fault> {
    let row = sqlx::query("SELECT lms_id FROM students WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(row.and_then(|row| row.get(0)))
}

/// Where a student's launch of an assignment said its grade goes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Link {
    pub(crate) lineitem: Option<String>,
    pub(crate) lineitems: Option<String>,
    pub(crate) memberships: Option<String>,
}

pub(crate) async fn save_link(
    pool: &Db,
    student: &str,
    assignment: &str,
    link: &Link,
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO lti_links (student, assignment, lineitem, lineitems, memberships, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT(student, assignment) DO UPDATE SET lineitem = excluded.lineitem,
         lineitems = excluded.lineitems, memberships = excluded.memberships,
         updated_at = excluded.updated_at",
    )
    .bind(student)
    .bind(assignment)
    .bind(&link.lineitem)
    .bind(&link.lineitems)
    .bind(&link.memberships)
    .bind(now())
    .execute(pool)
    .await?;
    Ok(())
}

pub(crate) async fn link(
    pool: &Db,
    student: &str,
    assignment: &str,
) -> Result<Option<Link>, Fault> {
    let row = sqlx::query(
        "SELECT lineitem, lineitems, memberships FROM lti_links
         WHERE student = $1 AND assignment = $2",
    )
    .bind(student)
    .bind(assignment)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| Link {
        lineitem: row.get(0),
        lineitems: row.get(1),
        memberships: row.get(2),
    }))
}

/// The line item the server made for `assignment` under `lineitems`.
pub(crate) async fn made_lineitem(
    pool: &Db,
    lineitems: &str,
    assignment: &str,
) -> Result<Option<String>, Fault> {
    let row =
        sqlx::query("SELECT lineitem FROM lti_lineitems WHERE lineitems = $1 AND assignment = $2")
            .bind(lineitems)
            .bind(assignment)
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|row| row.get(0)))
}

pub(crate) async fn save_made_lineitem(
    pool: &Db,
    lineitems: &str,
    assignment: &str,
    lineitem: &str,
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO lti_lineitems (lineitems, assignment, lineitem) VALUES ($1, $2, $3)
         ON CONFLICT(lineitems, assignment) DO NOTHING",
    )
    .bind(lineitems)
    .bind(assignment)
    .bind(lineitem)
    .execute(pool)
    .await?;
    Ok(())
}

/// A score to post: the grade a grading left the student with.
#[derive(Debug, Clone)]
pub(crate) struct Score {
    pub(crate) id: i64,
    pub(crate) student: String,
    pub(crate) assignment: String,
    pub(crate) score_given: f64,
    pub(crate) score_maximum: f64,
    pub(crate) created_at: i64,
    pub(crate) attempts: i64,
}

/// Queues the score of grading `(submission, generation)`, once: the same grading again is
/// no new score.
pub(crate) async fn queue_score(
    pool: &Db,
    (submission, generation): (i64, i64),
    student: &str,
    assignment: &str,
    (given, maximum): (f64, f64),
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO lti_scores (submission, generation, student, assignment, score_given,
         score_maximum, created_at, next_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT(submission, generation) DO NOTHING",
    )
    .bind(submission)
    .bind(generation)
    .bind(student)
    .bind(assignment)
    .bind(given)
    .bind(maximum)
    .bind(now())
    .execute(pool)
    .await?;
    Ok(())
}

/// Scores due to be posted now, oldest first, each claimed by this process for `hold`
/// seconds (another process's claim is left alone).
pub(crate) async fn claim_due(pool: &Db, hold: i64, limit: i64) -> Result<Vec<Score>, Fault> {
    let at = now();
    let rows = sqlx::query(
        "SELECT id, student, assignment, score_given, score_maximum, created_at, attempts
         FROM lti_scores WHERE sent_at IS NULL AND next_at <= $1 AND claimed_until <= $1
         ORDER BY id LIMIT $2",
    )
    .bind(at)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    let mut claimed = Vec::new();
    for row in rows {
        let score = Score {
            id: row.get(0),
            student: row.get(1),
            assignment: row.get(2),
            score_given: row.get(3),
            score_maximum: row.get(4),
            created_at: row.get(5),
            attempts: row.get(6),
        };
        let taken = sqlx::query(
            "UPDATE lti_scores SET claimed_until = $1 WHERE id = $2 AND claimed_until <= $3
             AND sent_at IS NULL",
        )
        .bind(at + hold)
        .bind(score.id)
        .bind(at)
        .execute(pool)
        .await?
        .rows_affected();
        if taken == 1 {
            claimed.push(score);
        }
    }
    Ok(claimed)
}

/// Score `id` was taken by the platform.
pub(crate) async fn sent(pool: &Db, id: i64) -> Result<(), Fault> {
    sqlx::query(
        "UPDATE lti_scores SET sent_at = $1, claimed_until = 0, last_error = NULL,
         attempts = attempts + 1 WHERE id = $2",
    )
    .bind(now())
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// Score `id` was not taken (`why`); it is tried again at `next_at`.
pub(crate) async fn not_sent(pool: &Db, id: i64, why: &str, next_at: i64) -> Result<(), Fault> {
    sqlx::query(
        "UPDATE lti_scores SET last_error = $1, next_at = $2, claimed_until = 0,
         attempts = attempts + 1 WHERE id = $3",
    )
    .bind(why)
    .bind(next_at)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// Where each student's latest score of `assignment` stands: (student, sent at, attempts,
/// the last error).
pub(crate) async fn passback_states(
    pool: &Db,
    assignment: &str,
) -> Result<Vec<(String, Option<i64>, i64, Option<String>)>, Fault> {
    let rows = sqlx::query(
        "SELECT student, sent_at, attempts, last_error FROM lti_scores s WHERE assignment = $1
         AND id = (SELECT MAX(id) FROM lti_scores t WHERE t.student = s.student
         AND t.assignment = s.assignment)",
    )
    .bind(assignment)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3)))
        .collect())
}

/// The roster service's address the latest launch named.
pub(crate) async fn memberships(pool: &Db) -> Result<Option<String>, Fault> {
    let row = sqlx::query("SELECT url FROM lti_services WHERE name = 'memberships'")
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|row| row.get(0)))
}

pub(crate) async fn save_memberships(pool: &Db, url: &str) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO lti_services (name, url, updated_at) VALUES ('memberships', $1, $2)
         ON CONFLICT(name) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at",
    )
    .bind(url)
    .bind(now())
    .execute(pool)
    .await?;
    Ok(())
}
