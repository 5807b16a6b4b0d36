//! Behavioural similarity: two students whose programs print the same wrong output on the
//! same case, where the reference prints something else. What no code-similarity tool sees:
//! a copy whose code was rewritten still carries its original's bugs.
//!
//! The evidence is weighed by how rare the wrong output is. A wrong output printed by `n`
//! students is shared by every pair of them, so each pair is given `1 / (n - 1)` of it: 1 when
//! only the two print it, a half when three do, next to nothing when half the class makes the
//! mistake. Outputs held by the same students on several cases are one mistake seen several
//! times (one bug shows on every case that reaches it), so they count once, with a bonus that
//! grows with the log of the cases: `(1 + ln cases) / (n - 1)` per mistake. The pair's score
//! is `1 - exp(-E / 2)` of the sum `E` over its mistakes: 0.73 for one wrong output only the
//! two print on five cases, 0.39 for one such output on one case.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

/// One failing case of one student, by the exact output printed there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongOutput {
    pub case: String,
    /// Any key equal exactly when two outputs are byte for byte the same (a hash of them).
    pub output: String,
}

/// One student's wrong outputs: every case that failed with an output to compare.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    pub wrong: Vec<WrongOutput>,
}

/// A case on which a pair prints the same wrong output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedCase {
    pub case: String,
    /// How many students of the class print that output there (the pair included).
    pub holders: usize,
}

/// The behavioural evidence of one pair.
#[derive(Debug, Clone, Serialize)]
pub struct SharedMistakes {
    /// `1 - exp(-evidence / 2)`, 0 to 1.
    pub score: f64,
    /// The sum over the pair's distinct mistakes of `(1 + ln cases) / (holders - 1)`.
    pub evidence: f64,
    /// The cases, rarest output first.
    pub cases: Vec<SharedCase>,
}

/// Every pair of `students` (by index) that shares a wrong output printed by at most half of
/// the class, with its evidence.
pub(crate) fn pairs(students: &[Option<Outputs>]) -> BTreeMap<(usize, usize), SharedMistakes> {
    let class = students.iter().filter(|s| s.is_some()).count();
    let mut holders: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (index, outputs) in students.iter().enumerate() {
        for wrong in outputs.iter().flat_map(|o| &o.wrong) {
            holders
                .entry((wrong.case.as_str(), wrong.output.as_str()))
                .or_default()
                .push(index);
        }
    }
    // A mistake more than half the class makes says nothing, and would cost a pair per two of
    // them.
    let most = (class / 2).max(2);
    // Per pair: the holder sets of its shared outputs, with the cases each was seen on.
    let mut shared: BTreeMap<(usize, usize), BTreeMap<Vec<usize>, Vec<String>>> = BTreeMap::new();
    for ((case, _), who) in &holders {
        if who.len() < 2 || who.len() > most {
            continue;
        }
        let mut who = who.clone();
        who.sort_unstable();
        who.dedup();
        for (i, &a) in who.iter().enumerate() {
            for &b in &who[i + 1..] {
                shared
                    .entry((a, b))
                    .or_default()
                    .entry(who.clone())
                    .or_default()
                    .push(case.to_string());
            }
        }
    }
    shared
        .into_iter()
        .map(|(pair, mistakes)| (pair, weigh(mistakes)))
        .collect()
}

fn weigh(mistakes: BTreeMap<Vec<usize>, Vec<String>>) -> SharedMistakes {
    let mut evidence = 0.0;
    let mut cases = Vec::new();
    for (who, seen) in mistakes {
        let holders = who.len();
        evidence += (1.0 + (seen.len() as f64).ln()) / (holders - 1) as f64;
        cases.extend(seen.into_iter().map(|case| SharedCase { case, holders }));
    }
    cases.sort_by(|a, b| (a.holders, &a.case).cmp(&(b.holders, &b.case)));
    SharedMistakes {
        score: 1.0 - (-evidence / 2.0).exp(),
        evidence,
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn student(wrong: &[(&str, &str)]) -> Option<Outputs> {
        Some(Outputs {
            wrong: wrong
                .iter()
                .map(|(case, output)| WrongOutput {
                    case: case.to_string(),
                    output: output.to_string(),
                })
                .collect(),
        })
    }

    #[test]
    fn a_rare_wrong_output_shared_on_five_cases_is_strong_evidence() {
        let five: Vec<(String, String)> = (0..5)
            .map(|i| (format!("g/{i}"), format!("rare{i}")))
            .collect();
        let five: Vec<(&str, &str)> = five.iter().map(|(c, o)| (c.as_str(), o.as_str())).collect();
        let mut class = vec![student(&five), student(&five)];
        class.extend((0..8).map(|i| student(&[("g/0", if i % 2 == 0 { "a" } else { "b" })])));
        let found = pairs(&class);
        let pair = &found[&(0, 1)];
        assert_eq!(pair.cases.len(), 5);
        assert!((pair.evidence - (1.0 + 5f64.ln())).abs() < 1e-9);
        assert!(pair.score > 0.7, "{}", pair.score);
    }

    #[test]
    fn a_mistake_half_the_class_makes_says_next_to_nothing() {
        // Five of ten print the same wrong output on five cases; the others pass.
        let cases: Vec<(String, String)> = (0..5)
            .map(|i| (format!("g/{i}"), "common".to_string()))
            .collect();
        let cases: Vec<(&str, &str)> = cases
            .iter()
            .map(|(c, o)| (c.as_str(), o.as_str()))
            .collect();
        let mut class: Vec<Option<Outputs>> = (0..5).map(|_| student(&cases)).collect();
        class.extend((0..5).map(|_| student(&[])));
        let found = pairs(&class);
        let pair = &found[&(0, 1)];
        assert!(pair.score < 0.5 * (1.0 - (-(1.0 + 5f64.ln()) / 2.0).exp()));
        assert!(pair.score < 0.35, "{}", pair.score);
        // Six of ten: more than half, not evidence at all.
        class[5] = student(&cases);
        assert!(pairs(&class).is_empty());
    }

    #[test]
    fn different_wrong_outputs_are_not_shared() {
        let class = vec![
            student(&[("g/0", "x"), ("g/1", "y")]),
            student(&[("g/0", "z"), ("g/2", "y")]),
            None,
            student(&[]),
        ];
        assert!(pairs(&class).is_empty());
    }
}
