//! The seccomp layer: system calls that namespaces and an unprivileged uid do not already make
//! harmless fail with `EPERM`. Debugging other processes (`ptrace`, `process_vm_*`), the kernel
//! keyring (whose keys outlive a case), mounting and entering namespaces, `prlimit64` on another
//! process, changing owners and extended attributes, loading code into the kernel, and pushing
//! characters into a terminal (`TIOCSTI`), `clone` with any `CLONE_NEW*` flag (a new user
//! namespace gives a child every capability in it, and new namespaces are the usual way into
//! the kernel's less-travelled code), and `io_uring` (which performs system calls the filter
//! never sees), and `sched_setaffinity` (a case keeps to its worker's CPU). `chmod` and `utime` stay allowed: the target needs them in its temporary
//! folder, and everything else it sees is mounted read-only. A system call of another
//! architecture (the 32-bit ABI) kills the process; one with the x32 bit, and `clone3` (whose
//! flags live in memory a filter cannot read), fail with `ENOSYS`, so that the C library falls
//! back to `clone`, which the filter can judge.
//!
//! The filter is one classic BPF program, built once per helper and loaded by each case's first
//! process, once its mounts are made and before its case comes; the target's process inherits it.
//! The program tests the architecture, then the x32 bit, then a binary search over the sorted
//! system call numbers it names, each leaf returning its action or jumping to the few instructions
//! that read an argument. A filter is cheap to load only if it is short to walk: the kernel runs it
//! for every system call number when it loads it, to learn which ones it always allows, and a
//! compiler that tests each number in turn (seccompiler's) made that walk about a fifth of a
//! millisecond of every case. The tests check the program by running it, in a small BPF
//! interpreter, against the policy stated here for every system call.

use std::io;

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
    // A worker keeps its cases to one CPU; a case may not widen that for itself.
    libc::SYS_sched_setaffinity,
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

/// The compiled filter.
pub(crate) struct Filters {
    program: Vec<libc::sock_filter>,
}

/// The filter.
pub(crate) fn filter() -> io::Result<Filters> {
    Ok(Filters {
        program: program()?,
    })
}

/// What a system call gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Allow,
    Deny,
    Absent,
    Kill,
    /// `clone`: denied with a `CLONE_NEW*` flag.
    Clone,
    /// `prlimit64`: denied on another process than the caller.
    Prlimit,
    /// `ioctl`: denied for `TIOCSTI`.
    Ioctl,
}

/// The system call numbers the filter names, sorted, with what each gets.
fn named() -> Vec<(u32, Action)> {
    let mut named: Vec<(u32, Action)> = DENIED
        .iter()
        .map(|&call| (call as u32, Action::Deny))
        .chain(NOT_HERE.iter().map(|&call| (call as u32, Action::Absent)))
        .chain([
            (libc::SYS_clone as u32, Action::Clone),
            (libc::SYS_prlimit64 as u32, Action::Prlimit),
            (libc::SYS_ioctl as u32, Action::Ioctl),
        ])
        .collect();
    named.sort_unstable_by_key(|(nr, _)| *nr);
    named
}

#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7;

