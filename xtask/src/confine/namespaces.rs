//! The namespace and uid layer. The helper of a worker enters a network namespace (loopback
//! only: no TCP, no UDP, no route to anything) and a UTS namespace once; where the harness is
//! not root, it first enters a user namespace in which it holds the capabilities it needs to
//! build each case's view, and in which the target runs as uid 65534 (the invoking user, seen
//! from outside). Each case then gets fresh mount, PID and IPC namespaces: its own file-system
//! view and `/proc`, no process of anyone else to see or signal, and SysV IPC that dies with it.
//! As root, the target drops to uid and gid 65534 with no supplementary groups, which clears
//! every capability.

use std::io;

/// The namespaces made for each case.
pub(crate) const CASE_FLAGS: libc::c_int =
    libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC;

/// The uid and gid a target runs as.
pub const SANDBOX_ID: libc::uid_t = 65534;

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Enters the helper's user namespace, unless `root`.
pub(crate) fn enter_helper(root: bool) -> io::Result<()> {
    if !root {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        // SAFETY: unshare takes flags only.
        check(unsafe { libc::unshare(libc::CLONE_NEWUSER) })?;
        std::fs::write("/proc/self/setgroups", "deny")?;
        std::fs::write("/proc/self/uid_map", format!("{SANDBOX_ID} {uid} 1"))?;
        std::fs::write("/proc/self/gid_map", format!("{SANDBOX_ID} {gid} 1"))?;
    }
    Ok(())
}

/// Moves the helper into network and UTS namespaces of its own, with the loopback interface up
/// (inside its user namespace, where it has one). Making a network namespace is most of the
/// helper's own set-up (about half a millisecond): the helper makes it once it said it is
/// ready, while the harness plans its first case.
pub(crate) fn make_network() -> io::Result<()> {
    // SAFETY: unshare takes flags only.
    check(unsafe { libc::unshare(libc::CLONE_NEWNET | libc::CLONE_NEWUTS) })?;
    let name = b"gridjudge";
    // SAFETY: the name is valid for its length.
    check(unsafe { libc::sethostname(name.as_ptr().cast(), name.len()) })?;
    loopback_up()
}

/// Brings the loopback interface of the current network namespace up.
fn loopback_up() -> io::Result<()> {
    // SAFETY: a socket used only for the ioctl below, closed at the end.
    let socket = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    check(socket)?;
    // SAFETY: ifreq is plain data; the name is NUL-terminated within its array.
    let result = unsafe {
        let mut request: libc::ifreq = std::mem::zeroed();
        for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *slot = *byte as libc::c_char;
        }
        request.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_LOOPBACK | libc::IFF_RUNNING) as _;
        let result = libc::ioctl(socket, libc::SIOCSIFFLAGS, &request);
        libc::close(socket);
        result
    };
    check(result)
}

/// Drops the calling process to the sandbox uid and gid (as root), so that `exec` leaves it no
/// capability. Inside a user namespace the process already is that uid.
pub(crate) fn drop_privileges(root: bool) -> io::Result<()> {
    if root {
        // SAFETY: these calls take integers (and a null group list of length 0).
        unsafe {
            check(libc::setgroups(0, std::ptr::null()))?;
            check(libc::setresgid(SANDBOX_ID, SANDBOX_ID, SANDBOX_ID))?;
            check(libc::setresuid(SANDBOX_ID, SANDBOX_ID, SANDBOX_ID))?;
        }
    }
    // SAFETY: prctl takes integers.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })
}
