//! Ctrl-C and SIGTERM: one flag every running case watches. The first interrupt asks every
//! running and future case to stop (the run then reports what it has, exit status 130); a
//! second one ends the process at once. Low in the house: the runner, the class queue and
//! both command lines read it, and it reads nothing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Set by the handler: every running target is killed and no new one starts.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How many times Ctrl-C (or SIGTERM) came.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// Asks every running and future case to stop (Ctrl-C). A second one ends the process at
/// once, exit status 130: the helpers and their cases die with it.
pub(super) fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    if INTERRUPTS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: _exit ends the process; the kernel ends the helpers (parent-death signal).
        unsafe { libc::_exit(130) };
    }
}

/// Whether an interrupt came.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Installs [`interrupt`] as the Ctrl-C and SIGTERM handler; a warning line if it cannot be.
pub fn catch_interrupts() {
    if let Err(err) = ctrlc::set_handler(interrupt) {
        eprintln!("warning: Ctrl-C will not stop targets cleanly: {err}");
    }
}
