//! Verdicts: a closed set, and the judgement that picks one for a case.
//!
//! A misbehaving target always ends up here as data, never as an error of the harness.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::compare::{compare, Difference};
use crate::corpus::Case;
use crate::corpus::Rules;
use crate::process::{killed_by, Execution, Exit, Limit};

fn megabytes(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "unknown".into(),
        |b| format!("{:.0} MiB", b as f64 / (1 << 20) as f64),
    )
}

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
    pub unexplained: Option<super::grid::Unexplained>,
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

/// Judges one run of a target whose right output is `expected`, under a suite's `rules`;
/// `timeout` is the deadline it ran under, for the wording.
pub fn judge(
    rules: Rules,
    expected: Vec<u8>,
    execution: Execution,
    timeout: Duration,
) -> Judgement {
    let difference = compare(rules.compare, &expected, compared(&expected, &execution));
    decide(rules, expected, execution, timeout, difference)
}

/// The output to compare with `expected`: all of it, or, past the output limit (a verdict
/// already decided), its start, the expected length and an excerpt more, where its first
/// difference is; not the megabytes after.
fn compared<'e>(expected: &[u8], execution: &'e Execution) -> &'e [u8] {
    let stdout = &execution.stdout[..];
    if execution.output_limited {
        &stdout[..stdout.len().min(expected.len() + EXCERPT)]
    } else {
        stdout
    }
}

/// The judgement of a hidden case, whose expected output is known by its `hashes` only. It
/// keeps nothing derived from the input or the output: no difference, no output, no stderr.
pub fn judge_hidden(
    rules: Rules,
    hashes: &super::hidden::Hashes,
    execution: Execution,
    timeout: Duration,
) -> Judgement {
    let difference = hashes.difference(rules.compare, &execution.stdout);
    let mut judgement = decide(rules, Vec::new(), execution, timeout, difference);
    judgement.redact();
    judgement
}

/// The verdict for an execution whose output differs from the expected one by `difference`.
pub(super) fn decide(
    rules: Rules,
    expected: Vec<u8>,
    execution: Execution,
    timeout: Duration,
    difference: Option<Difference>,
) -> Judgement {
    // The CPU rlimit is a backstop for the time limit: reached at (or past) the time limit, it
    // is the time limit, told as one, so a looping program gets one verdict however the race
    // between the two went.
    let cpu_at_timeout = execution.limit == Some(Limit::Cpu) && execution.cpu_time >= timeout;
    let limit = execution
        .limit
        .filter(|_| !cpu_at_timeout)
        .map(|limit| limit_verdict(limit, &execution));
    let timed_out = execution.timed_out || cpu_at_timeout;
    let (verdict, detail) = if let Some((verdict, detail)) = limit {
        (verdict, Some(detail))
    } else if execution.interrupted {
        (Verdict::Skipped, Some("interrupted".into()))
    } else if timed_out || execution.wall_stopped {
        (Verdict::Timeout, Some(timeout_detail(&execution, timeout)))
    } else if execution.output_limited {
        (
            Verdict::OutputLimit,
            Some(format!(
                "wrote more than {} bytes to stdout: killed",
                execution.stdout.len()
            )),
        )
    } else if let (Some(_), Exit::Signal(signal)) = (&difference, execution.exit) {
        (Verdict::RuntimeError, Some(killed_by(signal)))
    } else if let (Some(_), Exit::Code(code @ 1..)) = (&difference, execution.exit) {
        (
            Verdict::RuntimeError,
            Some(format!("exited with status {code}")),
        )
    } else if let Exit::Signal(signal) = execution.exit {
        (Verdict::ExitStatus, Some(killed_by(signal)))
    } else if let Some(difference) = &difference {
        let verdict = if difference.presentation_only {
            Verdict::PresentationError
        } else {
            Verdict::WrongOutput
        };
        (verdict, None)
    } else {
        match execution.exit {
            Exit::Code(code) if code != 0 && rules.grade_exit_status => (
                Verdict::ExitStatus,
                Some(format!("right output, but exited with status {code}")),
            ),
            _ => (Verdict::Pass, None),
        }
    };
    let detail = with_notes(detail, verdict, &execution);
    let printed = matches!(
        verdict,
        Verdict::WrongOutput | Verdict::PresentationError | Verdict::RuntimeError
    )
    .then(|| output_digest(&execution.stdout));
    Judgement {
        verdict,
        detail,
        difference,
        location: None,
        answers: None,
        rule: None,
        tied: Vec::new(),
        span: None,
        elapsed: execution.elapsed,
        execution: Some(execution),
        expected,
        diff: None,
        printed,
        unexplained: None,
    }
}

/// The first 128 bits of the SHA-256 of `stdout`, in hex.
fn output_digest(stdout: &[u8]) -> String {
    use sha2::Digest;
    crate::files::to_hex(&sha2::Sha256::digest(stdout)[..16])
}

