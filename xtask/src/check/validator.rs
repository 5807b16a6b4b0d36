//! A problem package's own output validator: built once per run, then run on every case as
//! the format says, `validator input judge_answer feedback_dir [flags] < program_output`,
//! where exit status 42 accepts the output and 43 rejects it.
//!
//! The validator is the instructor's code, but it reads the student's output: it runs confined
//! like any target, with the corpus out of its sight. It sees a copy of the case's input and
//! answer in a fresh folder of its own, and may write only its feedback folder, whose
//! `judgemessage.txt` becomes the case's explanation. A validator that does not build, crashes
//! or exits with anything but 42 or 43 is the package's error, never the program's verdict.
//!
//! For an interactive problem the validator and the program run at once, each confined, each
//! on a thread of its own, the validator's stdout the program's stdin and the program's stdout
//! the validator's stdin. Whichever ends first decides: a validator that rejects while the
//! program still runs makes it a wrong answer (whatever the program does once cut off); a
//! program that fails or reaches a limit first has that verdict.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::confine::{Policy, ResourceLimits, Settings};
use crate::corpus::package::Package;
use crate::corpus::{Case, Suite};
use crate::error::Error;
use crate::judge::{Difference, Expected};
use crate::process::{Bounds, Execution, Exit};
use crate::submission::Outcome;
use crate::target::{Program, Target};

/// Exit statuses of the format's validators.
const ACCEPTED: i32 = 42;
const REJECTED: i32 = 43;

/// A built output validator.
#[derive(Debug, Clone)]
pub(super) struct Validator {
    /// The package's validator, as reports name it.
    source: PathBuf,
    run: Vec<OsString>,
    dir: PathBuf,
}

/// Builds `package`'s output validator (a copy of it: the corpus at `cases_root` stays out of
/// every build's sight), confined as `confine` confines a target.
pub(super) fn build(
    package: &Package,
    confine: &Settings,
    cases_root: &Path,
    warnings: &mut Vec<String>,
) -> Result<Validator, Error> {
    let source = package
        .validator
        .clone()
        .ok_or_else(|| Error::Internal("a package with no validator to build".into()))?;
    let folder = match source.is_dir() {
        true => source.clone(),
        false => source.parent().unwrap_or(Path::new(".")).to_path_buf(),
    };
    let copy = crate::submission::copy_folder(&folder, "output validator")
        .map_err(|why| Error::corpus(&source, why))?;
    let outcome = if copy.join("build").is_file() || copy.join("run").is_file() {
        let custom = crate::submission::Custom {
            build: match copy.join("build").is_file() {
                true => vec!["sh".into(), "build".into()],
                false => vec!["true".into()],
            },
            run: vec!["sh".into(), "run".into()],
        };
        crate::submission::build_custom(&copy, &custom, confine, cases_root, warnings)?
    } else {
        let sources = match source.is_dir() {
            true => copy.clone(),
            false => copy.join(source.file_name().unwrap_or_default()),
        };
        let pin = Default::default();
        crate::submission::build(&sources, &pin, confine, cases_root, warnings)?
    };
    match outcome {
        Outcome::Ready(ready) => Ok(Validator {
            source,
            run: ready.run,
            dir: ready.dir,
        }),
        Outcome::Failed(failed) => Err(Error::corpus(
            &source,
            format!(
                "the output validator did not build: {}",
                failed.message.trim_end()
            ),
        )),
    }
}

