//! The durable queue of gradings: apalis's SQLite backend, in the course's database, one job
//! per submission and generation (its idempotency key: the same one pushed again is no new job).

use std::time::Duration;

use apalis::prelude::*;
use apalis_sqlite::{Config, SqliteStorage};
use serde::{Deserialize, Serialize};

use crate::Fault;

/// One grading to do: the submission, and the generation of its cases it is graded against
/// (a regrade makes a new one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub submission: i64,
    pub generation: i64,
}

pub type Queue = SqliteStorage<Job>;

/// The statuses a submission ends in.
pub const FINAL: [&str; 3] = ["graded", "could not build", "could not run"];

/// The queue in `pool`: a worker that missed three heartbeats (2 s apart) is taken for dead,
/// and the submission it held goes to another.
pub fn queue(pool: &sqlx::SqlitePool) -> Queue {
    SqliteStorage::new(pool).with_config(
        Config::default()
            .queue("gridjudge::grade")
            .heartbeat_interval(Duration::from_secs(2))
            .missed_heartbeats(3)
            .batch_size(1),
    )
}

/// Puts `job` in the queue, once: the same submission and generation again is no new job.
pub async fn enqueue(queue: &Queue, job: Job) -> Result<(), Fault> {
    let key = format!(
        "submission-{}-generation-{}",
        job.submission, job.generation
    );
    let task = TaskBuilder::new(job).idempotency_key(key).build();
    queue
        .clone()
        .push_task(task)
        .await
        .map_err(|err| Fault::Database(format!("the queue: {err}")))
}
