//! The ground under the runner and the sandbox: the process's dealings with the kernel.
//!
//! [`calls`] wraps each system call once (pipes, socket pairs, pidfds, signals, `wait4`,
//! descriptor passing, the effective uid, the clone that shares memory until `exec`), keeping
//! its `unsafe` to itself; [`interrupt`] is Ctrl-C, SIGTERM and SIGHUP, one flag every long
//! loop looks at.

mod calls;
mod interrupt;

pub use calls::{
    allowed_cpus, check, childless, cpu_time, effective_uid, has_exited, kill, kill_pidfd,
    peak_resident, peek, pidfd_open, pin_to, pipe, process_cpus, read_exact, read_fd, reap,
    receive, return_large_buffers, run_delay, runnable, send, seqpacket_pair, set_nonblocking,
    stdio_pipes, threads_run_delay, timeval, try_reap, wait4, write_fd, Read, Stack,
};
pub use interrupt::{catch_interrupts, interrupted};
