//! The harness's side of the sandbox (isolate's keeper): starting a worker's helper in a
//! cgroup of its own, asking it for cases, and reading what the cgroup saw of each.

use std::cell::{Cell, RefCell};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex, PoisonError};

use super::activity::{Activity, Waits};
use super::wire::{self, CaseRequest, Exited, Reply, HELPER_ARG};
use crate::confine::{cgroup, Mark, Observed, WorkerCgroup};
use crate::sys;

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
        let mut command = Command::new(path);
        command.arg0("gridjudge-sandbox");
        return Ok(command);
    }
    let exe = std::env::current_exe()?;
    if SELF_HELPER.load(std::sync::atomic::Ordering::Relaxed)
        || exe.file_stem().is_some_and(|stem| stem == "xtask")
    {
        let mut command = Command::new(exe);
        // Its name in /proc shows no path of the grading machine to a case.
        command.arg0("gridjudge-sandbox").arg(HELPER_ARG);
        return Ok(command);
    }
    let dir = exe.parent().unwrap_or(Path::new("."));
    for candidate in [dir.join("sandbox"), dir.join("../sandbox")] {
        if candidate.is_file() {
            let mut command = Command::new(candidate);
            command.arg0("gridjudge-sandbox");
            return Ok(command);
        }
    }
    Err(io::Error::other(format!(
        "no sandbox helper beside `{}`",
        exe.display()
    )))
}

/// A worker's helper, seen from the harness.
pub struct Helper {
    /// The helper's program, for messages.
    program: std::path::PathBuf,
    child: std::process::Child,
    socket: OwnedFd,
    cgroup: Option<WorkerCgroup>,
    /// The request the helper holds: the last one it was sent.
    holds: Option<CaseRequest>,
}

/// A case the helper has started.
pub struct Started {
    /// A pidfd of the case's first process: readable when the case ends; SIGKILL to it ends
    /// every process of the case.
    pub pidfd: OwnedFd,
    mark: Mark,
    waits: Waits,
}

impl Helper {
    /// Starts a helper, in a worker cgroup of its own where the machine has cgroups; the one
    /// [`available`] started, where it is still spare.
    pub fn start() -> io::Result<Helper> {
        if let Some(helper) = SPARE.lock().unwrap_or_else(PoisonError::into_inner).take() {
            return Ok(helper);
        }
        match settled_ahead() {
            Some(Ok(helper)) => Ok(helper),
            _ => Helper::spawn(true),
        }
    }

    /// Starts a helper; in a worker cgroup of its own when `in_cgroup` says and the machine has
    /// cgroups. It is moved there while it sets itself up: the first move into a cgroup waits
    /// for a grace period of the kernel's RCU (about 10 ms on cgroup v1), which so overlaps
    /// with the helper's start.
    fn spawn(in_cgroup: bool) -> io::Result<Helper> {
        Helper::launch()?.settle(in_cgroup)
    }

    /// Starts the helper's process, which then sets itself up.
    fn launch() -> io::Result<Helper> {
        let (ours, theirs) = sys::seqpacket_pair()?;
        let mut command = helper_command()?;
        command
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .env_clear();
        Ok(Helper {
            program: std::path::PathBuf::from(command.get_program()),
            child: command.spawn()?,
            socket: ours,
            cgroup: None,
            holds: None,
        })
    }

    /// Moves the launched helper into a worker cgroup of its own (when `in_cgroup` says and the
    /// machine has cgroups) and waits until it says it is ready.
    fn settle(self, in_cgroup: bool) -> io::Result<Helper> {
        self.adopt(in_cgroup)?.ready()
    }

