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
pub(crate) struct Graded {
    pub(crate) options: xtask::grade::Options,
    pub(crate) hidden: Vec<String>,
    pub(crate) gradebook: xtask::report::Grades,
}

/// Where each submission being graded stands, between the database's status changes: the
/// cases run so far; and a signal that something here changed, which the event streams wait
/// on instead of looking at the database again and again.
pub(crate) struct Live {
    graded: Mutex<HashMap<i64, (Status, u64, u64)>>,
    changed: tokio::sync::watch::Sender<u64>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            graded: Mutex::default(),
            changed: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Live {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, (Status, u64, u64)>> {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
        self.graded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
    /// A receiver told of every change of a grading in this process.
    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }
    pub(crate) fn set(&self, id: i64, status: Status, done: u64, total: u64) {
        self.lock().insert(id, (status, done, total));
    }
    /// One more case of `id` ran: how many have now, where `id` is being graded.
    pub(crate) fn ran(&self, id: i64) -> Option<u64> {
        let mut live = self.lock();
        let entry = live.get_mut(&id)?;
        entry.1 += 1;
        Some(entry.1)
    }
    pub(crate) fn done(&self, id: i64) {
        self.lock().remove(&id);
    }
    pub(crate) fn get(&self, id: i64) -> Option<(Status, u64, u64)> {
        self.graded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&id)
            .copied()
    }
}

pub(crate) struct State {
    pub(crate) course: Course,
    /// The course folder (canonical).
    pub(crate) course_dir: PathBuf,
    pub(crate) db: Db,
    pub(crate) queue: Queue,
    pub(crate) assignments: HashMap<String, Graded>,
    pub(crate) live: Live,
    /// Where submissions are unpacked for grading (outside the course folder).
    pub(crate) work: PathBuf,
    /// Cookies are Secure (the server is reached over TLS, through a proxy).
    pub(crate) secure: bool,
    /// The address students reach the server at (`--base-url`), for the links it shows.
    pub(crate) base_url: String,
    /// The proxy whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub(crate) trusted_proxy: Option<std::net::IpAddr>,
    /// The largest upload taken, in bytes.
    pub(crate) max_upload: usize,
    /// The gradings under way and the CPU seats they share (`--jobs`), watched for a
    /// grading that stops moving (`--stall-after`).
    pub(crate) watch: std::sync::Arc<crate::watch::Watch>,
    /// SIGTERM came: event streams end, so that the server can stop.
    pub(crate) stopping: std::sync::atomic::AtomicBool,
    /// The event streams open, by whom (a session's or a token's hash).
    pub(crate) streams: Mutex<HashMap<String, usize>>,
    /// The LMS (`[lti]` in course.toml), as the tool calls it.
    pub(crate) lti: Option<std::sync::Arc<crate::lms::Platform>>,
    /// Wakes the grade passback's sender when a score is queued.
    pub(crate) passback: tokio::sync::Notify,
    /// Why the last change of `extensions.csv` was refused (its file, line and field), while
    /// the file stays as it is: the instructor's Extensions page shows it.
    pub(crate) extensions_refused: Mutex<Option<String>>,
}

/// Event streams one session (or token) may hold open at once.
pub(crate) const STREAMS_PER_SESSION: usize = 4;

/// An event stream counted against its owner while it lives.
pub(crate) struct Streaming {
    state: std::sync::Arc<State>,
    owner: String,
}

impl Streaming {
    /// Counts a new stream of `owner`; none where it holds [`STREAMS_PER_SESSION`] already.
    pub(crate) fn open(state: &std::sync::Arc<State>, owner: String) -> Option<Streaming> {
        let mut streams = state.streams.lock().unwrap_or_else(|p| p.into_inner());
        let open = streams.entry(owner.clone()).or_default();
        if *open >= STREAMS_PER_SESSION {
            return None;
        }
        *open += 1;
        Some(Streaming {
            state: std::sync::Arc::clone(state),
            owner,
        })
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        let mut streams = self.state.streams.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(open) = streams.get_mut(&self.owner) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                streams.remove(&self.owner);
            }
        }
    }
}
