//! Running one target on one input, with a deadline and capped output, leaving nothing behind.
//!
//! The target runs in a process group of its own. One thread multiplexes everything with
//! `poll(2)`: feeding stdin (a target that exits early or never reads is normal: a broken pipe
//! just ends the feeding), reading stdout and stderr (capped), and watching for the exit through
//! a pidfd (or, on kernels without pidfds, a short polling interval). On exit, on timeout and
//! when stdout overflows, the whole group is killed with SIGKILL, so a child that inherited the
//! pipes cannot keep the case open; a process that left the group and still holds a pipe is
//! waited for only briefly. The group is killed before the target is reaped, while its pid
//! cannot yet be reused.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::confine::{Confinement, Policy};
use crate::target::Target;

/// Set by the Ctrl-C handler: every running target is killed and no new one starts.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every running and future [`execute`] to stop (Ctrl-C).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The longest `poll` sleeps, so that an interrupt or the memory watch is seen in time.
const TICK: Duration = Duration::from_millis(50);

/// How long output is still collected after the target exits, from processes that escaped
/// its process group.
const DRAIN: Duration = Duration::from_millis(200);

/// How long a run may take and how much of its output is kept.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub timeout: Duration,
    /// Bytes of stdout kept; more is an output-limit verdict.
    pub stdout_cap: usize,
    /// Bytes of stderr kept; the rest is read and dropped.
    pub stderr_cap: usize,
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

/// Everything observed while running a target once.
#[derive(Debug, Clone)]
pub struct Execution {
    pub exit: Exit,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub stderr_truncated: bool,
    /// From spawn to exit.
    pub elapsed: Duration,
    /// Killed at the deadline.
    pub timed_out: bool,
    /// Killed for writing more than the stdout cap.
    pub output_limited: bool,
    /// A resource limit it ran into, if any.
    pub limit: Option<Limit>,
    /// CPU time of the target's main process (and the children it waited for).
    pub cpu_time: Duration,
    /// Peak memory, from the case's cgroup or the main process's peak resident set.
    pub peak_memory: Option<u64>,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
    Exit,
}

