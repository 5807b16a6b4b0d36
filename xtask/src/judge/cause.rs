//! The cause of a failure, as methods of [`Judgement`]: its key (what groups failures into one
//! cause), its stable id, and its words, with and without the case's own input line.

use super::locate::{from_trace_text, without, Command};
use super::outcome::{Judgement, Unexplained, Verdict};
use crate::process::killed_by;

impl Judgement {
    /// Says where this failure's first difference shows and which rule of the spec decided
    /// the expected output there ([`locate`]), from the reference's `trace` of the case's
    /// `input` (made by `process::case_trace`; none where the reference cannot say): what the
    /// cause is keyed on. The misreadings of the variants named in `hold_out` are left out of
    /// it, as if nobody had listed them. `grid` is how the suite's outputs read as a grid (a
    /// built-in spec's): the terms a failure no misreading fits is told in.
    pub fn place_difference(
        &mut self,
        trace: Option<&str>,
        input: &[u8],
        hold_out: &[String],
        grid: Option<&'static dyn crate::corpus::Grid>,
    ) {
        let Some(difference) = &self.difference else {
            return;
        };
        self.grid = grid;
        let stdout = self.execution.as_ref().map_or(&[][..], |e| &e.stdout[..]);
        let offset = difference.telling_offset();
        let found = trace.and_then(|trace| {
            if hold_out.is_empty() {
                from_trace_text(trace, input, offset, stdout)
            } else {
                from_trace_text(&without(trace, hold_out), input, offset, stdout)
            }
        });
        self.answers = found.as_ref().and_then(|l| l.command.clone());
        self.rule = found.as_ref().and_then(|l| l.rule.clone());
        self.tied = found.as_ref().map(|l| l.tied.clone()).unwrap_or_default();
        self.span = found.as_ref().and_then(|l| l.span.clone());
        self.line_command = found.as_ref().and_then(|l| l.named.clone());
        self.location = found.map(|l| l.phrase);
    }

    /// What a failure is, in words: the verdict, the kind of difference, and an example of the
    /// kind of input line where it shows (this case's).
    pub fn cause(&self) -> String {
        match (&self.difference, self.verdict) {
            (Some(difference), Verdict::PresentationError) => {
                format!("{}: {}", self.verdict, difference.cause)
            }
            (Some(difference), Verdict::WrongOutput) => {
                let answers = match (self.answers.as_deref(), self.command()) {
                    (None, _) => String::new(),
                    // Where no misreading fits: the spec's command it first shows after.
                    (Some(_), Some(command)) if self.rule.as_ref().is_some_and(|r| !r.misread) => {
                        format!(", first after {}", command.words)
                    }
                    (Some(""), _) => " (in the output after an empty line)".into(),
                    (Some(line), _) => format!(
                        " (in the output after a line like `{}`)",
                        super::diff::line(line)
                    ),
                };
                let what = match &self.rule {
                    Some(rule) if !rule.misread => self
                        .in_the_grid()
                        .or_else(|| Some(self.unexplained_kind()?.difference)),
                    _ => None,
                };
                format!(
                    "{}: {}{answers}{}",
                    self.verdict,
                    what.as_deref().unwrap_or(&difference.cause),
                    self.section()
                )
            }
            (_, Verdict::RuntimeError) => match self.signal() {
                Some(signal) => format!("runtime error: {}", killed_by(signal)),
                None => format!("runtime error: {}", self.last_stderr_line()),
            },
            (_, Verdict::ExitStatus) => match self.signal() {
                Some(signal) => format!("exit status: {}", killed_by(signal)),
                None => "exit status: right output, non-zero exit status".into(),
            },
            (_, Verdict::CouldNotBuild) => format!(
                "could not build: {}",
                super::headline::build_headline(self.detail.as_deref().unwrap_or_default())
            ),
            (_, verdict) => verdict.to_string(),
        }
    }

    /// The spec's command the first difference shows after (where the spec has commands, the
    /// difference answers an input line and the reference named the rule there).
    pub(super) fn command(&self) -> Option<&Command> {
        self.rule.as_ref()?;
        self.answers.as_ref()?;
        self.line_command.as_ref()
    }

