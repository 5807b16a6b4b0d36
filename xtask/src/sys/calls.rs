//! The system calls the runner and the sandbox make, wrapped once: pipes and socket pairs,
//! non-blocking reads and writes, pidfds, waiting with resource usage, descriptor passing. Each
//! wrapper turns a failed call into an `io::Error` and keeps its `unsafe` block to itself, so
//! the modules above read as what they do, not how the kernel is asked.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::time::Duration;

/// `Err` with the OS error when a call returned a negative value.
pub fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// A pipe, both ends closed on exec: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut pair = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two new fds.
    check(unsafe { libc::pipe2(pair.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both fds are new and owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) })
}

/// A connected pair of `SOCK_SEQPACKET` Unix sockets, closed on exec.
pub fn seqpacket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
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
    Ok(unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) })
}

/// The harness's ends of the target's stdin, stdout and stderr pipes, and the target's ends.
///
/// Each pipe is readable and writable by any uid, as a terminal is: a target runs as a uid of
/// its own, and reopening its stdin or stdout by path (`/dev/stdin`, `/proc/self/fd/1`) checks
/// the pipe's owner and mode like a file's. Nobody else can reach the pipes: reopening a
/// descriptor of another process through `/proc` needs the right to trace it.
pub fn stdio_pipes() -> io::Result<([OwnedFd; 3], [OwnedFd; 3])> {
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    for end in [&stdin_r, &stdout_w, &stderr_w] {
        // SAFETY: fchmod on a descriptor owned here.
        check(unsafe { libc::fchmod(end.as_raw_fd(), 0o666) })?;
    }
    Ok(([stdin_w, stdout_r, stderr_r], [stdin_r, stdout_w, stderr_w]))
}

pub fn timeval(time: libc::timeval) -> Duration {
    Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
}

/// Reaps `pid`, with its resource usage.
pub fn wait4(pid: libc::pid_t) -> io::Result<(libc::c_int, libc::rusage)> {
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

/// The CPU time `pid` has used, with that of the children it has waited for (from
/// `/proc/PID/stat`), while it runs.
pub fn cpu_time(pid: libc::pid_t) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split_whitespace().collect();
    // utime, stime, cutime, cstime: fields 14 to 17 of the line, the 12th to 15th after the name.
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().unwrap_or(0))
        .sum();
    // SAFETY: sysconf takes an integer.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(Duration::from_micros(ticks * 1_000_000 / per_second))
}

/// How long `pid` has waited, runnable, for a CPU (`/proc/PID/schedstat`): what a starved
/// process has much of and a sleeping one little.
pub fn run_delay(pid: libc::pid_t) -> Option<Duration> {
    schedstat_delay(Path::new(&format!("/proc/{pid}/schedstat")))
}

/// How long each thread of `pid` has waited, runnable, for a CPU, by thread id.
pub fn threads_run_delay(pid: libc::pid_t) -> Vec<(libc::pid_t, Duration)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let tid = task.file_name().to_str()?.parse().ok()?;
            Some((tid, schedstat_delay(&task.path().join("schedstat"))?))
        })
        .collect()
}

/// Whether a thread of `pid` is running or waiting to run now (state `R`): the kernel adds to
/// a thread's run delay only when it gets a CPU, so a thread kept waiting all along shows none
/// until then.
pub fn runnable(pid: libc::pid_t) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|task| {
        std::fs::read_to_string(task.path().join("stat"))
            .ok()
            .and_then(|stat| Some(stat.rsplit_once(") ")?.1.starts_with('R')))
            .unwrap_or(false)
    })
}

