//! What one run of a target came to: its [`Execution`] (exit, output, time, limits hit), the
//! [`Bounds`] it ran within, and [`classify`], the pure rule that says which resource limit,
//! if any, the target ran into.

use std::time::Duration;

use crate::confine::ResourceLimits;

/// How long a run may take and how much of its output is kept.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// CPU time the case may use (all its processes, where that is measured; else wall time).
    pub timeout: Duration,
    /// Wall-clock time after which the case is stopped whatever its CPU time: a backstop for
    /// programs that sleep or block, well above `timeout`.
    pub wall: Duration,
    /// Stop sooner a case that for this long neither runs nor waits for a CPU, its input all
    /// written (it sleeps or blocks), where every process of it is measured.
    pub asleep_after: Option<Duration>,
    /// Bytes of stdout kept; more is an output-limit verdict.
    pub stdout_cap: usize,
    /// Bytes of stderr kept; the rest is read and dropped.
    pub stderr_cap: usize,
}

/// The wall-clock backstop for a CPU time limit `timeout`: three times it and two seconds more,
/// so that a program on a machine busy with other work is never stopped for the machine's sake,
/// and one that sleeps or blocks still ends.
pub fn backstop(timeout: Duration) -> Duration {
    timeout
        .saturating_mul(3)
        .saturating_add(Duration::from_secs(2))
}

/// How long a case waited for a CPU because of the machine, not because of itself: its run
/// delay `waited`, at most the CPU time its share of `cpus` CPUs would have given it over
/// `elapsed` and it did not get (it used `cpu`). A case of 64 busy processes on one CPU waits
/// 63 s a second, all of it for its own processes: it got its whole share, and the machine
/// kept it from nothing.
pub(super) fn kept_waiting(
    waited: Duration,
    elapsed: Duration,
    cpu: Duration,
    cpus: usize,
) -> Duration {
    let share = elapsed.saturating_mul(cpus.max(1) as u32);
    waited.min(share.saturating_sub(cpu))
}

/// A resource limit the target ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Memory,
    Cpu,
    Processes,
    FileSize,
    OpenFiles,
}

/// How the target ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl Exit {
    pub fn from_status(status: i32) -> Exit {
        if libc::WIFSIGNALED(status) {
            Exit::Signal(libc::WTERMSIG(status))
        } else {
            Exit::Code(libc::WEXITSTATUS(status))
        }
    }
}

/// Everything observed while running a target once.
#[derive(Debug, Clone)]
pub struct Execution {
    pub exit: Exit,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub stderr_truncated: bool,
    /// From spawn to exit.
    pub elapsed: Duration,
    /// Killed at the time limit: its CPU time (or, where CPU time is not measured, its wall
    /// time) reached the timeout.
    pub timed_out: bool,
    /// Killed at the wall-clock backstop while under its CPU limit.
    pub wall_stopped: bool,
    /// Killed before the backstop for having been idle this long: no CPU used, none waited
    /// for, its input all written (it sleeps or waits for something that never comes).
    pub idle_stopped: Option<Duration>,
    /// When stopped at the backstop: how long the case had waited, runnable, for a CPU (much
    /// for a case the machine starved, little for one that sleeps or blocks).
    pub run_delay: Option<Duration>,
    /// Killed for writing more than the stdout cap.
    pub output_limited: bool,
    /// A resource limit it ran into, if any.
    pub limit: Option<Limit>,
    /// CPU time of the case: every process of it where a cgroup accounts it, else the target's
    /// main process and the children it waited for.
    pub cpu_time: Duration,
    /// Peak memory, from the worker's cgroup or the main process's peak resident set.
    pub peak_memory: Option<u64>,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// Run confined (not the trusted reference).
    pub confined: bool,
}

impl Execution {
    /// A run that ended by itself with `exit`, having printed `stdout` and `stderr` in no
    /// time and within every limit: what an in-process run of the reference or one of its
    /// variants amounts to.
    pub fn finished(exit: Exit, stdout: Vec<u8>, stderr: Vec<u8>) -> Execution {
        Execution {
            exit,
            stdout,
            stderr,
            stderr_truncated: false,
            elapsed: Duration::ZERO,
            timed_out: false,
            wall_stopped: false,
            idle_stopped: None,
            run_delay: None,
            output_limited: false,
            limit: None,
            cpu_time: Duration::ZERO,
            peak_memory: None,
            interrupted: false,
            confined: false,
        }
    }
}