/// Runs `target` with `input` on stdin under `policy` ([`Policy::trusted`] for the bundled
/// reference only). `Err` only when it cannot be started.
pub fn execute(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
) -> io::Result<Execution> {
    let confinement = if policy.is_trusted() {
        None
    } else {
        Some(Confinement::new(policy)?)
    };
    let mut command = Command::new(&target.program);
    command
        .args(&target.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // Changing directory rules out posix_spawn, the fast way to start a process: do it only
    // when the target runs elsewhere than the harness.
    if std::env::current_dir().is_ok_and(|cwd| cwd != target.dir) {
        command.current_dir(&target.dir);
    }
    if let Some(confinement) = &confinement {
        confinement.configure(&mut command, policy);
    }
    // Without a cgroup, memory is watched by polling the main process's peak.
    let watch_memory = policy.limits.memory.filter(|_| !policy.has_cgroups());
    let mut memory_killed = false;
    let start = Instant::now();
    let mut child = command.spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut stdin = child.stdin.take().map(OwnedFd::from);
    let mut stdout = child.stdout.take().map(OwnedFd::from);
    let mut stderr = child.stderr.take().map(OwnedFd::from);
    for fd in [&stdin, &stdout, &stderr].into_iter().flatten() {
        set_nonblocking(fd.as_raw_fd())?;
    }
    let pidfd = pidfd_open(pid);
    if input.is_empty() {
        stdin = None;
    }

    let deadline = start + bounds.timeout;
    let mut written = 0;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let (mut timed_out, mut output_limited, mut stderr_truncated) = (false, false, false);
    let mut interrupted_here = false;
    let mut process_limited = false;
    let mut exited_at: Option<Instant> = None;
    let mut buffer = vec![0u8; 64 * 1024];
    // Everything the case started: its process group, and its cgroup for what left the group.
    let kill_case = || {
        kill_group(pid);
        if let Some(confinement) = &confinement {
            confinement.kill_all();
        }
    };
    loop {
        let now = Instant::now();
        if let Some(exited) = exited_at {
            if (stdout.is_none() && stderr.is_none()) || now >= exited + DRAIN {
                break;
            }
        } else if now >= deadline && !timed_out && !output_limited {
            kill_group(pid);
            timed_out = true;
        } else if interrupted() && !interrupted_here {
            kill_group(pid);
            interrupted_here = true;
        } else if !process_limited
            && confinement
                .as_ref()
                .is_some_and(Confinement::process_limit_hit)
        {
            // A fork bomb: stop it now rather than at the deadline.
            kill_case();
            process_limited = true;
        } else if let Some(limit) = watch_memory.filter(|_| !memory_killed) {
            if peak_resident(pid).is_some_and(|peak| peak > limit) {
                kill_group(pid);
                memory_killed = true;
            }
        }
        let mut fds = Vec::with_capacity(4);
        let mut streams = Vec::with_capacity(4);
        let mut watch = |fd: RawFd, events: libc::c_short, stream: Stream| {
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
            streams.push(stream);
        };
        if let Some(fd) = &stdin {
            watch(fd.as_raw_fd(), libc::POLLOUT, Stream::Stdin);
        }
        if let Some(fd) = &stdout {
            watch(fd.as_raw_fd(), libc::POLLIN, Stream::Stdout);
        }
        if let Some(fd) = &stderr {
            watch(fd.as_raw_fd(), libc::POLLIN, Stream::Stderr);
        }
        if let (Some(fd), None) = (&pidfd, exited_at) {
            watch(fd.as_raw_fd(), libc::POLLIN, Stream::Exit);
        }
        let mut wait = match exited_at {
            Some(exited) => (exited + DRAIN).saturating_duration_since(now),
            None if timed_out
                || output_limited
                || interrupted_here
                || memory_killed
                || process_limited =>
            {
                Duration::from_millis(10)
            }
            None => deadline.saturating_duration_since(now).min(TICK),
        };
        if watch_memory.is_some() && exited_at.is_none() {
            wait = wait.min(Duration::from_millis(10));
        }
        if pidfd.is_none() && exited_at.is_none() {
            wait = wait.min(Duration::from_millis(2));
        }
        let wait_ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the whole call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            kill_group(pid);
            let _ = child.wait();
            return Err(error);
        }
        let mut just_exited = false;
        for (pollfd, stream) in fds.iter().zip(&streams) {
            if pollfd.revents == 0 {
                continue;
            }
            match stream {
                Stream::Stdin => {
                    let fd = stdin.as_ref().map_or(-1, |fd| fd.as_raw_fd());
                    let chunk = &input[written..input.len().min(written + 64 * 1024)];
                    match write_fd(fd, chunk) {
                        Ok(n) => written += n,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        // A target that stopped reading is normal: stop feeding it.
                        Err(_) => written = input.len(),
                    }
                    if written == input.len() {
                        stdin = None;
                    }
                }
                Stream::Stdout => match read_fd(stdout.as_ref(), &mut buffer) {
                    Read::Again => {}
                    Read::End => stdout = None,
                    Read::Data(n) => {
                        out.extend_from_slice(&buffer[..n]);
                        if out.len() > bounds.stdout_cap {
                            out.truncate(bounds.stdout_cap);
                            output_limited = true;
                            stdout = None;
                            kill_group(pid);
                        }
                    }
                },
                Stream::Stderr => match read_fd(stderr.as_ref(), &mut buffer) {
                    Read::Again => {}
                    Read::End => stderr = None,
                    Read::Data(n) => {
                        let room = bounds.stderr_cap.saturating_sub(err.len());
                        err.extend_from_slice(&buffer[..n.min(room)]);
                        stderr_truncated |= n > room;
                    }
                },
                Stream::Exit => just_exited = true,
            }
        }
        if pidfd.is_none() && exited_at.is_none() {
            just_exited = has_exited(pid);
        }
        if just_exited {
            exited_at = Some(Instant::now());
            stdin = None;
            // Whatever the target left running goes with it.
            kill_case();
        }
    }
    let elapsed = exited_at.map_or_else(|| start.elapsed(), |at| at - start);
    let (status, usage) = wait4(pid)?;
    drop(child);
    let exit = if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(libc::WEXITSTATUS(status))
    };
    let cpu_time = timeval(usage.ru_utime) + timeval(usage.ru_stime);
    let observed = confinement
        .as_ref()
        .map(Confinement::observed)
        .unwrap_or_default();
    let peak_memory = observed.peak_memory.or(Some(usage.ru_maxrss as u64 * 1024));
    let stderr_text = String::from_utf8_lossy(&err);
    let resource_limits = policy.limits;
    let limit = if observed.memory_limit_hit || memory_killed {
        Some(Limit::Memory)
    } else if observed.process_limit_hit {
        Some(Limit::Processes)
    } else if exit == Exit::Signal(libc::SIGXCPU)
        || (exit == Exit::Signal(libc::SIGKILL)
            && resource_limits.cpu.is_some_and(|cpu| cpu_time >= cpu))
    {
        Some(Limit::Cpu)
    } else if exit == Exit::Signal(libc::SIGXFSZ)
        || (resource_limits.file_size.is_some() && stderr_text.contains("File too large"))
    {
        Some(Limit::FileSize)
    } else if resource_limits.open_files.is_some() && stderr_text.contains("Too many open files") {
        Some(Limit::OpenFiles)
    } else {
        None
    };
    Ok(Execution {
        exit,
        stdout: out,
        stderr: err,
        stderr_truncated,
        elapsed,
        timed_out,
        output_limited,
        limit,
        cpu_time,
        peak_memory,
        interrupted: interrupted_here,
    })
}

