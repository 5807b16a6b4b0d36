//! What the similarity bench's tables share: the disguises of `disguise.py`, every pair's
//! score per folder, and how well a tool's scores separate the copies from independent work.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The disguises of `disguise.py`, in its order.
pub(super) const DISGUISES: [&str; 7] = [
    "rename",
    "reorder",
    "layout",
    "deadcode",
    "loops",
    "statements",
    "mix",
];

/// One tool's figures on one disguise or class.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Separation {
    pub auc: f64,
    pub recall: f64,
    /// The lowest score of a copy, less the highest of an independent pair: the room a
    /// threshold has.
    pub margin: f64,
    /// The copies and the independent pairs at or above the report's code flag.
    pub flagged: (usize, usize),
    pub pairs: (usize, usize),
    pub seconds: f64,
}

/// Dolos's scores per folder, and the seconds each analysis took.
pub(super) type DolosScores = (BTreeMap<PathBuf, Scores>, BTreeMap<PathBuf, f64>);

/// Every pair's score in one folder, by the two file names (sorted).
pub(super) type Scores = BTreeMap<(String, String), f64>;

/// The separation of `scores`, the pairs `related` says are copies the positives.
pub(super) fn separation_of(
    scores: &Scores,
    seconds: f64,
    related: impl Fn(&(String, String)) -> bool,
) -> Separation {
    let (mut copies, mut independent) = (Vec::new(), Vec::new());
    for (pair, score) in scores {
        match related(pair) {
            true => copies.push(*score),
            false => independent.push(*score),
        }
    }
    let mut wins = 0.0;
    for copy in &copies {
        for other in &independent {
            wins += match copy.total_cmp(other) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    let flag = similarity::Options::default().code_flag;
    let highest = independent.iter().copied().fold(f64::MIN, f64::max);
    let lowest = copies.iter().copied().fold(f64::MAX, f64::min);
    let total = (copies.len() * independent.len()).max(1) as f64;
    Separation {
        auc: wins / total,
        recall: copies.iter().filter(|c| **c > highest).count() as f64 / copies.len().max(1) as f64,
        margin: lowest - highest,
        flagged: (
            copies.iter().filter(|c| **c >= flag).count(),
            independent.iter().filter(|c| **c >= flag).count(),
        ),
        pairs: (copies.len(), independent.len()),
        seconds,
    }
}
