//! A problem package's own output validator: built once per run, then run on every case as
//! the format says, `validator input judge_answer feedback_dir [flags] < program_output`,
//! where exit status 42 accepts the output and 43 rejects it.
//!
//! The validator is the instructor's code, but it reads the student's output: it runs confined
//! like any target, with the corpus out of its sight. It sees a copy of the case's input and
//! answer in a fresh folder of its own, and may write only its feedback folder, whose
//! `judgemessage.txt` becomes the case's explanation. A validator that does not build, crashes
//! or exits with anything but 42 or 43 is the package's error, never the program's verdict.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::confine::{Policy, ResourceLimits, Settings};
use crate::corpus::package::Package;
use crate::corpus::{Case, Suite};
use crate::error::Error;
use crate::judge::{Difference, Expected};
use crate::process::{Bounds, Execution};
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

/// Builds `package`'s output validator (a copy of it: the corpus stays out of every build's
/// sight), confined as `options` confine a target.
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
    /// What `run` of `case` of the package `suite` is judged against: `expected` with the
    /// validator's finding, where the run ended by itself, its output whole; else `expected`
    /// alone (a time limit, a crash by a limit: decided without it).
    pub(super) fn expected(
        &self,
        confine: &Settings,
        cases_root: &Path,
        suite: &Suite,
        case: &Case,
        run: &Execution,
        expected: Vec<u8>,
    ) -> Result<Expected<'static>, Error> {
        let ended_by_itself = !(run.timed_out
            || run.wall_stopped
            || run.idle_stopped.is_some()
            || run.output_limited
            || run.limit.is_some()
            || run.interrupted);
        let Some(package) = suite.package.as_deref().filter(|_| ended_by_itself) else {
            return Ok(Expected::Output(expected));
        };
        let difference = self.judge(confine, cases_root, package, case, &run.stdout)?;
        Ok(Expected::Validated(expected, difference))
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
        let fault = |why: String| Error::corpus(&self.source, format!("on {}: {why}", case.id()));
        let work = tempfile::Builder::new()
            .prefix("gridjudge-validate-")
            .tempdir()
            .map_err(|err| fault(format!("no folder to run in: {err}")))?;
        let (input, answer, feedback) =
            lay_out(work.path(), case).map_err(|err| fault(err.to_string()))?;
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
        let program = Program::Command(argv.clone());
        let (target, policy, _) = Policy::for_program(
            &program,
            &settings,
            limits,
            cases_root,
            &Target::command(&argv, &self.dir),
            crate::sandbox::available(),
        )?;
        let bounds = Bounds {
            timeout: VALIDATION_TIME,
            wall: crate::process::backstop(VALIDATION_TIME),
            asleep_after: None,
            stdout_cap: 1 << 20,
            stderr_cap: 64 << 10,
        };
        let execution = crate::process::execute(&target, output, &bounds, &policy)
            .map_err(|err| fault(format!("the output validator could not start: {err}")))?;
        let message = std::fs::read(feedback.join("judgemessage.txt")).unwrap_or_default();
        let message = String::from_utf8_lossy(&message).trim().to_string();
        match execution.exit {
            crate::process::Exit::Code(ACCEPTED) => Ok(None),
            crate::process::Exit::Code(REJECTED) => {
                let answer = std::fs::read(&case.expected).unwrap_or_default();
                Ok(Some(rejected(&answer, output, message)))
            }
            _ => Err(fault(format!(
                "the output validator {} (not 42, accepted, or 43, wrong answer): the \
                 package's fault, no verdict on the program{}",
                match execution.exit {
                    crate::process::Exit::Code(code) => format!("exited with status {code}"),
                    crate::process::Exit::Signal(signal) => crate::process::killed_by(signal),
                },
                String::from_utf8_lossy(&execution.stderr)
                    .lines()
                    .rev()
                    .find(|line| !line.trim().is_empty())
                    .map(|line| format!("; it said: {}", crate::judge::visible_line(line.trim())))
                    .unwrap_or_default()
            ))),
        }
    }
}

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
    std::fs::copy(&case.expected, &answer)?;
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