fn timeval(time: libc::timeval) -> Duration {
    Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
}

/// Reaps `pid`, with its resource usage.
fn wait4(pid: libc::pid_t) -> io::Result<(libc::c_int, libc::rusage)> {
    let mut status = 0;
    // SAFETY: wait4 writes into `status` and `usage`, both owned here.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as above.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            return Ok((status, usage));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// The peak resident memory of `pid` in bytes (VmHWM), while it runs.
fn peak_resident(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn kill_group(pid: libc::pid_t) {
    // SAFETY: kill has no memory-safety preconditions. The group id is the target's pid, which
    // is not reaped yet and so cannot name another group.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd this function's caller owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A pidfd for `pid`, readable once it exits; `None` where the kernel has none.
fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: the syscall takes two integers and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a fresh fd that nothing else owns.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Whether `pid` has exited, without reaping it.
fn has_exited(pid: libc::pid_t) -> bool {
    // SAFETY: waitid writes only into `info`, a zeroed siginfo_t we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) == 0 && info.si_pid() != 0
    }
}

fn write_fd(fd: RawFd, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// The result of one non-blocking read.
enum Read {
    Data(usize),
    /// End of file, or an error that ends the stream all the same.
    End,
    /// A spurious wake-up: nothing to read yet.
    Again,
}

fn read_fd(fd: Option<&OwnedFd>, buffer: &mut [u8]) -> Read {
    let Some(fd) = fd else { return Read::End };
    loop {
        // SAFETY: `buffer` is valid for writes of `buffer.len()` bytes.
        let n = unsafe { libc::read(fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
        if n > 0 {
            return Read::Data(n as usize);
        }
        if n == 0 {
            return Read::End;
        }
        match io::Error::last_os_error().kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Read::Again,
            _ => return Read::End,
        }
    }
}
