//! The causes of failures no misreading of the handout fits, grouped over a whole run by what
//! holds without one: the spec's command each first shows after (as the reference's trace
//! names it) and the kind of difference in the terms of the suite's grid ([`Grid`]).
//!
//! Two failures are one cause when they show after the same command, or make the same kind of
//! difference (a kind that says something of the grid: not output that merely stops short or
//! runs on). A bug keeps making one kind of difference after several commands (a jewel left
//! landed where it should freeze shows after a tick, a move and a creation), or several kinds
//! after one command; two bugs that share neither come apart. A cause is named by all it
//! holds: its commands, its kinds and the rules whose output it changed, so two bugs whose
//! failures show alike in one respect are still two causes, and a cause has the same name in
//! every run that fails alike (a class's programs with one bug share it).

use std::collections::{BTreeMap, BTreeSet};

use super::compare::Difference;
use super::locate::RuleAt;
use super::outcome::{Judgement, Unexplained, Verdict};
use crate::corpus::Grid;

/// The kinds that say nothing of the grid: output past the end, or missing at the end.
pub(super) const STOPS_LATE: &str = "more output than expected";
pub(super) const STOPS_SHORT: &str = "the output stops short";

/// The kind of `difference` between the whole `expected` output and the program's `actual`
/// one, in the terms of `grid` where the lines that differ say something of it.
pub fn kind_in(grid: &dyn Grid, difference: &Difference, expected: &str, actual: &str) -> String {
    if difference.presentation_only {
        return difference.cause.clone();
    }
    match (&difference.expected_line, &difference.actual_line) {
        (None, _) => STOPS_LATE.into(),
        (_, None) => STOPS_SHORT.into(),
        (Some(want), Some(got)) => grid.kind(want, got, expected, actual, difference.line),
    }
}

/// The handout's section of `rule`, as its trace names it: the words that end "where the
/// handout's rules on ... decide the output".
pub(super) fn section_of(rule: &RuleAt) -> &str {
    match rule.section.as_str() {
        "" => "the output",
        section => section,
    }
}

/// Where no misreading fits a failure: what it is grouped by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kind {
    pub verdict: Verdict,
    /// The spec's command the difference first shows after (`R`, `tick`; empty for a spec
    /// answering its whole input at once), with its words.
    pub command: (String, String),
    /// The kind of difference, in the grid's terms.
    pub difference: String,
    /// The rule whose output the difference lies in (its span in the reference's trace).
    pub rule: String,
    /// The handout's section of that rule.
    pub section: String,
}

impl Judgement {
    /// What this failure is grouped by when no misreading of the handout fits it: `None` for a
    /// failure a misreading explains, one without a difference, or where the reference named
    /// no rule (a suite without a reference trace keys its failures by their words).
    pub fn unexplained_kind(&self) -> Option<Kind> {
        let rule = self.rule.as_ref().filter(|rule| !rule.misread)?;
        let (verdict, _) = self.divergence()?;
        let difference = self.difference.as_ref()?;
        let grid = self.grid?;
        let command = self
            .command()
            .map_or((String::new(), String::new()), |command| {
                (command.key.clone(), command.words.clone())
            });
        let expected = String::from_utf8_lossy(&self.expected);
        let actual = self
            .execution
            .as_ref()
            .map(|e| e.stdout.as_slice())
            .unwrap_or_default();
        Some(Kind {
            verdict,
            command,
            difference: kind_in(
                grid,
                difference,
                &expected,
                &String::from_utf8_lossy(actual),
            ),
            rule: rule.slug.clone(),
            section: section_of(rule).to_string(),
        })
    }

    /// Where no misreading fits a failure inside the suite's grid: the difference in the
    /// grid's terms, and the display the reference showed before the command it first shows
    /// after (the state a student can set up by hand to see the bug).
    pub fn in_the_field(&self) -> Option<(String, Vec<String>)> {
        if self.rule.as_ref().is_none_or(|rule| rule.misread) {
            return None;
        }
        let words = self.in_the_grid()?;
        let expected = String::from_utf8_lossy(&self.expected);
        let before = self
            .grid?
            .before(&expected, self.difference.as_ref()?.line)?;
        Some((words, before))
    }
}

/// Groups the failures of one run that no misreading fits (`kinds`, in case order; `None` for
/// a case that is no such failure) and names each group; the same length as `kinds`.
pub fn group(kinds: &[Option<Kind>]) -> Vec<Option<Unexplained>> {
    let mut parent: Vec<usize> = (0..kinds.len()).collect();
    fn root(parent: &mut [usize], mut k: usize) -> usize {
        while parent[k] != k {
            parent[k] = parent[parent[k]];
            k = parent[k];
        }
        k
    }
    let mut first_with: BTreeMap<(Verdict, bool, &str), usize> = BTreeMap::new();
    for (k, kind) in kinds.iter().enumerate() {
        let Some(kind) = kind else { continue };
        let mut tokens = vec![(kind.verdict, true, kind.command.0.as_str())];
        if ![STOPS_LATE, STOPS_SHORT].contains(&kind.difference.as_str()) {
            tokens.push((kind.verdict, false, kind.difference.as_str()));
        }
        for token in tokens {
            match first_with.get(&token) {
                Some(&other) => {
                    let (a, b) = (root(&mut parent, k), root(&mut parent, other));
                    parent[a] = b;
                }
                None => {
                    first_with.insert(token, k);
                }
            }
        }
    }
    let mut members: BTreeMap<usize, BTreeSet<&Kind>> = BTreeMap::new();
    for (k, kind) in kinds.iter().enumerate() {
        if let Some(kind) = kind {
            members
                .entry(root(&mut parent, k))
                .or_default()
                .insert(kind);
        }
    }
    let named: BTreeMap<usize, Unexplained> = members
        .into_iter()
        .map(|(root, kinds)| (root, name(&kinds)))
        .collect();
    (0..kinds.len())
        .map(|k| {
            let kind = kinds[k].as_ref()?;
            let group = named.get(&root(&mut parent, k))?;
            Some(Unexplained {
                shows: (kind.command.0.clone(), kind.difference.clone()),
                ..group.clone()
            })
        })
        .collect()
}

