//! Running one target on one input, with a deadline and capped output, leaving nothing behind.
//!
//! A run reads as four steps. **spawn** starts the target: the bundled reference (and, with
//! `--no-sandbox` or without namespaces, any target) directly in a process group of its own; a
//! confined target through the worker's sandbox helper, in namespaces of its own. **pump**
//! multiplexes everything with `poll(2)` on one thread: feeding stdin (a target that exits
//! early or never reads is normal), reading stdout and stderr (capped), watching for the end
//! (a pidfd, or the helper's report), the deadline, Ctrl-C and the process limit; whatever
//! happens, the whole case is killed (its PID namespace, or its process group) before it is
//! reaped. **reap** collects the exit status and CPU time. **classify** ([`classify`], pure)
//! says which resource limit, if any, the target ran into.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::confine::cgroup::Observed;
use crate::confine::{environment, landlock, rlimits, Mode, Policy};
use crate::limits::ResourceLimits;
use crate::target::Target;

/// Set by the Ctrl-C handler: every running target is killed and no new one starts.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How many times Ctrl-C (or SIGTERM) came.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// Asks every running and future [`execute`] to stop (Ctrl-C). A second one ends the process
/// at once, exit status 130: the helpers and their cases die with it.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    if INTERRUPTS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: _exit ends the process; the kernel ends the helpers (parent-death signal).
        unsafe { libc::_exit(130) };
    }
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The longest `poll` sleeps, so that an interrupt or a limit is seen in time.
const TICK: Duration = Duration::from_millis(50);

/// How long output is still collected after a direct target exits, from processes that
/// escaped its process group (a sandboxed case has none: its namespace dies with it).
const DRAIN: Duration = Duration::from_millis(200);

/// How long the end of a killed case may take to be reported before the harness stops waiting
/// (generous: a loaded machine can take seconds to tear a namespace down).
const HARD_DEADLINE: Duration = Duration::from_secs(30);

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

