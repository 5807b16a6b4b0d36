//! The first process of a case, pid 1 of its PID namespace (isolate's proxy): it builds the
//! case's view, starts the target as its only child, reaps every process of the namespace
//! until the target ends, reports, and exits, which ends every other process of the case.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::inside;
use super::wire::{self, CaseRequest, Exited, Reply};
use crate::confine::{mounts, seccomp};
use crate::sys;

/// Runs the case's first process; never returns.
pub fn first_process(
    request: &CaseRequest,
    stdio: &[OwnedFd],
    to_helper: RawFd,
    filter: &seccomp::Filters,
    root: bool,
) -> ! {
    let fail = |error: String| -> ! {
        let _ = wire::send_failure(to_helper, error);
        sys::exit(127)
    };
    // SAFETY: prctl takes integers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    if request.layers.view_on {
        if let Err(err) = mounts::enter(&request.layers.view) {
            fail(format!("could not build the sandbox: {err}"));
        }
    }
    // The target's `exec` error comes back through this pipe, which closes on a good `exec`.
    let Ok((error_read, error_write)) = sys::pipe() else {
        fail("could not make a pipe".into());
    };
    // SAFETY: fork in a single-threaded process.
    let target = unsafe { libc::fork() };
    if target == 0 {
        drop(error_read);
        let message = inside::become_target(request, stdio, filter, root).to_string();
        let _ = sys::write_fd(error_write.as_raw_fd(), message.as_bytes());
        sys::exit(127);
    }
    drop(error_write);
    // SAFETY: closing this process's copies of fds it does not use.
    unsafe {
        for fd in stdio {
            libc::close(fd.as_raw_fd());
        }
    }
    let mut error = vec![0u8; 4096];
    // SAFETY: reads into a buffer of the length given.
    let n = unsafe {
        libc::read(
            error_read.as_raw_fd(),
            error.as_mut_ptr().cast(),
            error.len(),
        )
    };
    let said = if n > 0 {
        error.truncate(n as usize);
        Reply::Failed {
            error: String::from_utf8_lossy(&error).into_owned(),
        }
    } else {
        Reply::Started
    };
    let _ = wire::send(to_helper, &said, &[]);
    let exited = reap_until(target);
    let _ = wire::send(to_helper, &Reply::Exited(exited), &[]);
    sys::exit(0)
}

/// Reaps every process of the namespace until `target` itself ends: its status and CPU time.
fn reap_until(target: libc::pid_t) -> Exited {
    loop {
        let mut status = 0;
        // SAFETY: wait4 writes into `status` and `usage`, both owned here.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let reaped = unsafe { libc::wait4(-1, &mut status, 0, &mut usage) };
        if reaped == target {
            let cpu = sys::timeval(usage.ru_utime) + sys::timeval(usage.ru_stime);
            return Exited {
                status: Some(status),
                cpu_us: cpu.as_micros() as u64,
            };
        }
        if reaped < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Exited::unknown();
        }
    }
}