/// The run delay a `schedstat` file gives (its second field, in nanoseconds).
fn schedstat_delay(path: &Path) -> Option<Duration> {
    let stat = std::fs::read_to_string(path).ok()?;
    let nanos: u64 = stat.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// The CPUs the calling thread may run on, by number; empty where the kernel does not say.
pub fn allowed_cpus() -> Vec<usize> {
    cpus_of(0)
}

/// The CPUs the process may run on: its main thread's, which no worker's pinning narrows
/// (workers pin themselves, never the main thread); empty where the kernel does not say.
pub fn process_cpus() -> Vec<usize> {
    // SAFETY: getpid has no preconditions; it is the main thread's id.
    cpus_of(unsafe { libc::getpid() })
}

/// The CPUs thread `tid` (0: the calling one) may run on.
fn cpus_of(tid: libc::pid_t) -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) }
        != 0
    {
        return Vec::new();
    }
    // SAFETY: CPU_ISSET reads the set, for numbers below its capacity.
    (0..libc::CPU_SETSIZE as usize)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// Keeps the calling thread (and the processes it starts from now on) on `cpu`.
pub fn pin_to(cpu: usize) -> io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes within it for numbers below
    // its capacity, which allowed_cpus's are; sched_setaffinity reads it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    unsafe { libc::CPU_SET(cpu, &mut set) };
    check(unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) })
        .map(drop)
}

/// The peak resident memory of `pid` in bytes (VmHWM), while it runs.
pub fn peak_resident(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd this function's caller owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A pidfd for `pid`, readable once it exits; `None` where the kernel has none.
pub fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: the syscall takes two integers and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a fresh fd that nothing else owns.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The uid the harness runs as.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Sends `signal` to `pid` (a process group when negative). The caller names a process it
/// started and has not reaped, so the pid cannot name another; a process already gone is no
/// error worth telling.
pub fn kill(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill takes integers and has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Whether `pid` has exited, without reaping it.
pub fn has_exited(pid: libc::pid_t) -> bool {
    // SAFETY: waitid writes only into `info`, a zeroed siginfo_t we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) == 0 && info.si_pid() != 0
    }
}

/// Whether the calling process has no child at all, running or ended and not reaped (none is
/// reaped by asking).
pub fn childless() -> bool {
    // SAFETY: waitid writes only into `info`, a zeroed siginfo_t we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_ALL, 0, &mut info, flags) < 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD)
    }
}

/// Reaps `pid` if it has ended; whether it is gone (reaped now, or not a child any more).
pub fn try_reap(pid: libc::pid_t) -> bool {
    let mut status = 0;
    // SAFETY: waitpid writes the status, owned here.
    let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    reaped == pid || (reaped < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD))
}

/// Reads until `buffer` is full or the other end is closed; how many bytes were read.
pub fn read_exact(fd: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        let rest = &mut buffer[filled..];
        // SAFETY: `rest` is valid for writes of `rest.len()` bytes.
        let n = unsafe { libc::read(fd, rest.as_mut_ptr().cast(), rest.len()) };
        match n {
            0 => break,
            n if n > 0 => filled += n as usize,
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => return Err(io::Error::last_os_error()),
        }
    }
    Ok(filled)
}

pub fn write_fd(fd: RawFd, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// The result of one non-blocking read.
pub enum Read {
    Data(usize),
    /// End of file, or an error that ends the stream all the same.
    End,
    /// A spurious wake-up: nothing to read yet.
    Again,
}

pub fn read_fd(fd: Option<&OwnedFd>, buffer: &mut [u8]) -> Read {
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

/// Sends `bytes` as one datagram on `socket`, with `fds` alongside (SCM_RIGHTS).
pub fn send(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of_val(fds) as u32) } as usize;
    // On the stack, aligned as a control header needs: a case's first process sends with it
    // where it may not allocate.
    let mut control = [0u64; 8];
    if space > std::mem::size_of_val(&control) {
        return Err(io::Error::other("too many descriptors for one message"));
    }
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
pub fn receive(socket: RawFd) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    thread_local! {
        /// Room for the largest message, made once per thread: a fresh megabyte per message
        /// cost a mapping, page faults and an unmapping each time.
        static BUFFER: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; 1 << 20]);
    }
    BUFFER.with(|buffer| receive_into(socket, &mut buffer.borrow_mut()))
}

