//! Planning and starting a run: [`plan`] works out a suite's target and its confinement once;
//! [`execute`] runs one input through it, sandboxed through the worker's helper or directly.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Instant;

use super::direct::spawn_direct;
use super::execution::{Bounds, Execution};
use super::pump::pump;
use super::running::{finish, Running};
use crate::confine::Observed;
use crate::confine::{environment, Mode, Policy};
use crate::sys;
use crate::target::Target;

/// What a run of a target is planned from, as each task fills it once: what runs, how it is
/// confined, and where. [`Planning::plan`] makes a suite's target and policy from it.
pub struct Planning<'a> {
    pub program: &'a crate::target::Program,
    pub settings: &'a crate::confine::Settings,
    /// The corpus, out of an untrusted target's sight.
    pub corpus_root: &'a Path,
    /// The reference binary (empty in the student kit), out of its sight too.
    pub reference: &'a Path,
    /// Where the target runs.
    pub dir: &'a Path,
}

impl Planning<'_> {
    /// The target that runs the program for `suite` (the reference with the suite's arguments,
    /// or the user's command) and its policy; warnings go into `warnings`, each once. This is
    /// where protection is decided: the reference binary, like the checkout and the corpus, is
    /// kept out of every untrusted target's sight.
    pub fn plan(
        &self,
        suite: &crate::corpus::Suite,
        warnings: &mut crate::confine::Warnings,
    ) -> Result<(Target, Policy), crate::error::Error> {
        plan(self, suite, warnings)
    }
}

fn plan(
    planning: &Planning,
    suite: &crate::corpus::Suite,
    warnings: &mut crate::confine::Warnings,
) -> Result<(Target, Policy), crate::error::Error> {
    let Planning {
        program,
        settings,
        corpus_root,
        reference,
        dir,
    } = *planning;
    let target = program.target(suite.reference_target(reference, dir), dir);
    let mut settings = settings.clone();
    if !reference.as_os_str().is_empty() {
        settings.hide(reference);
    }
    // The bundled reference runs unconfined, and so does everything under --no-sandbox: no
    // helper is started to find out whether the machine could confine it.
    let sandbox = || match program {
        crate::target::Program::Reference => Err("not needed".into()),
        _ if !settings.sandbox => Err("--no-sandbox".into()),
        _ => crate::sandbox::available(),
    };
    let (target, policy, found) = Policy::for_program(
        program,
        &settings,
        suite.limits(),
        corpus_root,
        &target,
        sandbox,
    )?;
    crate::confine::note_once(warnings, found);
    if policy.mode == Mode::Sandboxed {
        crate::sandbox::send_ahead(&request(&argv(&target), &target.dir, &policy));
    }
    Ok((target, policy))
}

/// The command line `target` runs: its program, then its arguments.
fn argv(target: &Target) -> Vec<std::ffi::OsString> {
    std::iter::once(target.program.clone())
        .chain(target.args.iter().cloned())
        .collect()
}

/// Runs `target` with `input` on stdin under `policy` ([`Policy::trusted`] for the bundled
/// reference only). `Err` only when it cannot be started.
pub fn execute(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
) -> io::Result<Execution> {
    run(target, input, bounds, policy, None)
}

/// Runs `target` under `policy` with its stdin read from `stdin` and its stdout written to
/// `stdout` (pipes to another program: an interactive problem's validator); its stderr is
/// kept, its stdout is not. `Err` only when it cannot be started.
pub fn execute_connected(
    target: &Target,
    bounds: &Bounds,
    policy: &Policy,
    stdin: OwnedFd,
    stdout: OwnedFd,
) -> io::Result<Execution> {
    run(target, &[], bounds, policy, Some([stdin, stdout]))
}

