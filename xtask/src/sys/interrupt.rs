//! Ctrl-C, SIGTERM and SIGHUP: one flag every running case watches, set by a signal handler.
//! The first interrupt asks every running and future case to stop (the run then reports what
//! it has, exit status 130); a second one ends the process at once. Low in the house: the
//! runner, the class queue and both command lines read it, and it reads nothing.

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

/// The handler of Ctrl-C, SIGTERM and SIGHUP: [`interrupt`] runs in the signal's context,
/// which it may (it stores and adds to atomics, and `_exit`s).
extern "C" fn on_signal(_signal: libc::c_int) {
    interrupt();
}

/// Installs [`interrupt`] as the Ctrl-C, SIGTERM and SIGHUP handler; a warning line if it
/// cannot be. A handler of our own rather than a thread that waits for the signal: such a
/// thread cost every command a thread's start and, at its end, a wait for that thread on
/// the other CPU (together about half a millisecond of a one-case check).
pub fn catch_interrupts() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the action is zeroed, then filled in; `on_signal` is async-signal-safe.
        let installed = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut()) == 0
        };
        if !installed {
            let err = std::io::Error::last_os_error();
            eprintln!("warning: Ctrl-C will not stop targets cleanly: {err}");
            return;
        }
    }
}