fn receive_into(socket: RawFd, buffer: &mut [u8]) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
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
        Ok(Some((buffer[..received].to_vec(), fds)))
    }
}

/// The first bytes of the next message on `socket`, as many as `buffer` holds, read without
/// taking the message (its descriptors stay with it); 0 at the end of the stream. Blocks until
/// a message comes.
pub fn peek(socket: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: recv writes at most `buffer.len()` bytes into `buffer`; without a control
        // buffer, the message's descriptors are neither installed nor taken.
        let n = unsafe {
            libc::recv(
                socket,
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                libc::MSG_PEEK,
            )
        };
        if n >= 0 {
            return Ok(n as usize);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Sends SIGKILL through a pidfd: it cannot name another process than the one it was opened
/// for.
pub fn kill_pidfd(pidfd: &OwnedFd) {
    // SAFETY: pidfd_send_signal on a pidfd owned by the caller.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            0u32,
        );
    }
}

/// Waits for the child `pid` to end (through interruptions); its status is not wanted.
pub fn reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: waitpid writes the status, owned here.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {}
}

/// A stack for a process cloned to share its parent's memory (`CLONE_VM`), mapped once and
/// used by one such process at a time, with an unmapped guard page below it.
pub struct Stack {
    base: *mut libc::c_void,
    size: usize,
}

impl Stack {
    /// A stack of `size` bytes; pages are only used as they are touched.
    pub fn new(size: usize) -> io::Result<Stack> {
        // SAFETY: a fresh anonymous mapping, owned by the Stack and unmapped on drop.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the first page of the mapping just made.
        check(unsafe { libc::mprotect(base, 4096, libc::PROT_NONE) })?;
        Ok(Stack { base, size })
    }

    /// Its top, where a stack that grows down starts (16-byte aligned).
    fn top(&self) -> *mut libc::c_void {
        // SAFETY: one past the end of the mapping, which is page-aligned.
        unsafe { self.base.cast::<u8>().add(self.size).cast() }
    }

    /// Starts `child(arg)` in a process that shares this process's memory and runs on this
    /// stack, into the new namespaces `namespaces` asks for (0: none); the calling thread waits
    /// until the child has called `exec` or ended (`CLONE_VM | CLONE_VFORK`, what `posix_spawn`
    /// does). Its pid; `Err` (the child never ran) when it could not be made.
    ///
    /// # Safety
    ///
    /// `arg` must be what `child` takes it for, alive until this returns, and `child` must not
    /// unwind. The child shares the caller's memory while the calling thread waits: what it
    /// leaves changed there (an allocation it did not free) the caller finds so, and it must
    /// not wait for a lock another thread of the caller may hold (in a process of more than
    /// one thread, the allocator's).
    pub unsafe fn clone_into(
        &self,
        child: extern "C" fn(*mut libc::c_void) -> libc::c_int,
        arg: *mut libc::c_void,
        namespaces: libc::c_int,
    ) -> io::Result<libc::pid_t> {
        let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | namespaces;
        // SAFETY: the caller vouches for `child` and `arg`; the stack is this one, used by no
        // other process while the caller waits.
        check(unsafe { libc::clone(child, self.top(), flags, arg) })
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, used by no process any more.
        unsafe { libc::munmap(self.base, self.size) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // The child is reaped by the function under test, not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    fn a_child_is_seen_until_it_is_reaped_and_reaping_it_does_not_wait() {
        // Other tests may have children of their own: only "not childless" is certain here.
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        assert!(!childless());
        // Running: not reaped, and the call came back at once.
        assert!(!try_reap(pid));
        child.kill().unwrap();
        // Ended: reaped within a bounded wait; asked again, it is gone.
        let gone = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            try_reap(pid)
        });
        assert!(gone, "the killed child was never reaped");
        assert!(try_reap(pid));
    }
}