    /// A difference inside one cell of the suite's grid, in the grid's terms (which cell,
    /// which form), where it shows after a command of the spec.
    pub(super) fn in_the_grid(&self) -> Option<String> {
        let difference = self.difference.as_ref()?;
        self.command()?;
        self.grid?.cell(
            &String::from_utf8_lossy(&self.expected),
            difference.line,
            difference.expected_line.as_deref()?,
            difference.actual_line.as_deref()?,
        )
    }

    /// Where no misreading explains the failure: the section of the handout whose rules
    /// decide the expected output at the difference, as words to end its cause with.
    fn section(&self) -> String {
        match &self.rule {
            Some(rule) if !rule.misread => format!(
                ", where the handout's rules on {} decide the output",
                super::unexplained::section_of(rule)
            ),
            _ => String::new(),
        }
    }

    /// The key failures are grouped by. One bug makes one kind of difference, shown after one
    /// kind of input line, whatever the expected text is: the verdict, the kind of difference
    /// (or the crash's message), and the shape of that input line ([`command_kind`]). The first
    /// divergence is the cause: a program that printed a wrong line and then crashed (at the
    /// end of its input, say) is keyed by the wrong line, the crash being its consequence.
    ///
    /// Where a misreading consistent with the whole run explains the difference (see
    /// [`super::refute`]), it is the cause. Where the reference names only the rule whose span
    /// holds the difference, no rule keys the failure: the span says which rule decided the
    /// expected byte, not which rule the program breaks (a jewel marked that should stay plain
    /// sits in the span of the rule that put it there), so a bug nobody listed would be spread
    /// over every rule and section it happens to show under. The failure is keyed by the kind
    /// of difference alone, coarsened to what one bug keeps making
    /// ([`Judgement::kind_under_rule`]); each case says the section it shows in
    /// ([`super::family`]).
    pub fn cause_key(&self) -> (Verdict, String, String) {
        match (self.divergence(), &self.rule) {
            (Some((verdict, _)), Some(rule)) if rule.misread => {
                (verdict, "misread".into(), format!("rule {}", rule.slug))
            }
            (Some((verdict, _)), Some(_)) => match &self.unexplained {
                Some(group) => (verdict, group.key.clone(), "unexplained".into()),
                None => (verdict, self.kind_under_rule(), "unexplained".into()),
            },
            (Some((verdict, difference)), None) => (
                verdict,
                difference.to_string(),
                self.answers
                    .as_deref()
                    .map(command_kind)
                    .unwrap_or_default(),
            ),
            (None, _) => (self.verdict, self.cause_text(), String::new()),
        }
    }

    /// The kind of difference a cause keyed by a rule keeps: a difference of presentation
    /// (spaces, line endings, the final newline) or of length (output cut short, extra output
    /// after the end) as it is; any other as one kind, since where one bug shows, what it prints
    /// instead (a letter, a number, a bracket, a line too many) depends on the case.
    fn kind_under_rule(&self) -> String {
        let Some(difference) = &self.difference else {
            return String::new();
        };

        if difference.presentation_only
            || difference.actual_line.is_none()
            || difference.expected_line.is_none()
        {
            difference.cause.clone()
        } else {
            "the output differs".into()
        }
    }

    /// When the cause is where the output parted from the expected one: the verdict it is
    /// keyed by (a crash after a wrong line is keyed as that wrong line) and the kind of
    /// difference.
    pub(super) fn divergence(&self) -> Option<(Verdict, &str)> {
        let difference = self.difference.as_ref()?;
        match self.verdict {
            Verdict::WrongOutput | Verdict::PresentationError => {
                Some((self.verdict, &difference.cause))
            }
            Verdict::RuntimeError => Some((self.parted_before_the_end()?, &difference.cause)),
            _ => None,
        }
    }

    /// The stable short name of [`Judgement::cause_key`]: six hex digits of its FNV-1a hash,
    /// the same in every run and every report.
    pub fn cause_id(&self) -> String {
        id_of(&self.cause_key())
    }

