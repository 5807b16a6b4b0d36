//! The helper's own loop: set up once (its user namespace, the seccomp program, its home mount
//! namespace, its worker's cgroup; once it said it is ready, its network namespace), then for each
//! case the harness sends, enter the case's view (built when it changed), clone the case's first
//! process into fresh namespaces, pass on what it says (started or failed, then exited), and reap
//! it: before the next case, unless it ended alone (no process of its case left, little in its
//! `/tmp`), when it is reaped once gone, while later cases run. Once a request's view is built,
//! each next case's first process is cloned before the case comes, and takes the case's message
//! itself when it repeats that request. It has one thread.

use std::cell::{Cell, RefCell};
use std::io;
use std::os::fd::{OwnedFd, RawFd};
use std::process::ExitCode;

use super::proxy;
use super::views::{Sight, Views};
use super::wire::{self, CaseRequest, Exited, Reply};
use crate::confine::{namespaces, seccomp};
use crate::sys::{self, Stack};

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
    let root = sys::effective_uid() == 0;
    let (filter, mut views, stacks) = match set_up(socket, root) {
        Ok(setup) => setup,
        Err(err) => {
            let _ = wire::send_failure(socket, err);
            return ExitCode::from(1);
        }
    };
    if wire::send_ready(socket).is_err() {
        return ExitCode::from(1);
    }
    // Made while the harness plans its first case (on a thread of its own, it took a CPU the
    // harness needed then). A helper without it runs no case.
    let network = namespaces::make_network()
        .map_err(|err| format!("could not make the sandbox's network and UTS namespaces: {err}"));
    let mut ended = None;
    // First processes that ended alone, reaped once gone while later cases run.
    let mut lingering = Vec::new();
    // The last request, which the harness does not send again for every case of a plan.
    let mut held: Option<CaseRequest> = None;
    // Whether the next case's first process may be made before its message comes: the
    // request held has its view, and the last case of it ran (or none did yet).
    let mut ready = false;
    loop {
        if let (true, Some(request), Ok(())) = (ready, held.as_ref(), &network) {
            // The last case's first process is reaped only now: its namespaces are torn down
            // (which waits for an RCU grace period) while the harness judges its output; and
            // when it ended alone, while the next case starts too.
            reap_before_next(ended.take(), &mut lingering, false);
            let context = (&filter, views.sight());
            match serve_case(socket, request, None, context, root, &stacks) {
                Ok(Served::Ran(pid, last)) => {
                    ended = pid;
                    ready = !last;
                    continue;
                }
                // The message is still to read.
                Ok(Served::Unclaimed(pid)) => ended = pid,
                Err(_) => break,
            }
        }
        ready = false;
        let Ok(Some((bytes, fds))) = sys::receive(socket) else {
            break;
        };
        // A request sent ahead, with no descriptors: held, and its view made, while the
        // harness gets its first case ready. Nothing runs and nothing is answered.
        let ahead = fds.is_empty();
        let (bytes, last) = wire::unmark(&bytes);
        let request = match take_request(bytes, &mut held) {
            Ok(request) => request,
            Err(_) if ahead => continue,
            Err(error) => match refuse(socket, error) {
                Ok(()) => continue,
                Err(_) => break,
            },
        };
        let view = request.layers.view_on.then_some(&request.layers.view);
        let entered = views.enter(view);
        if ahead {
            ready = entered.is_ok();
            continue;
        }
        if let Err(err) = entered {
            match refuse(socket, format!("could not build the sandbox: {err}")) {
                Ok(()) => continue,
                Err(_) => break,
            }
        }
        if let Err(error) = &network {
            match refuse(socket, error.clone()) {
                Ok(()) => continue,
                Err(_) => break,
            }
        }
        reap_before_next(ended.take(), &mut lingering, true);
        let context = (&filter, views.sight());
        match serve_case(socket, request, Some(fds), context, root, &stacks) {
            Ok(Served::Ran(pid, _) | Served::Unclaimed(pid)) => {
                ended = pid;
                ready = !last;
            }
            Err(_) => break,
        }
    }
    ExitCode::SUCCESS
}

/// The helper's own set-up, before it says it is ready: its user namespace (unless `root`),
/// the seccomp program, its home mount namespace, the stacks, and its worker's cgroup.
fn set_up(socket: RawFd, root: bool) -> Result<(seccomp::Filters, Views, Stacks), String> {
    let setup = namespaces::enter_helper(root)
        .and_then(|()| Ok((seccomp::filter()?, Views::new()?, Stacks::new()?)))
        .map_err(|err| err.to_string())?;
    join(socket)?;
    Ok(setup)
}

/// Joins the worker's cgroup as the harness's first message, [`wire::JOIN`], says: writing `0`
/// into each `tasks` file sent with it moves this thread, the helper's only one, there.
fn join(socket: RawFd) -> Result<(), String> {
    let fds = match sys::receive(socket) {
        Ok(Some((bytes, fds))) if bytes == wire::JOIN => fds,
        Ok(Some(_)) => return Err("the harness sent no cgroup to join first".into()),
        Ok(None) => return Err("the harness hung up before the helper was ready".into()),
        Err(err) => return Err(format!("could not read the cgroup to join: {err}")),
    };
    for fd in fds {
        std::io::Write::write_all(&mut std::fs::File::from(fd), b"0")
            .map_err(|err| format!("could not move into the worker's cgroup: {err}"))?;
    }
    Ok(())
}

