//! The rlimit layer: CPU time, the size of a written file, open files, no core dumps, and
//! (only where no cgroup counts them) processes.
//!
//! Memory is deliberately not an address-space rlimit: that breaks the JVM and turns memory
//! exhaustion into a crash. The cgroup limits memory.

use std::io;

use serde::{Deserialize, Serialize};

use super::limits::ResourceLimits;

/// One rlimit to set: the resource, its soft and its hard limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rlimit {
    pub resource: u32,
    pub soft: u64,
    pub hard: u64,
}

/// The rlimits of a case under `limits`; `processes_by_cgroup` leaves the process count to the
/// cgroup (RLIMIT_NPROC counts all of a user's processes and does not bind root).
pub(crate) fn for_limits(limits: &ResourceLimits, processes_by_cgroup: bool) -> Vec<Rlimit> {
    let mut list = vec![Rlimit {
        resource: libc::RLIMIT_CORE,
        soft: 0,
        hard: 0,
    }];
    let mut push = |resource, soft, hard| {
        list.push(Rlimit {
            resource,
            soft,
            hard,
        })
    };
    if let Some(cpu) = limits.cpu {
        // SIGXCPU at the soft limit, SIGKILL a second later for a program that ignores it.
        let seconds = cpu.as_secs_f64().ceil().max(1.0) as u64;
        push(libc::RLIMIT_CPU, seconds, seconds + 1);
    }
    if let Some(size) = limits.file_size {
        push(libc::RLIMIT_FSIZE, size, size);
    }
    if let Some(files) = limits.open_files {
        push(libc::RLIMIT_NOFILE, files, files);
    }
    if let (Some(processes), false) = (limits.processes, processes_by_cgroup) {
        push(libc::RLIMIT_NPROC, processes, processes);
    }
    list
}

/// Sets `list` on the calling process. Makes only system calls on the slice it is given, so it
/// is safe between fork and exec.
pub(crate) fn apply(list: &[Rlimit]) -> io::Result<()> {
    for limit in list {
        let value = libc::rlimit {
            rlim_cur: limit.soft,
            rlim_max: limit.hard,
        };
        // SAFETY: setrlimit reads `value`, which lives for the call.
        if unsafe { libc::setrlimit(limit.resource as _, &value) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn cpu_rounds_up_and_processes_go_to_the_cgroup_when_there_is_one() {
        let limits = ResourceLimits {
            cpu: Some(Duration::from_millis(1500)),
            processes: Some(64),
            ..ResourceLimits::default()
        };
        let with_cgroup = for_limits(&limits, true);
        let cpu = with_cgroup
            .iter()
            .find(|l| l.resource == libc::RLIMIT_CPU)
            .unwrap();
        assert_eq!((cpu.soft, cpu.hard), (2, 3));
        assert!(!with_cgroup.iter().any(|l| l.resource == libc::RLIMIT_NPROC));
        assert!(for_limits(&limits, false)
            .iter()
            .any(|l| l.resource == libc::RLIMIT_NPROC && l.soft == 64));
    }
}
