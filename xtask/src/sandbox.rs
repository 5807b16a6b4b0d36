//! The sandbox helper: one long-lived process per worker that sits in the worker's cgroup and
//! long-lived namespaces and starts each of the worker's cases from there.
//!
//! The harness (multi-threaded, so it may not do much between fork and exec) starts the helper
//! as a program of its own: `xtask __sandbox-helper`, or the `sandbox` binary beside the test
//! programs. The helper is single-threaded, so it can build a case freely after `fork`. For
//! each case it receives a [`CaseRequest`] and the case's stdin, stdout and stderr over a
//! socket; it clones the case's first process into fresh mount, PID and IPC namespaces, which
//! builds the case's view of the file system and starts the target as its only child, under an
//! unprivileged uid, rlimits, Landlock and seccomp. The helper answers with a pidfd of that
//! first process (the harness kills the whole case with one signal to it: when the first
//! process of a PID namespace dies, every process in it dies) and, when it ends, the target's
//! exit status and CPU time.
//!
//! Starting cases from inside the cgroup is the point: moving each case into a cgroup v1
//! hierarchy costs 10-15 ms; this way only the helper moves, once. The helper dies with the
//! harness (a parent-death signal), and each case's first process with the helper.

use std::cell::RefCell;
use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::confine::cgroup::{self, Mark, Observed, WorkerCgroup};
use crate::confine::mounts::{self, View};
use crate::confine::rlimits::{self, Rlimit};
use crate::confine::{landlock, namespaces, seccomp};

/// The argument that makes the xtask binary act as the helper.
pub const HELPER_ARG: &str = "__sandbox-helper";

/// One case, as the helper needs it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseRequest {
    /// The command line (the program is looked up on the environment's PATH).
    pub argv: Vec<Vec<u8>>,
    pub env: Vec<(Vec<u8>, Vec<u8>)>,
    /// Where the target runs, inside its view.
    pub cwd: Vec<u8>,
    pub view: View,
    pub rlimits: Vec<Rlimit>,
    pub landlock: bool,
    /// Load the seccomp filter (off only to measure what it costs).
    pub seccomp: bool,
    /// Build the view (off only to measure what it costs: the case then sees the host's).
    pub view_on: bool,
    /// The uid and gid the target runs as when the helper is root.
    pub uid: u32,
}

/// What the helper says.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Reply {
    /// Set up; `layers` lists what it could not do.
    Ready,
    /// The case runs; its first process's pidfd comes with this message.
    Started,
    /// The case could not start: the view, or `exec`, failed.
    Failed { error: String },
    /// The case is over.
    Exited(Exited),
}

/// How a case ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Exited {
    /// The target's wait status; `None` when its first process was killed before it reported.
    pub status: Option<i32>,
    /// CPU time of the target and the children it waited for, in microseconds.
    pub cpu_us: u64,
}

// ---------------------------------------------------------------------------------------------
// Messages: one datagram each on a SOCK_SEQPACKET pair, with file descriptors alongside.

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

