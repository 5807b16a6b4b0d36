//! Starting a target directly, without the sandbox helper: the trusted reference in a process
//! group of its own, or an untrusted target where namespaces are missing (or `--no-sandbox`),
//! with rlimits, a scrubbed environment, Landlock where the kernel has it and a temporary
//! folder of its own.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Instant;

use super::execution::{Bounds, Execution};
use super::launch::Launch;
use super::pump::pump;
use super::running::{finish, Running};
use crate::confine::{environment, landlock, Mode, Policy};
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
    let dir = Some(target.dir.as_path()).filter(|dir| !dir.as_os_str().is_empty());
    if !confined {
        let launch = Launch::new(target.program.as_ref(), &target.args, dir, None)?;
        return start(launch, connected, (input, bounds, policy), false);
    }
    let temp = tempfile::Builder::new()
        .prefix("gridjudge-case-")
        .tempdir()?;
    let env = environment::with_temp(&policy.env, temp.path());
    let dir = dir.unwrap_or(temp.path());
    let mut launch = Launch::new(target.program.as_ref(), &target.args, Some(dir), Some(&env))?;
    let ruleset = if policy.layers.landlock {
        let mut readable = policy.readable.clone();
        readable.extend(
            crate::confine::SYSTEM
                .iter()
                .map(std::path::PathBuf::from)
                .filter(|p| p.exists()),
        );
        readable.extend(["/proc".into(), "/dev".into()]);
        let mut writable = vec![temp.path().to_path_buf(), "/dev/null".into()];
        writable.extend(policy.layers.view.writable.iter().cloned());
        Some(landlock::ruleset(&readable, &writable)?)
    } else {
        None
    };
    launch.confine(&policy.layers.rlimits, ruleset);
    let execution = start(launch, connected, (input, bounds, policy), true);
    let path = temp.path().to_path_buf();
    if let Err(err) = temp.close() {
        // A target that made its folder undeletable: say so, once per case.
        eprintln!(
            "warning: could not remove the temporary folder `{}`: {err}",
            path.display()
        );
    }
    execution
}

/// Starts `launch` with `connected` as its stdin and stdout where given (else pipes of the
/// harness's), and runs it to its end.
fn start(
    mut launch: Launch,
    connected: Option<[OwnedFd; 2]>,
    (input, bounds, policy): (&[u8], &Bounds, &Policy),
    confined: bool,
) -> io::Result<Execution> {
    let (stderr_ours, stderr_theirs) = sys::pipe()?;
    let (ours, theirs) = match connected {
        Some([stdin, stdout]) => (None, [stdin, stdout]),
        None => {
            let (stdin_theirs, stdin_ours) = sys::pipe()?;
            let (stdout_ours, stdout_theirs) = sys::pipe()?;
            (
                Some([stdin_ours, stdout_ours]),
                [stdin_theirs, stdout_theirs],
            )
        }
    };
    let started = Instant::now();
    let pid = launch.spawn([
        theirs[0].as_raw_fd(),
        theirs[1].as_raw_fd(),
        stderr_theirs.as_raw_fd(),
    ])?;
    drop((theirs, stderr_theirs, launch));
    run_started(
        pid,
        (ours, stderr_ours),
        (input, bounds, policy),
        started,
        confined,
    )
}

/// Pumps a started target to its end and reaps it. `ours`: the harness's ends of its stdin
/// and stdout, none where they are connected elsewhere.
fn run_started(
    pid: libc::pid_t,
    (ours, stderr): (Option<[OwnedFd; 2]>, OwnedFd),
    (input, bounds, policy): (&[u8], &Bounds, &Policy),
    start: Instant,
    confined: bool,
) -> io::Result<Execution> {
    // A stdin or stdout connected elsewhere is none of the harness's: the pump gets a pipe
    // with nothing to write into and one that ends at once in their place.
    let [stdin, stdout] = match ours {
        Some(ours) => ours,
        None => {
            let (read, write) = sys::pipe()?;
            [write, read]
        }
    };
    let ours = [stdin, stdout, stderr];
    let mut running = Running::Direct {
        pid,
        pidfd: sys::pidfd_open(pid),
        watch_memory: policy.limits.memory.filter(|_| confined),
        memory_killed: false,
    };
    let pumped = pump(&mut running, ours, input, bounds, start)?;
    let ended = running.reap()?;
    Ok(finish(pumped, ended, &policy.limits, confined))
}
