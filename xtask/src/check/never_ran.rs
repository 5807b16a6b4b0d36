//! A program that never ran is the user's error, said once: not a verdict on every case.

use crate::error::Error;
use crate::judge::{CaseResult, Verdict};
use crate::target::Program;

/// A program that failed every graded case the same way, printing nothing and the same
/// stderr each time (`can't open file`, a missing class, a syntax error), never ran: that is
/// said once, as an error, not as a verdict per case.
pub(super) fn never_ran(program: &Program, results: &[CaseResult]) -> Result<(), Error> {
    let graded: Vec<&CaseResult> = results.iter().filter(|r| r.case.graded).collect();
    // One case failing is no evidence that the program never ran.
    let (Some(first), true) = (graded.first(), graded.len() >= 2) else {
        return Ok(());
    };
    let stderr_of = |r: &CaseResult| r.judgement.execution.as_ref().map(|e| e.stderr.clone());
    let same_failure = graded.iter().all(|r| {
        let silent = r
            .judgement
            .execution
            .as_ref()
            .is_some_and(|e| e.stdout.is_empty());
        // A program killed by a signal did start: a crash is a runtime error, named.
        let by_signal = r
            .judgement
            .execution
            .as_ref()
            .is_some_and(|e| matches!(e.exit, crate::process::Exit::Signal(_)));
        let crashed_or_wrong = matches!(
            r.judgement.verdict,
            Verdict::WrongOutput | Verdict::RuntimeError | Verdict::ExitStatus
        ) && !by_signal;
        silent && crashed_or_wrong && stderr_of(r) == stderr_of(first)
    });
    if !same_failure || *program == Program::Reference {
        return Ok(());
    }
    Err(Error::CouldNotRun {
        command: program.display(),
        message: format!(
            "every case failed with no output: {}",
            first.judgement.last_stderr_line()
        ),
    })
}
