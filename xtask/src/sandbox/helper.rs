//! The helper's own loop: set up once (its user namespace, the seccomp program), then for
//! each case the harness sends, clone the case's first process into fresh namespaces, pass on
//! what it says (started or failed, then exited), and reap it.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::process::ExitCode;

use super::proxy;
use super::wire::{self, CaseRequest, Exited, Reply};
use crate::confine::{namespaces, seccomp};
use crate::sys;

/// The helper's program: set up, then run the cases it is sent until the harness hangs up.
pub fn helper_main() -> ExitCode {
    let socket: RawFd = 0;
    // SAFETY: prctl and getppid take and return integers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() == 1 {
            return ExitCode::from(1);
        }
    }
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let setup = namespaces::enter_helper(root).and_then(|()| seccomp::filter());
    let filter = match setup {
        Ok(filter) => filter,
        Err(err) => {
            let _ = wire::send_failure(socket, err.to_string());
            return ExitCode::from(1);
        }
    };
    if wire::send(socket, &Reply::Ready, &[]).is_err() {
        return ExitCode::from(1);
    }
    while let Ok(Some((bytes, fds))) = sys::receive(socket) {
        let request: CaseRequest = match serde_json::from_slice(&bytes) {
            Ok(request) => request,
            Err(err) => {
                let _ = wire::send_failure(socket, err.to_string());
                continue;
            }
        };
        if serve_case(socket, &request, fds, &filter, root).is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}

/// Answers a case that cannot start: it failed, and (as for every case) it is over.
fn refuse(socket: RawFd, error: String) -> io::Result<()> {
    wire::send_failure(socket, error)?;
    wire::send(socket, &Reply::Exited(Exited::unknown()), &[])
}

/// Starts one case, tells the harness, waits for it, tells the harness again.
fn serve_case(
    socket: RawFd,
    request: &CaseRequest,
    stdio: Vec<OwnedFd>,
    filter: &seccomp::Filters,
    root: bool,
) -> io::Result<()> {
    if stdio.len() != 3 {
        return refuse(socket, "expected three descriptors".into());
    }
    let (from_case, to_helper) = sys::seqpacket_pair()?;
    // SAFETY: a fork with new namespaces (no new stack: the child continues here). The helper is
    // single-threaded, so the child may allocate.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            (namespaces::CASE_FLAGS | libc::SIGCHLD) as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    if pid == 0 {
        drop(from_case);
        proxy::first_process(request, &stdio, to_helper.as_raw_fd(), filter, root);
    }
    drop(to_helper);
    drop(stdio);
    if pid < 0 {
        let error = io::Error::last_os_error();
        return refuse(
            socket,
            format!("could not make the case's namespaces: {error}"),
        );
    }
    let pid = pid as libc::pid_t;
    // The child is not reaped yet, so its pid is stable.
    let pidfd = sys::pidfd_open(pid);
    let said = |socket| match wire::receive::<Reply>(socket) {
        Ok(Some((reply, _))) => reply,
        _ => Reply::Exited(Exited::unknown()),
    };
    match (said(from_case.as_raw_fd()), pidfd) {
        (Reply::Started, Some(pidfd)) => wire::send(socket, &Reply::Started, &[pidfd.as_raw_fd()])?,
        (failed @ Reply::Failed { .. }, _) => wire::send(socket, &failed, &[])?,
        _ => wire::send_failure(socket, "the case ended before it started".into())?,
    }
    let exited = match said(from_case.as_raw_fd()) {
        Reply::Exited(exited) => exited,
        _ => Exited::unknown(),
    };
    let mut status = 0;
    // SAFETY: waitpid writes the status.
    unsafe {
        while libc::waitpid(pid, &mut status, 0) < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
    wire::send(socket, &Reply::Exited(exited), &[])
}
