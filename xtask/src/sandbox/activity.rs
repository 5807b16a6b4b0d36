//! What a running case has done, as the harness looks at it every few milliseconds to tell a
//! case that sleeps or blocks from one the machine keeps waiting: the CPU time its processes
//! used, the time each thread waited for a CPU, and how many threads it has started.
//!
//! The kernel keeps a thread's wait for a CPU (`/proc/PID/task/TID/schedstat`) only while the
//! thread lives; a case that starts many short processes (a version manager's shim, a shell
//! script) under a busy machine spends most of its time in waits that vanish with each process.
//! So each thread's last wait seen is kept after it ends, and a thread started counts as
//! activity of its own.

use std::collections::HashMap;
use std::time::Duration;

/// A running case's activity so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// CPU time used and waited for, every thread of the case together, ended ones included.
    pub busy: Duration,
    /// Threads seen so far: more than at the last look means the case started one.
    pub threads: usize,
}

/// Each thread's wait for a CPU as last seen, kept for a case while it runs.
#[derive(Debug, Default)]
pub(super) struct Waits {
    last: HashMap<libc::pid_t, Duration>,
    /// The waits of threads whose id came back for a new thread.
    reused: Duration,
    reused_threads: usize,
}

impl Waits {
    /// Takes in the waits of the threads alive now (by thread id); the activity is `cpu` and
    /// every wait seen so far.
    pub(super) fn look(
        &mut self,
        cpu: Duration,
        alive: impl IntoIterator<Item = (libc::pid_t, Duration)>,
    ) -> Activity {
        for (tid, wait) in alive {
            let last = self.last.entry(tid).or_default();
            // A wait only grows: a smaller one is a new thread under an old id.
            if wait < *last {
                self.reused += *last;
                self.reused_threads += 1;
            }
            *last = wait;
        }
        Activity {
            busy: cpu + self.reused + self.last.values().sum::<Duration>(),
            threads: self.last.len() + self.reused_threads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A shell that starts one short process after another, each waiting 40 ms for a CPU and
    /// gone by the next look: the waits add up, and each new process is activity.
    #[test]
    fn an_ended_threads_wait_still_counts_and_a_new_thread_is_activity() {
        let mut waits = Waits::default();
        let first = waits.look(5 * MS, [(10, MS), (11, 40 * MS)]);
        assert_eq!(
            first,
            Activity {
                busy: 46 * MS,
                threads: 2
            }
        );
        let second = waits.look(6 * MS, [(10, MS), (12, 40 * MS)]);
        assert_eq!(
            second,
            Activity {
                busy: 87 * MS,
                threads: 3
            }
        );
        let same = waits.look(6 * MS, [(10, MS)]);
        assert_eq!(
            same,
            Activity {
                busy: 87 * MS,
                threads: 3
            }
        );
    }

    /// A thread id used again for a new thread: the old thread's wait is kept and the new one
    /// counts from nothing.
    #[test]
    fn a_reused_thread_id_keeps_the_old_threads_wait() {
        let mut waits = Waits::default();
        waits.look(Duration::ZERO, [(10, 30 * MS)]);
        let reused = waits.look(Duration::ZERO, [(10, 2 * MS)]);
        assert_eq!(
            reused,
            Activity {
                busy: 32 * MS,
                threads: 2
            }
        );
    }
}
