//! The seccomp layer: system calls that namespaces and an unprivileged uid do not already make
//! harmless fail with `EPERM`. Debugging other processes (`ptrace`, `process_vm_*`), the kernel
//! keyring (whose keys outlive a case), mounting and entering namespaces, `prlimit64` on another
//! process, changing owners and extended attributes, loading code into the kernel, and pushing
//! characters into a terminal (`TIOCSTI`), `clone` with any `CLONE_NEW*` flag (a new user
//! namespace gives a child every capability in it, and new namespaces are the usual way into
//! the kernel's less-travelled code), and `io_uring` (which performs system calls the filter
//! never sees). `chmod` and `utime` stay allowed: the target needs them in its temporary
//! folder, and everything else it sees is mounted read-only. A system call of another
//! architecture (the 32-bit ABI) kills the process; one with the x32 bit, and `clone3` (whose
//! flags live in memory a filter cannot read), fail with `ENOSYS`, so that the C library falls
//! back to `clone`, which the filter can judge.
//!
//! The main filter is compiled once per helper with `seccompiler` (rust-vmm, the one Firecracker
//! uses); a second, of a few instructions written here, returns `ENOSYS`, an action the first
//! cannot mix with `EPERM`. Both are loaded in the target's process just before `exec`.

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// System calls denied whatever their arguments.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_chown,
    libc::SYS_fchown,
    libc::SYS_lchown,
    libc::SYS_fchownat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
];

/// The `CLONE_NEW*` flags: `clone` with any of them is refused.
const NEW_NAMESPACES: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
];
// CLONE_NEWTIME (0x80) is clone3's alone: in `clone`'s flags that bit is the exit signal's.

/// System calls that fail with `ENOSYS`: `clone3`, whose flags a filter cannot read.
const NOT_HERE: &[libc::c_long] = &[libc::SYS_clone3];

/// The bit that marks a system call of the x32 ABI on x86-64.
const X32_BIT: u32 = 0x4000_0000;

/// The compiled filters, to load in this order.
pub struct Filters {
    /// `EPERM` for what is denied.
    main: BpfProgram,
    /// `ENOSYS` for `clone3` and the x32 ABI.
    absent: BpfProgram,
}

/// The compiled filters.
pub fn filter() -> io::Result<Filters> {
    Ok(Filters {
        main: main_filter()?,
        absent: absent_filter(),
    })
}

/// The filter that answers `ENOSYS`: a system call number with the x32 bit, or one of
/// [`NOT_HERE`]. (The main filter, loaded first, already kills another architecture.)
fn absent_filter() -> BpfProgram {
    use seccompiler::sock_filter;
    // BPF_LD | BPF_W | BPF_ABS; BPF_JMP | BPF_JEQ | BPF_K; BPF_JMP | BPF_JSET | BPF_K; BPF_RET.
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const JSET_K: u16 = 0x45;
    const RET_K: u16 = 0x06;
    let stmt = |code, k| sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    // The system call number is at offset 0 of `struct seccomp_data`.
    let mut program = vec![
        stmt(LD_W_ABS, 0),
        jump(JSET_K, X32_BIT, 0, 1),
        stmt(RET_K, enosys),
    ];
    for &call in NOT_HERE {
        program.push(jump(JEQ_K, call as u32, 0, 1));
        program.push(stmt(RET_K, enosys));
    }
    program.push(stmt(RET_K, libc::SECCOMP_RET_ALLOW));
    program
}

/// The main filter: [`DENIED`], and the calls denied for some arguments, fail with `EPERM`.
fn main_filter() -> io::Result<BpfProgram> {
    fn to_io(err: seccompiler::BackendError) -> io::Error {
        io::Error::other(format!("seccomp filter: {err}"))
    }
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&call| (call, Vec::new())).collect();
    let condition = |arg, op, value| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).map_err(to_io)
    };
    // prlimit64 on another process (pid 0 is the caller itself).
    rules.insert(
        libc::SYS_prlimit64,
        vec![SeccompRule::new(vec![condition(0, SeccompCmpOp::Ne, 0)?]).map_err(to_io)?],
    );
    // clone with a flag that makes a new namespace: one rule per flag (rules are alternatives).
    let new_namespace = NEW_NAMESPACES
        .iter()
        .map(|&flag| {
            SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag as u64),
                flag as u64,
            )
            .map_err(to_io)
            .and_then(|condition| SeccompRule::new(vec![condition]).map_err(to_io))
        })
        .collect::<io::Result<Vec<_>>>()?;
    rules.insert(libc::SYS_clone, new_namespace);
    rules.insert(
        libc::SYS_ioctl,
        vec![SeccompRule::new(vec![SeccompCondition::new(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            libc::TIOCSTI,
        )
        .map_err(to_io)?])
        .map_err(to_io)?],
    );
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|err: seccompiler::BackendError| io::Error::other(err.to_string()))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|err| io::Error::other(err.to_string()))?;
    filter
        .try_into()
        .map_err(|err: seccompiler::BackendError| io::Error::other(err.to_string()))
}

/// Loads the filters into the calling thread (which also sets `no_new_privs`); `Err` with the
/// error number. Makes only system calls, so a process that shares its parent's memory until
/// `exec` may call it.
pub fn apply(filters: &Filters) -> Result<(), i32> {
    // SAFETY: prctl takes integers.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(errno());
    }
    for program in [&filters.main, &filters.absent] {
        let fprog = SockFprog {
            len: program.len() as u16,
            filter: program.as_ptr(),
        };
        // SAFETY: the kernel copies the program that `fprog` points to, which outlives the call.
        let loaded = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &fprog as *const SockFprog,
            )
        };
        if loaded != 0 {
            return Err(errno());
        }
    }
    Ok(())
}

/// The kernel's `struct sock_fprog`: a program's length and where it is.
#[repr(C)]
struct SockFprog {
    len: u16,
    filter: *const seccompiler::sock_filter,
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_machine() {
        let filters = filter().unwrap();
        assert!(!filters.main.is_empty() && filters.absent.len() == 6);
    }
}
