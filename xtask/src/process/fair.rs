//! Running cases so that the machine's load does not decide their verdicts: the warnings when
//! it might have, and the rerun, alone, of a case the machine starved.

use std::time::Duration;

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

/// Runs a case so that the machine's load does not decide its verdict. The time limit is on
/// the case's CPU time; a case stopped at the wall-clock backstop (so under its CPU limit)
/// having waited, runnable, for a CPU a quarter of that time or more was starved by the
/// machine, not slow or asleep: it runs again, alone. The execution, and `Some(run_delay)`
/// when even that rerun was starved (no verdict can be trusted).
pub fn execute_fairly(
    target: &Target,
    policy: &Policy,
    input: &[u8],
    bounds: &Bounds,
) -> (std::io::Result<crate::process::Execution>, Option<Duration>) {
    let starved = |execution: &crate::process::Execution| {
        let waited = execution.run_delay.unwrap_or_default();
        (execution.wall_stopped && waited >= execution.elapsed / 4 && !crate::sys::interrupted())
            .then_some(waited)
    };
    let first = {
        let _shared = ALONE.read().unwrap_or_else(|p| p.into_inner());
        execute(target, input, bounds, policy)
    };
    match first {
        Ok(execution) if starved(&execution).is_some() => {
            let _alone = ALONE.write().unwrap_or_else(|p| p.into_inner());
            let again = execute(target, input, bounds, policy);
            let unreliable = again.as_ref().ok().and_then(starved);
            (again, unreliable)
        }
        first => (first, None),
    }
}