fn send(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of_val(fds) as u32) } as usize;
    let mut control = vec![0u8; space.max(1)];
    // SAFETY: msghdr is plain data; every pointer in it is valid for the call, and the control
    // buffer holds one header and the descriptors, as CMSG_SPACE sized it.
    unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        if !fds.is_empty() {
            message.msg_control = control.as_mut_ptr().cast();
            message.msg_controllen = space as _;
            let header = libc::CMSG_FIRSTHDR(&message);
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of_val(fds) as u32) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(header).cast::<RawFd>(),
                fds.len(),
            );
        }
        loop {
            let sent = libc::sendmsg(socket, &message, libc::MSG_NOSIGNAL);
            if sent >= 0 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// One message and its descriptors; `None` at the end of the stream.
fn receive(socket: RawFd) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    let mut buffer = vec![0u8; 1 << 20];
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    // SAFETY: as in `send`; the kernel writes at most the lengths given.
    unsafe {
        let space = libc::CMSG_SPACE((4 * std::mem::size_of::<RawFd>()) as u32) as usize;
        let mut control = vec![0u8; space];
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = space as _;
        let received = loop {
            let n = libc::recvmsg(socket, &mut message, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 {
                break n as usize;
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        };
        if received == 0 {
            return Ok(None);
        }
        let mut fds = Vec::new();
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(header).cast::<RawFd>();
                let count = ((*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize)
                    / std::mem::size_of::<RawFd>();
                for k in 0..count {
                    fds.push(OwnedFd::from_raw_fd(*data.add(k)));
                }
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
        buffer.truncate(received);
        Ok(Some((buffer, fds)))
    }
}

fn send_reply(socket: RawFd, reply: &Reply, fds: &[RawFd]) -> io::Result<()> {
    let bytes = serde_json::to_vec(reply).map_err(io::Error::other)?;
    send(socket, &bytes, fds)
}

fn receive_reply(socket: RawFd) -> io::Result<(Reply, Vec<OwnedFd>)> {
    let (bytes, fds) = receive(socket)?
        .ok_or_else(|| io::Error::other("the sandbox helper ended unexpectedly"))?;
    let reply = serde_json::from_slice(&bytes).map_err(io::Error::other)?;
    Ok((reply, fds))
}

// ---------------------------------------------------------------------------------------------
// The harness's side.

/// Set by a program that is its own helper under another name than `xtask` (the student kit).
static SELF_HELPER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says that the running program starts its own helper, as `PROGRAM __sandbox-helper`; its
/// `main` must then hand that argument to [`helper_main`].
pub fn helper_is_self() {
    SELF_HELPER.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// How to start the helper: `xtask __sandbox-helper` (or any program that said
/// [`helper_is_self`]), or the `sandbox` program beside the running one (the test programs are
/// in `deps/`, one folder below).
fn helper_command() -> io::Result<Command> {
    if let Some(path) = std::env::var_os("GRIDJUDGE_SANDBOX_HELPER") {
        return Ok(Command::new(path));
    }
    let exe = std::env::current_exe()?;
    if SELF_HELPER.load(std::sync::atomic::Ordering::Relaxed)
        || exe.file_stem().is_some_and(|stem| stem == "xtask")
    {
        let mut command = Command::new(exe);
        command.arg(HELPER_ARG);
        return Ok(command);
    }
    let dir = exe.parent().unwrap_or(Path::new("."));
    for candidate in [dir.join("sandbox"), dir.join("../sandbox")] {
        if candidate.is_file() {
            return Ok(Command::new(candidate));
        }
    }
    Err(io::Error::other(format!(
        "no sandbox helper beside `{}`",
        exe.display()
    )))
}

/// A worker's helper, seen from the harness.
pub struct Helper {
    child: std::process::Child,
    socket: OwnedFd,
    cgroup: Option<WorkerCgroup>,
}

/// A case the helper has started.
pub struct Started {
    /// A pidfd of the case's first process: readable when the case ends; SIGKILL to it ends
    /// every process of the case.
    pub pidfd: OwnedFd,
    mark: Mark,
}

impl Helper {
    /// Starts a helper, in a worker cgroup of its own where the machine has cgroups.
    pub fn start() -> io::Result<Helper> {
        let mut pair = [0 as RawFd; 2];
        // SAFETY: socketpair writes two new fds into `pair`.
        check(unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                pair.as_mut_ptr(),
            )
        })?;
        // SAFETY: both fds are new and owned here.
        let (ours, theirs) =
            unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
        let mut command = helper_command()?;
        command
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .env_clear();
        let child = command.spawn()?;
        let mut helper = Helper {
            child,
            socket: ours,
            cgroup: None,
        };
        match receive_reply(helper.socket.as_raw_fd())? {
            (Reply::Ready, _) => {}
            (Reply::Failed { error }, _) => return Err(io::Error::other(error)),
            (other, _) => return Err(io::Error::other(format!("unexpected {other:?}"))),
        }
        if let Some(hierarchy) = cgroup::hierarchy() {
            let worker = WorkerCgroup::new(&hierarchy)?;
            worker.adopt(helper.child.id())?;
            helper.cgroup = Some(worker);
        }
        Ok(helper)
    }

    /// Starts a case; `Err` when it cannot start (the message says why).
    pub fn start_case(
        &mut self,
        request: &CaseRequest,
        memory: Option<u64>,
        processes: Option<u64>,
        stdio: [OwnedFd; 3],
    ) -> io::Result<Started> {
        let mark = match &mut self.cgroup {
            Some(cgroup) => cgroup.prepare(memory, processes)?,
            None => Mark::default(),
        };
        let bytes = serde_json::to_vec(request).map_err(io::Error::other)?;
        let raw: Vec<RawFd> = stdio.iter().map(AsRawFd::as_raw_fd).collect();
        send(self.socket.as_raw_fd(), &bytes, &raw)?;
        drop(stdio);
        match receive_reply(self.socket.as_raw_fd())? {
            (Reply::Started, mut fds) if fds.len() == 1 => Ok(Started {
                pidfd: fds.remove(0),
                mark,
            }),
            (Reply::Failed { error }, _) => {
                // The helper still reports the end of the case that never ran.
                let _ = receive_reply(self.socket.as_raw_fd());
                Err(io::Error::new(io::ErrorKind::NotFound, error))
            }
            (other, _) => Err(io::Error::other(format!("unexpected {other:?}"))),
        }
    }

    /// The socket, readable when the helper reports the end of the running case.
    pub fn socket(&self) -> RawFd {
        self.socket.as_raw_fd()
    }

    /// Whether the running case has tried to start more processes than allowed.
    pub fn process_limit_hit(&self, started: &Started) -> bool {
        self.cgroup
            .as_ref()
            .is_some_and(|cgroup| cgroup.process_limit_hit(&started.mark))
    }

    /// Waits for the end of the running case; what the cgroup saw of it.
    pub fn finish(&mut self, started: &Started) -> io::Result<(Exited, Observed)> {
        let exited = match receive_reply(self.socket.as_raw_fd())? {
            (Reply::Exited(exited), _) => exited,
            (other, _) => return Err(io::Error::other(format!("unexpected {other:?}"))),
        };
        let observed = match &mut self.cgroup {
            Some(cgroup) => cgroup.observed(&started.mark),
            None => Observed::default(),
        };
        Ok((exited, observed))
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Closing the socket ends the helper's loop; SIGKILL in case it is stuck.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

thread_local! {
    /// This worker thread's helper, started at its first sandboxed case.
    static HELPER: RefCell<Option<Helper>> = const { RefCell::new(None) };
}

/// Runs `work` with this thread's helper, starting one if needed. A helper whose case went
/// wrong in a way that leaves it unusable is dropped (`work` returns `Err` with `discard`).
pub fn with_helper<R>(work: impl FnOnce(&mut Helper) -> io::Result<R>) -> io::Result<R> {
    HELPER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(Helper::start()?);
        }
        let helper = slot.as_mut().ok_or_else(|| io::Error::other("no helper"))?;
        let result = work(helper);
        if result
            .as_ref()
            .is_err_and(|err| err.kind() != io::ErrorKind::NotFound)
        {
            // The helper may be out of step with the harness: start afresh next time.
            *slot = None;
        }
        result
    })
}

/// Ends this thread's helper, if it has one (its cgroup goes with it).
pub fn release() {
    HELPER.with(|slot| drop(slot.borrow_mut().take()));
}

/// Whether this machine can run the sandbox, found once by starting a helper: `Err` says why
/// not.
pub fn available() -> Result<(), String> {
    static FOUND: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| Helper::start().map(drop).map_err(|err| err.to_string()))
        .clone()
}