/// The request `bytes` says: a new one, which the helper then holds, or a repeat of the one
/// held. A request that does not parse leaves none held.
fn take_request<'a>(
    bytes: &[u8],
    held: &'a mut Option<CaseRequest>,
) -> Result<&'a CaseRequest, String> {
    if bytes != wire::SAME_REQUEST {
        *held = None;
        *held = Some(serde_json::from_slice(bytes).map_err(|err| err.to_string())?);
    }
    held.as_ref().ok_or_else(|| "no request to repeat".into())
}

/// Answers a case that cannot start: it failed, and (as for every case) it is over.
fn refuse(socket: RawFd, error: String) -> io::Result<()> {
    wire::send_failure(socket, error)?;
    wire::send(socket, &Reply::Exited(Exited::unknown()), &[])
}

/// A case's first process that ended, left to reap.
#[derive(Clone, Copy)]
struct Ended {
    pid: libc::pid_t,
    /// Whether it ended alone ([`proxy::Case::alone`]).
    alone: bool,
}

/// Reaps the last case's first process before the next case: waits for its end (the end of
/// every process of the case, and of the memory its `/tmp` held) unless it ended alone, when
/// it joins `lingering` and is reaped once it is gone. With `all`, waits for every one.
fn reap_before_next(ended: Option<Ended>, lingering: &mut Vec<libc::pid_t>, all: bool) {
    match ended {
        Some(Ended { pid, alone: true }) if !all => lingering.push(pid),
        Some(Ended { pid, .. }) => sys::reap(pid),
        None => {}
    }
    if all {
        lingering.drain(..).for_each(sys::reap);
    } else {
        lingering.retain(|&pid| !sys::try_reap(pid));
    }
}

/// What became of a case's first process.
enum Served {
    /// It served a case (or the case could not start, which the harness was told): its pid,
    /// when there was one, is left to reap; and whether, made ahead, it took a message marked
    /// as the last for now.
    Ran(Option<Ended>, bool),
    /// Made ahead, it left the next message for the helper: its pid, left to reap.
    Unclaimed(Option<Ended>),
}

/// Starts one case, whose descriptors are `stdio` (`None`: the case's first process is made
/// ahead and takes them from the case's message itself), and waits for its first process to
/// end: that process tells the harness the case started; this one then tells it how it ended
/// (or why it never started).
fn serve_case(
    socket: RawFd,
    request: &CaseRequest,
    stdio: Option<Vec<OwnedFd>>,
    (filter, sight): (&seccomp::Filters, Option<&Sight>),
    root: bool,
    stacks: &Stacks,
) -> io::Result<Served> {
    if stdio.as_ref().is_some_and(|stdio| stdio.len() != 3) {
        return refuse(socket, "expected three descriptors".into())
            .map(|()| Served::Ran(None, false));
    }
    let awaited = stdio.is_none();
    let (pid, started, failed, exited, unclaimed, last, alone) = {
        let case = proxy::Case {
            request,
            stdio: match &stdio {
                Some(stdio) => proxy::Stdio::Given(stdio),
                None => proxy::Stdio::Awaited,
            },
            filter,
            root,
            socket,
            started_message: &stacks.started_message,
            target_stack: &stacks.target,
            sight,
            started: Cell::new(false),
            failed: RefCell::new(None),
            exited: Cell::new(None),
            unclaimed: Cell::new(false),
            last: Cell::new(false),
            alone: Cell::new(false),
        };
        // SAFETY: the first process runs on its own stack and shares this process's memory;
        // this process waits (CLONE_VFORK) until it has ended, so `case` outlives it and
        // nothing here runs beside it.
        let pid = unsafe {
            stacks.proxy.clone_into(
                proxy::first_process,
                &case as *const proxy::Case as *mut libc::c_void,
                namespaces::CASE_FLAGS,
            )
        };
        (
            pid,
            case.started.get(),
            case.failed.take(),
            case.exited.get(),
            case.unclaimed.get(),
            case.last.get(),
            case.alone.get(),
        )
    };
    // The target's output ends for the harness before it hears that the case did.
    drop(stdio);
    let pid = match pid {
        Ok(pid) => pid,
        Err(_) if awaited => {
            // Made ahead, nothing was taken: the helper reads the message.
            return Ok(Served::Unclaimed(None));
        }
        Err(error) => {
            return refuse(
                socket,
                format!("could not make the case's namespaces: {error}"),
            )
            .map(|()| Served::Ran(None, false));
        }
    };
    if unclaimed {
        return Ok(Served::Unclaimed(Some(Ended { pid, alone: false })));
    }
    if !started {
        refuse(
            socket,
            failed.unwrap_or_else(|| "the case ended before it started".into()),
        )?;
    } else {
        let exited = exited.unwrap_or_else(Exited::unknown);
        wire::send(socket, &Reply::Exited(exited), &[])?;
    }
    Ok(Served::Ran(Some(Ended { pid, alone }), last))
}

/// What the helper makes once for every case: the stacks its cases' first processes and
/// targets start on, and the message that says a case started.
struct Stacks {
    proxy: Stack,
    target: Stack,
    started_message: Vec<u8>,
}

impl Stacks {
    fn new() -> io::Result<Stacks> {
        Ok(Stacks {
            proxy: Stack::new(8 << 20)?,
            target: Stack::new(1 << 20)?,
            started_message: serde_json::to_vec(&Reply::Started).map_err(io::Error::other)?,
        })
    }
}