/// What [`classify`] judges from.
#[derive(Debug, Clone, Copy)]
pub struct Signs<'a> {
    pub exit: Exit,
    pub cpu_time: Duration,
    pub memory_limit_hit: bool,
    pub process_limit_hit: bool,
    pub stderr: &'a str,
    pub limits: &'a ResourceLimits,
}

/// The resource limit a run ran into, if any: the cgroup's memory and process events first,
/// then the rlimits' signals (SIGXCPU, SIGXFSZ, or SIGKILL past the CPU limit) and the error
/// messages a program prints when a file grows too large or it has too many files open.
pub fn classify(signs: &Signs) -> Option<Limit> {
    let limits = signs.limits;
    if signs.memory_limit_hit {
        Some(Limit::Memory)
    } else if signs.process_limit_hit {
        Some(Limit::Processes)
    } else if signs.exit == Exit::Signal(libc::SIGXCPU)
        || (signs.exit == Exit::Signal(libc::SIGKILL)
            && limits.cpu.is_some_and(|cpu| signs.cpu_time >= cpu))
    {
        Some(Limit::Cpu)
    } else if signs.exit == Exit::Signal(libc::SIGXFSZ)
        || (limits.file_size.is_some() && signs.stderr.contains("File too large"))
    {
        Some(Limit::FileSize)
    } else if limits.open_files.is_some() && signs.stderr.contains("Too many open files") {
        Some(Limit::OpenFiles)
    } else {
        None
    }
}

/// How a signal that ended a program is told: `killed by SIGSEGV (segmentation fault)`.
pub fn killed_by(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGFPE => "SIGFPE",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return format!("killed by signal {signal}"),
    };
    format!("killed by {name} ({})", signal_name(signal))
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "segmentation fault",
        libc::SIGABRT => "aborted",
        libc::SIGKILL => "killed",
        libc::SIGTERM => "terminated",
        libc::SIGFPE => "arithmetic error",
        libc::SIGBUS => "bus error",
        libc::SIGILL => "illegal instruction",
        libc::SIGPIPE => "broken pipe",
        libc::SIGXCPU => "CPU time limit",
        libc::SIGXFSZ => "file size limit",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs<'a>(exit: Exit, limits: &'a ResourceLimits) -> Signs<'a> {
        Signs {
            exit,
            cpu_time: Duration::ZERO,
            memory_limit_hit: false,
            process_limit_hit: false,
            stderr: "",
            limits,
        }
    }

    #[test]
    fn limits_are_classified_from_the_signs_alone() {
        let limits = ResourceLimits {
            cpu: Some(Duration::from_secs(1)),
            file_size: Some(1 << 20),
            open_files: Some(64),
            ..ResourceLimits::default()
        };
        assert_eq!(classify(&signs(Exit::Code(0), &limits)), None);
        assert_eq!(
            classify(&signs(Exit::Signal(libc::SIGXCPU), &limits)),
            Some(Limit::Cpu)
        );
        let killed_after_cpu = Signs {
            cpu_time: Duration::from_millis(1500),
            ..signs(Exit::Signal(libc::SIGKILL), &limits)
        };
        assert_eq!(classify(&killed_after_cpu), Some(Limit::Cpu));
        assert_eq!(
            classify(&signs(Exit::Signal(libc::SIGKILL), &limits)),
            None,
            "a SIGKILL before the CPU limit is no CPU verdict"
        );
        assert_eq!(
            classify(&signs(Exit::Signal(libc::SIGXFSZ), &limits)),
            Some(Limit::FileSize)
        );
        let too_many = Signs {
            stderr: "OSError: [Errno 24] Too many open files",
            ..signs(Exit::Code(1), &limits)
        };
        assert_eq!(classify(&too_many), Some(Limit::OpenFiles));
        let both = Signs {
            memory_limit_hit: true,
            process_limit_hit: true,
            ..signs(Exit::Signal(libc::SIGKILL), &limits)
        };
        assert_eq!(
            classify(&both),
            Some(Limit::Memory),
            "memory is named first"
        );
        let unlimited = ResourceLimits::default();
        let message_only = Signs {
            stderr: "File too large",
            ..signs(Exit::Code(1), &unlimited)
        };
        assert_eq!(
            classify(&message_only),
            None,
            "no limit set, no limit verdict"
        );
    }
}