    /// The cause in words that hold no case's input or output: what reports show as the cause
    /// of every case it groups (the example case shows the literal lines).
    pub fn cause_text(&self) -> String {
        let Some((verdict, difference)) = self.divergence() else {
            return self.cause();
        };
        // One text per cause: what a case did after the difference is its `consequence`.
        match &self.rule {
            Some(rule) if rule.misread => return format!("{verdict}: {}", rule.words),
            Some(_) => {
                return match &self.unexplained {
                    Some(group) => unexplained_cause(verdict, group).1,
                    None => format!(
                        "{verdict}: {}, where no misreading of the handout that check knows of \
                         fits every case",
                        self.kind_under_rule(),
                    ),
                }
            }
            None => {}
        }
        let after = match self.answers.as_deref().map(command_kind).as_deref() {
            None => "",
            Some("(empty line)") => " (in the output after an empty input line)",
            Some("#") => " (in the output after an input line starting with a number)",
            Some("A") => " (in the output after an input line starting with a word)",
            Some("(space)") => " (in the output after an input line starting with a space)",
            Some(_) => " (in the output after an input line starting with punctuation)",
        };
        format!("{verdict}: {difference}{after}")
    }
}

/// Six hex digits of the FNV-1a hash of a cause's key: its id.
pub(super) fn id_of((verdict, difference, kind): &(Verdict, String, String)) -> String {
    let hash = crate::corpus::fnv1a(format!("{}\0{difference}\0{kind}", verdict.slug()).as_bytes());
    format!("{:06x}", (hash ^ (hash >> 32)) & 0xff_ffff)
}

/// The id and words of the cause of a group of failures no misreading fits, with `verdict`.
pub fn unexplained_cause(verdict: Verdict, group: &Unexplained) -> (String, String) {
    let key = (verdict, group.key.clone(), "unexplained".to_string());
    (id_of(&key), format!("{verdict}: {}", group.words))
}

/// Where several misreadings explain a case's failure equally well: which to name, so that one
/// program's failures are explained by as few misreadings as can be. Each case lists its
/// candidates' names, best first; the one named by most cases of the run wins (the first
/// listed, between equals). Returns the chosen index per case.
pub fn settle_ties(candidates: &[Vec<&str>]) -> Vec<usize> {
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for names in candidates {
        for name in names {
            *counts.entry(name).or_default() += 1;
        }
    }
    candidates
        .iter()
        .map(|names| {
            let mut chosen = 0;
            for (k, name) in names.iter().enumerate() {
                if counts[name] > counts[names[chosen]] {
                    chosen = k;
                }
            }
            chosen
        })
        .collect()
}

impl Judgement {
    /// Names the misreading [`settle_ties`] chose among this failure's equally good ones.
    fn choose_rule(&mut self, chosen: usize) {
        if chosen > 0 && chosen <= self.tied.len() {
            if let Some(rule) = self.rule.take() {
                let pick = self.tied.remove(chosen - 1);
                self.tied.insert(chosen - 1, rule);
                self.rule = Some(pick);
            }
        }
    }

    /// The names of the rules that explain this failure equally well, the named one first.
    fn candidates(&self) -> Vec<&str> {
        self.rule
            .iter()
            .chain(&self.tied)
            .map(|rule| rule.slug.as_str())
            .collect()
    }
}

/// Settles the ties of every failure of one program's run ([`settle_ties`]).
pub fn settle_run_ties<'a>(judgements: impl Iterator<Item = &'a mut Judgement>) {
    let mut judgements: Vec<&mut Judgement> = judgements.collect();
    let chosen = settle_ties(
        &judgements
            .iter()
            .map(|judgement| judgement.candidates())
            .collect::<Vec<_>>(),
    );
    for (judgement, chosen) in judgements.iter_mut().zip(chosen) {
        judgement.choose_rule(chosen);
    }
    super::unexplained::settle_unexplained(&mut judgements);
}