/// A group's key (every kind it holds) and words: its kinds of difference, the commands they
/// first show after, and the handout's sections whose rules decide the output there.
fn name(kinds: &BTreeSet<&Kind>) -> Unexplained {
    let key = kinds
        .iter()
        .map(|k| format!("{}|{}|{}", k.command.0, k.difference, k.rule))
        .collect::<Vec<_>>()
        .join("\n");
    let listed = |items: BTreeSet<&str>, joiner: &str, last: &str| {
        let items: Vec<&str> = items.into_iter().filter(|s| !s.is_empty()).collect();
        match items.split_last() {
            None => String::new(),
            Some((only, [])) => only.to_string(),
            Some((end, rest)) => format!("{}{last}{end}", rest.join(joiner)),
        }
    };
    // Every kind, command and section the cause holds is named: one left out could be the
    // one a student's own failure shows.
    let differences = listed(
        kinds.iter().map(|k| k.difference.as_str()).collect(),
        "; ",
        "; ",
    );
    let commands = listed(
        kinds.iter().map(|k| k.command.1.as_str()).collect(),
        "; or after ",
        "; or after ",
    );
    let sections = listed(
        kinds.iter().map(|k| k.section.as_str()).collect(),
        ", ",
        " and ",
    );
    let after = if commands.is_empty() {
        String::new()
    } else {
        format!(", first after {commands}")
    };
    Unexplained {
        key,
        words: format!(
            "{differences}{after}, where no misreading of the handout that check knows of \
             fits (the handout's rules on {sections} decide the output there)"
        ),
        shows: Default::default(),
    }
}

/// Groups the failures of a run that no misreading fits and gives each its cause.
pub(super) fn settle_unexplained(judgements: &mut [&mut Judgement]) {
    let kinds: Vec<Option<Kind>> = judgements.iter().map(|j| j.unexplained_kind()).collect();
    for (judgement, unexplained) in judgements.iter_mut().zip(group(&kinds)) {
        judgement.unexplained = unexplained;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(command: &'static str, difference: &str, rule: &str) -> Option<Kind> {
        Some(Kind {
            verdict: Verdict::WrongOutput,
            command: (command.into(), command.into()),
            difference: difference.into(),
            rule: rule.into(),
            section: "the rules".into(),
        })
    }

    /// A cause's words name every kind, command and section it holds: the one a "1 more"
    /// left out could be the one the student's own failure shows.
    #[test]
    fn a_cause_s_words_name_all_it_holds() {
        let section = |kind: Option<Kind>, section: &str| {
            kind.map(|kind| Kind {
                section: section.into(),
                ..kind
            })
        };
        let kinds = [
            section(kind("tick", "kind one", "a"), "the display"),
            section(kind("tick", "kind two", "b"), "the end of the game"),
            section(kind("tick", "kind three", "c"), "matching"),
            section(kind("tick", "kind four", "d"), "falling"),
            section(kind("R", "kind four", "d"), "falling"),
        ];
        let groups = group(&kinds);
        let words = &groups[0].as_ref().unwrap().words;
        assert_eq!(
            words,
            "kind four; kind one; kind three; kind two, first after R; or after tick, where no \
             misreading of the handout that check knows of fits (the handout's rules on \
             falling, matching, the display and the end of the game decide the output there)"
        );
    }

    #[test]
    fn failures_sharing_a_command_or_a_kind_are_one_cause_and_others_two() {
        let landed = "a landed cell where a frozen one should be";
        let kinds = [
            // One bug: a landed jewel that should freeze, after a tick, a move, a creation.
            kind("tick", landed, "10-freezes"),
            kind("<>", landed, "6-moved"),
            None,
            kind("F", landed, "5-created"),
            // Another: a rotation, after R only, of another kind.
            kind("R", "a falling cell holding another jewel", "8-rotated"),
            // Stopping short links nothing: the rotation's own case.
            kind("R", STOPS_SHORT, "8-rotated"),
        ];
        let groups = group(&kinds);
        assert_eq!(groups[2], None);
        let key = |k: usize| groups[k].as_ref().unwrap().key.clone();
        assert_eq!(key(0), key(1));
        assert_eq!(key(0), key(3));
        assert_ne!(key(0), key(4));
        assert_eq!(key(4), key(5));
        let words = &groups[4].as_ref().unwrap().words;
        assert!(words.starts_with("a falling cell holding another jewel; the output stops short, first after R, where no misreading"), "{words}");
        // The same failures in another run are the same cause; one kind more is another.
        assert_eq!(group(&kinds[..4])[0], groups[0]);
        let more = [kinds[0].clone(), kind("tick", landed, "9-lands")];
        assert_ne!(group(&more)[0], groups[0]);
    }
}
