//! The durable queue of gradings: apalis's SQLite backend (in `queue.db`, beside the course's
//! file: see `db::connect`) or PostgreSQL backend (in the course's database), one job per
//! submission and generation (its idempotency key: the same one pushed
//! again is no new job). A worker sends a heartbeat every 2 s; one that missed three is taken
//! for dead, and the submission it held goes to another worker.

use std::time::Duration;

use apalis::prelude::*;
use serde::{Deserialize, Serialize};

use crate::db::{submissions, Backend, Db};
use crate::error::Fault;

/// One grading to do: the submission, and the generation of its cases it is graded against
/// (a regrade makes a new one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Job {
    pub(crate) submission: i64,
    pub(crate) generation: i64,
}

/// The queue, in the database's own backend.
#[derive(Clone)]
pub(crate) enum Queue {
    Sqlite(apalis_sqlite::SqliteStorage<Job>),
    Postgres(apalis_postgres::PostgresStorage<Job>),
}

/// The name of the queue in the database.
const NAME: &str = "gridjudge::grade";
const HEARTBEAT: Duration = Duration::from_secs(2);
const MISSED: usize = 3;

/// The queue in the database `backend`.
pub(crate) fn queue(backend: &Backend) -> Queue {
    match backend {
        Backend::Sqlite(pool) => Queue::Sqlite(
            apalis_sqlite::SqliteStorage::new(pool).with_config(
                apalis_sqlite::Config::default()
                    .queue(NAME)
                    .heartbeat_interval(HEARTBEAT)
                    .missed_heartbeats(MISSED)
                    .batch_size(1),
            ),
        ),
        Backend::Postgres(pool) => Queue::Postgres(
            apalis_postgres::PostgresStorage::new(pool).with_config(
                apalis_postgres::Config::default()
                    .queue(NAME)
                    .heartbeat_interval(HEARTBEAT)
                    .missed_heartbeats(MISSED)
                    .batch_size(1),
            ),
        ),
    }
}

/// Puts `job` in the queue, once: the same submission and generation again is no new job.
/// The queue is fair between students: a job goes before every job of a student with more
/// submissions waiting ahead of theirs (its priority falls by one with each submission of its
/// student waiting before it), so that a student who hands in ten times at once delays
/// another student's one submission by one grading, not ten.
pub(crate) async fn enqueue(queue: &Queue, db: &Db, job: Job) -> Result<(), Fault> {
    let ahead = submissions::waiting_before_of_same_student(db, job.submission).await?;
    // The pages say how many the queue takes first by the same order.
    submissions::set_turn(db, job.submission, ahead).await?;
    let key = format!(
        "submission-{}-generation-{}",
        job.submission, job.generation
    );
    // apalis takes the highest priority first, and priorities are not negative.
    let priority = 1000usize.saturating_sub(usize::try_from(ahead).unwrap_or(usize::MAX));
    let task = TaskBuilder::new(job)
        .idempotency_key(key)
        .priority(priority)
        .build();
    let pushed = match queue {
        Queue::Sqlite(storage) => storage
            .clone()
            .push_task(task)
            .await
            .map_err(|err| err.to_string()),
        Queue::Postgres(storage) => match storage.clone().push_task(task).await {
            Ok(()) => Ok(()),
            // Its idempotency key is taken: the job is in the queue already.
            Err(err) if err.to_string().contains("idx_jobs_idempotency_key") => Ok(()),
            Err(err) => Err(err.to_string()),
        },
    };
    pushed.map_err(|err| Fault::Database(format!("the queue: {err}")))
}
