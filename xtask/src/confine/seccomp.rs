//! The seccomp layer: system calls that namespaces and an unprivileged uid do not already make
//! harmless fail with `EPERM`. Debugging other processes (`ptrace`, `process_vm_*`), the kernel
//! keyring (whose keys outlive a case), mounting and entering namespaces, `prlimit64` on another
//! process, changing owners and extended attributes, loading code into the kernel, and pushing
//! characters into a terminal (`TIOCSTI`). `chmod` and `utime` stay allowed: the target needs them
//! in its temporary folder, and everything else it sees is mounted read-only. A system call of
//! another architecture (the 32-bit ABI) kills the process.
//!
//! The filter is compiled once per helper with `seccompiler` (rust-vmm, the one Firecracker
//! uses) and loaded in the target's process just before `exec`.

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
];

/// The compiled filter.
pub fn filter() -> io::Result<BpfProgram> {
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

/// Loads `program` into the calling thread (which also sets `no_new_privs`).
pub fn apply(program: &BpfProgram) -> io::Result<()> {
    seccompiler::apply_filter(program).map_err(|err| io::Error::other(err.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_machine() {
        assert!(!filter().unwrap().is_empty());
    }
}
