//! The grading watchdog. Every grading of this process says when it moves (it starts, its
//! build ends, a case runs: `watch`); one that has not moved for `--stall-after` is given up:
//! its submission goes back to the queue under a new generation (the stuck grading, should it
//! ever end, records nothing), the CPU seats are renewed (a grading stuck while seated holds
//! its seat for good), and the server's log says which and why. A queue where work has waited
//! that long while this process took none has its worker started again. No case of a live
//! grading goes that long without moving: a build is killed after 182 s, a case well before.
//!
//! The pages tell a stalled queue from a busy one from the database (`submissions::
//! stalled_for`), so that a web server that grades nothing tells it too.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::db::submissions;
use crate::queue::{enqueue, Job};
use crate::state::State;

/// Watches this process's gradings until the server stops (see the module's doc).
pub(crate) async fn run(state: Arc<State>) {
    let after = state.watch.after();
    let every = (after / 6).clamp(Duration::from_millis(200), Duration::from_secs(15));
    while !state.stopping.load(Ordering::Relaxed) {
        tokio::time::sleep(every).await;
        let now = Instant::now();
        for (key, still) in state.watch.give_up_stuck(now) {
            give_up(&state, key, still).await;
        }
        if state.watch.idle(now).is_some_and(|idle| idle >= after) {
            let secs = i64::try_from(after.as_secs()).unwrap_or(i64::MAX);
            if let Ok(Some(waited)) = submissions::stalled_for(&state.db, secs).await {
                eprintln!(
                    "grading stalled: a submission has waited {waited} s and this process has \
                     taken none for {} s; the grading worker starts again",
                    after.as_secs()
                );
                state.watch.restarted();
            }
        }
    }
}

/// Queues submission `key` again, under a new generation, its grading having made no progress
/// for `still`; says so in the log.
async fn give_up(state: &State, (submission, generation): (i64, i64), still: Duration) {
    let why = format!(
        "submission {submission}: its grading made no progress for {} s",
        still.as_secs()
    );
    match submissions::queue_again(&state.db, (submission, generation)).await {
        Ok(Some(next)) => {
            let job = Job {
                submission,
                generation: next,
            };
            match enqueue(&state.queue, &state.db, job).await {
                Ok(()) => eprintln!(
                    "{why}; it is graded again from the start, and the CPU seats are renewed"
                ),
                Err(err) => eprintln!("{why}; it could not be queued again: {err}"),
            }
        }
        // Recorded or regraded meanwhile: nothing waits for it.
        Ok(None) => eprintln!("{why}; it is graded already"),
        Err(err) => eprintln!("{why}; it could not be queued again: {err}"),
    }
}
