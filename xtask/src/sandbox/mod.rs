//! The sandbox helper: one long-lived process per worker that sits in the worker's cgroup and
//! long-lived namespaces and starts each of the worker's cases from there.
//!
//! Three roles, as in isolate, each a module: [`harness`] (the keeper, in the harness: starts
//! the helper, in a cgroup of its own, and asks it for cases), [`helper`] (its loop: enters the
//! case's view, which [`views`] builds once for the cases that share it, and clones each case's
//! first process into fresh mount, PID and IPC namespaces, ahead of the case where it can),
//! [`proxy`] (that first process, pid 1 of the case: mounts its `/tmp` and `/proc`, starts the
//! target and reaps) and [`inside`]
//! (the target's process becoming the target: everything prepared first, then one step per
//! layer and `exec`). They speak one language, [`wire`]: a [`CaseRequest`] in, [`Reply`]
//! messages back, on every channel.
//!
//! The harness (multi-threaded, so it may not do much between fork and exec) starts the helper
//! as a program of its own: `xtask __sandbox-helper`, or the `sandbox` binary beside the test
//! programs. The helper is single-threaded, so it can build a view freely. Forking the helper
//! from a check while the harness still has one thread, as isolate forks its keeper, was
//! measured and left out: on a 2-core virtual machine a one-case check took 0.4 to 0.6 ms
//! longer (medians of 101, alternating), forked early or late; the fork waited about half a
//! millisecond for the other CPU, both processes then paid copy-on-write faults for what the
//! other had, and moving a running fork into its cgroup took longer than moving a fresh one.
//!
//! Each case is answered with a pidfd of its first process, which that process sends itself
//! (the harness kills the whole case with one signal to it: when the first process of a PID
//! namespace dies, every process in it dies), and, when it ends, by the helper with the
//! target's exit status and CPU time.
//!
//! Starting cases from inside the cgroup is the point: moving a process into a cgroup by pid
//! can cost 5-17 ms (an RCU grace period after a quiet spell); this way only the helper moves,
//! once, and on cgroup v1 it moves itself, its one thread through the `tasks` files, which
//! skips that wait. The helper dies with the harness (a parent-death signal), and each case's
//! first process with the helper.

mod activity;
mod harness;
mod helper;
mod inside;
mod proxy;
mod views;
mod wire;

pub use activity::Activity;
pub use harness::{
    available, expect_more, helper_is_self, release, retire_own, send_ahead, start_ahead,
    with_helper, Helper, Started,
};
pub use helper::helper_main;
pub use wire::{CaseRequest, Exited, Reply, HELPER_ARG};