// ---------------------------------------------------------------------------------------------
// The helper's side.

/// The helper's program: set up, then run the cases it is sent until the harness hangs up.
pub fn helper_main() -> std::process::ExitCode {
    let socket: RawFd = 0;
    // SAFETY: prctl and getppid take and return integers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() == 1 {
            return std::process::ExitCode::from(1);
        }
    }
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let setup = namespaces::enter_helper(root).and_then(|()| seccomp::filter());
    let filter = match setup {
        Ok(filter) => filter,
        Err(err) => {
            let _ = send_failure(socket, err.to_string());
            return std::process::ExitCode::from(1);
        }
    };
    if send_reply(socket, &Reply::Ready, &[]).is_err() {
        return std::process::ExitCode::from(1);
    }
    while let Ok(Some((bytes, fds))) = receive(socket) {
        let request: CaseRequest = match serde_json::from_slice(&bytes) {
            Ok(request) => request,
            Err(err) => {
                let _ = send_failure(socket, err.to_string());
                continue;
            }
        };
        if run_case(socket, &request, fds, &filter, root).is_err() {
            break;
        }
    }
    std::process::ExitCode::SUCCESS
}

/// What a case's first process tells the helper through a pipe: one line, `started`, `failed
/// MESSAGE`, then `exited STATUS CPU_US`.
fn report(fd: RawFd, line: &str) {
    let line = format!("{line}\n");
    // SAFETY: writes from a buffer that lives for the call.
    unsafe {
        libc::write(fd, line.as_ptr().cast(), line.len());
    }
}

