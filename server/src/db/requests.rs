//! The `requests` table: regrade requests, a student's question about one case of their
//! submission and the instructor's one answer, whose points go to that submission
//! (`submissions.points_given`, apart from its graded score, so that a regrade keeps them).

use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// A request, open or answered, with its submission's student and assignment.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) id: i64,
    pub(crate) submission: i64,
    pub(crate) student: String,
    pub(crate) assignment: String,
    pub(crate) case: String,
    pub(crate) text: String,
    pub(crate) created_at: i64,
    pub(crate) answer: Option<Answer>,
}

/// The instructor's answer to a request.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) points: f64,
    pub(crate) by: String,
    pub(crate) at: i64,
}

/// `SELECT` the columns [`request_of`] reads, in its order, then `rest`.
macro_rules! select_requests {
    ($rest:literal) => {
        concat!(
            "SELECT r.id, r.submission, s.student, s.assignment, r.case_id, r.text, \
             r.created_at, r.answer, r.points, r.answered_by, r.answered_at \
             FROM requests r JOIN submissions s ON s.id = r.submission ",
            $rest
        )
    };
}

fn request_of(row: &sqlx::any::AnyRow) -> Request {
    Request {
        id: row.get(0),
        submission: row.get(1),
        student: row.get(2),
        assignment: row.get(3),
        case: row.get(4),
        text: row.get(5),
        created_at: row.get(6),
        answer: row.get::<Option<String>, _>(7).map(|text| Answer {
            text,
            points: row.get::<Option<f64>, _>(8).unwrap_or(0.0),
            by: row.get::<Option<String>, _>(9).unwrap_or_default(),
            at: row.get::<Option<i64>, _>(10).unwrap_or_default(),
        }),
    }
}

/// Opens a request about `case` of submission `submission`: its id, or none where one about
/// that case is open already.
pub(crate) async fn open(
    db: &Db,
    submission: i64,
    case: &str,
    text: &str,
) -> Result<Option<i64>, Fault> {
    // The unique index of open requests decides a race between two at once.
    let inserted = sqlx::query(
        "INSERT INTO requests (submission, case_id, text, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING id",
    )
    .bind(submission)
    .bind(case)
    .bind(text)
    .bind(now())
    .fetch_optional(db)
    .await?;
    Ok(inserted.map(|row| row.get(0)))
}

/// The open requests of the course, oldest first.
pub(crate) async fn open_ones(db: &Db) -> Result<Vec<Request>, Fault> {
    let query = select_requests!("WHERE r.answer IS NULL ORDER BY r.id");
    let rows = sqlx::query(query).fetch_all(db).await?;
    Ok(rows.iter().map(request_of).collect())
}

/// Every request about submission `submission`, oldest first.
pub(crate) async fn of_submission(db: &Db, submission: i64) -> Result<Vec<Request>, Fault> {
    let query = select_requests!("WHERE r.submission = $1 ORDER BY r.id");
    let rows = sqlx::query(query).bind(submission).fetch_all(db).await?;
    Ok(rows.iter().map(request_of).collect())
}

/// The answered requests of `assignment`, newest answer first (the regrades page's).
pub(crate) async fn answered(db: &Db, assignment: &str) -> Result<Vec<Request>, Fault> {
    let query = select_requests!(
        "WHERE s.assignment = $1 AND r.answer IS NOT NULL ORDER BY r.answered_at DESC, r.id DESC"
    );
    let rows = sqlx::query(query).bind(assignment).fetch_all(db).await?;
    Ok(rows.iter().map(request_of).collect())
}

/// Request `id`, if it exists.
pub(crate) async fn by_id(db: &Db, id: i64) -> Result<Option<Request>, Fault> {
    let query = select_requests!("WHERE r.id = $1");
    let row = sqlx::query(query).bind(id).fetch_optional(db).await?;
    Ok(row.as_ref().map(request_of))
}

/// Answers open request `id` with `text` and `points` (given to its submission), by `by`, in
/// one transaction: whether it was open (an answered one is never answered again).
pub(crate) async fn answer(
    db: &Db,
    id: i64,
    text: &str,
    points: f64,
    by: &str,
) -> Result<bool, Fault> {
    let mut tx = db.begin().await?;
    let answered = sqlx::query(
        "UPDATE requests SET answer = $1, points = $2, answered_by = $3, answered_at = $4
         WHERE id = $5 AND answer IS NULL RETURNING submission",
    )
    .bind(text)
    .bind(points)
    .bind(by)
    .bind(now())
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = answered else {
        return Ok(false);
    };
    sqlx::query("UPDATE submissions SET points_given = points_given + $1 WHERE id = $2")
        .bind(points)
        .bind(row.get::<i64, _>(0))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
