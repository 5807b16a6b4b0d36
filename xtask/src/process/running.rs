//! A started case as the pump sees it, direct or sandboxed: the fd that tells its end, how to
//! kill all of it, the limits seen while it runs, and how it is reaped. [`finish`] puts what
//! the pump saw and how the case ended together into an [`Execution`].

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

use super::execution::{classify, Execution, Exit, Limit, Signs};
use crate::confine::Observed;
use crate::confine::ResourceLimits;
use crate::sandbox::{Activity, Exited, Helper, Started};
use crate::sys;

/// A started case, as the pump sees it.
pub(super) enum Running<'a> {
    Direct {
        pid: libc::pid_t,
        pidfd: Option<OwnedFd>,
        /// Without a cgroup: kill past this many bytes of peak resident memory.
        watch_memory: Option<u64>,
        memory_killed: bool,
    },
    Sandboxed {
        helper: &'a mut Helper,
        started: Started,
        observed: Observed,
        exited: Option<Exited>,
    },
}

/// What the pump saw.
#[derive(Default)]
pub(super) struct Pumped {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub stderr_truncated: bool,
    pub elapsed: Duration,
    pub timed_out: bool,
    pub output_limited: bool,
    pub interrupted: bool,
    pub process_limited: bool,
    /// Killed at the wall-clock backstop (the CPU limit was not reached).
    pub wall_stopped: bool,
    /// Stopped for having been idle this long (no CPU, no wait for one, its input written).
    pub idle: Option<Duration>,
    /// The most CPU time seen while it ran.
    pub cpu_seen: Duration,
    /// At the backstop: how long it had waited, runnable, for a CPU.
    pub run_delay: Option<Duration>,
}

/// How the target ended, once reaped.
pub(super) struct Ended {
    exit: Exit,
    cpu_time: Duration,
    observed: Observed,
    memory_killed: bool,
}