impl Validator {
    /// Runs `case` (its input too) of the package `suite` with the program (`target` under
    /// `policy` within `bounds`), in conversation with the validator for an interactive
    /// problem; the run, how long it was kept from a CPU, and what it is judged against:
    /// `expected` with the validator's finding where the run ended by itself, its output whole,
    /// else `expected` alone (a time limit, a limit's kill: decided without it).
    pub(super) fn run(
        &self,
        (confine, cases_root): (&Settings, &Path),
        (suite, case, input): (&Suite, &Case, &[u8]),
        (target, policy, bounds): (&Target, &Policy, &Bounds),
        reruns: &crate::process::Reruns,
        expected: Vec<u8>,
    ) -> Result<Judged, Error> {
        let package = suite
            .package
            .as_deref()
            .ok_or_else(|| Error::Internal("a validator planned for no package".into()))?;
        if package.meta.interactive {
            let bounds = Bounds {
                // Waiting for the validator is no hang.
                asleep_after: None,
                ..*bounds
            };
            let (run, finding) = self.interact(
                (confine, cases_root),
                (package, case),
                (target, policy, &bounds),
            )?;
            return Ok((run, None, Expected::Validated(expected, finding)));
        }
        let (run, busy) = crate::process::execute_fairly(target, policy, input, bounds, reruns);
        let expected = match &run {
            Ok(run) if ended_by_itself(run) => {
                let difference = self.judge(confine, cases_root, package, case, &run.stdout)?;
                Expected::Validated(expected, difference)
            }
            _ => Expected::Output(expected),
        };
        Ok((run.map_err(|err| err.to_string()), busy, expected))
    }

    /// Judges `output` of `case` with the validator: no difference when it accepts, the
    /// validator's message as the difference when it rejects.
    fn judge(
        &self,
        confine: &Settings,
        cases_root: &Path,
        package: &Package,
        case: &Case,
        output: &[u8],
    ) -> Result<Option<Difference>, Error> {
        let call = self.call(confine, cases_root, package, case)?;
        let execution = crate::process::execute(&call.target, output, &call.bounds, &call.policy)
            .map_err(|err| {
            self.fault(case, format!("the output validator could not start: {err}"))
        })?;
        self.finding(case, &call, &execution, output)
    }

    /// Runs the program (`target` under `policy` within `bounds`) in conversation with the
    /// validator on `case`, each the other's stdin and stdout, both confined: the program's
    /// run and the validator's finding, where the program ended by itself or the validator
    /// rejected it first (the run then judged by the rejection alone).
    fn interact(
        &self,
        (confine, cases_root): (&Settings, &Path),
        (package, case): (&Package, &Case),
        (target, policy, bounds): (&Target, &Policy, &Bounds),
    ) -> Result<(Result<Execution, String>, Option<Difference>), Error> {
        let call = self.call(confine, cases_root, package, case)?;
        let pipe = || -> Result<(OwnedFd, OwnedFd), Error> {
            let (read, write) =
                crate::sys::pipe().map_err(|err| self.fault(case, err.to_string()))?;
            for end in [&read, &write] {
                // The sandbox's user opens them again through /proc.
                std::fs::File::from(
                    end.try_clone()
                        .map_err(|e| self.fault(case, e.to_string()))?,
                )
                .set_permissions(std::fs::Permissions::from_mode(0o666))
                .map_err(|err| self.fault(case, err.to_string()))?;
            }
            Ok((read, write))
        };
        let (to_program, from_validator) = pipe()?;
        let (to_validator, from_program) = pipe()?;
        // Each side runs on a thread of its own, with that thread's sandbox helper; each
        // side's end is timed, since the one that ends first decides.
        let ((program, program_start), validator) = std::thread::scope(|scope| {
            let validator = scope.spawn(|| {
                warm(&call.policy);
                let start = Instant::now();
                let run = crate::process::execute_connected(
                    &call.target,
                    &call.bounds,
                    &call.policy,
                    to_validator,
                    from_validator,
                );
                (run, start)
            });
            warm(policy);
            let start = Instant::now();
            let program =
                crate::process::execute_connected(target, bounds, policy, to_program, from_program);
            ((program, start), validator.join())
        });
        let (validator, validator_start) =
            validator.map_err(|_| self.fault(case, "the validator's thread panicked".into()))?;
        let validator = validator.map_err(|err| {
            self.fault(case, format!("the output validator could not start: {err}"))
        })?;
        let ended = program.as_ref().is_ok_and(ended_by_itself);
        // The validator rejecting first decides: the program, cut off, may then have failed to
        // read or write, or waited on: that is no verdict of its own.
        // When each ended: its start, and its run from spawn to exit (not its teardown).
        let program_end = program.as_ref().map(|run| program_start + run.elapsed);
        let validator_end = validator_start + validator.elapsed;
        // A program killed by SIGPIPE wrote to a validator that had gone: that is causal.
        // Otherwise the clocks tell, the program given the benefit of a margin, since a
        // validator that finds its input ended exits just after the program does.
        let piped = program
            .as_ref()
            .is_ok_and(|run| run.exit == Exit::Signal(libc::SIGPIPE));
        let rejected_first = validator.exit == Exit::Code(REJECTED)
            && (piped || program_end.is_ok_and(|end| validator_end + ORDER_MARGIN < end));
        let finding = match ended || rejected_first {
            true => self.finding(case, &call, &validator, &[])?,
            // A program stopped at a limit has that verdict, whatever the validator made of
            // the conversation cut short.
            false => None,
        };
        let mut program = program.map_err(|err| err.to_string());
        if let (Some(_), Ok(run), true) = (&finding, &mut program, rejected_first) {
            run.exit = Exit::Code(0);
            (run.timed_out, run.wall_stopped, run.idle_stopped, run.limit) =
                (false, false, None, None);
        }
        Ok((program, finding))
    }

