//! The `submissions` and `files` tables, and `gradings` (one row per recorded result): a
//! submission's life as a short list of [`Status`]es, the reports each [`Audience`] sees, and
//! every query that reads or moves them.

use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// Where a submission stands; stored as its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Queued,
    Building,
    Running,
    Graded,
    CouldNotBuild,
    CouldNotRun,
}

impl Status {
    pub(crate) const ALL: [Status; 6] = [
        Status::Queued,
        Status::Building,
        Status::Running,
        Status::Graded,
        Status::CouldNotBuild,
        Status::CouldNotRun,
    ];

    /// Its words, as the database stores them and the pages show them.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Building => "building",
            Status::Running => "running",
            Status::Graded => "graded",
            Status::CouldNotBuild => "could not build",
            Status::CouldNotRun => "could not run",
        }
    }

    /// The status stored as `words` (an unknown one reads as queued: it waits to be graded).
    pub(crate) fn parse(words: &str) -> Status {
        Status::ALL
            .into_iter()
            .find(|status| status.as_str() == words)
            .unwrap_or(Status::Queued)
    }

    /// A submission ends in one of these: its result is recorded.
    pub(crate) fn is_final(self) -> bool {
        match self {
            Status::Graded | Status::CouldNotBuild | Status::CouldNotRun => true,
            Status::Queued | Status::Building | Status::Running => false,
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a graded submission's report is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    /// The instructor: every case whole.
    Instructor,
    /// A student: the hidden cases by verdict.
    Students,
    /// A student before the deadline, where the course hides the hidden cases until then.
    BeforeDeadline,
}

impl Audience {
    /// The queries of its check --json document and of its check --html page.
    fn queries(self) -> (&'static str, &'static str) {
        match self {
            Audience::Instructor => (
                "SELECT report_full FROM submissions WHERE id = $1",
                "SELECT html_full FROM submissions WHERE id = $1",
            ),
            Audience::Students => (
                "SELECT report_students FROM submissions WHERE id = $1",
                "SELECT html_students FROM submissions WHERE id = $1",
            ),
            Audience::BeforeDeadline => (
                "SELECT report_before FROM submissions WHERE id = $1",
                "SELECT html_before FROM submissions WHERE id = $1",
            ),
        }
    }
}

/// One submission as the pages show it.
#[derive(Debug, Clone)]
pub(crate) struct Sub {
    pub(crate) id: i64,
    pub(crate) student: String,
    pub(crate) assignment: String,
    pub(crate) created_at: i64,
    pub(crate) late: bool,
    pub(crate) status: Status,
    pub(crate) cases_done: i64,
    pub(crate) cases_total: i64,
    /// Its graded score, with the points answers to its regrade requests gave (within 0 and
    /// the maximum).
    pub(crate) score: Option<f64>,
    pub(crate) max_score: Option<f64>,
    pub(crate) error: Option<String>,
}

/// `SELECT` the columns [`sub_of`] reads, in its order, `FROM submissions`.
macro_rules! select_subs {
    ($($rest:literal),*) => {
        concat!(
            "SELECT id, student, assignment, created_at, late, status, cases_done, cases_total, \
             score, max_score, error, points_given FROM submissions ",
            $($rest),*
        )
    };
}

fn sub_of(row: &sqlx::any::AnyRow) -> Sub {
    Sub {
        id: row.get(0),
        student: row.get(1),
        assignment: row.get(2),
        created_at: row.get(3),
        late: row.get::<i64, _>(4) != 0,
        status: Status::parse(&row.get::<String, _>(5)),
        cases_done: row.get(6),
        cases_total: row.get(7),
        // The points answers to regrade requests gave, within 0 and the maximum.
        score: row.get::<Option<f64>, _>(8).map(|score| {
            let given: f64 = row.get(11);
            let most = row.get::<Option<f64>, _>(9).unwrap_or(f64::INFINITY);
            (score + given).clamp(0.0, most.max(0.0))
        }),
        max_score: row.get(9),
        error: row.get(10),
    }
}

/// The submissions `query` selects, binding `binds` in order.
async fn select(db: &Db, query: &'static str, binds: &[&str]) -> Result<Vec<Sub>, Fault> {
    let mut query = sqlx::query(query);
    for bind in binds {
        query = query.bind(*bind);
    }
    Ok(query.fetch_all(db).await?.iter().map(sub_of).collect())
}

/// Submission `id`.
pub(crate) async fn by_id(db: &Db, id: i64) -> Result<Option<Sub>, Fault> {
    let query = sqlx::query(select_subs!("WHERE id = $1"));
    Ok(query
        .bind(id)
        .fetch_optional(db)
        .await?
        .as_ref()
        .map(sub_of))
}

/// Every submission of `student`, newest first.
pub(crate) async fn of_student(db: &Db, student: &str) -> Result<Vec<Sub>, Fault> {
    let query = select_subs!("WHERE student = $1 ORDER BY id DESC");
    select(db, query, &[student]).await
}

/// Every submission to `assignment`, newest first.
pub(crate) async fn of_assignment(db: &Db, assignment: &str) -> Result<Vec<Sub>, Fault> {
    let query = select_subs!("WHERE assignment = $1 ORDER BY id DESC");
    select(db, query, &[assignment]).await
}

/// The submissions of `student` to `assignment`, newest first.
pub(crate) async fn history(db: &Db, student: &str, assignment: &str) -> Result<Vec<Sub>, Fault> {
    let query = select_subs!("WHERE student = $1 AND assignment = $2 ORDER BY id DESC");
    select(db, query, &[student, assignment]).await
}

/// The check --json document (or, with `html`, the check --html page) of submission `id`
/// drawn for `audience`.
pub(crate) async fn report(
    db: &Db,
    id: i64,
    audience: Audience,
    html: bool,
) -> Result<Option<String>, Fault> {
    let (json_query, html_query) = audience.queries();
    let query = if html { html_query } else { json_query };
    Ok(sqlx::query_scalar(query).bind(id).fetch_one(db).await?)
}

/// The gradebook row (`report::Submission`, as JSON) and the causes' blocks of submission `id`.
pub(crate) async fn row_and_blocks(
    db: &Db,
    id: i64,
) -> Result<(Option<String>, Option<String>), Fault> {
    let stored = sqlx::query("SELECT row, blocks FROM submissions WHERE id = $1")
        .bind(id)
        .fetch_one(db)
        .await?;
    Ok((stored.get(0), stored.get(1)))
}

/// The submissions of submission `id`'s student that wait before it.
pub(crate) async fn waiting_before_of_same_student(db: &Db, id: i64) -> Result<i64, Fault> {
    let query = concat!(
        "SELECT COUNT(*) FROM submissions
         WHERE student = (SELECT student FROM submissions WHERE id = $1) AND id < $1 AND ",
        not_final!()
    );
    Ok(sqlx::query_scalar(query).bind(id).fetch_one(db).await?)
}

/// Notes submission `id`'s place in the fair queue: `turn`, how many of its student's own
/// submissions wait before it (`queue::enqueue`).
pub(crate) async fn set_turn(db: &Db, id: i64, turn: i64) -> Result<(), Fault> {
    sqlx::query("UPDATE submissions SET queue_turn = $1 WHERE id = $2")
        .bind(turn)
        .bind(id)
        .execute(db)
        .await?;
    Ok(())
}

/// The queued submissions the queue takes before submission `id`, in its fair order: by their
/// turn (how many of their student's own submissions waited before them), then by arrival,
/// as the queue takes them (priority first, then time). A flooding student's tenth
/// submission waits for every other student's first.
pub(crate) async fn waiting_before(db: &Db, id: i64) -> Result<i64, Fault> {
    let query = "SELECT COUNT(*) FROM submissions other, submissions mine
         WHERE mine.id = $1 AND other.status = 'queued' AND other.id <> mine.id
         AND (other.queue_turn < mine.queue_turn
              OR (other.queue_turn = mine.queue_turn AND other.id < mine.id))";
    Ok(sqlx::query_scalar(query).bind(id).fetch_one(db).await?)
}

/// The submissions to `assignment` still to grade.
pub(crate) async fn still_to_grade(db: &Db, assignment: &str) -> Result<i64, Fault> {
    let query = concat!(
        "SELECT COUNT(*) FROM submissions WHERE assignment = $1 AND ",
        not_final!()
    );
    Ok(sqlx::query_scalar(query)
        .bind(assignment)
        .fetch_one(db)
        .await?)
}

/// Puts every submission not graded yet back in the queue's state, its count of cases run
/// cleared: what a server that is the only grader of its database does at start, since no
/// grading of its earlier run is under way.
pub(crate) async fn reset_unfinished(db: &Db) -> Result<(), Fault> {
    let query = concat!(
        "UPDATE submissions SET status = 'queued', cases_done = 0, progress_at = $1 WHERE ",
        not_final!()
    );
    sqlx::query(query).bind(now()).execute(db).await?;
    Ok(())
}

/// Puts submission `id`, whose grading of `generation` was given up, back in the queue under
/// the next generation (the given-up grading, should it end, then records nothing); that
/// generation, or `None` where the submission is graded or was queued again meanwhile.
pub(crate) async fn queue_again(
    db: &Db,
    (id, generation): (i64, i64),
) -> Result<Option<i64>, Fault> {
    let query = concat!(
        "UPDATE submissions SET generation = generation + 1, status = 'queued', cases_done = 0,
         progress_at = $3 WHERE id = $1 AND generation = $2 AND ",
        not_final!(),
        " RETURNING generation"
    );
    let row = sqlx::query(query)
        .bind(id)
        .bind(generation)
        .bind(now())
        .fetch_optional(db)
        .await?;
    Ok(row.map(|row| row.get(0)))
}

/// How long the course's grading has stalled, in seconds, once it is at least `after`: a
/// submission has waited in the queue that long (since it was handed in or queued again) and
/// no grading of any process of the course has moved (started, run a case, recorded) for as
/// long. `None` while grading moves or nothing has waited that long.
pub(crate) async fn stalled_for(db: &Db, after: i64) -> Result<Option<i64>, Fault> {
    let row = sqlx::query(
        "SELECT
           (SELECT MIN(COALESCE(progress_at, created_at)) FROM submissions
            WHERE status = 'queued'),
           (SELECT MAX(progress_at) FROM submissions WHERE status <> 'queued'),
           (SELECT MAX(graded_at) FROM submissions)",
    )
    .fetch_one(db)
    .await?;
    let Some(waiting_since) = row.get::<Option<i64>, _>(0) else {
        return Ok(None);
    };
    let moved = [row.get::<Option<i64>, _>(1), row.get::<Option<i64>, _>(2)]
        .into_iter()
        .flatten()
        .fold(waiting_since, i64::max);
    let still = now() - moved;
    Ok((still >= after).then_some(still))
}

/// Every submission not graded yet, with its generation.
pub(crate) async fn unfinished(db: &Db) -> Result<Vec<(i64, i64)>, Fault> {
    let query = concat!(
        "SELECT id, generation FROM submissions WHERE ",
        not_final!()
    );
    let rows = sqlx::query(query).fetch_all(db).await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// What the database holds of a submission while it waits for a grading.
pub(crate) struct Waiting {
    pub(crate) student: String,
    pub(crate) assignment: String,
    pub(crate) old_row: Option<String>,
    pub(crate) old_score: Option<f64>,
}

/// Submission `id` if it still waits for the grading of `generation`: none once it is graded,
/// or a regrade made that generation stale.
pub(crate) async fn waiting(db: &Db, id: i64, generation: i64) -> Result<Option<Waiting>, Fault> {
    let row = sqlx::query(
        "SELECT student, assignment, status, generation, row, score FROM submissions WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(db)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let status = Status::parse(&row.get::<String, _>(2));
    if row.get::<i64, _>(3) != generation || status.is_final() {
        return Ok(None);
    }
    Ok(Some(Waiting {
        student: row.get(0),
        assignment: row.get(1),
        old_row: row.get(4),
        old_score: row.get(5),
    }))
}

/// Moves submission `id` (of `generation`, not final yet) to `status`, with `total` cases.
pub(crate) async fn set_status(
    db: &Db,
    (id, generation): (i64, i64),
    status: Status,
    total: u64,
) -> Result<(), Fault> {
    // A grading (re)started counts its cases from none.
    let query = concat!(
        "UPDATE submissions SET status = $1, cases_total = $2, progress_at = $5,
         cases_done = CASE WHEN $1 = 'building' THEN 0 ELSE cases_done END
         WHERE id = $3 AND generation = $4 AND ",
        not_final!()
    );
    sqlx::query(query)
        .bind(status.as_str())
        .bind(total as i64)
        .bind(id)
        .bind(generation)
        .bind(now())
        .execute(db)
        .await?;
    Ok(())
}

/// Records that `done` cases of submission `id` (of `generation`, being graded) have run; a
/// count older than the one stored is left alone.
pub(crate) async fn set_done(
    db: &Db,
    (id, generation): (i64, i64),
    done: u64,
) -> Result<(), Fault> {
    sqlx::query(
        "UPDATE submissions SET cases_done = $1, progress_at = $4 WHERE id = $2
         AND generation = $3 AND status = 'running' AND cases_done < $1",
    )
    .bind(done as i64)
    .bind(id)
    .bind(generation)
    .bind(now())
    .execute(db)
    .await?;
    Ok(())
}

/// The names and hashes of submission `id`'s files, by name.
pub(crate) async fn files(db: &Db, id: i64) -> Result<Vec<(String, String)>, sqlx::Error> {
    let rows = sqlx::query("SELECT name, hash FROM files WHERE submission = $1 ORDER BY name")
        .bind(id)
        .fetch_all(db)
        .await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// A new submission: whose, to what, when, and its files (name and bytes).
pub(crate) struct New<'a> {
    pub(crate) student: &'a str,
    pub(crate) assignment: &'a str,
    pub(crate) at: i64,
    pub(crate) late: bool,
    /// Submissions allowed per hour: one past them is not inserted.
    pub(crate) per_hour: u32,
    pub(crate) files: &'a [(String, Vec<u8>)],
}

/// Inserts `new` with its files in one transaction, queued; none when the student has handed
/// in `per_hour` times in the last hour. One statement counts and inserts, under a lock per
/// student and assignment: two uploads at once cannot both take the last place.
pub(crate) async fn insert(db: &Db, new: &New<'_>) -> Result<Option<i64>, Fault> {
    let mut tx = db.begin().await?;
    // PostgreSQL runs concurrent transactions side by side, each counting before the others
    // commit: one lock per student and assignment, held to the commit, serializes them.
    // SQLite already writes one transaction at a time.
    if tx.backend_name() == "PostgreSQL" {
        sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))::text")
            .bind(format!("{}/{}", new.student, new.assignment))
            .execute(&mut *tx)
            .await?;
    }
    let inserted: Option<i64> = sqlx::query_scalar(
        "INSERT INTO submissions (student, assignment, created_at, late, status)
         SELECT $1, $2, $3, $4, 'queued'
         WHERE (SELECT COUNT(*) FROM submissions WHERE student = $1 AND assignment = $2 AND created_at > $3 - 3600) < $5
         RETURNING id",
    )
    .bind(new.student)
    .bind(new.assignment)
    .bind(new.at)
    .bind(i64::from(new.late))
    .bind(new.per_hour as i64)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(id) = inserted else {
        return Ok(None);
    };
    // The bytes live in the database, once per hash, committed with the submission: a worker
    // on any machine reads them from there.
    for (file, bytes) in new.files {
        let hash = super::blobs::hash(bytes);
        super::blobs::put(&mut tx, &hash, bytes).await?;
        sqlx::query("INSERT INTO files (submission, name, hash, size) VALUES ($1, $2, $3, $4)")
            .bind(id)
            .bind(file)
            .bind(&hash)
            .bind(bytes.len() as i64)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(Some(id))
}

/// When `student`'s next submission to `assignment` is allowed: an hour after the oldest of
/// the last `per_hour`.
pub(crate) async fn next_allowed(
    db: &Db,
    student: &str,
    assignment: &str,
    per_hour: u32,
) -> Result<i64, Fault> {
    let at = now();
    let oldest: Option<i64> = sqlx::query_scalar(
        "SELECT created_at FROM submissions WHERE student = $1 AND assignment = $2 AND created_at > $3 - 3600
         ORDER BY created_at DESC LIMIT 1 OFFSET $4",
    )
    .bind(student)
    .bind(assignment)
    .bind(at)
    .bind(per_hour as i64 - 1)
    .fetch_optional(db)
    .await?;
    Ok(oldest.map_or(at, |oldest| oldest + 3600))
}
