//! Verdicts: a closed set, and the judgement that picks one for a case.
//!
//! A misbehaving target always ends up here as data, never as an error of the harness.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::compare::Difference;
use crate::corpus::Case;
use crate::process::{Execution, Exit};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Pass,
    /// The output differs in its content.
    WrongOutput,
    /// The output differs only in spaces, line endings or the final newline.
    PresentationError,
    /// Crashed: the output is wrong and the program died of a signal or exited non-zero.
    RuntimeError,
    /// The right output, but killed by a signal, or a non-zero exit where the suite grades it.
    ExitStatus,
    /// Used its CPU time limit, or still ran at the wall-clock backstop (and again when rerun
    /// alone on a quiet machine: it sleeps or blocks).
    Timeout,
    /// Stopped at the wall-clock backstop twice while it waited for a CPU: the machine was too
    /// busy to tell, so no verdict on the program (grade it again on a quieter machine).
    Unreliable,
    OutputLimit,
    MemoryLimit,
    CpuLimit,
    /// Tried to run more processes or threads than allowed (a fork bomb, say).
    ProcessLimit,
    FileSizeLimit,
    OpenFilesLimit,
    /// The target could not be started.
    CouldNotRun,
    /// The submission's sources did not build: not run.
    CouldNotBuild,
    /// Not run: `--fail-fast` stopped the run first.
    Skipped,
}

impl Verdict {
    pub fn passed(self) -> bool {
        match self {
            Verdict::Pass => true,
            Verdict::WrongOutput
            | Verdict::PresentationError
            | Verdict::RuntimeError
            | Verdict::ExitStatus
            | Verdict::Timeout
            | Verdict::Unreliable
            | Verdict::OutputLimit
            | Verdict::MemoryLimit
            | Verdict::CpuLimit
            | Verdict::ProcessLimit
            | Verdict::FileSizeLimit
            | Verdict::OpenFilesLimit
            | Verdict::CouldNotRun
            | Verdict::CouldNotBuild
            | Verdict::Skipped => false,
        }
    }

    pub const ALL: [Verdict; 16] = [
        Verdict::Pass,
        Verdict::WrongOutput,
        Verdict::PresentationError,
        Verdict::RuntimeError,
        Verdict::ExitStatus,
        Verdict::Timeout,
        Verdict::Unreliable,
        Verdict::OutputLimit,
        Verdict::MemoryLimit,
        Verdict::CpuLimit,
        Verdict::ProcessLimit,
        Verdict::FileSizeLimit,
        Verdict::OpenFilesLimit,
        Verdict::CouldNotRun,
        Verdict::CouldNotBuild,
        Verdict::Skipped,
    ];
}

impl Verdict {
    /// The verdict's name in machine-readable reports (JSON, CSV): `wrong-output`.
    pub fn slug(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::WrongOutput => "wrong-output",
            Verdict::PresentationError => "presentation-error",
            Verdict::RuntimeError => "runtime-error",
            Verdict::ExitStatus => "exit-status",
            Verdict::Timeout => "timeout",
            Verdict::Unreliable => "unreliable-measurement",
            Verdict::OutputLimit => "output-limit",
            Verdict::MemoryLimit => "memory-limit",
            Verdict::CpuLimit => "cpu-limit",
            Verdict::ProcessLimit => "process-limit",
            Verdict::FileSizeLimit => "file-size-limit",
            Verdict::OpenFilesLimit => "open-files-limit",
            Verdict::CouldNotRun => "could-not-run",
            Verdict::CouldNotBuild => "could-not-build",
            Verdict::Skipped => "skipped",
        }
    }
}

impl Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.slug())
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "pass",
            Verdict::WrongOutput => "wrong output",
            Verdict::PresentationError => "presentation error",
            Verdict::RuntimeError => "runtime error",
            Verdict::ExitStatus => "exit status",
            Verdict::Timeout => "timeout",
            Verdict::Unreliable => "unreliable measurement",
            Verdict::OutputLimit => "output limit",
            Verdict::MemoryLimit => "memory limit",
            Verdict::CpuLimit => "CPU time limit",
            Verdict::ProcessLimit => "process limit",
            Verdict::FileSizeLimit => "file size limit",
            Verdict::OpenFilesLimit => "open files limit",
            Verdict::CouldNotRun => "could not run",
            Verdict::CouldNotBuild => "could not build",
            Verdict::Skipped => "skipped",
        })
    }
}

/// The cause a group of failures no misreading fits is given: the key it is grouped by and its
/// words, the same for every failure of the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unexplained {
    pub key: String,
    pub words: String,
    /// This failure's own kind within the group: the command it first shows after and its
    /// kind of difference (what a cause shows an example of each of).
    pub shows: (String, String),
}

/// How one run of a target was judged: everything a report needs but the case's name.
#[derive(Debug, Clone)]
pub struct Judgement {
    pub verdict: Verdict,
    /// A sentence on the verdict: the exit status, the limit hit, why it could not run.
    pub detail: Option<String>,
    pub difference: Option<Difference>,
    /// Which input line the first difference answers, as a phrase.
    pub location: Option<String>,
    /// The input line the first difference answers (`None`: the whole input, or none).
    pub answers: Option<String>,
    /// The rule that decided the expected output where it differs (the reference says).
    pub rule: Option<super::locate::RuleAt>,
    /// Other misreadings that explain the difference as well as `rule` does.
    pub tied: Vec<super::locate::RuleAt>,
    /// The rule of the innermost span of the trace holding the difference.
    pub span: Option<super::locate::RuleAt>,
    pub execution: Option<Execution>,
    pub expected: Vec<u8>,
    pub elapsed: Duration,
    /// The rendered diff, made by [`Judgement::bound`] before the output is cut.
    pub diff: Option<String>,
    /// The SHA-256 of the whole output (hex, its first 128 bits) where it differs from the
    /// expected one and the program ended by itself: what tells two students who print the
    /// same wrong output (the class's similarity report). Never shown to a student.
    pub printed: Option<String>,
    /// Its cause where no misreading fits it, grouped over the run.
    pub unexplained: Option<Unexplained>,
    /// The spec's command of the input line the first difference answers, as the trace
    /// names it (where the spec's input is commands).
    pub line_command: Option<super::locate::Command>,
    /// How the suite's outputs read as a grid (a built-in spec's, handed by the suite): the
    /// terms a failure no misreading fits is told in.
    pub grid: Option<&'static dyn crate::corpus::Grid>,
}