// Classic BPF: the instruction classes and modes this filter uses.
const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const JSET_K: u16 = (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

/// Offsets in `struct seccomp_data`: the number, the architecture, and the low and high halves
/// of an argument (little-endian).
const NR: u32 = 0;
const ARCH_AT: u32 = 4;
fn arg_low(k: u32) -> u32 {
    16 + 8 * k
}
fn arg_high(k: u32) -> u32 {
    20 + 8 * k
}

/// Where a jump goes, before the program is laid out.
#[derive(Debug, Clone, Copy)]
enum Dest {
    /// The instruction at this index.
    At(usize),
    /// The start of an action's block.
    Block(Action),
}

/// One instruction, its jumps still symbolic.
#[derive(Debug, Clone, Copy)]
struct Op {
    code: u16,
    k: u32,
    jt: Dest,
    jf: Dest,
}

/// Emits `op` at the end of `ops`, falling through to the next instruction by default.
fn emit(ops: &mut Vec<Op>, code: u16, k: u32, jt: Option<Dest>, jf: Option<Dest>) {
    let next = Dest::At(ops.len() + 1);
    ops.push(Op {
        code,
        k,
        jt: jt.unwrap_or(next),
        jf: jf.unwrap_or(next),
    });
}

/// The binary search over `named` (loaded number in A): each leaf tests its number.
fn search(named: &[(u32, Action)], ops: &mut Vec<Op>) {
    match named {
        [] => emit(ops, RET_K, libc::SECCOMP_RET_ALLOW, None, None),
        [(nr, action)] => emit(
            ops,
            JEQ_K,
            *nr,
            Some(Dest::Block(*action)),
            Some(Dest::Block(Action::Allow)),
        ),
        _ => {
            let (low, high) = named.split_at(named.len() / 2);
            let at = ops.len();
            emit(ops, JGE_K, high[0].0, None, None);
            search(low, ops);
            ops[at].jt = Dest::At(ops.len());
            search(high, ops);
        }
    }
}

/// Each action's block: a return, or the argument test of `clone`, `prlimit64` and `ioctl`.
fn block(action: Action, ops: &mut Vec<Op>) {
    let deny = Some(Dest::Block(Action::Deny));
    let allow = Some(Dest::Block(Action::Allow));
    let ret = |ops: &mut Vec<Op>, value| emit(ops, RET_K, value, None, None);
    match action {
        Action::Allow => ret(ops, libc::SECCOMP_RET_ALLOW),
        Action::Deny => ret(ops, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        Action::Absent => ret(ops, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        Action::Kill => ret(ops, libc::SECCOMP_RET_KILL_PROCESS),
        Action::Clone => {
            let new = NEW_NAMESPACES
                .iter()
                .fold(0, |all, &flag| all | flag as u32);
            emit(ops, LD_W_ABS, arg_low(0), None, None);
            emit(ops, JSET_K, new, deny, allow);
        }
        Action::Prlimit => {
            emit(ops, LD_W_ABS, arg_low(0), None, None);
            emit(ops, JEQ_K, 0, None, deny);
            emit(ops, LD_W_ABS, arg_high(0), None, None);
            emit(ops, JEQ_K, 0, allow, deny);
        }
        Action::Ioctl => {
            emit(ops, LD_W_ABS, arg_low(1), None, None);
            emit(ops, JEQ_K, libc::TIOCSTI as u32, deny, allow);
        }
    }
}

/// The whole program, laid out: every jump a forward offset that fits in a byte.
fn program() -> io::Result<Vec<libc::sock_filter>> {
    let mut ops = Vec::new();
    emit(&mut ops, LD_W_ABS, ARCH_AT, None, None);
    emit(&mut ops, JEQ_K, ARCH, None, Some(Dest::Block(Action::Kill)));
    emit(&mut ops, LD_W_ABS, NR, None, None);
    if cfg!(target_arch = "x86_64") {
        emit(
            &mut ops,
            JSET_K,
            X32_BIT,
            Some(Dest::Block(Action::Absent)),
            None,
        );
    }
    search(&named(), &mut ops);
    let mut starts = Vec::new();
    // The argument tests first: they jump on to the returns (BPF jumps only forward).
    for action in [
        Action::Clone,
        Action::Prlimit,
        Action::Ioctl,
        Action::Allow,
        Action::Deny,
        Action::Absent,
        Action::Kill,
    ] {
        starts.push((action, ops.len()));
        block(action, &mut ops);
    }
    let resolve = |from: usize, dest: Dest| -> io::Result<u8> {
        let to = match dest {
            Dest::At(index) => index,
            Dest::Block(action) => starts
                .iter()
                .find(|(a, _)| *a == action)
                .map_or(usize::MAX, |(_, start)| *start),
        };
        to.checked_sub(from + 1)
            .and_then(|offset| u8::try_from(offset).ok())
            .ok_or_else(|| io::Error::other("seccomp filter: a jump does not fit"))
    };
    ops.iter()
        .enumerate()
        .map(|(at, op)| {
            let jumps = op.code & 0x07 == libc::BPF_JMP as u16;
            Ok(libc::sock_filter {
                code: op.code,
                jt: if jumps { resolve(at, op.jt)? } else { 0 },
                jf: if jumps { resolve(at, op.jf)? } else { 0 },
                k: op.k,
            })
        })
        .collect()
}

/// Loads the filter into the calling thread (which also sets `no_new_privs`); `Err` with the
/// error number. Makes only system calls, so a process that shares its parent's memory until
/// `exec` may call it.
pub(crate) fn apply(filters: &Filters) -> Result<(), i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    // SAFETY: prctl takes integers.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(errno());
    }
    let fprog = libc::sock_fprog {
        len: filters.program.len() as u16,
        filter: filters.program.as_ptr().cast_mut(),
    };
    // SAFETY: the kernel copies the program that `fprog` points to, which outlives the call.
    let loaded = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &fprog as *const libc::sock_fprog,
        )
    };
    if loaded != 0 {
        return Err(errno());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `program` on a system call as the kernel would: the subset of classic BPF a
    /// seccomp filter is made of here.
    fn run(program: &[libc::sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
        walk(program, arch, nr, args).0
    }

    /// What `program` returns, and after how many instructions.
    fn walk(program: &[libc::sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> (u32, usize) {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (k, arg) in args.iter().enumerate() {
            data[16 + 8 * k..24 + 8 * k].copy_from_slice(&arg.to_le_bytes());
        }
        let (mut pc, mut a) = (0usize, 0u32);
        for steps in 1.. {
            let op = program[pc];
            pc += 1;
            let k = op.k;
            let jump = |taken: bool| if taken { op.jt } else { op.jf } as usize;
            match op.code {
                LD_W_ABS => {
                    let at = k as usize;
                    a = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
                }
                JEQ_K => pc += jump(a == k),
                JGE_K => pc += jump(a >= k),
                JSET_K => pc += jump(a & k != 0),
                RET_K => return (k, steps),
                other => panic!("unexpected instruction {other:#x}"),
            }
        }
        unreachable!()
    }

    const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
    const EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    const ENOSYS: u32 = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;

    /// Every system call number up to well past the last one gets what the policy above says:
    /// denied, absent, judged by its arguments, or allowed.
    #[test]
    fn the_filter_does_what_the_policy_says_for_every_system_call() {
        let program = program().unwrap();
        let none = [0u64; 6];
        let denied = |nr: u32| DENIED.iter().any(|&d| d as u32 == nr);
        for nr in 0..1024u32 {
            let got = run(&program, ARCH, nr, none);
            let want = if denied(nr) {
                EPERM
            } else if NOT_HERE.iter().any(|&c| c as u32 == nr) {
                ENOSYS
            } else {
                ALLOW
            };
            assert_eq!(got, want, "system call {nr}");
        }
        assert_eq!(
            run(&program, 0x4000_0003, libc::SYS_getpid as u32, none),
            libc::SECCOMP_RET_KILL_PROCESS,
            "another architecture"
        );
        if cfg!(target_arch = "x86_64") {
            let x32 = libc::SYS_getpid as u32 | X32_BIT;
            assert_eq!(run(&program, ARCH, x32, none), ENOSYS, "the x32 ABI");
        }
    }

    #[test]
    fn clone_prlimit_and_ioctl_are_judged_by_their_arguments() {
        let program = program().unwrap();
        let call = |nr: libc::c_long, args: [u64; 6]| run(&program, ARCH, nr as u32, args);
        let first = |value: u64| [value, 0, 0, 0, 0, 0];
        let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u64;
        assert_eq!(call(libc::SYS_clone, first(thread)), ALLOW);
        assert_eq!(call(libc::SYS_clone, first(libc::SIGCHLD as u64)), ALLOW);
        for &flag in NEW_NAMESPACES {
            let flags = libc::SIGCHLD as u64 | flag as u64;
            assert_eq!(call(libc::SYS_clone, first(flags)), EPERM, "{flag:#x}");
        }
        assert_eq!(call(libc::SYS_prlimit64, first(0)), ALLOW);
        assert_eq!(call(libc::SYS_prlimit64, first(1)), EPERM);
        assert_eq!(call(libc::SYS_prlimit64, first(1 << 32)), EPERM);
        let ioctl = |request: u64| call(libc::SYS_ioctl, [1, request, 0, 0, 0, 0]);
        assert_eq!(ioctl(libc::TIOCSTI), EPERM);
        assert_eq!(ioctl(libc::TCGETS), ALLOW);
    }

    /// Short to walk: every system call number is judged in about as many tests as a binary
    /// search of the numbers named takes, not one test per number named.
    #[test]
    fn the_search_is_a_tree_not_a_list() {
        let program = program().unwrap();
        let depth = named().len().ilog2() as usize + 1;
        let longest = (0..1024u32)
            .map(|nr| walk(&program, ARCH, nr, [0; 6]).1)
            .max()
            .unwrap();
        // Arch (2), number and x32 (2), the search, the leaf, an argument test (4), the return.
        assert!(
            longest <= 4 + depth + 1 + 4 + 1,
            "{longest} instructions for {depth}"
        );
        assert!(
            named().len() > 40,
            "the longest path must be short beside the list"
        );
    }
}
