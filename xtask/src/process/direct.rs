//! Starting a target directly, without the sandbox helper: the trusted reference in a process
//! group of its own, or an untrusted target where namespaces are missing (or `--no-sandbox`),
//! with rlimits, a scrubbed environment, Landlock where the kernel has it and a temporary
//! folder of its own.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::execution::{Bounds, Execution};
use super::pump::pump;
use super::running::{finish, Running};
use crate::confine::{environment, landlock, rlimits, Mode, Policy};
use crate::sys;
use crate::target::Target;

/// Spawns a target directly: the trusted reference, or a target confined without namespaces
/// (rlimits, a scrubbed environment, Landlock where the kernel has it, a temporary folder).
/// `connected`: the stdin and stdout to give it instead of the harness's pipes.
pub(super) fn spawn_direct(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
    connected: Option<[OwnedFd; 2]>,
) -> io::Result<Execution> {
    let confined = policy.mode == Mode::Direct;
    let temp = if confined {
        Some(
            tempfile::Builder::new()
                .prefix("gridjudge-case-")
                .tempdir()?,
        )
    } else {
        None
    };
    let mut command = Command::new(&target.program);
    command
        .args(&target.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some([stdin, stdout]) = connected {
        command
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::from(stdout));
    }
    let dir = match (&temp, target.dir.as_os_str().is_empty()) {
        (Some(temp), true) => temp.path().to_path_buf(),
        _ => target.dir.clone(),
    };
    // Changing directory rules out posix_spawn, the fast way to start a process: do it only
    // when the target runs elsewhere than the harness.
    if std::env::current_dir().is_ok_and(|cwd| cwd != dir) {
        command.current_dir(&dir);
    }
    if let Some(folder) = &temp {
        command.env_clear();
        command.envs(environment::with_temp(&policy.env, folder.path()));
        let ruleset = if policy.layers.landlock {
            let mut readable = policy.readable.clone();
            readable.extend(
                crate::confine::SYSTEM
                    .iter()
                    .map(std::path::PathBuf::from)
                    .filter(|p| p.exists()),
            );
            readable.extend(["/proc".into(), "/dev".into()]);
            let mut writable = vec![folder.path().to_path_buf(), "/dev/null".into()];
            writable.extend(policy.layers.view.writable.iter().cloned());
            Some(landlock::ruleset(&readable, &writable)?)
        } else {
            None
        };
        let limits = policy.layers.rlimits.clone();
        let ruleset_fd = ruleset.as_ref().map_or(-1, |fd| fd.as_raw_fd());
        // SAFETY: the closure runs in the forked child before exec and makes only
        // async-signal-safe system calls on data prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                rlimits::apply(&limits)?;
                if ruleset_fd >= 0 {
                    landlock::restrict(ruleset_fd)?;
                }
                Ok(())
            });
        }
        let start = Instant::now();
        let child = command.spawn()?;
        drop(ruleset);
        let execution = run_direct(child, input, bounds, policy, start, confined);
        if let Some(temp) = temp {
            let path = temp.path().to_path_buf();
            if let Err(err) = temp.close() {
                // A target that made its folder undeletable: say so, once per case.
                eprintln!(
                    "warning: could not remove the temporary folder `{}`: {err}",
                    path.display()
                );
            }
        }
        return execution;
    }
    let start = Instant::now();
    let child = command.spawn()?;
    run_direct(child, input, bounds, policy, start, confined)
}

fn run_direct(
    mut child: std::process::Child,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
    start: Instant,
    confined: bool,
) -> io::Result<Execution> {
    let pid = child.id() as libc::pid_t;
    // A stdin or stdout connected elsewhere is none of the harness's: the pump gets a pipe
    // with nothing to write into and one that ends at once in their place.
    let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
        (Some(stdin), Some(stdout)) => (OwnedFd::from(stdin), OwnedFd::from(stdout)),
        _ => {
            let (read, write) = sys::pipe()?;
            (write, read)
        }
    };
    let stderr = child.stderr.take().map(OwnedFd::from);
    let ours = [
        stdin,
        stdout,
        stderr.ok_or_else(|| io::Error::other("no pipe"))?,
    ];
    let mut running = Running::Direct {
        child,
        pid,
        pidfd: sys::pidfd_open(pid),
        watch_memory: policy.limits.memory.filter(|_| confined),
        memory_killed: false,
    };
    let pumped = pump(&mut running, ours, input, bounds, start)?;
    let ended = running.reap()?;
    Ok(finish(pumped, ended, &policy.limits, confined))
}