/// How much of a target's stdout a judgement keeps once bounded, around the first difference.
pub(super) const EXCERPT: usize = 64 << 10;

impl Judgement {
    /// Keeps the verdict of a hidden case and drops all else a program could make carry its
    /// input (its difference, diff, output, exit status or signal, times, sizes, and the
    /// sentence telling them); a build's or a start's failure says nothing of it, and stays.
    pub fn redact(&mut self) {
        if !matches!(self.verdict, Verdict::CouldNotBuild | Verdict::CouldNotRun) {
            self.detail = None;
        }
        self.execution = None;
        self.elapsed = Duration::ZERO;
        self.difference = None;
        self.location = None;
        self.answers = None;
        self.rule = None;
        self.tied.clear();
        (self.span, self.diff, self.printed, self.unexplained) = (None, None, None, None);
        self.line_command = None;
        self.expected.clear();
    }

    /// Keeps the memory of a finished judgement bounded, whatever the target printed: renders
    /// the diff (itself bounded in lines and line length) and keeps of the output only a
    /// window of 64 KiB around the first difference.
    pub fn bound(&mut self) {
        let Some(execution) = &mut self.execution else {
            return;
        };
        if let (Some(difference), None) = (&self.difference, &self.diff) {
            self.diff = Some(super::diff::render_around(
                &self.expected,
                compared(&self.expected, execution),
                difference.line,
                "  ",
            ));
        }
        if execution.stdout.len() > EXCERPT {
            let around = self
                .difference
                .as_ref()
                .map_or(0, |d| d.expected_offset)
                .min(execution.stdout.len());
            let start = around.saturating_sub(EXCERPT / 2);
            let end = (start + EXCERPT).min(execution.stdout.len());
            execution.stdout = execution.stdout[start..end].to_vec();
            execution.stdout.shrink_to_fit();
        }
    }

    /// A judgement with no run behind it (`verdict` is could-not-run or skipped).
    fn without_run(verdict: Verdict, detail: Option<String>, expected: Vec<u8>) -> Judgement {
        Judgement {
            verdict,
            detail,
            difference: None,
            location: None,
            answers: None,
            rule: None,
            tied: Vec::new(),
            span: None,
            execution: None,
            expected,
            elapsed: Duration::ZERO,
            diff: None,
            printed: None,
            unexplained: None,
            line_command: None,
            grid: None,
        }
    }

    /// The target could not be started: `why` says what the system answered.
    pub fn could_not_run(why: String, expected: Vec<u8>) -> Judgement {
        Judgement::without_run(Verdict::CouldNotRun, Some(why), expected)
    }

    /// Not run: the sources did not build (`why`: the compiler's first lines).
    pub fn could_not_build(why: String, expected: Vec<u8>) -> Judgement {
        Judgement::without_run(Verdict::CouldNotBuild, Some(why), expected)
    }

    /// Not run: `--fail-fast` or Ctrl-C stopped the run first.
    pub fn skipped(expected: Vec<u8>) -> Judgement {
        Judgement::without_run(Verdict::Skipped, None, expected)
    }

    /// The signal that ended the target, if one did.
    pub fn signal(&self) -> Option<i32> {
        match self.execution.as_ref()?.exit {
            Exit::Signal(signal) => Some(signal),
            Exit::Code(_) => None,
        }
    }

    /// The last non-empty line of stderr (a traceback's error line), or a note that there was
    /// none.
    pub fn last_stderr_line(&self) -> String {
        let stderr = self
            .execution
            .as_ref()
            .map(|e| String::from_utf8_lossy(&e.stderr).into_owned())
            .unwrap_or_default();
        stderr
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .map(|line| super::diff::line(line.trim()))
            .unwrap_or_else(|| "no output at all".into())
    }
}

/// One case of a run and its judgement.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case: Case,
    pub judgement: Judgement,
    /// Lines of the case's input: the smallest failing case is a cause's example.
    pub input_lines: usize,
}

/// The output to compare with `expected`: all of it, or, past the output limit (a verdict
/// already decided), its start, the expected length and an excerpt more, where its first
/// difference is; not the megabytes after.
pub(super) fn compared<'e>(expected: &[u8], execution: &'e Execution) -> &'e [u8] {
    let stdout = &execution.stdout[..];
    if execution.output_limited {
        &stdout[..stdout.len().min(expected.len() + EXCERPT)]
    } else {
        stdout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_the_kebab_case_of_the_names() {
        for verdict in Verdict::ALL {
            let kebab = verdict.to_string().to_lowercase().replace(' ', "-");
            let kebab = kebab.replace("cpu-time-limit", "cpu-limit");
            assert_eq!(verdict.slug(), kebab);
            assert_eq!(
                serde_json::to_value(verdict).unwrap(),
                serde_json::Value::from(verdict.slug())
            );
        }
    }
}
