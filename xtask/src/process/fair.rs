//! Running cases so that the machine's load does not decide their verdicts: the warnings when
//! it might have, and the rerun, alone, of a case the machine starved.

use std::time::Duration;

use super::execution::kept_waiting;
use crate::confine::Policy;
use crate::process::{execute, Bounds};
use crate::target::Target;

/// A warning when more cases run at once than the machine has cores.
pub fn jobs_warning(jobs: usize) -> Option<String> {
    let cpus = super::pool::cpus();
    (jobs > cpus).then(|| {
        format!(
            "warning: --jobs {jobs} is more than this machine's {cpus} cores: cases wait for a \
             CPU (verdicts go by CPU time, but the run takes longer)"
        )
    })
}

/// A warning when the machine was much busier than the cores this run could use: timings and
/// wall-clock limits cannot be trusted then (verdicts go by CPU time, and starved cases are
/// run again, alone).
pub fn load_warning() -> Option<String> {
    let cpus = super::pool::cpus();
    let busy = super::pool::load().is_some_and(|load| load > 2.0 * cpus as f64);
    busy.then(|| {
        format!(
            "warning: this machine was busy during the run (a load above twice its {cpus} \
             cores): time limits went by each program's CPU time and starved cases were run \
             again, but wall times say little"
        )
    })
}

/// Every case runs under a shared hold of this lock; a case rerun because the machine starved
/// it takes it alone.
static ALONE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// How many of one submission's cases may be rerun alone: a program that keeps looking
/// starved costs the class at most this many exclusive runs.
const RERUNS_PER_SUBMISSION: usize = 2;

/// The exclusive reruns one submission has left (one per check run).
#[derive(Debug)]
pub struct Reruns(std::sync::atomic::AtomicUsize);

impl Default for Reruns {
    fn default() -> Reruns {
        Reruns(std::sync::atomic::AtomicUsize::new(RERUNS_PER_SUBMISSION))
    }
}

impl Reruns {
    /// Takes one rerun, if any is left.
    fn take(&self) -> bool {
        use std::sync::atomic::Ordering;
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    }
}

/// How long `execution` waited for a CPU because of the machine (see [`kept_waiting`]).
fn machine_wait(execution: &crate::process::Execution, cpus: usize) -> Duration {
    let waited = execution.run_delay.unwrap_or_default();
    kept_waiting(waited, execution.elapsed, execution.cpu_time, cpus)
}

/// Runs a case so that the machine's load does not decide its verdict. The time limit is on
/// the case's CPU time; a case stopped at the wall-clock backstop (so under its CPU limit)
/// having been kept from its share of the CPUs a quarter of that time or more ([`machine_wait`])
/// was starved by the machine, not slow or asleep: it runs again, alone, while `reruns` has
/// any left. The execution, and `Some(wait)` when it was starved and no rerun alone settled it
/// (no verdict can be trusted).
pub fn execute_fairly(
    target: &Target,
    policy: &Policy,
    input: &[u8],
    bounds: &Bounds,
    reruns: &Reruns,
) -> (std::io::Result<crate::process::Execution>, Option<Duration>) {
    // The CPUs this worker's cases may use: targets cannot widen it (seccomp).
    let cpus = crate::sys::allowed_cpus().len();
    let starved = |execution: &crate::process::Execution| {
        let waited = machine_wait(execution, cpus);
        (execution.wall_stopped && waited >= execution.elapsed / 4 && !crate::sys::interrupted())
            .then_some(waited)
    };
    let first = {
        let _shared = ALONE.read().unwrap_or_else(|p| p.into_inner());
        execute(target, input, bounds, policy)
    };
    match first {
        Ok(execution) => match starved(&execution) {
            Some(_) if reruns.take() => {
                let _alone = ALONE.write().unwrap_or_else(|p| p.into_inner());
                let again = execute(target, input, bounds, policy);
                let unreliable = again.as_ref().ok().and_then(starved);
                (again, unreliable)
            }
            waited => (Ok(execution), waited),
        },
        first => (first, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::{Execution, Exit};

    fn stopped(elapsed: u64, cpu: u64, waited: u64) -> Execution {
        Execution {
            elapsed: Duration::from_secs(elapsed),
            cpu_time: Duration::from_secs(cpu),
            run_delay: Some(Duration::from_secs(waited)),
            wall_stopped: true,
            ..Execution::finished(Exit::Signal(9), Vec::new(), Vec::new())
        }
    }

    #[test]
    fn a_case_that_got_its_share_was_not_starved_however_long_its_processes_waited() {
        // 64 busy processes on its one CPU for 32 s: 32 s of CPU, 63 x 32 s of waiting.
        assert_eq!(machine_wait(&stopped(32, 32, 63 * 32), 1), Duration::ZERO);
        // The same on two CPUs, of which it got one: 32 s kept from it.
        assert_eq!(
            machine_wait(&stopped(32, 32, 62 * 32), 2),
            Duration::from_secs(32)
        );
    }

    #[test]
    fn a_case_kept_from_its_cpu_waited_for_the_machine() {
        // One process that ran 5 s of 32 and waited 27 s: starved of 27 s.
        assert_eq!(
            machine_wait(&stopped(32, 5, 27), 1),
            Duration::from_secs(27)
        );
        // One that slept most of the time waited little, whatever it did not use.
        assert_eq!(machine_wait(&stopped(32, 1, 2), 1), Duration::from_secs(2));
    }

    #[test]
    fn a_submission_has_a_bounded_number_of_reruns() {
        let reruns = Reruns::default();
        let taken = (0..10).filter(|_| reruns.take()).count();
        assert_eq!(taken, RERUNS_PER_SUBMISSION);
    }
}
