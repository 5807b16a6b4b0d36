//! The first process of a case, pid 1 of its PID namespace (isolate's proxy): it gives the
//! case its own `/tmp` and `/proc` in its copy of the view, loads the seccomp filter (which
//! the target inherits), starts the target as its only child, tells the harness, reaps every
//! process of the namespace until the target ends, and exits, which ends every other process
//! of the case. It says whether the target ended alone ([`Case::alone`]): then the helper
//! starts the next case without waiting for this one's namespaces to be torn down.
//!
//! It is cloned sharing the helper's memory while the helper waits for it to end (`CLONE_VM |
//! CLONE_VFORK`): nothing of the helper is copied for it, and what it has to say back beyond
//! "started" (why it failed, how the target ended) it writes into the [`Case`] the helper reads
//! once it is gone. Between cases of one request it is made ahead ([`Stdio::Awaited`]): its
//! namespaces, mounts, filter and the target's preparation are done while the harness judges the
//! last case, and it takes the next case's message from the socket itself, when that message asks
//! for the same request again; any other message it leaves for the helper. Once it has told the
//! harness that the case started (from then on the harness may kill it at any moment) it touches no
//! allocator: the helper's heap must never be left half-changed.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::inside::{self, Prepared};
use super::views::Sight;
use super::wire::{self, CaseRequest, Exited, SAME_REQUEST};
use crate::confine::{mounts, seccomp};
use crate::sys::{self, Stack};

/// Where a case's stdin, stdout and stderr come from.
pub(super) enum Stdio<'a> {
    /// Received by the helper with the case's request.
    Given(&'a [OwnedFd]),
    /// Still to come, with a repeat of the request on the socket (the first process was made
    /// ahead of its case).
    Awaited,
}

/// One case, as the helper hands it to its first process and reads it back afterwards.
pub(super) struct Case<'a> {
    pub request: &'a CaseRequest,
    pub stdio: Stdio<'a>,
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
    /// Made ahead, it left the next message for the helper: it was not a repeat of the
    /// request, or the first process could not be made ready for it.
    pub unclaimed: Cell<bool>,
    /// Made ahead, the message it took was marked as the last for now ([`wire::LAST`]).
    pub last: Cell<bool>,
    /// Its target ended with no other process of the case left and little in the case's
    /// `/tmp`: its end frees only a few kernel objects, and the next case need not wait for it.
    pub alone: Cell<bool>,
}

/// Why a case's first process did not start its target.
enum Stop {
    /// It could not: why.
    Failed(String),
    /// Made ahead, it left the next message for the helper.
    Unclaimed,
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
        Err(Stop::Failed(error)) => {
            *case.failed.borrow_mut() = Some(error);
            return 1;
        }
        Err(Stop::Unclaimed) => {
            case.unclaimed.set(true);
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
    case.alone
        .set(sys::childless() && (!case.request.layers.view_on || little_in_temp()));
    0
}

/// [`mounts::TEMP`], for a system call made where nothing may allocate.
const TEMP: &std::ffi::CStr = c"/tmp";

/// Whether the case's `/tmp` holds at most a mebibyte: what its end frees of it is small
/// beside any memory limit, even while the next case runs.
fn little_in_temp() -> bool {
    // SAFETY: statfs writes into `stats`, owned here; the path is a C string constant.
    unsafe {
        let mut stats: libc::statfs = std::mem::zeroed();
        libc::statfs(TEMP.as_ptr(), &mut stats) == 0
            && (stats.f_blocks - stats.f_bfree) as u64 * stats.f_bsize as u64 <= 1 << 20
    }
}

/// Builds the case's `/tmp` and `/proc` and starts the target; its pid, or why not. Every
/// allocation it makes is freed when it returns.
fn start(case: &Case) -> Result<libc::pid_t, Stop> {
    let awaited = matches!(case.stdio, Stdio::Awaited);
    // Made ahead, a first process that cannot get ready leaves the case to the helper.
    let failed = |error: String| {
        if awaited {
            Stop::Unclaimed
        } else {
            Stop::Failed(error)
        }
    };
    let request = case.request;
    if request.layers.view_on {
        mounts::enter_case(&request.layers.view)
            .map_err(|err| failed(format!("could not build the sandbox: {err}")))?;
    }
    // The target's failure comes back through this pipe, which closes on a good `exec`.
    let (error_read, error_write) =
        sys::pipe().map_err(|err| failed(format!("could not make a pipe: {err}")))?;
    let mut prepared = Prepared::new(request, case.sight, case.root, error_write.as_raw_fd())
        .map_err(|err| failed(format!("could not prepare the target: {err}")))?;
    inside::load_filter(request, case.filter)
        .map_err(|err| failed(format!("could not load the seccomp filter: {err}")))?;
    let mut received = Vec::new();
    let stdio = match case.stdio {
        Stdio::Given(given) => given,
        Stdio::Awaited => {
            received = take_case(case)?;
            &received[..]
        }
    };
    let stdio = [0, 1, 2].map(|k| stdio[k].as_raw_fd());
    let target = prepared
        .spawn(case.target_stack, stdio)
        .map_err(|err| Stop::Failed(format!("could not start the target: {err}")))?;
    drop(error_write);
    // This process's own copies of the target's stdio are closed: the target's output ends
    // when the target's processes end.
    if let Stdio::Given(given) = case.stdio {
        // SAFETY: its descriptor table is its own: the helper's stay open.
        unsafe {
            for fd in given {
                libc::close(fd.as_raw_fd());
            }
        }
    }
    drop(received);
    let mut record = [0u8; 8];
    if let Ok(8) = sys::read_exact(error_read.as_raw_fd(), &mut record) {
        let step = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
        let errno = i32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
        sys::reap(target);
        return Err(Stop::Failed(prepared.describe(step, errno)));
    }
    Ok(target)
}

/// Takes the next message, when it repeats the request, with the case's three descriptors;
/// any other message (or the end of the stream) is left for the helper.
fn take_case(case: &Case) -> Result<Vec<OwnedFd>, Stop> {
    // One byte more than a marked repeat: a longer message is no repeat.
    let mut head = [0u8; 3];
    let n = sys::peek(case.socket, &mut head).map_err(|_| Stop::Unclaimed)?;
    match wire::unmark(&head[..n]) {
        (SAME_REQUEST, last) => case.last.set(last),
        _ => return Err(Stop::Unclaimed),
    }
    match sys::receive(case.socket) {
        Ok(Some((_, fds))) if fds.len() == 3 => Ok(fds),
        Ok(Some(_)) => Err(Stop::Failed("expected three descriptors".into())),
        Ok(None) => Err(Stop::Failed("the harness hung up".into())),
        Err(err) => Err(Stop::Failed(format!("could not receive the case: {err}"))),
    }
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_temporary_folder_is_the_views() {
        assert_eq!(super::TEMP.to_str(), Ok(crate::confine::mounts::TEMP));
    }
}
