//! The gradings under way in this process, each with when it last moved (it started, its
//! build ended, a case ran), and the CPU seats they share: what `watchdog` looks at, and
//! what it renews.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The default of `--stall-after`, in seconds: above the longest a live grading goes without
/// moving (a build's wall-clock backstop of 182 s) with room for a loaded machine.
pub(crate) const STALL_AFTER: u64 = 300;

/// The gradings under way in this process and when each last moved.
pub(crate) struct Watch {
    after: Duration,
    jobs: usize,
    state: Mutex<Under>,
    next: AtomicU64,
    /// Wakes the grading worker to start again under a new name.
    pub(crate) restart: tokio::sync::Notify,
}

struct Under {
    gradings: HashMap<u64, Going>,
    /// When a grading of this process last moved (or the process started).
    moved: Instant,
    seats: xtask::process::SharedSeats,
}

/// One grading under way.
struct Going {
    key: (i64, i64),
    moved: Instant,
    /// Told when the grading is given up.
    give_up: Option<tokio::sync::oneshot::Sender<()>>,
}

/// A grading counted as under way until it is dropped (or given up).
pub(crate) struct Ticket {
    watch: Arc<Watch>,
    token: u64,
}

impl Ticket {
    /// What says, from any thread, that the grading moved.
    pub(crate) fn mover(&self) -> Mover {
        Mover {
            watch: Arc::clone(&self.watch),
            token: self.token,
        }
    }
}

/// Says that a grading moved.
pub(crate) struct Mover {
    watch: Arc<Watch>,
    token: u64,
}

impl Mover {
    /// The grading moved.
    pub(crate) fn moved(&self) {
        self.watch.moved(self.token);
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut under = self.watch.lock();
        under.gradings.remove(&self.token);
        under.moved = Instant::now();
    }
}

impl Watch {
    /// A watch of gradings on `jobs` CPU seats that gives one up after `after` without moving.
    pub(crate) fn new(jobs: usize, after: Duration) -> Watch {
        Watch {
            after,
            jobs,
            state: Mutex::new(Under {
                gradings: HashMap::new(),
                moved: Instant::now(),
                seats: xtask::process::SharedSeats::new(jobs),
            }),
            next: AtomicU64::new(0),
            restart: tokio::sync::Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Under> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How long a grading may go without moving.
    pub(crate) fn after(&self) -> Duration {
        self.after
    }

    /// Counts the grading of `key` as under way: its ticket, and the signal that it was
    /// given up.
    pub(crate) fn begin(
        watch: &Arc<Watch>,
        key: (i64, i64),
    ) -> (Ticket, tokio::sync::oneshot::Receiver<()>) {
        let token = watch.next.fetch_add(1, Ordering::Relaxed);
        let (tell, told) = tokio::sync::oneshot::channel();
        let now = Instant::now();
        let mut under = watch.lock();
        under.moved = now;
        under.gradings.insert(
            token,
            Going {
                key,
                moved: now,
                give_up: Some(tell),
            },
        );
        let ticket = Ticket {
            watch: Arc::clone(watch),
            token,
        };
        (ticket, told)
    }

    fn moved(&self, token: u64) {
        let now = Instant::now();
        let mut under = self.lock();
        if let Some(going) = under.gradings.get_mut(&token) {
            going.moved = now;
            under.moved = now;
        }
    }

    /// Gradings under way (those given up are not).
    pub(crate) fn in_flight(&self) -> usize {
        self.lock().gradings.len()
    }

    /// The CPU seats the next grading takes.
    pub(crate) fn seats(&self) -> xtask::process::SharedSeats {
        self.lock().seats.clone()
    }

    /// Gives up every grading that has not moved for `after` at `now`: each is told, no longer
    /// counted, and the seats are renewed where one was. Their keys, with how long each had
    /// not moved.
    pub(crate) fn give_up_stuck(&self, now: Instant) -> Vec<((i64, i64), Duration)> {
        let mut under = self.lock();
        let stuck: Vec<u64> = under
            .gradings
            .iter()
            .filter(|(_, going)| now.saturating_duration_since(going.moved) >= self.after)
            .map(|(token, _)| *token)
            .collect();
        let mut given_up = Vec::new();
        for token in stuck {
            if let Some(mut going) = under.gradings.remove(&token) {
                if let Some(tell) = going.give_up.take() {
                    let _ = tell.send(());
                }
                given_up.push((going.key, now.saturating_duration_since(going.moved)));
            }
        }
        if !given_up.is_empty() {
            under.seats = xtask::process::SharedSeats::new(self.jobs);
            under.moved = now;
        }
        given_up
    }

    /// How long this process has been without a grading under way or moving, at `now`.
    pub(crate) fn idle(&self, now: Instant) -> Option<Duration> {
        let under = self.lock();
        under
            .gradings
            .is_empty()
            .then(|| now.saturating_duration_since(under.moved))
    }

    /// Counts the worker's start again as a move, so that a restart is not asked for twice.
    pub(crate) fn restarted(&self) {
        self.lock().moved = Instant::now();
        self.restart.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn going(key: (i64, i64), moved: Instant) -> (Going, tokio::sync::oneshot::Receiver<()>) {
        let (tell, told) = tokio::sync::oneshot::channel();
        let going = Going {
            key,
            moved,
            give_up: Some(tell),
        };
        (going, told)
    }

    /// Of two gradings, the one that has not moved for the span is given up, told, and no
    /// longer counted, and the seats are new; the one that moved within it stays.
    #[test]
    fn a_grading_that_has_not_moved_for_the_span_is_given_up_and_the_seats_renewed() {
        let watch = Watch::new(2, Duration::from_secs(10));
        let start = Instant::now();
        let (stuck, mut stuck_told) = going((1, 0), start);
        let (live, mut live_told) = going((2, 0), start + Duration::from_secs(5));
        let seats_before = watch.seats();
        {
            let mut under = watch.lock();
            under.gradings.insert(7, stuck);
            under.gradings.insert(8, live);
        }
        assert!(watch
            .give_up_stuck(start + Duration::from_secs(9))
            .is_empty());
        let given_up = watch.give_up_stuck(start + Duration::from_secs(10));
        assert_eq!(given_up, [((1, 0), Duration::from_secs(10))]);
        assert!(stuck_told.try_recv().is_ok(), "the stuck grading is told");
        assert!(live_told.try_recv().is_err(), "the live one is not");
        assert_eq!(watch.in_flight(), 1);
        assert!(!watch.seats().same(&seats_before), "the seats are new");
        assert_eq!(watch.idle(start), None, "a grading is still under way");
        // A move counts: at 14 s the live one (moved just now) is not given up.
        watch.moved(8);
        assert!(watch.give_up_stuck(Instant::now()).is_empty());
    }

    #[test]
    fn a_process_with_no_grading_is_idle_since_the_last_move() {
        let watch = Watch::new(1, Duration::from_secs(10));
        let now = Instant::now() + Duration::from_secs(30);
        assert!(watch
            .idle(now)
            .is_some_and(|idle| idle >= Duration::from_secs(30)));
        watch.restarted();
        assert!(watch
            .idle(Instant::now())
            .is_some_and(|idle| idle < Duration::from_secs(5)));
    }
}