/// A run with the harness's own pipes, or with stdin and stdout `connected` elsewhere.
fn run(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
    connected: Option<[OwnedFd; 2]>,
) -> io::Result<Execution> {
    match policy.mode {
        Mode::Sandboxed => {
            // A case whose first process could not start its target for a passing want of
            // resources (EAGAIN from clone: the kernel, or the worker's process count while the
            // last case's processes are still being released) starts again, a few times, after
            // a short wait: that is the machine's state, never the program's verdict.
            let mut connected = connected;
            let mut attempt = 0;
            loop {
                let once = connected.take();
                let again = once.is_none() && attempt < START_AGAIN;
                match run_sandboxed(target, input, bounds, policy, once) {
                    Err(err) if again && start_wanted_resources(&err) => {
                        std::thread::sleep(std::time::Duration::from_millis(10 << attempt));
                        attempt += 1;
                    }
                    ran => return ran,
                }
            }
        }
        Mode::Trusted | Mode::Direct => spawn_direct(target, input, bounds, policy, connected),
    }
}

/// How many times a case whose target could not start for want of resources starts again.
const START_AGAIN: u32 = 5;

/// Whether `err` is the helper's word that the case's target could not start for a passing
/// want of resources (EAGAIN).
fn start_wanted_resources(err: &io::Error) -> bool {
    let said = err.to_string();
    said.starts_with("could not start the target")
        && said.contains(&io::Error::from_raw_os_error(libc::EAGAIN).to_string())
}

/// [`run`] in the worker's sandbox helper.
fn run_sandboxed(
    target: &Target,
    input: &[u8],
    bounds: &Bounds,
    policy: &Policy,
    connected: Option<[OwnedFd; 2]>,
) -> io::Result<Execution> {
    crate::sandbox::with_helper(|helper| {
        let (ours, [their_in, their_out, their_err]) = sys::stdio_pipes()?;
        let theirs = match connected {
            // Their ends of the harness's stdin and stdout pipes are closed here: the
            // pump then finds no input to write and an output that ends at once.
            Some([stdin, stdout]) => {
                drop((their_in, their_out));
                [stdin, stdout, their_err]
            }
            None => [their_in, their_out, their_err],
        };
        // What fits in the pipe goes in before the case starts: one turn of the pump less.
        sys::set_nonblocking(ours[0].as_raw_fd())?;
        let sent = sys::write_fd(ours[0].as_raw_fd(), input).unwrap_or(0);
        let request = request(&argv(target), &target.dir, policy);
        let start = Instant::now();
        let started = helper.start_case(
            &request,
            policy.limits.memory,
            policy.limits.processes,
            theirs,
        )?;
        let mut running = Running::Sandboxed {
            helper,
            started,
            observed: Observed::default(),
            exited: None,
        };
        let pumped = pump(&mut running, ours, &input[sent..], bounds, start)?;
        let ended = running.reap()?;
        Ok(finish(pumped, ended, &policy.limits, true))
    })
}

/// The helper's request for running `argv` in `cwd` under `policy`.
fn request(
    argv: &[std::ffi::OsString],
    cwd: &Path,
    policy: &Policy,
) -> crate::sandbox::CaseRequest {
    let env = environment::with_temp(&policy.env, Path::new(crate::confine::TEMP));
    crate::sandbox::CaseRequest {
        argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect(),
        cwd: if cwd.as_os_str().is_empty() {
            crate::confine::TEMP.as_bytes().to_vec()
        } else {
            cwd.as_os_str().as_bytes().to_vec()
        },
        layers: policy.layers.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the helper's word that the target could not start for want of resources (EAGAIN)
    /// starts a case again; a program that cannot be found, or any other failure, does not.
    #[test]
    fn only_a_start_that_wanted_resources_is_tried_again() {
        let said = |text: &str| io::Error::new(io::ErrorKind::NotFound, text.to_string());
        let eagain = io::Error::from_raw_os_error(libc::EAGAIN);
        assert!(start_wanted_resources(&said(&format!(
            "could not start the target: {eagain}"
        ))));
        let enoent = io::Error::from_raw_os_error(libc::ENOENT);
        assert!(!start_wanted_resources(&said(&format!(
            "could not start the target: {enoent}"
        ))));
        assert!(!start_wanted_resources(&said(&format!(
            "could not make a pipe: {eagain}"
        ))));
    }
}