impl Running<'_> {
    /// The fd that becomes readable when the case is over.
    pub(super) fn end_fd(&self) -> Option<RawFd> {
        match self {
            Running::Direct { pidfd, .. } => pidfd.as_ref().map(AsRawFd::as_raw_fd),
            Running::Sandboxed { helper, .. } => Some(helper.socket()),
        }
    }

    /// Kills every process of the case.
    pub(super) fn kill(&mut self) {
        match self {
            // The group id is the target's pid, which is not reaped yet and so cannot name
            // another group; the target itself too, in case it left its group for another.
            Running::Direct { pid, .. } => {
                sys::kill(-*pid, libc::SIGKILL);
                sys::kill(*pid, libc::SIGKILL);
            }
            Running::Sandboxed { started, .. } => sys::kill_pidfd(&started.pidfd),
        }
    }

    /// A limit seen while the case runs, which ends it at once.
    pub(super) fn limit_now(&mut self) -> Option<Limit> {
        match self {
            Running::Direct {
                pid,
                watch_memory: Some(limit),
                memory_killed,
                ..
            } if !*memory_killed => {
                if sys::peak_resident(*pid).is_some_and(|peak| peak > *limit) {
                    *memory_killed = true;
                    return Some(Limit::Memory);
                }
                None
            }
            Running::Sandboxed {
                helper, started, ..
            } => helper
                .process_limit_hit(started)
                .then_some(Limit::Processes),
            Running::Direct { .. } => None,
        }
    }

    /// The CPU time the case has used so far, where it can be measured: every process of a
    /// sandboxed case (its cgroup), or a direct target and the children it waited for.
    pub(super) fn cpu_used(&self) -> Option<Duration> {
        match self {
            Running::Direct { pid, .. } => sys::cpu_time(*pid),
            Running::Sandboxed {
                helper, started, ..
            } => helper.cpu_used(started),
        }
    }

    /// The CPU time every process of the case has used and waited for so far, and the threads
    /// it started, where every process of it is measured (a sandboxed case with a cgroup):
    /// what a case that sleeps or blocks adds nothing to. `None` for a direct target, whose
    /// children escape the count.
    pub(super) fn activity(&mut self) -> Option<Activity> {
        match self {
            Running::Direct { .. } => None,
            Running::Sandboxed {
                helper, started, ..
            } => helper.activity(started),
        }
    }

    /// Whether a process of the case (or its helper) is running or waiting to run now.
    pub(super) fn runnable(&self) -> bool {
        match self {
            Running::Direct { pid, .. } => sys::runnable(*pid),
            Running::Sandboxed { helper, .. } => helper.runnable(),
        }
    }

    /// How long the case has waited, runnable, for a CPU, where that can be read.
    pub(super) fn run_delay(&self) -> Option<Duration> {
        match self {
            Running::Direct { pid, .. } => sys::run_delay(*pid),
            Running::Sandboxed { helper, .. } => helper.run_delay(),
        }
    }

    /// Whether the case has ended, checked after its end fd became readable.
    pub(super) fn has_ended(&mut self) -> bool {
        match self {
            Running::Direct { pid, pidfd, .. } => pidfd.is_some() || sys::has_exited(*pid),
            Running::Sandboxed {
                helper,
                started,
                observed,
                exited,
            } => {
                if exited.is_none() {
                    if let Ok((end, seen)) = helper.finish(started) {
                        *exited = Some(end);
                        *observed = seen;
                    } else {
                        *exited = Some(Exited::unknown());
                    }
                }
                true
            }
        }
    }

    /// Collects the exit status and CPU time.
    pub(super) fn reap(self) -> io::Result<Ended> {
        match self {
            Running::Direct {
                pid, memory_killed, ..
            } => {
                let (status, usage) = sys::wait4(pid)?;
                let cpu_time = sys::timeval(usage.ru_utime) + sys::timeval(usage.ru_stime);
                Ok(Ended {
                    exit: Exit::from_status(status),
                    cpu_time,
                    observed: Observed {
                        peak_memory: Some(usage.ru_maxrss as u64 * 1024),
                        ..Observed::default()
                    },
                    memory_killed,
                })
            }
            Running::Sandboxed {
                exited, observed, ..
            } => {
                let exited = exited.unwrap_or(Exited::unknown());
                Ok(Ended {
                    // A first process killed before it reported: the case was killed.
                    exit: exited
                        .status
                        .map_or(Exit::Signal(libc::SIGKILL), Exit::from_status),
                    cpu_time: Duration::from_micros(exited.cpu_us),
                    observed,
                    memory_killed: false,
                })
            }
        }
    }
}

/// The execution, from what the pump saw and how the target ended.
pub(super) fn finish(
    pumped: Pumped,
    ended: Ended,
    limits: &ResourceLimits,
    confined: bool,
) -> Execution {
    let limit = classify(&Signs {
        exit: ended.exit,
        cpu_time: ended.cpu_time,
        memory_limit_hit: ended.observed.memory_limit_hit || ended.memory_killed,
        process_limit_hit: ended.observed.process_limit_hit || pumped.process_limited,
        stderr: &String::from_utf8_lossy(&pumped.stderr),
        limits,
    });
    Execution {
        exit: ended.exit,
        stdout: pumped.stdout,
        stderr: pumped.stderr,
        stderr_truncated: pumped.stderr_truncated,
        elapsed: pumped.elapsed,
        timed_out: pumped.timed_out,
        wall_stopped: pumped.wall_stopped,
        idle_stopped: pumped.idle,
        run_delay: pumped.run_delay,
        output_limited: pumped.output_limited,
        limit,
        // Every process of the case where the cgroup counts them, else the target and the
        // children it waited for; at least what the pump saw while it ran.
        cpu_time: ended
            .cpu_time
            .max(ended.observed.cpu.unwrap_or_default())
            .max(pumped.cpu_seen),
        peak_memory: ended.observed.peak_memory,
        interrupted: pumped.interrupted,
        confined,
    }
}
