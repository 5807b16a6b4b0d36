//! Judging one run: the verdict an execution earns under a suite's rules, with the sentence
//! that tells it (the limit hit, the time used, the sandbox's part in a denied access).

use std::time::Duration;

use super::compare::{compare, Difference};
use super::outcome::{compared, Judgement, Verdict};
use crate::corpus::Rules;
use crate::process::{killed_by, Execution, Exit, Limit};

fn megabytes(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "unknown".into(),
        |b| format!("{:.0} MiB", b as f64 / (1 << 20) as f64),
    )
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
        line_command: None,
        grid: None,
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
        let below = below.with_limits(Some(Duration::from_secs(2)), timeout);
        assert_eq!(
            below.detail.as_deref(),
            Some("the CPU limit (--cpu, or the suite's [limits] cpu) is 2.0 s, below the time limit of 10.0 s; it used 2.0 s: killed")
        );
        // At the suite's defaults the CPU limit is the time limit: a loop the CPU rlimit
        // stopped with 9.4 s measured is a timeout at the limit, never "below" it.
        let equal =
            judge(rules, b"x\n".to_vec(), killed(9.4), timeout).with_limits(Some(timeout), timeout);
        assert_eq!(equal.verdict, Verdict::Timeout);
        assert_eq!(
            equal.detail.as_deref(),
            Some("the time limit is 10.0 s of CPU time; it used 9.4 s (in 14.1 s of wall time): killed")
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
}