    /// Moves the launched helper into a worker cgroup of its own, when `in_cgroup` says and the
    /// machine has cgroups (before its first case: what the case starts is counted there), or
    /// sends it what to move itself with ([`WorkerCgroup::adopt`]); a helper that has no
    /// cgroup to join is sent an empty [`wire::JOIN`]. It joins before it says it is ready.
    fn adopt(mut self, in_cgroup: bool) -> io::Result<Helper> {
        let mut joins = Vec::new();
        if let Some(hierarchy) = in_cgroup.then(cgroup::hierarchy).flatten() {
            let worker = WorkerCgroup::new(&hierarchy)?;
            joins = worker.adopt(self.child.id())?;
            self.cgroup = Some(worker);
        }
        let raw: Vec<RawFd> = joins.iter().map(AsRawFd::as_raw_fd).collect();
        sys::send(self.socket.as_raw_fd(), wire::JOIN, &raw)?;
        Ok(self)
    }

    /// Waits until the launched helper says it is ready.
    fn ready(self) -> io::Result<Helper> {
        match wire::receive_reply(self.socket.as_raw_fd())? {
            (Reply::Ready { build }, _) if build == wire::BUILD => Ok(self),
            (Reply::Ready { .. }, _) => Err(io::Error::other(format!(
                "the sandbox helper `{}` was built from other sources than this program: \
                 rebuild it (`cargo build -p xtask --bins`)",
                self.program.display()
            ))),
            (Reply::Failed { error }, _) => Err(io::Error::other(error)),
            (other, _) => Err(io::Error::other(format!("unexpected {other:?}"))),
        }
    }