/// What a timeout says: which limit stopped the program, and what it used of the other.
fn timeout_detail(execution: &Execution, timeout: Duration) -> String {
    let cpu = execution.cpu_time.as_secs_f64();
    if let Some(idle) = execution.idle_stopped {
        format!(
            "no CPU and no output for {:.1} s, its input all written (after {:.1} s, having \
             used {cpu:.2} s of CPU time): it waits for something that never comes; stopped as \
             hung",
            idle.as_secs_f64(),
            execution.elapsed.as_secs_f64()
        )
    } else if execution.wall_stopped {
        format!(
            "still running after {:.1} s of wall time, having used {cpu:.2} s of its {:.1} s of \
             CPU time: it sleeps or waits for something that never comes; killed",
            execution.elapsed.as_secs_f64(),
            timeout.as_secs_f64()
        )
    } else if execution.cpu_time >= timeout.mul_f64(0.9) {
        format!(
            "the time limit is {:.1} s of CPU time; it used {cpu:.1} s (in {:.1} s of wall time): killed",
            timeout.as_secs_f64(),
            execution.elapsed.as_secs_f64()
        )
    } else {
        format!("still running after {:.1} s: killed", timeout.as_secs_f64())
    }
}

/// The verdict and detail of a run that ran into `limit`.
fn limit_verdict(limit: Limit, execution: &Execution) -> (Verdict, String) {
    match limit {
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
                "the CPU limit (--cpu, or the suite's [limits] cpu) is below the time limit; it \
                 used {:.1} s: killed",
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
    }
}

/// `detail` with the notes a failure may need: the flush hint for a program that printed
/// nothing, and the sandbox's part in an access it was denied.
fn with_notes(
    mut detail: Option<String>,
    verdict: Verdict,
    execution: &Execution,
) -> Option<String> {
    // Only a program the harness killed can have lost output in a buffer.
    if execution.stdout.is_empty() && (execution.timed_out || execution.wall_stopped) {
        let hint = "it printed nothing before it ended: output still in a buffer is lost when a \
                    program is killed (flush after each answer: print(..., flush=True), \
                    System.out.flush(), fflush(stdout))";
        detail = Some(match detail.take() {
            Some(detail) => format!("{detail}; {hint}"),
            None => hint.to_string(),
        });
    }
    let stderr = String::from_utf8_lossy(&execution.stderr);
    let blocked = [
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "No such file or directory",
    ]
    .into_iter()
    .find(|sign| stderr.contains(sign))
    // A file that does not exist is no access the sandbox denied: only one that exists out
    // here (hidden from the target) is.
    .filter(|sign| *sign != "No such file or directory" || names_a_hidden_file(&stderr));
    if let (false, true, Some(sign)) = (verdict.passed(), execution.confined, blocked) {
        let note = format!(
            "the sandbox denied an access (stderr says `{sign}`): targets see only their own folder \
             (read-only) and the system, and write only in their temporary folder"
        );
        detail = Some(match detail.take() {
            Some(detail) => format!("{detail}; {note}"),
            None => note,
        });
    }
    detail
}

/// Whether the sandbox may be why a target was told "No such file or directory": `stderr`
/// names (as an absolute path) a file that exists outside the sandbox, hidden from it, or names
/// no path at all (then it cannot be told). A file named that exists nowhere is the program's
/// own mistake.
fn names_a_hidden_file(stderr: &str) -> bool {
    let named: Vec<&str> = stderr
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ':' | ',' | '(' | ')'))
        .filter(|word| word.starts_with('/') && word.len() > 1)
        .take(100)
        .collect();
    named.is_empty() || named.iter().any(|word| std::path::Path::new(word).exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program killed by the CPU rlimit at its time limit gets the timeout verdict (one
    /// verdict for one loop, whichever stopped it first), and either message says the limit
    /// and what was used; a CPU limit below the time limit stays a CPU-limit verdict.
    #[test]
    fn the_cpu_rlimit_at_the_time_limit_is_the_time_limit() {
        let rules = Rules {
            compare: crate::corpus::CompareMode::Exact,
            grade_exit_status: false,
        };
        let killed = |cpu: f64| Execution {
            cpu_time: Duration::from_secs_f64(cpu),
            elapsed: Duration::from_secs_f64(cpu * 1.5),
            limit: Some(Limit::Cpu),
            ..Execution::finished(Exit::Signal(libc::SIGXCPU), Vec::new(), Vec::new())
        };
        let timeout = Duration::from_secs(10);
        let at_limit = judge(rules, b"x\n".to_vec(), killed(10.02), timeout);
        assert_eq!(at_limit.verdict, Verdict::Timeout);
        let detail = at_limit.detail.unwrap_or_default();
        assert!(
            detail.starts_with("the time limit is 10.0 s of CPU time; it used 10.0 s (in 15.0 s"),
            "{detail}"
        );
        let below = judge(rules, b"x\n".to_vec(), killed(2.0), timeout);
        assert_eq!(below.verdict, Verdict::CpuLimit);
        let below = below.with_cpu_limit(Some(Duration::from_secs(2)));
        assert_eq!(
            below.detail.as_deref(),
            Some("the CPU limit (--cpu, or the suite's [limits] cpu) is 2.0 s, below the time limit; it used 2.0 s: killed")
        );
    }

    #[test]
    fn a_missing_file_is_not_blamed_on_the_sandbox_and_a_hidden_one_is() {
        let missing = "python3: can't open file '/nonexistent/export/connect.py': [Errno 2] No \
                       such file or directory";
        assert!(!names_a_hidden_file(missing));
        let hidden = "open: /etc/passwd: No such file or directory";
        assert!(names_a_hidden_file(hidden));
        // Nothing named: the sandbox may be why.
        assert!(names_a_hidden_file("fopen: No such file or directory"));
    }

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
