//! A case's verdict, decided in one place: from what its run came to (or could not), against
//! its expected output or, for a hidden case, its hashes; a case stopped at the wall-clock
//! backstop while it waited for a CPU is no verdict on the program.

use std::time::Duration;

use super::hidden::Hashes;
use super::outcome::{judge, judge_hidden, Judgement, Verdict};
use crate::corpus::Rules;
use crate::process::Execution;

/// What a case is judged against: its expected output, or a hidden case's hashes of it.
pub enum Expected<'h> {
    Output(Vec<u8>),
    Hidden(&'h Hashes),
}

/// The judgement of a case's run: `execution` (or why it could not run), judged by `rules`
/// with the `timeout` that applied. `busy`: how long the case was kept from its CPU where it
/// was stopped at the wall-clock backstop waiting for one (and again when rerun); a timeout
/// then is unreliable, not the program's.
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
        (Err(why), Expected::Output(expected)) => Judgement::could_not_run(why, expected),
        (Err(why), Expected::Hidden(_)) => Judgement::could_not_run(why, Vec::new()),
    };
    if let (Verdict::Timeout, Some(waited)) = (judgement.verdict, busy) {
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
