//! Recording a grading's result: the submission's row updated only while it still waits for
//! that generation, and a row in `gradings`, whose key refuses a second result outright (the
//! second line of defence, after the status the update waits for); with a regrade, the change
//! of score noted in the same transaction.

use super::{now, regrades, Db, Status};
use crate::error::Fault;

/// The reports a graded submission is shown by, each drawn once.
#[derive(Default)]
pub(crate) struct Reports {
    pub(crate) full: Option<String>,
    pub(crate) students: Option<String>,
    pub(crate) before: Option<String>,
    pub(crate) html_full: Option<String>,
    pub(crate) html_students: Option<String>,
    pub(crate) html_before: Option<String>,
}

/// What a grading came to, as the submission's row keeps it.
pub(crate) struct Outcome {
    pub(crate) status: Status,
    pub(crate) score: f64,
    pub(crate) max_score: f64,
    pub(crate) error: Option<String>,
    /// The gradebook row (`report::Submission`) and the causes' blocks, as JSON.
    pub(crate) row: String,
    pub(crate) blocks: String,
    pub(crate) reports: Reports,
}

/// Records that submission `id` could not be graded (`status`, and `why`).
pub(crate) async fn record_failure(
    db: &Db,
    (id, generation): (i64, i64),
    status: Status,
    why: &str,
) -> Result<(), Fault> {
    let update = sqlx::query(concat!(
        "UPDATE submissions SET status = $1, error = $2, score = 0, graded_at = $3
         WHERE id = $4 AND generation = $5 AND ",
        not_final!()
    ))
    .bind(status.as_str())
    .bind(why)
    .bind(now());
    write_once(db, (id, generation), update, None).await
}

/// Records the result of grading submission `id`; with a regrade (a generation past the
/// first) whose score moved, the change and `why` (called only then: `why` is worked out from
/// the old row by the caller).
pub(crate) async fn record(
    db: &Db,
    (id, generation): (i64, i64),
    outcome: &Outcome,
    moved: Option<regrades::Change<'_>>,
) -> Result<(), Fault> {
    let reports = &outcome.reports;
    let update = sqlx::query(concat!(
        "UPDATE submissions SET status = $1, score = $2, max_score = $3, error = $4, graded_at = $5,
         row = $6, blocks = $7, report_full = $8, report_students = $9, report_before = $10,
         html_full = $11, html_students = $12, html_before = $13, cases_done = cases_total
         WHERE id = $14 AND generation = $15 AND ",
        not_final!()
    ))
    .bind(outcome.status.as_str())
    .bind(outcome.score)
    .bind(outcome.max_score)
    .bind(&outcome.error)
    .bind(now())
    .bind(&outcome.row)
    .bind(&outcome.blocks)
    .bind(&reports.full)
    .bind(&reports.students)
    .bind(&reports.before)
    .bind(&reports.html_full)
    .bind(&reports.html_students)
    .bind(&reports.html_before);
    write_once(db, (id, generation), update, moved).await
}

/// The guarded tail of both records: `update` (whose last two placeholders are the id and the
/// generation, and which writes only while the submission still waits for that generation)
/// run in a transaction, then, where it wrote the row, the grading noted as recorded and a
/// regrade's change of score beside it.
async fn write_once<'q>(
    db: &Db,
    (id, generation): (i64, i64),
    update: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    moved: Option<regrades::Change<'_>>,
) -> Result<(), Fault> {
    let mut tx = db.begin().await?;
    let written = update
        .bind(id)
        .bind(generation)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if written == 1 {
        recorded(&mut tx, (id, generation)).await?;
        if let Some(change) = moved.filter(|_| generation > 0) {
            regrades::note(&mut tx, id, &change).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Notes the result of the grading as recorded.
async fn recorded(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    (id, generation): (i64, i64),
) -> Result<(), Fault> {
    sqlx::query("INSERT INTO gradings (submission, generation, recorded_at) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(generation)
        .bind(now())
        .execute(&mut **tx)
        .await?;
    Ok(())
}