    fn fault(&self, case: &Case, why: String) -> Error {
        Error::corpus(&self.source, format!("on {}: {why}", case.id()))
    }

    /// The validator's command line, confinement and bounds for `case`, with the folder it
    /// runs on (the case's input and answer, its feedback folder).
    fn call(
        &self,
        confine: &Settings,
        cases_root: &Path,
        package: &Package,
        case: &Case,
    ) -> Result<Call, Error> {
        let work = tempfile::Builder::new()
            .prefix("gridjudge-validate-")
            .tempdir()
            .map_err(|err| self.fault(case, format!("no folder to run in: {err}")))?;
        let (input, answer, feedback) =
            lay_out(work.path(), case).map_err(|err| self.fault(case, err.to_string()))?;
        let mut argv = self.run.clone();
        argv.extend([input, answer, feedback.clone()].map(OsString::from));
        let flags = package.flags.get(&case.group).cloned().unwrap_or_default();
        argv.extend(flags.into_iter().map(OsString::from));
        let mut settings = confine.clone();
        settings.writable = vec![feedback.clone()];
        settings.cwd = Some(self.dir.clone());
        let limits = ResourceLimits {
            cpu: Some(VALIDATION_TIME),
            memory: Some(1 << 30),
            ..ResourceLimits::default()
        };
        let (target, policy, _) = Policy::for_program(
            &Program::Command(argv.clone()),
            &settings,
            limits,
            cases_root,
            &Target::command(&argv, &self.dir),
            crate::sandbox::available,
        )?;
        let bounds = Bounds {
            timeout: VALIDATION_TIME,
            wall: crate::process::backstop(VALIDATION_TIME),
            asleep_after: None,
            stdout_cap: 1 << 20,
            stderr_cap: 64 << 10,
        };
        Ok(Call {
            _work: work,
            feedback,
            target,
            policy,
            bounds,
        })
    }

    /// What the validator's `execution` on `case` found in `output` (empty for a conversation):
    /// nothing (42), a difference (43), or the package's fault (anything else).
    fn finding(
        &self,
        case: &Case,
        call: &Call,
        execution: &Execution,
        output: &[u8],
    ) -> Result<Option<Difference>, Error> {
        // The validator's own file, read as a stranger's: not through a link, only a regular
        // file, its first 64 KiB.
        let message =
            crate::files::read_untrusted(&call.feedback.join("judgemessage.txt"), 1 << 16)
                .unwrap_or_default();
        let message = String::from_utf8_lossy(&message).trim().to_string();
        match execution.exit {
            Exit::Code(ACCEPTED) => Ok(None),
            Exit::Code(REJECTED) => {
                let answer = std::fs::read(&case.expected).unwrap_or_default();
                Ok(Some(rejected(&answer, output, message)))
            }
            exit => Err(self.fault(
                case,
                format!(
                    "the output validator {} (not 42, accepted, or 43, wrong answer): the \
                     package's fault, no verdict on the program{}",
                    match exit {
                        Exit::Code(code) => format!("exited with status {code}"),
                        Exit::Signal(signal) => crate::process::killed_by(signal),
                    },
                    String::from_utf8_lossy(&execution.stderr)
                        .lines()
                        .rev()
                        .find(|line| !line.trim().is_empty())
                        .map(|line| format!(
                            "; it said: {}",
                            crate::judge::visible_line(line.trim())
                        ))
                        .unwrap_or_default()
                ),
            )),
        }
    }
}

