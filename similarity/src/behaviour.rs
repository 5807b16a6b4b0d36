//! Behavioural similarity: two students whose programs print the same wrong output on the
//! same case, where the reference prints something else. What no code-similarity tool sees:
//! a copy whose code was rewritten still carries its original's bugs.
//!
//! The evidence is weighed by how rare the wrong output is. A wrong output printed by `n` of
//! the `N` students whose outputs are known weighs `ln(N / 2n) / ln(N / 4)`: 1 when only the
//! two print it, falling with the log of its share, and nothing once half the class makes the
//! mistake (nor in a class of fewer than five, where no output is rare). Outputs held by the
//! same students on several cases are one mistake seen several times (one bug shows on every
//! case that reaches it), so they count once, with a bonus of `1 + ln(cases)` for up to five
//! cases (past five, more cases say no more: a bug reached by every input is still one bug).
//! Each mistake is weighed too by what it says: an output with many wrong bytes (a whole board
//! wrong in the same cells) tells more than one short wrong number, by `ln(2 + bytes) / ln 16`
//! (0.4 to 2; 1 for a wrong line of about fourteen bytes), averaged over its cases. A wrong
//! output that a known misreading of the handout prints is a mistake students make on their
//! own, and weighs nothing, however few print it.
//! The pair's score is `1 - exp(-E / 2)` of the sum `E` over its mistakes: 0.73 for one wrong
//! line only the two print on five cases, 0.39 for one only they print on one case.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

/// One failing case of one student, by the exact output printed there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongOutput {
    pub case: String,
    /// Any key equal exactly when two outputs are byte for byte the same (a hash of them).
    pub output: String,
    /// A known misreading of the handout prints it: a mistake students make independently.
    pub common: bool,
    /// How many of its bytes are wrong, where known.
    pub wrong_bytes: Option<usize>,
}

impl WrongOutput {
    /// What the output says of its author, 0.4 to 2: `ln(2 + wrong bytes) / ln 16`, 1 where
    /// not known.
    pub fn specificity(&self) -> f64 {
        self.wrong_bytes.map_or(1.0, |bytes| {
            ((2.0 + bytes as f64).ln() / 16f64.ln()).clamp(0.4, 2.0)
        })
    }
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
    /// The sum over the pair's distinct mistakes of their rarity times `1 + ln(cases)`.
    pub evidence: f64,
    /// The cases, rarest output first.
    pub cases: Vec<SharedCase>,
}

/// The cases past which a mistake's bonus stops growing.
const CASES_COUNTED: usize = 5;

/// How rare a wrong output printed by `holders` of `class` students is, 0 to 1.
fn rarity(holders: usize, class: usize) -> f64 {
    if 2 * holders >= class || class < 5 {
        return 0.0;
    }
    let (n, class) = (holders as f64, class as f64);
    ((class / (2.0 * n)).ln() / (class / 4.0).ln()).clamp(0.0, 1.0)
}

/// Every pair of `students` (by index) that shares a wrong output printed by fewer than half
/// of the class, with its evidence.
pub(crate) fn pairs(students: &[Option<&Outputs>]) -> BTreeMap<(usize, usize), SharedMistakes> {
    let class = students.iter().filter(|s| s.is_some()).count();
    let mut holders: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    // Per output: whether a misreading prints it, and what it says.
    let mut what: HashMap<(&str, &str), (bool, f64)> = HashMap::new();
    for (index, outputs) in students.iter().enumerate() {
        for wrong in outputs.iter().flat_map(|o| &o.wrong) {
            let key = (wrong.case.as_str(), wrong.output.as_str());
            holders.entry(key).or_default().push(index);
            let seen = what.entry(key).or_insert((false, wrong.specificity()));
            seen.0 |= wrong.common;
        }
    }

    // Per pair: the holder sets of its shared outputs, with the cases each was seen on.
    let mut shared: BTreeMap<(usize, usize), Mistakes> = BTreeMap::new();
    for (key, who) in &holders {
        let (case, (common, specific)) = (key.0, what[key]);
        // A mistake half the class makes says nothing (and would cost a pair per two of them),
        // nor does one a misreading of the handout makes.
        if who.len() < 2 || common || rarity(who.len(), class) == 0.0 {
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
                    .push((case.to_string(), specific));
            }
        }
    }
    shared
        .into_iter()
        .map(|(pair, mistakes)| (pair, weigh(mistakes, class)))
        .collect()
}

/// A pair's shared outputs: by the set of students holding them, the cases each was seen on
/// with what it says.
type Mistakes = BTreeMap<Vec<usize>, Vec<(String, f64)>>;

