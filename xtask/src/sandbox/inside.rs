//! Inside the box: the target's process becomes the target, one layer per step, in the order
//! each layer needs (isolate's `box_inside`): its stdio, rlimits, folder, Landlock, its uid,
//! then `exec`. Its seccomp filter it inherits: the case's first process loads it before it
//! clones the target's process ([`load_filter`]; the filter refuses none of these steps), and
//! made ahead, before its case comes, which takes the kernel's check of the filter off the
//! case's path.
//!
//! The case's first process prepares everything first ([`Prepared`]: the command line, the
//! environment, the paths to try for the program, the Landlock ruleset), then clones the
//! target's process sharing its memory and waits until it has called `exec` (`CLONE_VM |
//! CLONE_VFORK`, what `posix_spawn` does): nothing is copied, and the target's process makes
//! only system calls on what was prepared. It never allocates, and tells a failure as two
//! numbers on a pipe (the step, the error), which the first process puts in words.

use std::ffi::{c_void, CString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;

use super::views::Sight;
use super::wire::CaseRequest;
use crate::confine::{landlock, mounts, namespaces, rlimits, seccomp};
use crate::sys::{self, Stack};
use crate::target::exec_candidates;

/// What the target's process needs, made before it is cloned.
pub(super) struct Prepared<'a> {
    /// The command line, NUL-terminated pointers into `_argv`.
    argv: Vec<*const libc::c_char>,
    _argv: Vec<CString>,
    env: Vec<*const libc::c_char>,
    _env: Vec<CString>,
    /// The paths to `exec`, in order (the program looked up on the target's PATH).
    programs: Vec<CString>,
    /// The program as the command line names it, for messages.
    program: String,
    cwd: CString,
    ruleset: Option<OwnedFd>,
    rlimits: &'a [rlimits::Rlimit],
    /// The target's stdin, stdout and stderr, set when it is spawned.
    stdio: [RawFd; 3],
    uid: u32,
    root: bool,
    /// Where a failure is written; closed by a good `exec`.
    error: RawFd,
}

/// The steps, numbered as a failure names them.
const STEPS: [&str; 6] = [
    "could not set up its stdio",
    "could not set its rlimits",
    "cannot enter its folder",
    "could not restrict it with Landlock",
    "could not drop its privileges",
    "could not start it",
];

impl<'a> Prepared<'a> {
    /// Prepares `request`'s target; `error` is the write end of the failure pipe.
    pub(super) fn new(
        request: &'a CaseRequest,
        sight: Option<&Sight>,
        root: bool,
        error: RawFd,
    ) -> io::Result<Prepared<'a>> {
        let layers = &request.layers;
        let cstring = |bytes: &[u8]| CString::new(bytes).map_err(io::Error::other);
        let argv_owned: Vec<CString> = request
            .argv
            .iter()
            .map(|a| cstring(a))
            .collect::<io::Result<_>>()?;
        let env_owned: Vec<CString> = request
            .env
            .iter()
            .map(|(k, v)| cstring(&[k.as_slice(), b"=", v.as_slice()].concat()))
            .collect::<io::Result<_>>()?;
        let first = request
            .argv
            .first()
            .ok_or_else(|| io::Error::other("empty command line"))?;
        let path = request.env.iter().find(|(k, _)| k == b"PATH");
        let programs = exec_candidates(first, path.map(|(_, v)| v.as_slice()))
            .iter()
            .map(|p| cstring(p))
            .collect::<io::Result<_>>()?;
        // Outside a view (only to measure what the view costs), the same places are opened
        // for this case alone.
        let ruleset = match (layers.landlock, sight) {
            (false, _) => None,
            (true, Some(sight)) if layers.view_on => Some(ruleset(sight)?),
            (true, _) => Some(ruleset(&Sight::open(&layers.view)?)?),
        };
        let pointers = |owned: &[CString]| {
            let mut pointers: Vec<*const libc::c_char> = owned.iter().map(|s| s.as_ptr()).collect();
            pointers.push(std::ptr::null());
            pointers
        };
        Ok(Prepared {
            argv: pointers(&argv_owned),
            _argv: argv_owned,
            env: pointers(&env_owned),
            _env: env_owned,
            programs,
            program: String::from_utf8_lossy(first).into_owned(),
            cwd: cstring(&request.cwd)?,
            ruleset,
            rlimits: &layers.rlimits,
            stdio: [-1; 3],
            uid: layers.uid,
            root,
            error,
        })
    }

    /// Clones the target's process on `stack`, with `stdio` as its stdin, stdout and stderr;
    /// returns once it has called `exec` or failed.
    pub(super) fn spawn(&mut self, stack: &Stack, stdio: [RawFd; 3]) -> io::Result<libc::pid_t> {
        self.stdio = stdio;
        // SAFETY: the child runs `become_target` on its own stack, sharing this process's
        // memory while this process waits (CLONE_VFORK); it only reads `self`, which outlives
        // it, and makes system calls.
        unsafe { stack.clone_into(become_target, self as *const Prepared as *mut c_void, 0) }
    }

    /// What a failure the target's process wrote means, in words.
    pub(super) fn describe(&self, step: u32, errno: i32) -> String {
        let error = io::Error::from_raw_os_error(errno);
        match STEPS.get(step as usize) {
            Some(_) if step as usize == STEPS.len() - 1 => format!("`{}`: {error}", self.program),
            Some(what) => format!("{what}: {error}"),
            None => format!("failed: {error}"),
        }
    }
}

