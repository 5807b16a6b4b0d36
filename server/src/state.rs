//! What every part of the server shares: its [`State`] (the course, the database, the queue,
//! the harness's options per assignment, the gradings under way).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::course::Course;
use crate::db::{Db, Status};
use crate::queue::Queue;

/// What grading an assignment needs: the harness's options (as `grade` would set them), and
/// the groups its students never see.
pub struct Graded {
    pub options: xtask::grade::Options,
    pub hidden: Vec<String>,
    pub gradebook: xtask::report::Grades,
}

/// Where each submission being graded stands, between the database's status changes: the
/// cases run so far.
#[derive(Default)]
pub struct Live(Mutex<HashMap<i64, (Status, u64, u64)>>);

impl Live {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, (Status, u64, u64)>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
    pub fn set(&self, id: i64, status: Status, done: u64, total: u64) {
        self.lock().insert(id, (status, done, total));
    }
    /// One more case of `id` ran: how many have now, where `id` is being graded.
    pub fn ran(&self, id: i64) -> Option<u64> {
        let mut live = self.lock();
        let entry = live.get_mut(&id)?;
        entry.1 += 1;
        Some(entry.1)
    }
    pub fn done(&self, id: i64) {
        self.lock().remove(&id);
    }
    pub fn get(&self, id: i64) -> Option<(Status, u64, u64)> {
        self.lock().get(&id).copied()
    }
}

pub struct State {
    pub course: Course,
    /// The course folder (canonical).
    pub course_dir: PathBuf,
    pub db: Db,
    pub queue: Queue,
    pub assignments: HashMap<String, Graded>,
    pub live: Live,
    /// Where submissions are unpacked for grading (outside the course folder).
    pub work: PathBuf,
    /// Cookies are Secure (the server is reached over TLS, through a proxy).
    pub secure: bool,
    /// The proxy whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted_proxy: Option<std::net::IpAddr>,
    /// The largest upload taken, in bytes.
    pub max_upload: usize,
    /// The CPU seats every grading of this server shares (`--jobs`).
    pub seats: xtask::process::SharedSeats,
    /// Gradings started and not yet recorded.
    pub in_flight: std::sync::atomic::AtomicUsize,
    /// SIGTERM came: event streams end, so that the server can stop.
    pub stopping: std::sync::atomic::AtomicBool,
}
