//! The `extensions` table: a student's own deadline for an assignment, from `extensions.csv`
//! (replaced whole each time the file is read) or granted on the instructor's pages and
//! through the API. Every change marks the student's submissions of that assignment late or
//! on time again against the deadline that now holds, in the same transaction: a submission's
//! `late` is what every door reads.

use chrono::{DateTime, FixedOffset};
use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// Where a student's own deadline came from.
pub(crate) const FROM_FILE: &str = "file";
pub(crate) const GRANTED: &str = "granted";

/// One student's own deadline for one assignment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Extension {
    pub(crate) student: String,
    pub(crate) assignment: String,
    pub(crate) deadline: DateTime<FixedOffset>,
    /// [`FROM_FILE`] or [`GRANTED`].
    pub(crate) source: String,
}

/// The deadline that holds for `student` on `assignment`: their own, else the assignment's.
pub(crate) async fn deadline_for(
    pool: &Db,
    student: &str,
    assignment: &crate::course::Assignment,
) -> Result<DateTime<FixedOffset>, Fault> {
    Ok(of(pool, student, &assignment.name)
        .await?
        .unwrap_or(assignment.deadline))
}

/// `student`'s own deadline for `assignment`, if they have one.
pub(crate) async fn of(
    pool: &Db,
    student: &str,
    assignment: &str,
) -> Result<Option<DateTime<FixedOffset>>, Fault> {
    let row = sqlx::query("SELECT deadline FROM extensions WHERE student = $1 AND assignment = $2")
        .bind(student)
        .bind(assignment)
        .fetch_optional(pool)
        .await?;
    Ok(row.and_then(|row| parse(&row.get::<String, _>(0))))
}

/// Every extension of `assignment`, by student.
pub(crate) async fn of_assignment(pool: &Db, assignment: &str) -> Result<Vec<Extension>, Fault> {
    let rows = sqlx::query(
        "SELECT student, deadline, source FROM extensions WHERE assignment = $1 ORDER BY student",
    )
    .bind(assignment)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            Some(Extension {
                student: row.get(0),
                assignment: assignment.to_string(),
                deadline: parse(&row.get::<String, _>(1))?,
                source: row.get(2),
            })
        })
        .collect())
}

/// Grants `student` the deadline `deadline` for `assignment` (in place of any they had);
/// `class_deadline` is the assignment's own, for [`mark_late`].
pub(crate) async fn grant(
    pool: &Db,
    extension: &Extension,
    class_deadline: i64,
) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    upsert(&mut tx, extension).await?;
    mark_late(
        &mut tx,
        &extension.student,
        &extension.assignment,
        class_deadline,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Takes `student`'s own deadline for `assignment` away: whether they had one.
pub(crate) async fn remove(
    pool: &Db,
    student: &str,
    assignment: &str,
    class_deadline: i64,
) -> Result<bool, Fault> {
    let mut tx = pool.begin().await?;
    let removed = sqlx::query("DELETE FROM extensions WHERE student = $1 AND assignment = $2")
        .bind(student)
        .bind(assignment)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        > 0;
    mark_late(&mut tx, student, assignment, class_deadline).await?;
    tx.commit().await?;
    Ok(removed)
}

/// Makes the extensions of the file `rows`: the file's earlier rows that it no longer holds
/// go, its rows replace any grant for the same student and assignment. One transaction: a
/// file is applied whole or not at all. `class_deadline` gives each assignment's own. The
/// students and assignments it touched, whose submissions it marked again.
pub(crate) async fn replace_file(
    pool: &Db,
    rows: &[Extension],
    class_deadline: impl Fn(&str) -> Option<i64>,
) -> Result<Vec<(String, String)>, Fault> {
    let mut tx = pool.begin().await?;
    let before = sqlx::query("SELECT student, assignment FROM extensions WHERE source = $1")
        .bind(FROM_FILE)
        .fetch_all(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM extensions WHERE source = $1")
        .bind(FROM_FILE)
        .execute(&mut *tx)
        .await?;
    let mut touched: Vec<(String, String)> = before
        .into_iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    for row in rows {
        upsert(&mut tx, row).await?;
        touched.push((row.student.clone(), row.assignment.clone()));
    }
    touched.sort();
    touched.dedup();
    for (student, assignment) in &touched {
        if let Some(deadline) = class_deadline(assignment) {
            mark_late(&mut tx, student, assignment, deadline).await?;
        }
    }
    tx.commit().await?;
    Ok(touched)
}

async fn upsert(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    extension: &Extension,
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO extensions (student, assignment, deadline, deadline_at, source, granted_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT(student, assignment) DO UPDATE SET deadline = excluded.deadline,
         deadline_at = excluded.deadline_at, source = excluded.source,
         granted_at = excluded.granted_at",
    )
    .bind(&extension.student)
    .bind(&extension.assignment)
    .bind(extension.deadline.to_rfc3339())
    .bind(extension.deadline.timestamp())
    .bind(&extension.source)
    .bind(now())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Marks `student`'s submissions of `assignment` late or on time against the deadline that
/// holds for them now: their own, else `class_deadline`.
async fn mark_late(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    student: &str,
    assignment: &str,
    class_deadline: i64,
) -> Result<(), Fault> {
    sqlx::query(
        "UPDATE submissions SET late = CASE WHEN created_at > COALESCE(
             (SELECT deadline_at FROM extensions WHERE student = $1 AND assignment = $2), $3)
         THEN 1 ELSE 0 END
         WHERE student = $1 AND assignment = $2",
    )
    .bind(student)
    .bind(assignment)
    .bind(class_deadline)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

fn parse(text: &str) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(text).ok()
}
