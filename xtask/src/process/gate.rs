//! CPU seats: a class's workers run `jobs` cases that compute at once, and a case that has gone
//! idle (no CPU used or waited for: it sleeps or blocks) gives its seat to the next case while
//! it waits out the idle span. A submission that hangs on every case then costs its class the
//! idle span of a few cases at a time, side by side, not one after another on every core.
//!
//! The seats live with the workers' threads: [`super::seated_workers`] starts more threads
//! than seats, each thread takes a seat ([`admit`]) before it takes work, and the pump gives
//! the seat back ([`idle`]) when its case goes idle. A thread outside such a pool has no seat
//! and waits for none.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex};

/// Threads a pool of `jobs` seats starts: enough for a submission that hangs on every case to
/// wait out the idle span of many cases side by side (each thread has its own sandbox helper
/// once it runs a case).
pub(super) fn threads(jobs: usize) -> usize {
    jobs * 16
}

/// Free seats in each group (a group's threads share a CPU, where workers are pinned), and
/// the wait for one.
pub(super) struct Seats {
    free: Mutex<Vec<usize>>,
    freed: Condvar,
}

impl Seats {
    /// `groups` groups of `each` seats.
    pub(super) fn new(groups: usize, each: usize) -> Arc<Seats> {
        Arc::new(Seats {
            free: Mutex::new(vec![each; groups.max(1)]),
            freed: Condvar::new(),
        })
    }

    fn take(&self, group: usize) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while free[group] == 0 {
            free = self.freed.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        free[group] -= 1;
    }

    fn give(&self, group: usize) {
        self.free.lock().unwrap_or_else(|p| p.into_inner())[group] += 1;
        self.freed.notify_all();
    }
}

/// This thread's pool and group, and whether it holds a seat now.
struct Place {
    seats: Arc<Seats>,
    group: usize,
    seated: bool,
}

thread_local! {
    static PLACE: RefCell<Option<Place>> = const { RefCell::new(None) };
}

/// Makes this thread one of `seats`' workers, in `group` (until [`leave`]).
pub(super) fn join(seats: Arc<Seats>, group: usize) {
    PLACE.with(|place| {
        *place.borrow_mut() = Some(Place {
            seats,
            group,
            seated: false,
        })
    });
}

/// Whether this thread is a worker of a pool.
pub(super) fn in_pool() -> bool {
    PLACE.with(|place| place.borrow().is_some())
}

/// This thread stops being a worker, giving back its seat if it holds one.
pub(super) fn leave() {
    idle();
    PLACE.with(|place| drop(place.borrow_mut().take()));
}

/// Waits for a seat, unless this thread holds one or belongs to no pool: a worker calls this
/// before it takes its next piece of work.
pub fn admit() {
    let seats = PLACE.with(|place| match &*place.borrow() {
        Some(place) if !place.seated => Some((Arc::clone(&place.seats), place.group)),
        _ => None,
    });
    if let Some((seats, group)) = seats {
        seats.take(group);
        PLACE.with(|place| {
            if let Some(place) = place.borrow_mut().as_mut() {
                place.seated = true;
            }
        });
    }
}

/// The case this thread runs has gone idle: its seat goes to the next case.
pub(super) fn idle() {
    PLACE.with(|place| {
        if let Some(place) = place.borrow_mut().as_mut() {
            if place.seated {
                place.seated = false;
                place.seats.give(place.group);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// At most `jobs` pieces of work run seated at once, and every seat comes back.
    #[test]
    fn seats_bound_the_work_that_computes() {
        let seats = Seats::new(1, 2);
        let (running, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads(2) {
                let seats = Arc::clone(&seats);
                let (running, most, next) = (&running, &most, &next);
                scope.spawn(move || {
                    join(seats, 0);
                    loop {
                        admit();
                        let k = next.fetch_add(1, Ordering::SeqCst);
                        if k >= 40 {
                            break;
                        }
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        running.fetch_sub(1, Ordering::SeqCst);
                        if k % 2 == 0 {
                            // Idle: its seat goes, and it sleeps on without one.
                            idle();
                            std::thread::sleep(std::time::Duration::from_millis(5));
                        }
                    }
                    leave();
                });
            }
        });
        assert!(
            most.load(Ordering::SeqCst) <= 2,
            "never more than the seats"
        );
        assert_eq!(*seats.free.lock().unwrap(), [2], "every seat came back");
    }

    /// With one seat, a second worker starts only because the first one's work went idle: the
    /// first waits for the second, so without the seat given back neither would end.
    #[test]
    fn an_idle_case_gives_its_seat_to_the_next() {
        let seats = Seats::new(1, 1);
        let (started, seen) = std::sync::mpsc::channel();
        let (took, seated) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let first = Arc::clone(&seats);
            scope.spawn(move || {
                join(first, 0);
                admit();
                took.send(()).unwrap();
                idle();
                let second = seen.recv_timeout(std::time::Duration::from_secs(60));
                leave();
                assert!(second.is_ok(), "the second worker never started");
            });
            // The second asks for the seat only once the first holds it.
            seated.recv().unwrap();
            let second = Arc::clone(&seats);
            scope.spawn(move || {
                join(second, 0);
                admit();
                started.send(()).unwrap();
                leave();
            });
        });
        assert_eq!(*seats.free.lock().unwrap(), [1]);
    }

    #[test]
    fn a_thread_of_no_pool_waits_for_no_seat() {
        admit();
        idle();
    }
}
