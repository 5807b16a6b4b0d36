//! Inside the box: the target's process becomes the target, one layer per call, in the order
//! each layer needs (isolate's `box_inside`): its stdio, rlimits, folder, Landlock, its uid,
//! seccomp last (it forbids what the steps before need), then `exec`.

use std::convert::Infallible;
use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use super::wire::CaseRequest;
use crate::confine::{landlock, mounts, namespaces, rlimits, seccomp, Layers};
use crate::sys::check;

/// Becomes the target described by `request`. Returns only on failure, with why.
pub fn become_target(
    request: &CaseRequest,
    stdio: &[OwnedFd],
    filter: &seccomp::Filters,
    root: bool,
) -> io::Error {
    let layers = &request.layers;
    let attempt = || -> io::Result<Infallible> {
        setup_fds(stdio)?;
        rlimits::apply(&layers.rlimits)?;
        setup_folder(&request.cwd)?;
        setup_landlock(layers)?;
        setup_credentials(layers.uid, root)?;
        if layers.seccomp {
            seccomp::apply(filter)?;
        }
        exec(request)
    };
    match attempt() {
        Err(err) => err,
        Ok(never) => match never {},
    }
}

/// A session of its own; stdin, stdout and stderr from the harness; every other descriptor
/// closes on exec (the error pipe stays open until then).
fn setup_fds(stdio: &[OwnedFd]) -> io::Result<()> {
    // SAFETY: setsid, dup2 and close_range take integers.
    unsafe {
        libc::setsid();
        for (k, fd) in stdio.iter().enumerate() {
            check(libc::dup2(fd.as_raw_fd(), k as RawFd))?;
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

/// The folder the target runs in.
fn setup_folder(cwd: &[u8]) -> io::Result<()> {
    std::env::set_current_dir(OsString::from_vec(cwd.to_vec()))
        .map_err(|err| io::Error::new(err.kind(), format!("cannot enter its folder: {err}")))
}

/// Landlock: read the system and the view's folders, write only the case's tmpfs.
fn setup_landlock(layers: &Layers) -> io::Result<()> {
    if !layers.landlock {
        return Ok(());
    }
    let mut readable: Vec<PathBuf> = mounts::SYSTEM
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect();
    readable.extend(layers.view.readable.iter().cloned());
    readable.push("/proc".into());
    readable.push("/dev".into());
    let mut writable = vec![PathBuf::from(mounts::TEMP), "/dev/null".into()];
    writable.extend(layers.view.writable.iter().cloned());
    let ruleset = landlock::ruleset(&readable, &writable)?;
    landlock::restrict(ruleset.as_raw_fd())
}

/// Drops to `uid` (as root) or stays the user namespace's sandbox uid, with no capability.
fn setup_credentials(uid: u32, root: bool) -> io::Result<()> {
    if root {
        // SAFETY: these calls take integers (and a null group list of length 0).
        unsafe {
            check(libc::setgroups(0, std::ptr::null()))?;
            check(libc::setresgid(uid, uid, uid))?;
            check(libc::setresuid(uid, uid, uid))?;
        }
    }
    namespaces::drop_privileges(false)
}

/// `execvpe` with the request's command line and environment (the program is looked up on
/// the target's own PATH). Returns only on failure.
fn exec(request: &CaseRequest) -> io::Result<Infallible> {
    let argv: Vec<CString> = request
        .argv
        .iter()
        .map(|a| CString::new(a.clone()).map_err(io::Error::other))
        .collect::<io::Result<_>>()?;
    let env: Vec<CString> = request
        .env
        .iter()
        .map(|(k, v)| {
            CString::new([k.as_slice(), b"=", v.as_slice()].concat()).map_err(io::Error::other)
        })
        .collect::<io::Result<_>>()?;
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut env_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    if let Some((_, path)) = request.env.iter().find(|(k, _)| k == b"PATH") {
        std::env::set_var("PATH", OsString::from_vec(path.clone()));
    }
    let program = argv
        .first()
        .ok_or_else(|| io::Error::other("empty command line"))?;
    // SAFETY: every pointer array is NUL-terminated and outlives the call.
    unsafe {
        libc::execvpe(program.as_ptr(), argv_ptrs.as_ptr(), env_ptrs.as_ptr());
    }
    let error = io::Error::last_os_error();
    Err(io::Error::new(
        error.kind(),
        format!("`{}`: {error}", String::from_utf8_lossy(program.as_bytes())),
    ))
}