/// The kind of an input line, for grouping: how it starts. An empty line, a number (a move, a
/// size), a word (a command such as `F 2 X Y Z` or `R`, a row of jewels), a space (a row with
/// holes), or punctuation (`<`, `>`, `-1`).
pub(super) fn command_kind(line: &str) -> String {
    match line.chars().next() {
        None => "(empty line)".into(),
        Some(c) if c.is_ascii_digit() => "#".into(),
        Some(c) if c.is_alphabetic() => "A".into(),
        Some(' ') => "(space)".into(),
        Some(_) => "(punctuation)".into(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::time::Duration;

    use super::*;
    use crate::process::{Execution, Exit};

    #[test]
    fn input_lines_group_by_kind() {
        assert_eq!(command_kind("F 2 X Y Z"), command_kind("F 10 S T V"));
        assert_eq!(command_kind("XXX"), command_kind("S  V  STS"));
        assert_eq!(command_kind(" X  "), command_kind("  Z  X"));
        assert_eq!(command_kind("<"), command_kind(">"));
        assert_ne!(command_kind("<"), command_kind("R"));
        assert_eq!(command_kind("3"), command_kind("10"));
        assert_eq!(command_kind(""), "(empty line)");
    }

    use crate::corpus::{CompareMode, Rules};

    /// The judgement of a program that printed `stdout` and ended with `exit` (and `stderr`),
    /// where `expected` was right and the difference answers the input line `answers`.
    pub(in crate::judge) fn judged(
        expected: &str,
        stdout: &str,
        exit: Exit,
        stderr: &str,
        answers: &str,
    ) -> Judgement {
        let execution =
            Execution::finished(exit, stdout.as_bytes().to_vec(), stderr.as_bytes().to_vec());
        let rules = Rules {
            compare: CompareMode::Exact,
            grade_exit_status: false,
        };
        let mut judgement = crate::judge::judge(
            rules,
            expected.as_bytes().to_vec(),
            execution,
            Duration::from_secs(1),
        );
        judgement.answers = Some(answers.to_string());
        judgement
    }

    #[test]
    fn one_kind_of_difference_after_one_kind_of_line_is_one_cause_whatever_the_text() {
        let a = judged("|X|\n", "|Y|\n", Exit::Code(0), "", "F 2 X Y Z");
        let b = judged("|S|\n|T|\n", "|S|\n|V|\n", Exit::Code(0), "", "F 10 S T V");
        assert_eq!(a.cause_id(), b.cause_id());
        assert_eq!(a.cause_text(), b.cause_text());
        // The words hold no case's input; the per-case cause does.
        assert!(!a.cause_text().contains("F 2 X Y Z"), "{}", a.cause_text());
        assert!(a.cause().contains("F 2 X Y Z"));
        // Another kind of input line, or another kind of difference: another cause.
        let c = judged("|X|\n", "|Y|\n", Exit::Code(0), "", "<");
        let d = judged("|X|\n", "|X|\n|extra|\n", Exit::Code(0), "", "F 2 X Y Z");
        assert_ne!(a.cause_id(), c.cause_id());
        assert_ne!(a.cause_id(), d.cause_id());
        assert_eq!(a.cause_id().len(), 6);
    }

    #[test]
    fn ties_go_to_the_misreading_most_failures_share() {
        // Case 1 is explained by a or b, case 2 by b alone, case 3 by b or c: b, everywhere.
        let chosen = settle_ties(&[vec!["a", "b"], vec!["b"], vec!["b", "c"]]);
        assert_eq!(chosen, [1, 0, 0]);
        // Case 3 by c or a: a is as common as b, so case 1 keeps a and case 3 takes a.
        let chosen = settle_ties(&[vec!["a", "b"], vec!["b"], vec!["c", "a"]]);
        assert_eq!(chosen, [0, 0, 1]);
        // Between equals, the first listed.
        assert_eq!(settle_ties(&[vec!["a", "b"], vec!["b", "a"]]), [0, 0]);
        assert_eq!(settle_ties(&[vec![], vec!["a"]]), [0, 0]);
    }
}
