//! What the harness, the helper and a case's first process say to each other: a
//! [`CaseRequest`] from the harness, and [`Reply`], the one message type every answer takes,
//! on the harness's socket and on the case's own channel to the helper alike. Each message is
//! one JSON datagram on a `SOCK_SEQPACKET` socket, with file descriptors alongside.

use std::io;
use std::os::fd::{OwnedFd, RawFd};

use serde::{Deserialize, Serialize};

use crate::confine::Layers;
use crate::sys;

/// The argument that makes a program act as the helper (`xtask __sandbox-helper`).
pub const HELPER_ARG: &str = "__sandbox-helper";

/// The sources the harness and its helper were built from (named by `build.rs`): a helper of
/// other sources (a `sandbox` program not rebuilt after a change) is refused when it says it
/// is ready, so that no run goes through a helper that does something else than the harness
/// expects.
pub(super) const BUILD: &str = env!("GRIDJUDGE_BUILD");

/// The harness's first message to a helper: the worker's cgroup to join, as a descriptor of
/// each `tasks` file the helper writes itself into (none where the harness moved it, or where
/// there is no cgroup). The helper answers it with `Reply::Ready`, or `Reply::Failed`.
pub(super) const JOIN: &[u8] = b"join";

/// What the harness sends instead of a [`CaseRequest`] equal to the last one it sent the
/// same helper (every case of a plan asks for the same box): no JSON object starts with it.
pub(super) const SAME_REQUEST: &[u8] = b"=";

/// Put before a case's message (a request, or [`SAME_REQUEST`]) when the harness expects to
/// send that helper no other case soon: the helper then makes no first process ahead for one.
pub(super) const LAST: u8 = b'!';

/// A case's message without its [`LAST`] mark, and whether it had one.
pub(super) fn unmark(bytes: &[u8]) -> (&[u8], bool) {
    match bytes.split_first() {
        Some((&LAST, rest)) => (rest, true),
        _ => (bytes, false),
    }
}

/// One case, as the helper needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseRequest {
    /// The command line (the program is looked up on the environment's PATH).
    pub argv: Vec<Vec<u8>>,
    pub env: Vec<(Vec<u8>, Vec<u8>)>,
    /// Where the target runs, inside its view.
    pub cwd: Vec<u8>,
    /// The box to build around it.
    pub layers: Layers,
}

/// Every answer: the helper's to the harness, and a case's first process's to the helper.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The helper is set up and waits for cases; `build` names the sources it was built from
    /// ([`BUILD`]).
    Ready { build: String },
    /// The case runs; to the harness, its first process's pidfd comes with this message.
    Started,
    /// The case could not start (the view, or `exec`, failed), or the helper could not set up.
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

impl Exited {
    /// The end of a case that never ran, or whose first process was killed before it said.
    pub fn unknown() -> Exited {
        Exited {
            status: None,
            cpu_us: 0,
        }
    }
}

/// Sends `message` on `socket`, with `fds` alongside.
pub(super) fn send<T: Serialize>(socket: RawFd, message: &T, fds: &[RawFd]) -> io::Result<()> {
    let bytes = serde_json::to_vec(message).map_err(io::Error::other)?;
    sys::send(socket, &bytes, fds)
}

/// Sends a case's message: `request` (or [`SAME_REQUEST`], when `repeat`), marked [`LAST`]
/// when `last`, with the case's `fds` alongside.
pub(super) fn send_case(
    socket: RawFd,
    (request, repeat): (&CaseRequest, bool),
    last: bool,
    fds: &[RawFd],
) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(if repeat { 2 } else { 1024 });
    if last {
        bytes.push(LAST);
    }
    if repeat {
        bytes.extend_from_slice(SAME_REQUEST);
    } else {
        serde_json::to_writer(&mut bytes, request).map_err(io::Error::other)?;
    }
    sys::send(socket, &bytes, fds)
}

/// The next message on `socket` and its descriptors; `None` when the other side hung up.
pub(super) fn receive<T: for<'de> Deserialize<'de>>(
    socket: RawFd,
) -> io::Result<Option<(T, Vec<OwnedFd>)>> {
    let Some((bytes, fds)) = sys::receive(socket)? else {
        return Ok(None);
    };
    let message = serde_json::from_slice(&bytes).map_err(io::Error::other)?;
    Ok(Some((message, fds)))
}

/// The next reply on `socket`; a hang-up is an error.
pub(super) fn receive_reply(socket: RawFd) -> io::Result<(Reply, Vec<OwnedFd>)> {
    receive(socket)?.ok_or_else(|| io::Error::other("the sandbox helper ended unexpectedly"))
}

/// Sends `Reply::Ready`, with the sources this program was built from.
pub(super) fn send_ready(socket: RawFd) -> io::Result<()> {
    let build = BUILD.into();
    send(socket, &Reply::Ready { build }, &[])
}

/// Sends `Reply::Failed` with `error`.
pub(super) fn send_failure(socket: RawFd, error: String) -> io::Result<()> {
    send(socket, &Reply::Failed { error }, &[])
}
