//! What a program did after its output parted from the expected one: whether it parted before
//! it stopped (a wrong line, or a line with other spaces, then more) or stopped short of a right
//! output, and the crash or exit status that followed, named as its runtime names it.

use super::outcome::{Judgement, Verdict};

impl Judgement {
    /// Whether the program printed a wrong line before it stopped (rather than stopping short
    /// of a right output, or in the middle of a right line).
    pub fn diverged_before_the_end(&self) -> bool {
        self.parted_before_the_end() == Some(Verdict::WrongOutput)
    }

    /// What the program's output was before it stopped, where it had parted from the expected
    /// one: a wrong output, or one that differs only in spaces or line endings (a presentation
    /// error); `None` where it stopped short of a right output or in the middle of a right
    /// line. A line that is the start of the expected one is wrong where more output follows
    /// it (a prompt without its space, then the next board).
    pub fn parted_before_the_end(&self) -> Option<Verdict> {
        let d = self.difference.as_ref()?;
        let cut_short = match (&d.expected_line, &d.actual_line) {
            (Some(expected), Some(actual)) => {
                expected.starts_with(actual.as_str()) && !self.printed_past(d.line)
            }
            (_, None) => true,
            (None, Some(_)) => false,
        };
        match (cut_short, d.presentation_only) {
            (true, _) => None,
            (false, true) => Some(Verdict::PresentationError),
            (false, false) => Some(Verdict::WrongOutput),
        }
    }

    /// Whether the program printed anything after its line `line` (from 1). An output cut to
    /// its excerpt ([`Judgement::bound`]) went on long past it.
    fn printed_past(&self, line: usize) -> bool {
        let Some(execution) = &self.execution else {
            return false;
        };
        let stdout = &execution.stdout;
        let ends = stdout.iter().enumerate().filter(|(_, b)| **b == b'\n');
        let end = ends.map(|(k, _)| k).nth(line.saturating_sub(1));
        stdout.len() >= super::outcome::EXCERPT || end.is_some_and(|end| end + 1 < stdout.len())
    }

    /// What the program did after the difference its cause is keyed by, where that was more
    /// than stopping: `then it crashed (ZeroDivisionError: division by zero)` for a signal or
    /// an uncaught exception, `then it exited with status 1` for an exit status it chose.
    pub fn consequence(&self) -> Option<String> {
        if self.verdict != Verdict::RuntimeError || self.parted_before_the_end().is_none() {
            return None;
        }
        let execution = self.execution.as_ref()?;
        let stderr = String::from_utf8_lossy(&execution.stderr);
        let exception = crate::language::crashed(&stderr);
        Some(match (execution.exit, exception) {
            (crate::process::Exit::Signal(signal), _) => {
                format!("then it crashed ({})", crate::process::killed_by(signal))
            }
            (_, true) => format!("then it crashed ({})", exception_of(&stderr)),
            (crate::process::Exit::Code(code), false) => {
                format!("then it exited with status {code}")
            }
        })
    }
}

/// The exception an uncaught-exception report on stderr names, as its runtime words it (the
/// language table says where each runtime names it); else (Python's traceback, whose last line
/// it is) the last line.
fn exception_of(stderr: &str) -> String {
    match crate::language::exception(stderr) {
        Some(line) => super::diff::line(&line),
        None => stderr
            .lines()
            .map(str::trim)
            .rev()
            .find(|line| !line.is_empty())
            .map_or_else(|| "no output at all".into(), super::diff::line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::cause::tests::judged;
    use crate::process::Exit;

    #[test]
    fn a_crash_after_a_wrong_line_is_the_wrong_line_s_consequence() {
        let wrong = judged("|X|\n|Z|\n", "|Y|\n|Z|\n", Exit::Code(0), "", "R");
        let then_crashed = judged(
            "|X|\n|Z|\n",
            "|Y|\n",
            Exit::Code(1),
            "EOFError: EOF when reading a line\n",
            "R",
        );
        assert_eq!(then_crashed.verdict, Verdict::RuntimeError);
        assert_eq!(wrong.cause_id(), then_crashed.cause_id());
        // One text per cause; what this case did after is its own.
        assert_eq!(wrong.cause_text(), then_crashed.cause_text());
        assert_eq!(
            then_crashed.consequence().as_deref(),
            Some("then it exited with status 1")
        );
        let traceback = judged(
            "|X|\n|Z|\n",
            "|Y|\n",
            Exit::Code(1),
            "Traceback (most recent call last):\n  File \"go.py\"\nEOFError: EOF when reading a line\n",
            "R",
        );
        assert_eq!(
            traceback.consequence().as_deref(),
            Some("then it crashed (EOFError: EOF when reading a line)")
        );
        assert_eq!(wrong.consequence(), None);
        // Java names its exception on the first line of its report, not the last.
        let java = judged(
            "|X|\n|Z|\n",
            "|Y|\n",
            Exit::Code(1),
            "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 5\n\tat Go.liberties(Go.java:41)\n\tat Go.main(Go.java:12)\n",
            "R",
        );
        assert_eq!(
            java.consequence().as_deref(),
            Some("then it crashed (java.lang.ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 5)")
        );
        for (stderr, named) in [
            ("Unhandled Exception:\nSystem.IndexOutOfRangeException: Index was outside the bounds of the array.\n  at Go.Main ()\n", "System.IndexOutOfRangeException: Index was outside the bounds of the array."),
            ("Unhandled exception. System.FormatException: bad\n   at Go.Main()\n", "System.FormatException: bad"),
            ("thread 'main' panicked at src/main.rs:3:5:\nindex out of bounds: the len is 3 but the index is 5\nnote: run with `RUST_BACKTRACE=1`\n", "index out of bounds: the len is 3 but the index is 5"),
        ] {
            assert_eq!(super::exception_of(stderr), named);
        }
        // A crash that cut a right output short is the crash itself.
        let cut_short = judged(
            "|X|\n|Z|\n",
            "|X|\n|Z",
            Exit::Code(1),
            "ZeroDivisionError: division by zero\n",
            "R",
        );
        assert_ne!(wrong.cause_id(), cut_short.cause_id());
        assert_eq!(
            cut_short.cause_text(),
            "runtime error: ZeroDivisionError: division by zero"
        );
    }

    #[test]
    fn a_crash_after_a_prompt_unlike_the_handout_s_is_that_prompt_s_consequence() {
        // Connect Four: a prompt without its colon or its space, the next board, then a crash
        // at the end of the input. The prompt is the cause; the crash what followed.
        let expected = "X's turn\nEnter a column: \n01234567\n........\n";
        let traceback = "Traceback (most recent call last):\nEOFError: EOF when reading a line\n";
        let crash = |stdout: &str| judged(expected, stdout, Exit::Code(1), traceback, "3");
        let worded = crash("X's turn\nEnter a column\n01234567\n........\n");
        let spaced = crash("X's turn\nEnter a column:\n01234567\n........\n");
        assert_eq!(worded.verdict, Verdict::RuntimeError);
        assert_eq!(worded.cause_key().0, Verdict::WrongOutput);
        assert_eq!(spaced.cause_key().0, Verdict::PresentationError);
        for judgement in [&worded, &spaced] {
            assert_eq!(
                judgement.consequence().as_deref(),
                Some("then it crashed (EOFError: EOF when reading a line)")
            );
        }
        // Stopping there, the prompt is only cut short: the crash is the cause.
        let stopped = crash("X's turn\nEnter a column");
        assert_eq!(stopped.cause_key().0, Verdict::RuntimeError);
        assert_eq!(stopped.consequence(), None);
    }
}
