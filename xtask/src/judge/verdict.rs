//! A case's verdict, decided in one place: from what its run came to (or could not), against
//! its expected output or, for a hidden case, its hashes; a case stopped at the wall-clock
//! backstop while it waited for a CPU is no verdict on the program.

use std::time::Duration;

use super::decide::{judge, judge_hidden};
use super::hidden::Hashes;
use super::outcome::{Judgement, Verdict};
use crate::corpus::Rules;
use crate::process::Execution;

/// What a case is judged against: its expected output, or a hidden case's hashes of it.
pub enum Expected<'h> {
    Output(Vec<u8>),
    Hidden(&'h Hashes),
    /// The expected output and the difference from it that a package's own output validator
    /// found (`None`: it accepted the output).
    Validated(Vec<u8>, Option<super::compare::Difference>),
}

impl Judgement {
    /// States a CPU-limit verdict by the limits that applied: the CPU limit `cpu` (the judgement
    /// knows only that one was reached) beside the time limit `timeout`. A CPU limit at or above
    /// the time limit is the time limit, told as a timeout, whatever CPU time was measured (the
    /// kernel's count and the cgroup's can differ by a tick or more), in the words a timeout
    /// has: never "below the time limit" where the two are equal.
    pub fn with_limits(mut self, cpu: Option<Duration>, timeout: Duration) -> Judgement {
        let (Verdict::CpuLimit, Some(cpu)) = (self.verdict, cpu) else {
            return self;
        };
        let used = self
            .execution
            .as_ref()
            .map_or(Duration::ZERO, |execution| execution.cpu_time);
        if cpu >= timeout {
            self.verdict = Verdict::Timeout;
            let wall = self.elapsed.as_secs_f64();
            // The notes after the limit's words (the flush hint, say) stay.
            let notes = self
                .detail
                .as_deref()
                .and_then(|detail| detail.split_once(": killed"))
                .map_or("", |(_, notes)| notes)
                .to_string();
            self.detail = Some(format!(
                "the time limit is {:.1} s of CPU time; it used {:.1} s (in {wall:.1} s of wall \
                 time): killed{notes}",
                timeout.as_secs_f64(),
                used.as_secs_f64()
            ));
        } else if let Some(detail) = &self.detail {
            self.detail = Some(detail.replacen(
                "is below the time limit",
                &format!(
                    "is {:.1} s, below the time limit of {:.1} s",
                    cpu.as_secs_f64(),
                    timeout.as_secs_f64()
                ),
                1,
            ));
        }
        self
    }
}