/// Loads `request`'s seccomp filter, when it has one, into the calling process: the case's
/// first process, whose target's process inherits it. Every system call the first process
/// makes afterwards (taking its case, cloning the target's process, reporting, reaping) and
/// every step of [`steps`] is one the filter allows; the mounts come before it.
pub(super) fn load_filter(request: &CaseRequest, filter: &seccomp::Filters) -> io::Result<()> {
    if request.layers.seccomp {
        seccomp::apply(filter).map_err(io::Error::from_raw_os_error)?;
    }
    Ok(())
}

/// Landlock: read the system and the view's folders (what `sight` opened) and the case's own
/// `/proc`, write only the case's `/tmp` (opened now that they are mounted) and `/dev/null`.
fn ruleset(sight: &Sight) -> io::Result<OwnedFd> {
    let own = landlock::open_all(&[PathBuf::from("/proc"), PathBuf::from(mounts::TEMP)])?;
    let mut readable = landlock::borrowed(&sight.readable);
    readable.push(own[0].as_fd());
    let mut writable = landlock::borrowed(&sight.writable);
    writable.push(own[1].as_fd());
    landlock::ruleset_of(&readable, &writable)
}

/// The target's process: every step, then `exec`. Returns only on failure, after writing
/// which step failed and why.
extern "C" fn become_target(arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Prepared` that `spawn` passed, alive while this process runs.
    let prepared = unsafe { &*(arg as *const Prepared) };
    let (step, errno) = match steps(prepared) {
        Err(failure) => failure,
        Ok(never) => match never {},
    };
    let mut record = [0u8; 8];
    record[..4].copy_from_slice(&step.to_ne_bytes());
    record[4..].copy_from_slice(&errno.to_ne_bytes());
    let _ = sys::write_fd(prepared.error, &record);
    127
}

/// The steps; `Err` with the failing step's number and the error number.
fn steps(prepared: &Prepared) -> Result<std::convert::Infallible, (u32, i32)> {
    let errno = |step: u32| move |err: io::Error| (step, err.raw_os_error().unwrap_or(0));
    setup_fds(&prepared.stdio).map_err(errno(0))?;
    rlimits::apply(prepared.rlimits).map_err(errno(1))?;
    // SAFETY: chdir reads the NUL-terminated path.
    sys::check(unsafe { libc::chdir(prepared.cwd.as_ptr()) }).map_err(errno(2))?;
    if let Some(ruleset) = &prepared.ruleset {
        landlock::restrict(ruleset.as_raw_fd()).map_err(errno(3))?;
    }
    setup_credentials(prepared.uid, prepared.root).map_err(errno(4))?;
    // As execvp: a path that is missing or not allowed is passed over for the next one.
    let mut error = libc::ENOENT;
    for program in &prepared.programs {
        // SAFETY: every pointer array is NUL-terminated and outlives the call.
        unsafe {
            libc::execve(
                program.as_ptr(),
                prepared.argv.as_ptr(),
                prepared.env.as_ptr(),
            )
        };
        match io::Error::last_os_error().raw_os_error().unwrap_or(0) {
            libc::ENOENT | libc::ENOTDIR => {}
            libc::EACCES => error = libc::EACCES,
            other => return Err((5, other)),
        }
    }
    Err((5, error))
}

/// A session of its own; stdin, stdout and stderr from the harness; every other descriptor
/// closes on exec (the error pipe stays open until then).
fn setup_fds(stdio: &[RawFd; 3]) -> io::Result<()> {
    // SAFETY: setsid, dup2 and close_range take integers.
    unsafe {
        libc::setsid();
        for (k, &fd) in stdio.iter().enumerate() {
            sys::check(libc::dup2(fd, k as RawFd))?;
        }
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
    }
    Ok(())
}

/// Drops to `uid` (as root) or stays the user namespace's sandbox uid, with no capability.
fn setup_credentials(uid: u32, root: bool) -> io::Result<()> {
    if root {
        // SAFETY: these calls take integers (and a null group list of length 0).
        unsafe {
            sys::check(libc::setgroups(0, std::ptr::null()))?;
            sys::check(libc::setresgid(uid, uid, uid))?;
            sys::check(libc::setresuid(uid, uid, uid))?;
        }
    }
    namespaces::drop_privileges(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_put_in_words_by_its_step() {
        let request = CaseRequest {
            argv: vec![b"prog".to_vec()],
            env: Vec::new(),
            cwd: b"/".to_vec(),
            layers: crate::confine::Policy::trusted().layers,
        };
        let prepared = Prepared::new(&request, None, false, -1);
        let prepared = prepared.unwrap();
        assert_eq!(
            prepared.describe(2, libc::ENOENT),
            "cannot enter its folder: No such file or directory (os error 2)"
        );
        assert_eq!(
            prepared.describe(5, libc::EACCES),
            "`prog`: Permission denied (os error 13)"
        );
    }
}
