//! The `regrades` and `regrade_changes` tables: each regrade of an assignment, and whose score
//! it moved and why.

use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// A score a regrade moved.
pub(crate) struct Change<'a> {
    pub(crate) assignment: &'a str,
    pub(crate) student: &'a str,
    pub(crate) old_score: Option<f64>,
    pub(crate) new_score: f64,
    pub(crate) why: String,
}

/// Opens a regrade of `assignment` in one transaction: each submission's generation moves on
/// and it waits again (its old score kept, to say what moved). The submissions and their new
/// generations, to queue.
pub(crate) async fn start(db: &Db, assignment: &str) -> Result<Vec<(i64, i64)>, Fault> {
    let mut tx = db.begin().await?;
    sqlx::query("INSERT INTO regrades (assignment, at) VALUES ($1, $2)")
        .bind(assignment)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    let rows = sqlx::query(
        "UPDATE submissions SET generation = generation + 1, status = 'queued', cases_done = 0,
         progress_at = $2 WHERE assignment = $1 RETURNING id, generation",
    )
    .bind(assignment)
    .bind(now())
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// Notes, under the assignment's latest regrade, that it moved submission `id`'s score.
pub(crate) async fn note(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
    change: &Change<'_>,
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO regrade_changes (regrade, submission, student, old_score, new_score, why)
         VALUES ((SELECT MAX(id) FROM regrades WHERE assignment = $1), $2, $3, $4, $5, $6)",
    )
    .bind(change.assignment)
    .bind(id)
    .bind(change.student)
    .bind(change.old_score)
    .bind(change.new_score)
    .bind(&change.why)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// One regrade, with one score it moved (none: it moved no score).
pub(crate) struct Regrade {
    pub(crate) regrade: i64,
    pub(crate) at: i64,
    pub(crate) moved: Option<Moved>,
}

/// A score a regrade moved, as the audit lists it.
pub(crate) struct Moved {
    pub(crate) student: String,
    pub(crate) submission: i64,
    pub(crate) old_score: Option<f64>,
    pub(crate) new_score: Option<f64>,
    pub(crate) why: String,
}

/// Every regrade of `assignment`, newest first, each with the scores it moved.
pub(crate) async fn audit(db: &Db, assignment: &str) -> Result<Vec<Regrade>, Fault> {
    let rows = sqlx::query(
        "SELECT regrades.id, regrades.at, c.student, c.submission, c.old_score, c.new_score, c.why
         FROM regrades LEFT JOIN regrade_changes c ON c.regrade = regrades.id
         WHERE regrades.assignment = $1 ORDER BY regrades.id DESC, c.student",
    )
    .bind(assignment)
    .fetch_all(db)
    .await?;
    Ok(rows
        .iter()
        .map(|row| Regrade {
            regrade: row.get(0),
            at: row.get(1),
            moved: row.get::<Option<String>, _>(2).map(|student| Moved {
                student,
                submission: row.get(3),
                old_score: row.get(4),
                new_score: row.get(5),
                why: row.get(6),
            }),
        })
        .collect())
}
