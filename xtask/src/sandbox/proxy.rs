//! The first process of a case, pid 1 of its PID namespace (isolate's proxy): it gives the
//! case its own `/tmp` and `/proc` in its copy of the view, starts the target as its only
//! child, tells the harness, reaps every process of the namespace until the target ends, and
//! exits, which ends every other process of the case.
//!
//! It is cloned sharing the helper's memory while the helper waits for it to end (`CLONE_VM |
//! CLONE_VFORK`): nothing of the helper is copied for it, and what it has to say back beyond
//! "started" (why it failed, how the target ended) it writes into the [`Case`] the helper
//! reads once it is gone. Once it has told the harness that the case started (from then on the
//! harness may kill it at any moment) it touches no allocator: the helper's heap must never be
//! left half-changed.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::inside::Prepared;
use super::views::Sight;
use super::wire::{CaseRequest, Exited};
use crate::confine::{mounts, seccomp};
use crate::sys::{self, Stack};

/// One case, as the helper hands it to its first process and reads it back afterwards.
pub(super) struct Case<'a> {
    pub request: &'a CaseRequest,
    pub stdio: &'a [OwnedFd],
    pub filter: &'a seccomp::Filters,
    pub root: bool,
    /// The harness's socket, and what to send on it once the target runs (with a pidfd).
    pub socket: RawFd,
    pub started_message: &'a [u8],
    pub target_stack: &'a Stack,
    /// The view's places for Landlock, where the case has a view.
    pub sight: Option<&'a Sight>,
    /// Whether the harness was told that the case started.
    pub started: Cell<bool>,
    /// Why the case could not start.
    pub failed: RefCell<Option<String>>,
    /// How the target ended.
    pub exited: Cell<Option<Exited>>,
}

/// The first process, cloned by the helper with `arg` pointing at a [`Case`].
pub(super) extern "C" fn first_process(arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the helper's `Case`, alive (and untouched by the waiting helper) until
    // this process ends.
    let case = unsafe { &*(arg as *const Case) };
    // SAFETY: prctl takes integers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    let target = match start(case) {
        Ok(target) => target,
        Err(error) => {
            *case.failed.borrow_mut() = Some(error);
            return 1;
        }
    };
    // This process itself is pid 1 of the case's namespace: killing it ends the case.
    let Some(pidfd) = sys::pidfd_open(1) else {
        return 1;
    };
    if sys::send(case.socket, case.started_message, &[pidfd.as_raw_fd()]).is_err() {
        return 1;
    }
    case.started.set(true);
    drop(pidfd);
    case.exited.set(Some(reap_until(target)));
    0
}

/// Builds the case's `/tmp` and `/proc` and starts the target; its pid, or why not. Every
/// allocation it makes is freed when it returns.
fn start(case: &Case) -> Result<libc::pid_t, String> {
    let request = case.request;
    if request.layers.view_on {
        mounts::enter_case(&request.layers.view)
            .map_err(|err| format!("could not build the sandbox: {err}"))?;
    }
    // The target's failure comes back through this pipe, which closes on a good `exec`.
    let (error_read, error_write) =
        sys::pipe().map_err(|err| format!("could not make a pipe: {err}"))?;
    let prepared = Prepared::new(
        request,
        case.stdio,
        (case.filter, case.sight),
        case.root,
        error_write.as_raw_fd(),
    )
    .map_err(|err| format!("could not prepare the target: {err}"))?;
    let target = prepared
        .spawn(case.target_stack)
        .map_err(|err| format!("could not start the target: {err}"))?;
    drop(error_write);
    // SAFETY: closing this process's own copies of the target's stdio (its descriptor table
    // is its own): the target's output ends when the target's processes end.
    unsafe {
        for fd in case.stdio {
            libc::close(fd.as_raw_fd());
        }
    }
    let mut record = [0u8; 8];
    if let Ok(8) = sys::read_exact(error_read.as_raw_fd(), &mut record) {
        let step = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
        let errno = i32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
        sys::reap(target);
        return Err(prepared.describe(step, errno));
    }
    Ok(target)
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