impl Exit {
    fn from_status(status: i32) -> Exit {
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
    /// Killed at the deadline.
    pub timed_out: bool,
    /// Killed for writing more than the stdout cap.
    pub output_limited: bool,
    /// A resource limit it ran into, if any.
    pub limit: Option<Limit>,
    /// CPU time of the target's main process (and the children it waited for).
    pub cpu_time: Duration,
    /// Peak memory, from the worker's cgroup or the main process's peak resident set.
    pub peak_memory: Option<u64>,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// Run confined (not the trusted reference).
    pub confined: bool,
}

/// The target that runs `program` for `suite` (the reference with the suite's arguments, or
/// the user's command, in `dir`) and its policy; warnings go into `warnings`, each once.
pub fn plan(
    program: &crate::target::Program,
    settings: &crate::confine::Settings,
    suite: &crate::suite::Suite,
    corpus_root: &Path,
    reference: &Path,
    dir: &Path,
    warnings: &mut crate::confine::Warnings,
) -> Result<(Target, Policy), crate::error::Error> {
    let target = program.target(reference, &suite.file.args, dir);
    let (target, policy, found) = Policy::for_program(
        program,
        settings,
        suite.limits(),
        corpus_root,
        &target,
        crate::sandbox::available(),
    )?;
    crate::confine::note_once(warnings, found);
    Ok((target, policy))
}

/// Runs `target` with `input` on stdin under `policy` ([`Policy::trusted`] for the bundled
/// reference only). `Err` only when it cannot be started.
pub fn execute(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
) -> io::Result<Execution> {
    match policy.mode {
        Mode::Sandboxed => crate::sandbox::with_helper(|helper| {
            let (ours, theirs) = pipes()?;
            let request = request(
                &std::iter::once(target.program.clone())
                    .chain(target.args.iter().cloned())
                    .collect::<Vec<_>>(),
                &target.dir,
                policy,
            );
            let start = Instant::now();
            let started = helper.start_case(
                &request,
                policy.limits.memory,
                policy.limits.processes,
                theirs,
            )?;
            let mut running = Running::Sandboxed {
                helper,
                started,
                observed: Observed::default(),
                exited: None,
            };
            let pumped = pump(&mut running, ours, input, bounds, start)?;
            let ended = running.reap()?;
            Ok(finish(pumped, ended, &policy.limits, true))
        }),
        Mode::Trusted | Mode::Direct => spawn_direct(target, input, bounds, policy),
    }
}

/// The helper's request for running `argv` in `cwd` under `policy`.
fn request(argv: &[OsString], cwd: &Path, policy: &Policy) -> crate::sandbox::CaseRequest {
    let env = environment::with_temp(&policy.env, Path::new(crate::confine::mounts::TEMP));
    crate::sandbox::CaseRequest {
        argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect(),
        cwd: if cwd.as_os_str().is_empty() {
            crate::confine::mounts::TEMP.as_bytes().to_vec()
        } else {
            cwd.as_os_str().as_bytes().to_vec()
        },
        view: policy.view.clone(),
        rlimits: policy.rlimits.clone(),
        landlock: policy.landlock,
        seccomp: policy.seccomp,
        view_on: policy.view_on,
        uid: policy.uid,
    }
}

/// The harness's ends of the target's stdin, stdout and stderr pipes, and the target's ends.
fn pipes() -> io::Result<([OwnedFd; 3], [OwnedFd; 3])> {
    let make = || -> io::Result<(OwnedFd, OwnedFd)> {
        let mut pair = [0 as RawFd; 2];
        // SAFETY: pipe2 writes two new fds.
        if unsafe { libc::pipe2(pair.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both fds are new and owned here.
        Ok(unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) })
    };
    let (stdin_r, stdin_w) = make()?;
    let (stdout_r, stdout_w) = make()?;
    let (stderr_r, stderr_w) = make()?;
    Ok(([stdin_w, stdout_r, stderr_r], [stdin_r, stdout_w, stderr_w]))
}

/// Spawns a target directly: the trusted reference, or a target confined without namespaces
/// (rlimits, a scrubbed environment, Landlock where the kernel has it, a temporary folder).
fn spawn_direct(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
) -> io::Result<Execution> {
    let confined = policy.mode == Mode::Direct;
    let temp = if confined {
        Some(
            tempfile::Builder::new()
                .prefix("gridjudge-case-")
                .tempdir()?,
        )
    } else {
        None
    };
    let mut command = Command::new(&target.program);
    command
        .args(&target.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let dir = match (&temp, target.dir.as_os_str().is_empty()) {
        (Some(temp), true) => temp.path().to_path_buf(),
        _ => target.dir.clone(),
    };
    // Changing directory rules out posix_spawn, the fast way to start a process: do it only
    // when the target runs elsewhere than the harness.
    if std::env::current_dir().is_ok_and(|cwd| cwd != dir) {
        command.current_dir(&dir);
    }
    if let Some(folder) = &temp {
        command.env_clear();
        command.envs(environment::with_temp(&policy.env, folder.path()));
        let ruleset = if policy.landlock {
            let mut readable = policy.readable.clone();
            readable.extend(
                crate::confine::mounts::SYSTEM
                    .iter()
                    .map(std::path::PathBuf::from)
                    .filter(|p| p.exists()),
            );
            readable.extend(["/proc".into(), "/dev".into()]);
            let writable = [folder.path().to_path_buf(), "/dev/null".into()];
            Some(landlock::ruleset(&readable, &writable)?)
        } else {
            None
        };
        let limits = policy.rlimits.clone();
        let ruleset_fd = ruleset.as_ref().map_or(-1, |fd| fd.as_raw_fd());
        // SAFETY: the closure runs in the forked child before exec and makes only
        // async-signal-safe system calls on data prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                rlimits::apply(&limits)?;
                if ruleset_fd >= 0 {
                    landlock::restrict(ruleset_fd)?;
                }
                Ok(())
            });
        }
        let start = Instant::now();
        let child = command.spawn()?;
        drop(ruleset);
        let execution = run_direct(child, input, bounds, policy, start, confined);
        if let Some(temp) = temp {
            let path = temp.path().to_path_buf();
            if let Err(err) = temp.close() {
                // A target that made its folder undeletable: say so, once per case.
                eprintln!(
                    "warning: could not remove the temporary folder `{}`: {err}",
                    path.display()
                );
            }
        }
        return execution;
    }
    let start = Instant::now();
    let child = command.spawn()?;
    run_direct(child, input, bounds, policy, start, confined)
}