/// A case's run, how long it was kept from a CPU, and what it is judged against.
pub(super) type Judged = (
    Result<Execution, String>,
    Option<std::time::Duration>,
    Expected<'static>,
);

/// One run of the validator, prepared: its folder (removed when this goes), command line,
/// confinement and bounds.
struct Call {
    _work: tempfile::TempDir,
    feedback: PathBuf,
    target: Target,
    policy: Policy,
    bounds: Bounds,
}

/// Starts this thread's sandbox helper, if `policy` runs through one, before a side of a
/// conversation is timed: its start is no part of the side's run.
fn warm(policy: &Policy) {
    if policy.mode == crate::confine::Mode::Sandboxed {
        let _ = crate::sandbox::with_helper(|_| Ok(()));
    }
}

/// Whether a run ended by itself, its output whole: what a validator is asked about.
fn ended_by_itself(run: &Execution) -> bool {
    !(run.timed_out
        || run.wall_stopped
        || run.idle_stopped.is_some()
        || run.output_limited
        || run.limit.is_some()
        || run.interrupted)
}

/// How much sooner than the program the validator must be seen to end for its rejection to
/// come first: more than the harness notices two ends apart (a fraction of a millisecond
/// measured), less than a program takes to notice that its validator has gone and fail (a
/// JVM's exception, 3 to 4 ms). Ends closer than this are a race the clocks cannot settle:
/// the program's own failure then decides.
const ORDER_MARGIN: Duration = Duration::from_millis(1);

/// Time and memory a validator may use on one case (the format's `validation_time`).
const VALIDATION_TIME: Duration = Duration::from_secs(60);

/// The case's input and answer copied into `work`, and its empty feedback folder, which the
/// validator (another uid) may write; their paths.
fn lay_out(work: &Path, case: &Case) -> std::io::Result<(PathBuf, PathBuf, PathBuf)> {
    let (input, answer, feedback) = (
        work.join("input.in"),
        work.join("answer.ans"),
        work.join("feedback"),
    );
    std::fs::copy(&case.input, &input)?;
    // An interactive case without its answer has `/dev/null` for one: an empty file.
    std::fs::write(&answer, std::fs::read(&case.expected)?)?;
    std::fs::create_dir(&feedback)?;
    std::fs::set_permissions(work, std::fs::Permissions::from_mode(0o755))?;
    std::fs::set_permissions(&feedback, std::fs::Permissions::from_mode(0o777))?;
    for file in [&input, &answer] {
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644))?;
    }
    Ok((input, answer, feedback))
}

/// A rejection as a difference: the validator's message (or that it gave none), placed at the
/// start of the output, since only the validator knows where the output goes wrong.
fn rejected(answer: &[u8], output: &[u8], message: String) -> Difference {
    let first_line = |text: &[u8]| {
        let line = text
            .split(|&b| b == b'\n')
            .next()
            .filter(|_| !text.is_empty());
        line.map(|line| String::from_utf8_lossy(line).into_owned())
    };
    Difference {
        line: 1,
        column: 1,
        expected_offset: 0,
        expected_line: first_line(answer),
        actual_line: first_line(output),
        cause: match message.is_empty() {
            true => "the package's output validator rejected it (no message)".into(),
            false => format!(
                "the package's output validator rejected it: {}",
                crate::judge::visible_line(message.lines().next().unwrap_or_default())
            ),
        },
        presentation_only: false,
    }
}