fn weigh(mistakes: Mistakes, class: usize) -> SharedMistakes {
    let mut evidence = 0.0;
    let mut cases = Vec::new();
    for (who, seen) in mistakes {
        let holders = who.len();
        let bonus = 1.0 + (seen.len().min(CASES_COUNTED) as f64).ln();
        let specific = seen.iter().map(|(_, s)| s).sum::<f64>() / seen.len() as f64;
        evidence += rarity(holders, class) * bonus * specific;
        cases.extend(
            seen.into_iter()
                .map(|(case, _)| SharedCase { case, holders }),
        );
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

    fn pairs_of(class: &[Option<Outputs>]) -> BTreeMap<(usize, usize), SharedMistakes> {
        pairs(&class.iter().map(Option::as_ref).collect::<Vec<_>>())
    }

    fn student(wrong: &[(&str, &str)]) -> Option<Outputs> {
        Some(Outputs {
            wrong: wrong
                .iter()
                .map(|(case, output)| WrongOutput {
                    case: case.to_string(),
                    output: output.to_string(),
                    common: false,
                    wrong_bytes: None,
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
        let found = pairs_of(&class);
        let pair = &found[&(0, 1)];
        assert_eq!(pair.cases.len(), 5);
        assert!((pair.evidence - (1.0 + 5f64.ln())).abs() < 1e-9);
        assert!(pair.score > 0.7, "{}", pair.score);
        assert!(pair.score >= crate::Options::default().behaviour_flag);
    }

    #[test]
    fn a_mistake_half_the_class_makes_says_nothing_and_a_common_one_little() {
        // Five of ten print the same wrong output on forty cases; the others pass.
        let cases: Vec<(String, String)> = (0..40)
            .map(|i| (format!("g/{i}"), "common".to_string()))
            .collect();
        let cases: Vec<(&str, &str)> = cases
            .iter()
            .map(|(c, o)| (c.as_str(), o.as_str()))
            .collect();
        let mut class: Vec<Option<Outputs>> = (0..5).map(|_| student(&cases)).collect();
        class.extend((0..5).map(|_| student(&[])));
        assert!(pairs_of(&class).is_empty());
        // Three of ten: rarer, but a mistake three make is not the sign of a pair that copied.
        class[3] = student(&[]);
        class[4] = student(&[]);
        let found = pairs_of(&class);
        let flag = crate::Options::default().behaviour_flag;
        assert!(found[&(0, 1)].score < flag, "{}", found[&(0, 1)].score);
    }

    #[test]
    fn rarity_falls_with_the_share_of_the_class() {
        assert_eq!(rarity(2, 500), 1.0);
        assert!(rarity(5, 500) > rarity(25, 500));
        assert!(rarity(25, 500) > rarity(125, 500));
        assert_eq!(rarity(250, 500), 0.0);
        assert_eq!(rarity(2, 4), 0.0);
    }

    #[test]
    fn what_a_misreading_prints_is_no_evidence_and_a_long_wrong_output_more_than_a_short_one() {
        let wrong = |case: &str, output: &str, common: bool, bytes: usize| WrongOutput {
            case: case.into(),
            output: output.into(),
            common,
            wrong_bytes: Some(bytes),
        };
        let class_of = |pair: Vec<WrongOutput>| {
            let mut class = vec![
                Some(Outputs {
                    wrong: pair.clone(),
                }),
                Some(Outputs { wrong: pair }),
            ];
            class.extend((0..8).map(|_| student(&[])));
            pairs_of(&class)
        };
        // Only the two print it, but a misreading of the handout does too.
        assert!(class_of(vec![wrong("g/0", "x", true, 80)]).is_empty());
        // One case: a board wrong (80 bytes) tells more than a wrong digit, and neither
        // flags the pair alone.
        let board = class_of(vec![wrong("g/0", "x", false, 80)])[&(0, 1)].score;
        let digit = class_of(vec![wrong("g/0", "x", false, 1)])[&(0, 1)].score;
        let flag = crate::Options::default().behaviour_flag;
        assert!(board > digit && board < flag, "{board} {digit}");
        assert!(board >= crate::SUPPORTING, "{board}");
        // Two cases of it flag the pair.
        let two = class_of(vec![
            wrong("g/0", "x", false, 80),
            wrong("g/1", "y", false, 80),
        ]);
        assert!(two[&(0, 1)].score >= flag, "{}", two[&(0, 1)].score);
    }

    #[test]
    fn different_wrong_outputs_are_not_shared() {
        let class = vec![
            student(&[("g/0", "x"), ("g/1", "y")]),
            student(&[("g/0", "z"), ("g/2", "y")]),
            None,
            student(&[]),
        ];
        assert!(pairs_of(&class).is_empty());
    }
}