fn run_direct(
    mut child: std::process::Child,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
    start: Instant,
    confined: bool,
) -> io::Result<Execution> {
    let pid = child.id() as libc::pid_t;
    let take = |fd: Option<OwnedFd>| fd.ok_or_else(|| io::Error::other("no pipe"));
    let ours = [
        take(child.stdin.take().map(OwnedFd::from))?,
        take(child.stdout.take().map(OwnedFd::from))?,
        take(child.stderr.take().map(OwnedFd::from))?,
    ];
    let mut running = Running::Direct {
        child,
        pid,
        pidfd: pidfd_open(pid),
        watch_memory: policy.limits.memory.filter(|_| confined),
        memory_killed: false,
    };
    let pumped = pump(&mut running, ours, input, bounds, start)?;
    let ended = running.reap()?;
    Ok(finish(pumped, ended, &policy.limits, confined))
}

/// A started case, as the pump sees it.
enum Running<'a> {
    Direct {
        child: std::process::Child,
        pid: libc::pid_t,
        pidfd: Option<OwnedFd>,
        /// Without a cgroup: kill past this many bytes of peak resident memory.
        watch_memory: Option<u64>,
        memory_killed: bool,
    },
    Sandboxed {
        helper: &'a mut crate::sandbox::Helper,
        started: crate::sandbox::Started,
        observed: Observed,
        exited: Option<crate::sandbox::Exited>,
    },
}

/// What the pump saw.
struct Pumped {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stderr_truncated: bool,
    elapsed: Duration,
    timed_out: bool,
    output_limited: bool,
    interrupted: bool,
    process_limited: bool,
}

/// How the target ended, once reaped.
struct Ended {
    exit: Exit,
    cpu_time: Duration,
    observed: Observed,
    memory_killed: bool,
}