fn send_failure(socket: RawFd, error: String) -> io::Result<()> {
    send_reply(socket, &Reply::Failed { error }, &[])
}

/// Answers a case that cannot start: it failed, and (as for every case) it is over.
fn refuse(socket: RawFd, error: String) -> io::Result<()> {
    send_failure(socket, error)?;
    let never_ran = Exited {
        status: None,
        cpu_us: 0,
    };
    send_reply(socket, &Reply::Exited(never_ran), &[])
}

/// Starts one case, tells the harness, waits for it, tells the harness again.
fn run_case(
    socket: RawFd,
    request: &CaseRequest,
    stdio: Vec<OwnedFd>,
    filter: &seccompiler::BpfProgram,
    root: bool,
) -> io::Result<()> {
    if stdio.len() != 3 {
        return refuse(socket, "expected three descriptors".into());
    }
    let mut pipe = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two new fds.
    check(unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both are new and owned here.
    let (from_case, to_helper) =
        unsafe { (OwnedFd::from_raw_fd(pipe[0]), OwnedFd::from_raw_fd(pipe[1])) };
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
        case_first_process(request, &stdio, to_helper.as_raw_fd(), filter, root);
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
    // SAFETY: the child is not reaped yet, so its pid is stable; a non-negative result is a
    // new fd.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let mut lines = io::BufRead::lines(io::BufReader::new(std::fs::File::from(from_case)));
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    if let Some(error) = first.strip_prefix("failed ") {
        send_reply(
            socket,
            &Reply::Failed {
                error: error.to_string(),
            },
            &[],
        )?;
    } else if pidfd >= 0 && first == "started" {
        // SAFETY: the fd is new and owned here.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
        send_reply(socket, &Reply::Started, &[pidfd.as_raw_fd()])?;
    } else {
        send_reply(
            socket,
            &Reply::Failed {
                error: "the case ended before it started".into(),
            },
            &[],
        )?;
    }
    let last = lines.next().and_then(Result::ok).unwrap_or_default();
    let mut status = 0;
    // SAFETY: waitpid writes the status.
    unsafe {
        while libc::waitpid(pid, &mut status, 0) < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
    let mut words = last.split_whitespace();
    let exited = match (words.next(), words.next(), words.next()) {
        (Some("exited"), Some(status), Some(cpu)) => Exited {
            status: status.parse().ok(),
            cpu_us: cpu.parse().unwrap_or(0),
        },
        _ => Exited {
            status: None,
            cpu_us: 0,
        },
    };
    send_reply(socket, &Reply::Exited(exited), &[])
}

/// The first process of a case (pid 1 of its PID namespace): builds the view, starts the
/// target, reaps everything until the target ends, reports, and exits, which ends every other
/// process of the case.
fn case_first_process(
    request: &CaseRequest,
    stdio: &[OwnedFd],
    to_helper: RawFd,
    filter: &seccompiler::BpfProgram,
    root: bool,
) -> ! {
    // SAFETY: prctl takes integers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    let view = if request.view_on {
        mounts::enter(&request.view)
    } else {
        Ok(())
    };
    if let Err(err) = view {
        report(
            to_helper,
            &format!("failed could not build the sandbox: {err}"),
        );
        exit(127);
    }
    let mut pipe = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two new fds.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        report(to_helper, "failed could not make a pipe");
        exit(127);
    }
    // SAFETY: fork in a single-threaded process.
    let target = unsafe { libc::fork() };
    if target == 0 {
        // SAFETY: closing the read end in the child.
        unsafe { libc::close(pipe[0]) };
        let error = exec_target(request, stdio, filter, root);
        let message = error.to_string();
        // SAFETY: writes from a buffer that lives for the call.
        unsafe {
            libc::write(pipe[1], message.as_ptr().cast(), message.len());
        }
        exit(127);
    }
    // SAFETY: closing this process's copies of fds it does not use.
    unsafe {
        libc::close(pipe[1]);
        for fd in stdio {
            libc::close(fd.as_raw_fd());
        }
    }
    // The pipe closes on a successful exec: nothing to read. Otherwise the error comes through.
    let mut error = vec![0u8; 4096];
    // SAFETY: reads into a buffer of the length given.
    let n = unsafe { libc::read(pipe[0], error.as_mut_ptr().cast(), error.len()) };
    if n > 0 {
        error.truncate(n as usize);
        report(
            to_helper,
            &format!("failed {}", String::from_utf8_lossy(&error)),
        );
    } else {
        report(to_helper, "started");
    }
    // Reap every process of the namespace until the target itself ends.
    loop {
        let mut status = 0;
        // SAFETY: wait4 writes into `status` and `usage`, both owned here.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let reaped = unsafe { libc::wait4(-1, &mut status, 0, &mut usage) };
        if reaped == target {
            let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
            let cpu = micros(usage.ru_utime) + micros(usage.ru_stime);
            report(to_helper, &format!("exited {status} {cpu}"));
            exit(0);
        }
        if reaped < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            exit(0);
        }
    }
}