/// The judgement of a case's run: `execution` (or why it could not run), judged by `rules`
/// with the `timeout` that applied. `busy`: how long the case was kept from its CPU where it
/// was stopped at the wall-clock backstop waiting for one (and again when rerun); a timeout
/// then is unreliable, not the program's, unless it had printed a wrong line already (a wrong
/// output) or its own CPU time reached the limit (a timeout).
pub fn judge_case(
    rules: Rules,
    expected: Expected,
    execution: Result<Execution, String>,
    timeout: Duration,
    busy: Option<Duration>,
) -> Judgement {
    let mut judgement = match (execution, expected) {
        (Ok(execution), Expected::Hidden(hashes)) => {
            judge_hidden(rules, hashes, execution, timeout)
        }
        (Ok(execution), Expected::Output(expected)) => judge(rules, expected, execution, timeout),
        (Ok(execution), Expected::Validated(expected, difference)) => {
            super::decide::decide(rules, expected, execution, timeout, difference)
        }
        (Err(why), Expected::Output(expected) | Expected::Validated(expected, _)) => {
            Judgement::could_not_run(why, expected)
        }
        (Err(why), Expected::Hidden(_)) => Judgement::could_not_run(why, Vec::new()),
    };
    // Its own CPU time reached the limit: a timeout, whatever the load.
    let cpu_limit = judgement.execution.as_ref().is_some_and(|e| e.timed_out);
    if let (Verdict::Timeout, Some(waited), false) = (judgement.verdict, busy, cpu_limit) {
        if let Some(parted) = judgement.parted_before_the_end() {
            // A wrong line printed before it was stopped is a failure whatever the load: the
            // wrong output, then what it did next.
            judgement.verdict = parted;
            judgement.detail = Some(format!(
                "it printed a wrong line, then was stopped at the wall-clock backstop after \
                 being kept from its CPU for {:.1} s (its time says nothing; its output does)",
                waited.as_secs_f64()
            ));
            return judgement;
        }
        judgement.verdict = Verdict::Unreliable;
        judgement.detail = Some(format!(
            "stopped at the wall-clock backstop after being kept from its CPU for {:.1} s (and \
             again when run alone, or this submission had no rerun left): the machine was too \
             busy to measure it, so there is no verdict on the program; grade it again on a \
             quieter machine",
            waited.as_secs_f64()
        ));
    }
    judgement
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::CompareMode;
    use crate::process::Exit;

    /// A case stopped at the backstop on a busy machine: no verdict where what it printed so
    /// far is right; a wrong output where it had printed a wrong line; a timeout where its own
    /// CPU time reached the limit.
    #[test]
    fn a_busy_machine_hides_no_failure_the_output_shows() {
        let rules = Rules {
            compare: CompareMode::Exact,
            grade_exit_status: false,
        };
        let stopped = |stdout: &[u8], cpu_limit: bool| {
            let mut execution = Execution::finished(Exit::Signal(9), stdout.to_vec(), Vec::new());
            execution.wall_stopped = !cpu_limit;
            execution.timed_out = cpu_limit;
            judge_case(
                rules,
                Expected::Output(b"1\n2\n3\n".to_vec()),
                Ok(execution),
                Duration::from_secs(1),
                Some(Duration::from_secs(5)),
            )
        };
        assert_eq!(stopped(b"1\n2\n", false).verdict, Verdict::Unreliable);
        let wrong = stopped(b"1\n7\n", false);
        assert_eq!(wrong.verdict, Verdict::WrongOutput);
        assert!(wrong.detail.as_deref().unwrap().contains("wrong line"));
        assert_eq!(stopped(b"1\n", true).verdict, Verdict::Timeout);
    }

    /// A hidden case tells its verdict and nothing a program could make carry its input: no
    /// exit status or signal, no CPU or wall time, no detail.
    #[test]
    fn a_hidden_case_tells_its_verdict_and_nothing_else() {
        let rules = Rules {
            compare: CompareMode::Exact,
            grade_exit_status: false,
        };
        let hashes = Hashes::of(CompareMode::Exact, b"salt", b"4 4\n");
        for (exit, verdict) in [
            (Exit::Code(52), Verdict::RuntimeError),
            (Exit::Signal(11), Verdict::RuntimeError),
            (Exit::Code(0), Verdict::WrongOutput),
        ] {
            let mut execution = Execution::finished(exit, b"leak 52\n".to_vec(), b"52".to_vec());
            execution.cpu_time = Duration::from_millis(52);
            execution.elapsed = Duration::from_millis(520);
            let judged = judge_case(
                rules,
                Expected::Hidden(&hashes),
                Ok(execution),
                Duration::from_secs(1),
                None,
            );
            assert_eq!(judged.verdict, verdict);
            assert!(judged.execution.is_none() && judged.detail.is_none());
            assert_eq!(judged.elapsed, Duration::ZERO);
            let told = format!("{} {:?}", judged.cause_text(), judged.consequence());
            assert!(!told.contains("52") && !told.contains("11"), "{told}");
        }
        // The same run of a visible case keeps what it came to.
        let execution = Execution::finished(Exit::Code(52), b"leak\n".to_vec(), Vec::new());
        let visible = judge_case(
            rules,
            Expected::Output(b"4 4\n".to_vec()),
            Ok(execution),
            Duration::from_secs(1),
            None,
        );
        assert!(visible.execution.is_some());
    }
}
