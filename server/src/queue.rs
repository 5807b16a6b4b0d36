//! The durable queue of gradings: apalis's SQLite or PostgreSQL backend, in the course's
//! database, one job per submission and generation (its idempotency key: the same one pushed
//! again is no new job). A worker sends a heartbeat every 2 s; one that missed three is taken
//! for dead, and the submission it held goes to another worker.

use std::time::Duration;

use apalis::prelude::*;
use serde::{Deserialize, Serialize};

use crate::db::Backend;
use crate::Fault;

/// One grading to do: the submission, and the generation of its cases it is graded against
/// (a regrade makes a new one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub submission: i64,
    pub generation: i64,
}

/// The queue, in the database's own backend.
#[derive(Clone)]
pub enum Queue {
    Sqlite(apalis_sqlite::SqliteStorage<Job>),
    Postgres(apalis_postgres::PostgresStorage<Job>),
}

/// The statuses a submission ends in.
pub const FINAL: [&str; 3] = ["graded", "could not build", "could not run"];

/// The name of the queue in the database.
const NAME: &str = "gridjudge::grade";
const HEARTBEAT: Duration = Duration::from_secs(2);
const MISSED: usize = 3;

/// The queue in the database `backend`.
pub fn queue(backend: &Backend) -> Queue {
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
pub async fn enqueue(queue: &Queue, job: Job) -> Result<(), Fault> {
    let key = format!(
        "submission-{}-generation-{}",
        job.submission, job.generation
    );
    let task = TaskBuilder::new(job).idempotency_key(key).build();
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