fn exit(code: i32) -> ! {
    // SAFETY: _exit ends the process without running the parent's destructors twice.
    unsafe { libc::_exit(code) }
}

/// Becomes the target: its stdio, rlimits, folder, uid, Landlock and seccomp, then `exec`.
/// Returns only on failure.
fn exec_target(
    request: &CaseRequest,
    stdio: &[OwnedFd],
    filter: &seccompiler::BpfProgram,
    root: bool,
) -> io::Error {
    let attempt = || -> io::Result<std::convert::Infallible> {
        // SAFETY: setsid, dup2 and close_range take integers.
        unsafe {
            libc::setsid();
            for (k, fd) in stdio.iter().enumerate() {
                check(libc::dup2(fd.as_raw_fd(), k as RawFd))?;
            }
            // Everything else closes on exec (the error pipe stays open until then).
            libc::syscall(
                libc::SYS_close_range,
                3u32,
                u32::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
        }
        rlimits::apply(&request.rlimits)?;
        std::env::set_current_dir(OsString::from_vec(request.cwd.clone()))
            .map_err(|err| io::Error::new(err.kind(), format!("cannot enter its folder: {err}")))?;
        if request.landlock {
            let mut readable: Vec<PathBuf> = mounts::SYSTEM
                .iter()
                .map(PathBuf::from)
                .filter(|p| p.exists())
                .collect();
            readable.extend(request.view.readable.iter().cloned());
            readable.push("/proc".into());
            readable.push("/dev".into());
            let writable = [PathBuf::from(mounts::TEMP), "/dev/null".into()];
            let ruleset = landlock::ruleset(&readable, &writable)?;
            landlock::restrict(ruleset.as_raw_fd())?;
        }
        drop_to(request.uid, root)?;
        if request.seccomp {
            seccomp::apply(filter)?;
        }
        let argv: Vec<CString> = request
            .argv
            .iter()
            .map(|a| CString::new(a.clone()).map_err(io::Error::other))
            .collect::<io::Result<_>>()?;
        let env: Vec<CString> = request
            .env
            .iter()
            .map(|(k, v)| {
                CString::new([k.as_slice(), b"=", v.as_slice()].concat()).map_err(io::Error::other)
            })
            .collect::<io::Result<_>>()?;
        let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        argv_ptrs.push(std::ptr::null());
        let mut env_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
        env_ptrs.push(std::ptr::null());
        // PATH lookup in the target's own environment.
        if let Some((_, path)) = request.env.iter().find(|(k, _)| k == b"PATH") {
            std::env::set_var("PATH", OsString::from_vec(path.clone()));
        }
        let program = argv
            .first()
            .ok_or_else(|| io::Error::other("empty command line"))?;
        // SAFETY: every pointer array is NUL-terminated and outlives the call.
        unsafe {
            libc::execvpe(program.as_ptr(), argv_ptrs.as_ptr(), env_ptrs.as_ptr());
        }
        let error = io::Error::last_os_error();
        Err(io::Error::new(
            error.kind(),
            format!("`{}`: {error}", String::from_utf8_lossy(program.as_bytes())),
        ))
    };
    match attempt() {
        Err(err) => err,
        Ok(never) => match never {},
    }
}

/// Drops to `uid` (as root) or stays the user namespace's sandbox uid, with no capability.
fn drop_to(uid: u32, root: bool) -> io::Result<()> {
    if root {
        // SAFETY: these calls take integers (and a null group list of length 0).
        unsafe {
            check(libc::setgroups(0, std::ptr::null()))?;
            check(libc::setresgid(uid, uid, uid))?;
            check(libc::setresuid(uid, uid, uid))?;
        }
    }
    namespaces::drop_privileges(false)
}