    /// Sends `request` ahead of its first case: the helper holds it and makes its view while
    /// the harness gets that case ready, and answers nothing. A case of that request then
    /// starts with a repeat, as every later case of it does.
    fn send_ahead(&mut self, request: &CaseRequest) -> io::Result<()> {
        if self.holds.as_ref() == Some(request) {
            return Ok(());
        }
        self.holds = None;
        wire::send(self.socket.as_raw_fd(), request, &[])?;
        self.holds = Some(request.clone());
        Ok(())
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
        let raw: Vec<RawFd> = stdio.iter().map(AsRawFd::as_raw_fd).collect();
        let last = !MORE.with(Cell::get);
        if self.holds.as_ref() == Some(request) {
            wire::send_case(self.socket.as_raw_fd(), (request, true), last, &raw)?;
        } else {
            // Forgotten first: a request that fails to go leaves the helper holding none.
            self.holds = None;
            wire::send_case(self.socket.as_raw_fd(), (request, false), last, &raw)?;
            self.holds = Some(request.clone());
        }
        drop(stdio);
        match wire::receive_reply(self.socket.as_raw_fd())? {
            (Reply::Started, mut fds) if fds.len() == 1 => Ok(Started {
                pidfd: fds.remove(0),
                mark,
                waits: Waits::default(),
            }),
            (Reply::Failed { error }, _) => {
                // Sent again in full next time, whatever the helper made of it.
                self.holds = None;
                // The helper still reports the end of the case that never ran.
                let _ = wire::receive_reply(self.socket.as_raw_fd());
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

    /// The CPU time every process of the running case has used so far, where the worker's
    /// cgroup accounts it.
    pub fn cpu_used(&self, started: &Started) -> Option<std::time::Duration> {
        self.cgroup.as_ref()?.cpu_since(&started.mark)
    }

    /// How long the running case's processes have waited, runnable, for a CPU, where the
    /// worker's cgroup lists them.
    pub fn run_delay(&self) -> Option<std::time::Duration> {
        Some(self.case_processes()?.filter_map(sys::run_delay).sum())
    }

    /// The CPU time the running case's processes have used and waited for, all their threads
    /// together, ended ones too, and how many threads it started, where the worker's cgroup
    /// accounts it: what a case that sleeps or blocks adds nothing to (see [`Waits`]). The
    /// helper's waiting counts too: a case whose first process waits for the helper to set it
    /// up, while the helper waits for a CPU, is not asleep (between cases the helper blocks,
    /// and adds nothing).
    pub fn activity(&self, started: &mut Started) -> Option<Activity> {
        let cgroup = self.cgroup.as_ref()?;
        let cpu = cgroup.cpu_since(&started.mark)?;
        let alive = cgroup
            .members()
            .into_iter()
            .flat_map(sys::threads_run_delay);
        Some(started.waits.look(cpu, alive))
    }

    /// Whether a process of the worker's cgroup (the case's, or the helper) is running or
    /// waiting to run now.
    pub fn runnable(&self) -> bool {
        self.cgroup
            .as_ref()
            .is_some_and(|cgroup| cgroup.members().into_iter().any(sys::runnable))
    }

    /// The running case's processes, where the worker's cgroup lists them: its members but
    /// the helper.
    fn case_processes(&self) -> Option<impl Iterator<Item = libc::pid_t>> {
        let helper = self.child.id() as libc::pid_t;
        let members = self.cgroup.as_ref()?.members();
        Some(members.into_iter().filter(move |&pid| pid != helper))
    }

    /// Waits for the end of the running case; what the cgroup saw of it.
    pub fn finish(&mut self, started: &Started) -> io::Result<(Exited, Observed)> {
        let exited = match wire::receive_reply(self.socket.as_raw_fd())? {
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
    /// Whether this thread expects to start another case after its next one.
    static MORE: Cell<bool> = const { Cell::new(true) };
}

/// Says whether the calling thread expects to start another case soon after the one it starts
/// next (it does, until told otherwise). When it does not, its helper makes no case's first
/// process ahead of a case that would not come: the end of the work would only tear it down.
pub fn expect_more(more: bool) {
    MORE.with(|cell| cell.set(more));
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

/// The helper [`available`] started to find out, kept for the first worker that needs one: a
/// check of one case starts one helper, not two. Only a helper the process's main thread
/// started is kept: a helper is killed when the thread that started it ends
/// (`PR_SET_PDEATHSIG`), and the main thread ends last.
static SPARE: Mutex<Option<Helper>> = Mutex::new(None);

/// Sends `request` ahead to the spare helper, if there is one (see [`Helper::send_ahead`]): the
/// first case of a plan finds its view made. A helper the request cannot reach is ended.
pub fn send_ahead(request: &CaseRequest) {
    let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(helper) = spare.as_mut() {
        if helper.send_ahead(request).is_err() {
            *spare = None;
        }
    }
}

/// Whether the calling thread is the process's main thread.
fn on_main_thread() -> bool {
    // SAFETY: gettid and getpid take nothing and cannot fail.
    unsafe { libc::gettid() == libc::getpid() }
}

/// Ends this thread's helper, if it has one, without waiting for its end; on the main thread,
/// the spare one too, and waits until every helper ended so is gone with its cgroup (and the
/// first worker's cgroup, made to find out whether cgroups can be made, when no worker took it).
pub fn release() {
    retire_own();
    if on_main_thread() {
        drop(SPARE.lock().unwrap_or_else(PoisonError::into_inner).take());
        drop(settled_ahead());
        drop(std::mem::take(
            &mut *RETIRED.lock().unwrap_or_else(PoisonError::into_inner),
        ));
        let ending = std::mem::take(&mut *ENDING.lock().unwrap_or_else(PoisonError::into_inner));
        for thread in ending {
            let _ = thread.join();
        }
        cgroup::discard_spare();
    }
}

/// Ends this thread's helper, if it has one, without waiting for its end (see [`retire`]).
pub fn retire_own() {
    if let Some(helper) = HELPER.with(|slot| slot.borrow_mut().take()) {
        retire(helper);
    }
}

/// The helpers the main thread [`retire`]d, killed: [`release`] waits for their end.
static RETIRED: Mutex<Vec<Helper>> = Mutex::new(Vec::new());

/// The threads that wait for the end of a helper [`retire`] killed and remove its cgroup.
static ENDING: Mutex<Vec<std::thread::JoinHandle<()>>> = Mutex::new(Vec::new());

/// Kills `helper` and leaves the wait for its end (its namespaces torn down, then its cgroup
/// removed: about half a millisecond) for later, so that a worker that is done hands its
/// results over at once: on the main thread, to its [`release`]; elsewhere, to a thread of its
/// own (where none can start, it waits itself).
fn retire(mut helper: Helper) {
    let _ = helper.child.kill();
    if on_main_thread() {
        // A thread started here waited for a CPU longer than the end takes.
        RETIRED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(helper);
        return;
    }
    let mut ending = ENDING.lock().unwrap_or_else(PoisonError::into_inner);
    // The threads that are done are forgotten: a server that never ends keeps few.
    ending.retain(|thread| !thread.is_finished());
    let thread = std::thread::Builder::new()
        .name("helper-end".into())
        .spawn(move || drop(helper));
    ending.extend(thread.ok());
}

/// The helper [`start_ahead`] started: launched and moved into its cgroup, its readiness not
/// read yet; or, started from another thread than the main one, being set up on a thread that
/// hands it over.
enum Ahead {
    Launched(Box<Helper>),
    Settling(mpsc::Receiver<io::Result<Helper>>),
}

static AHEAD: Mutex<Option<Ahead>> = Mutex::new(None);

/// Starts the helper the first sandboxed case will need while the run goes on finding its
/// cases and planning: the helper sets itself up (its start, its namespaces) meanwhile.
/// [`available`] or the first worker then takes it; [`release`] ends it when nothing did.
/// Once the sandbox was looked for, or while a helper is ahead or spare, it does nothing.
/// `true` when a helper is ahead or spare, started now or before: the first worker's helper
/// is then in its cgroup already, and there is no first move into one to prime.
pub fn start_ahead() -> bool {
    let mut ahead = AHEAD.lock().unwrap_or_else(PoisonError::into_inner);
    if ahead.is_some()
        || SPARE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    {
        return true;
    }
    if FOUND.get().is_some() {
        return false;
    }
    let started = if on_main_thread() {
        // Started here, it lives as long as the process. It is moved into its cgroup at once
        // (a few hundredths of a millisecond): a thread started to do it waited for a CPU for
        // longer than the helper took to start.
        Helper::launch()
            .and_then(|helper| helper.adopt(true))
            .map(|helper| Ahead::Launched(Box::new(helper)))
    } else {
        let (sender, receiver) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("helper-ahead".into())
            .spawn(move || {
                let _ = sender.send(Helper::launch().and_then(|helper| helper.settle(true)));
                // A helper is killed when the thread that started it ends
                // (`PR_SET_PDEATHSIG`): this one lasts as long as the process.
                loop {
                    std::thread::park();
                }
            })
            .map(|_| Ahead::Settling(receiver))
    };
    *ahead = started.ok();
    ahead.is_some()
}

/// The helper [`start_ahead`] started, once ready; `None` when there is none.
fn settled_ahead() -> Option<io::Result<Helper>> {
    let ahead = AHEAD
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()?;
    match ahead {
        Ahead::Launched(helper) => Some(helper.ready()),
        Ahead::Settling(receiver) => receiver.recv().ok(),
    }
}

/// Whether this machine can run the sandbox, once found.
static FOUND: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();

/// Whether this machine can run the sandbox, found once by starting a helper (or taking the one
/// [`start_ahead`] started): on the main thread, in a worker cgroup, kept as the first
/// worker's; elsewhere, or where that fails, one without a cgroup, ended at once. `Err` says
/// why not.
pub fn available() -> Result<(), String> {
    FOUND
        .get_or_init(|| {
            if let Some(Ok(helper)) = settled_ahead() {
                *SPARE.lock().unwrap_or_else(PoisonError::into_inner) = Some(helper);
                return Ok(());
            }
            if on_main_thread() {
                if let Ok(helper) = Helper::spawn(true) {
                    *SPARE.lock().unwrap_or_else(PoisonError::into_inner) = Some(helper);
                    return Ok(());
                }
            }
            Helper::spawn(false)
                .map(drop)
                .map_err(|err| err.to_string())
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::wire::SAME_REQUEST;

    /// The helper's children that are alive (not zombies), waited for until `want` says yes
    /// (at most two seconds): whether it did.
    fn live_children_become(pid: u32, want: impl Fn(usize) -> bool) -> bool {
        for _ in 0..200 {
            let list = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
            let live = list
                .unwrap_or_default()
                .split_whitespace()
                .filter(|child| {
                    let stat = std::fs::read_to_string(format!("/proc/{child}/stat"));
                    stat.is_ok_and(|stat| !stat.rsplit(')').next().unwrap_or("").starts_with(" Z"))
                })
                .count();
            if want(live) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn cases_are_served_ahead_until_the_last_and_a_new_request_still_runs() {
        let mut helper = match Helper::start() {
            Ok(helper) => helper,
            Err(err) => {
                eprintln!("skipped: no sandbox helper here ({err})");
                return;
            }
        };
        let pid = helper.child.id();
        if !std::path::Path::new(&format!("/proc/{pid}/task/{pid}/children")).exists() {
            eprintln!("skipped: this kernel lists no process's children in /proc");
            return;
        }
        let request = |code: &str| CaseRequest {
            argv: ["/bin/sh", "-c", code]
                .map(|a| a.as_bytes().to_vec())
                .to_vec(),
            env: Vec::new(),
            cwd: b"/".to_vec(),
            layers: crate::confine::Policy::trusted().layers,
        };
        let mut run = |request: &CaseRequest, more: bool| {
            expect_more(more);
            let null = || OwnedFd::from(std::fs::File::open("/dev/null").unwrap());
            let started = helper.start_case(request, None, None, [null(), null(), null()]);
            let (exited, _) = helper.finish(&started.unwrap()).unwrap();
            expect_more(true);
            exited.status.map(|status| libc::WEXITSTATUS(status))
        };
        let (three, four) = (request("exit 3"), request("exit 4"));
        assert_eq!(run(&three, true), Some(3));
        // Its next case's first process waits, made ahead; it takes the repeat.
        assert!(live_children_become(pid, |live| live == 1));
        assert_eq!(run(&three, true), Some(3));
        // Another request is left to the helper, which serves it as before.
        assert_eq!(run(&four, true), Some(4));
        assert_eq!(run(&four, false), Some(4));
        // After the last case, nothing waits.
        assert!(live_children_become(pid, |live| live == 0));
        assert_eq!(run(&four, false), Some(4));
    }

    #[test]
    fn a_repeat_before_any_request_is_refused_and_the_case_ended() {
        let helper = match Helper::start() {
            Ok(helper) => helper,
            Err(err) => {
                eprintln!("skipped: no sandbox helper here ({err})");
                return;
            }
        };
        let null = || OwnedFd::from(std::fs::File::open("/dev/null").unwrap());
        let stdio = [null(), null(), null()];
        let raw: Vec<RawFd> = stdio.iter().map(AsRawFd::as_raw_fd).collect();
        sys::send(helper.socket(), SAME_REQUEST, &raw).unwrap();
        match wire::receive_reply(helper.socket()).unwrap() {
            (Reply::Failed { error }, _) => assert_eq!(error, "no request to repeat"),
            (other, _) => panic!("expected a refusal, got {other:?}"),
        }
        assert!(matches!(
            wire::receive_reply(helper.socket()).unwrap(),
            (Reply::Exited(_), _)
        ));
        // The helper still serves: a malformed request is refused the same way.
        sys::send(helper.socket(), b"{", &raw).unwrap();
        assert!(matches!(
            wire::receive_reply(helper.socket()).unwrap(),
            (Reply::Failed { .. }, _)
        ));
        assert!(matches!(
            wire::receive_reply(helper.socket()).unwrap(),
            (Reply::Exited(_), _)
        ));
    }
}
