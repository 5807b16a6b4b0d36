//! Verdicts: a closed set, and the judgement that picks one for a case.
//!
//! A misbehaving target always ends up here as data, never as an error of the harness.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::compare::{compare, Difference};
use crate::discover::Case;
use crate::process::{Execution, Exit, Limit};

fn megabytes(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "unknown".into(),
        |b| format!("{:.0} MiB", b as f64 / (1 << 20) as f64),
    )
}
use crate::suite::Suite;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    /// The output differs in its content.
    WrongOutput,
    /// The output differs only in spaces, line endings or the final newline.
    PresentationError,
    /// Killed by a signal, or a non-zero exit where the suite grades it.
    ExitStatus,
    Timeout,
    OutputLimit,
    MemoryLimit,
    CpuLimit,
    /// Tried to run more processes or threads than allowed (a fork bomb, say).
    ProcessLimit,
    FileSizeLimit,
    OpenFilesLimit,
    /// The target could not be started.
    CouldNotRun,
    /// Not run: `--fail-fast` stopped the run first.
    Skipped,
}

impl Verdict {
    pub fn passed(self) -> bool {
        match self {
            Verdict::Pass => true,
            Verdict::WrongOutput
            | Verdict::PresentationError
            | Verdict::ExitStatus
            | Verdict::Timeout
            | Verdict::OutputLimit
            | Verdict::MemoryLimit
            | Verdict::CpuLimit
            | Verdict::ProcessLimit
            | Verdict::FileSizeLimit
            | Verdict::OpenFilesLimit
            | Verdict::CouldNotRun
            | Verdict::Skipped => false,
        }
    }

    pub const ALL: [Verdict; 13] = [
        Verdict::Pass,
        Verdict::WrongOutput,
        Verdict::PresentationError,
        Verdict::ExitStatus,
        Verdict::Timeout,
        Verdict::OutputLimit,
        Verdict::MemoryLimit,
        Verdict::CpuLimit,
        Verdict::ProcessLimit,
        Verdict::FileSizeLimit,
        Verdict::OpenFilesLimit,
        Verdict::CouldNotRun,
        Verdict::Skipped,
    ];
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "pass",
            Verdict::WrongOutput => "wrong output",
            Verdict::PresentationError => "presentation error",
            Verdict::ExitStatus => "exit status",
            Verdict::Timeout => "timeout",
            Verdict::OutputLimit => "output limit",
            Verdict::MemoryLimit => "memory limit",
            Verdict::CpuLimit => "CPU time limit",
            Verdict::ProcessLimit => "process limit",
            Verdict::FileSizeLimit => "file size limit",
            Verdict::OpenFilesLimit => "open files limit",
            Verdict::CouldNotRun => "could not run",
            Verdict::Skipped => "skipped",
        })
    }
}

/// Everything a report needs about one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case: Case,
    pub verdict: Verdict,
    /// A sentence on the verdict: the exit status, the limit hit, why it could not run.
    pub detail: Option<String>,
    pub difference: Option<Difference>,
    /// Which input line the first difference answers, as a phrase.
    pub location: Option<String>,
    pub execution: Option<Execution>,
    pub expected: Vec<u8>,
    pub elapsed: Duration,
}

/// Judges one run of `case`.
pub fn judge(
    suite: &Suite,
    case: &Case,
    expected: Vec<u8>,
    run: std::io::Result<Execution>,
    timeout: Duration,
) -> CaseResult {
    let mut result = CaseResult {
        case: case.clone(),
        verdict: Verdict::Pass,
        detail: None,
        difference: None,
        location: None,
        execution: None,
        expected,
        elapsed: Duration::ZERO,
    };
    let execution = match run {
        Ok(execution) => execution,
        Err(err) => {
            result.verdict = Verdict::CouldNotRun;
            result.detail = Some(err.to_string());
            return result;
        }
    };
    result.elapsed = execution.elapsed;
    result.difference = compare(suite.file.compare, &result.expected, &execution.stdout);
    let limit = execution.limit.map(|limit| match limit {
        Limit::Memory => (
            Verdict::MemoryLimit,
            format!(
                "used more memory than allowed (peak {})",
                megabytes(execution.peak_memory)
            ),
        ),
        Limit::Cpu => (
            Verdict::CpuLimit,
            format!(
                "used {:.1} s of CPU time: killed",
                execution.cpu_time.as_secs_f64()
            ),
        ),
        Limit::Processes => (
            Verdict::ProcessLimit,
            "tried to start more processes or threads than allowed".into(),
        ),
        Limit::FileSize => (
            Verdict::FileSizeLimit,
            "wrote a file larger than allowed".into(),
        ),
        Limit::OpenFiles => (
            Verdict::OpenFilesLimit,
            "opened more files than allowed".into(),
        ),
    });
    let (verdict, detail) = if let Some((verdict, detail)) = limit {
        (verdict, Some(detail))
    } else if execution.interrupted {
        (Verdict::Skipped, Some("interrupted".into()))
    } else if execution.timed_out {
        (
            Verdict::Timeout,
            Some(format!(
                "still running after {:.1} s: killed",
                timeout.as_secs_f64()
            )),
        )
    } else if execution.output_limited {
        (
            Verdict::OutputLimit,
            Some(format!(
                "wrote more than {} bytes to stdout: killed",
                execution.stdout.len()
            )),
        )
    } else if let Exit::Signal(signal) = execution.exit {
        (
            Verdict::ExitStatus,
            Some(format!(
                "killed by signal {signal} ({})",
                signal_name(signal)
            )),
        )
    } else if let Some(difference) = &result.difference {
        let verdict = if difference.presentation_only {
            Verdict::PresentationError
        } else {
            Verdict::WrongOutput
        };
        let detail = match execution.exit {
            Exit::Code(0) => None,
            Exit::Code(code) => Some(format!("exited with status {code}")),
            Exit::Signal(_) => None,
        };
        (verdict, detail)
    } else {
        match execution.exit {
            Exit::Code(code) if code != 0 && suite.file.grade_exit_status => (
                Verdict::ExitStatus,
                Some(format!("right output, but exited with status {code}")),
            ),
            _ => (Verdict::Pass, None),
        }
    };
    result.verdict = verdict;
    result.detail = detail;
    let stderr = String::from_utf8_lossy(&execution.stderr);
    if !verdict.passed()
        && (stderr.contains("Permission denied") || stderr.contains("Operation not permitted"))
    {
        let note = "the sandbox denied an access (stderr says `Permission denied`): targets may not read the \
                    corpus or write outside their temporary folder";
        result.detail = Some(match result.detail.take() {
            Some(detail) => format!("{detail}; {note}"),
            None => note.to_string(),
        });
    }
    result.execution = Some(execution);
    result
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "segmentation fault",
        libc::SIGABRT => "aborted",
        libc::SIGKILL => "killed",
        libc::SIGTERM => "terminated",
        libc::SIGFPE => "arithmetic error",
        libc::SIGBUS => "bus error",
        libc::SIGILL => "illegal instruction",
        libc::SIGPIPE => "broken pipe",
        libc::SIGXCPU => "CPU time limit",
        libc::SIGXFSZ => "file size limit",
        _ => "signal",
    }
}