impl Running<'_> {
    /// The fd that becomes readable when the case is over.
    fn end_fd(&self) -> Option<RawFd> {
        match self {
            Running::Direct { pidfd, .. } => pidfd.as_ref().map(AsRawFd::as_raw_fd),
            Running::Sandboxed { helper, .. } => Some(helper.socket()),
        }
    }

    /// Kills every process of the case.
    fn kill(&mut self) {
        match self {
            // SAFETY: kill has no memory-safety preconditions. The group id is the target's
            // pid, which is not reaped yet and so cannot name another group.
            // The target itself too, in case it left its group for another.
            Running::Direct { pid, .. } => unsafe {
                libc::kill(-*pid, libc::SIGKILL);
                libc::kill(*pid, libc::SIGKILL);
            },
            // SAFETY: pidfd_send_signal on a pidfd owned here; it cannot name another process.
            Running::Sandboxed { started, .. } => unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    started.pidfd.as_raw_fd(),
                    libc::SIGKILL,
                    std::ptr::null::<libc::siginfo_t>(),
                    0u32,
                );
            },
        }
    }

    /// A limit seen while the case runs, which ends it at once.
    fn limit_now(&mut self) -> Option<Limit> {
        match self {
            Running::Direct {
                pid,
                watch_memory: Some(limit),
                memory_killed,
                ..
            } if !*memory_killed => {
                if peak_resident(*pid).is_some_and(|peak| peak > *limit) {
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

    /// Whether the case has ended, checked after its end fd became readable.
    fn has_ended(&mut self) -> bool {
        match self {
            Running::Direct { pid, pidfd, .. } => pidfd.is_some() || has_exited(*pid),
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
                        *exited = Some(crate::sandbox::Exited {
                            status: None,
                            cpu_us: 0,
                        });
                    }
                }
                true
            }
        }
    }

    /// Collects the exit status and CPU time.
    fn reap(self) -> io::Result<Ended> {
        match self {
            Running::Direct {
                child,
                pid,
                memory_killed,
                ..
            } => {
                let (status, usage) = wait4(pid)?;
                drop(child);
                let cpu_time = timeval(usage.ru_utime) + timeval(usage.ru_stime);
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
                let exited = exited.unwrap_or(crate::sandbox::Exited {
                    status: None,
                    cpu_us: 0,
                });
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
    End,
}

/// Feeds stdin, collects stdout and stderr, and watches the deadline, Ctrl-C and the limits,
/// until the case has ended and its output is drained. Kills the whole case on the way out.
fn pump(
    running: &mut Running,
    ours: [OwnedFd; 3],
    input: &[u8],
    bounds: &Bounds,
    start: Instant,
) -> io::Result<Pumped> {
    let [stdin, stdout, stderr] = ours;
    let (mut stdin, mut stdout, mut stderr) = (Some(stdin), Some(stdout), Some(stderr));
    for fd in [&stdin, &stdout, &stderr].into_iter().flatten() {
        set_nonblocking(fd.as_raw_fd())?;
    }
    if input.is_empty() {
        stdin = None;
    }
    let direct = matches!(running, Running::Direct { .. });
    let deadline = start + bounds.timeout;
    let mut pumped = Pumped {
        stdout: Vec::new(),
        stderr: Vec::new(),
        stderr_truncated: false,
        elapsed: Duration::ZERO,
        timed_out: false,
        output_limited: false,
        interrupted: false,
        process_limited: false,
    };
    let mut killed_at: Option<Instant> = None;
    let mut ended_at: Option<Instant> = None;
    let mut written = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let now = Instant::now();
        if let Some(ended) = ended_at {
            // A sandboxed case leaves nothing behind: its pipes close. A direct one may have
            // left a process outside its group that holds them: wait only briefly.
            let drained = stdout.is_none() && stderr.is_none();
            if drained || (direct && now >= ended + DRAIN) || now >= ended + HARD_DEADLINE {
                break;
            }
        } else if let Some(killed) = killed_at {
            if now >= killed + HARD_DEADLINE {
                return Err(io::Error::other("a killed case did not end within 30 s"));
            }
        } else {
            let reason = if now >= deadline {
                pumped.timed_out = true;
                true
            } else if interrupted() {
                pumped.interrupted = true;
                true
            } else if let Some(limit) = running.limit_now() {
                pumped.process_limited = limit == Limit::Processes;
                true
            } else {
                false
            };
            if reason {
                running.kill();
                killed_at = Some(now);
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
        if let (Some(fd), None) = (running.end_fd(), ended_at) {
            watch(fd, libc::POLLIN, Stream::End);
        }
        let mut wait = match (ended_at, killed_at) {
            (Some(ended), _) => (ended + DRAIN).saturating_duration_since(now),
            (None, Some(_)) => Duration::from_millis(10),
            (None, None) => deadline.saturating_duration_since(now).min(TICK),
        };
        if ended_at.is_none()
            && (running.end_fd().is_none()
                || matches!(
                    running,
                    Running::Direct {
                        watch_memory: Some(_),
                        ..
                    }
                ))
        {
            wait = wait.min(Duration::from_millis(5));
        }
        let wait_ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the whole call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            running.kill();
            return Err(error);
        }
        let mut just_ended = false;
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
                        pumped.stdout.extend_from_slice(&buffer[..n]);
                        if pumped.stdout.len() > bounds.stdout_cap {
                            pumped.stdout.truncate(bounds.stdout_cap);
                            pumped.output_limited = true;
                            stdout = None;
                            if killed_at.is_none() {
                                running.kill();
                                killed_at = Some(Instant::now());
                            }
                        }
                    }
                },
                Stream::Stderr => match read_fd(stderr.as_ref(), &mut buffer) {
                    Read::Again => {}
                    Read::End => stderr = None,
                    Read::Data(n) => {
                        let room = bounds.stderr_cap.saturating_sub(pumped.stderr.len());
                        pumped.stderr.extend_from_slice(&buffer[..n.min(room)]);
                        pumped.stderr_truncated |= n > room;
                    }
                },
                Stream::End => just_ended = true,
            }
        }
        if ended_at.is_none() && running.end_fd().is_none() {
            just_ended = running.has_ended();
        }
        if just_ended && running.has_ended() {
            ended_at = Some(Instant::now());
            pumped.elapsed = start.elapsed();
            stdin = None;
            // Whatever a direct target left running goes with it.
            if direct {
                running.kill();
            }
        }
    }
    if ended_at.is_none() {
        pumped.elapsed = start.elapsed();
    }
    Ok(pumped)
}

/// The execution, from what the pump saw and how the target ended.
fn finish(pumped: Pumped, ended: Ended, limits: &ResourceLimits, confined: bool) -> Execution {
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
        output_limited: pumped.output_limited,
        limit,
        cpu_time: ended.cpu_time,
        peak_memory: ended.observed.peak_memory,
        interrupted: pumped.interrupted,
        confined,
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

/// Makes large buffers (a target's output: up to 16 MiB each) mapped for themselves and given
/// back to the system when freed. Otherwise glibc raises its mmap threshold at the first such
/// free and serves the next ones from its heaps, which fragment and grow: a grading's peak
/// memory grew with the number of flooding cases it had run. Call it first thing in `main`.
pub fn return_large_buffers() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only tunes the allocator; it is called before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
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
