//! Code similarity across a class: every submission's files fingerprinted, the fingerprints
//! indexed to the submissions that hold them, and every pair sharing one scored by how much of
//! both it covers (as Dolos scores: the tokens of either side under a shared run, over the
//! tokens of both). Fingerprints of the instructor's starter code, and those held by a large
//! part of the class (an idiom every solution of the assignment writes), are evidence of
//! nothing and are left out before any pair is scored.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::fingerprint::{kgrams, winnow};
use crate::tokens::{tokenize, Grammar, Token};

/// One source file of a submission.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its path inside the submission, as reports show it.
    pub path: String,
    pub grammar: Grammar,
    pub text: String,
}

/// What the fingerprints are made with, and what is left out.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Tokens per hashed run.
    pub k: usize,
    /// Hashes per winnowing window.
    pub window: usize,
    /// A fingerprint held by more than this share of the class (and by more than two
    /// submissions) is common to the assignment, and left out.
    pub common: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            k: 12,
            window: 4,
            common: 0.2,
        }
    }
}

/// A submission as fingerprinted.
#[derive(Debug, Clone)]
pub(crate) struct Printed {
    pub files: Vec<FileTokens>,
    /// Every kept fingerprint: (hash, file, first token).
    pub prints: Vec<(u64, usize, usize)>,
}

#[derive(Debug, Clone)]
pub(crate) struct FileTokens {
    pub path: String,
    pub tokens: Vec<Token>,
    pub unparsed_bytes: usize,
}

impl Printed {
    pub(crate) fn of(sources: &[Source], settings: &Settings) -> Printed {
        let mut files = Vec::new();
        let mut prints = Vec::new();
        for (index, source) in sources.iter().enumerate() {
            let tokens = tokenize(source.grammar, &source.text);
            let hashes = kgrams(&tokens.tokens, settings.k);
            for print in winnow(&hashes, settings.window) {
                prints.push((print.hash, index, print.start));
            }
            files.push(FileTokens {
                path: source.path.clone(),
                tokens: tokens.tokens,
                unparsed_bytes: tokens.unparsed_bytes,
            });
        }
        Printed { files, prints }
    }

    pub(crate) fn token_count(&self) -> usize {
        self.files.iter().map(|f| f.tokens.len()).sum()
    }
}

/// Lines of one file: 1-based, both ends included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    pub file: String,
    pub first_line: u32,
    pub last_line: u32,
}

/// A run of code two submissions share: where it is in each, and how many tokens it spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fragment {
    pub left: Span,
    pub right: Span,
    pub tokens: usize,
}

/// The code evidence of one pair.
#[derive(Debug, Clone, Serialize)]
pub struct CodeMatch {
    /// Tokens of both under a shared run, over the tokens of both (0 to 1).
    pub score: f64,
    /// The share of each side's tokens under a shared run.
    pub left_covered: f64,
    pub right_covered: f64,
    /// The shared runs, longest first: found for the pairs a report shows
    /// ([`crate::Analysis`] says which).
    pub fragments: Vec<Fragment>,
    /// The fingerprints both hold (after what is left out), for finding the fragments.
    #[serde(skip)]
    pub(crate) shared: HashSet<u64>,
}

/// What was left out of the fingerprints, for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LeftOut {
    /// Fingerprints of the starter code.
    pub base: usize,
    /// Fingerprints held by more than the common share of the class.
    pub common: usize,
    /// The most submissions a fingerprint may be held by and still count.
    pub most_holders: usize,
}

/// Every pair of `printed` that shares a fingerprint, scored, by (left, right) index.
pub(crate) fn pairs(
    printed: &[Printed],
    base: &HashSet<u64>,
    settings: &Settings,
) -> (BTreeMap<(usize, usize), CodeMatch>, LeftOut) {
    let mut holders: HashMap<u64, Vec<usize>> = HashMap::new();
    for (index, submission) in printed.iter().enumerate() {
        let own: HashSet<u64> = submission.prints.iter().map(|p| p.0).collect();
        for hash in own {
            holders.entry(hash).or_default().push(index);
        }
    }
    let most_holders = ((printed.len() as f64 * settings.common).floor() as usize).max(2);
    let mut left_out = LeftOut {
        most_holders,
        ..LeftOut::default()
    };
    let mut shared: BTreeMap<(usize, usize), HashSet<u64>> = BTreeMap::new();
    for (hash, who) in &holders {
        if base.contains(hash) {
            left_out.base += 1;
            continue;
        }
        if who.len() > most_holders {
            left_out.common += 1;
            continue;
        }
        for (i, &a) in who.iter().enumerate() {
            for &b in &who[i + 1..] {
                shared
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .insert(*hash);
            }
        }
    }
    let k = settings.k;
    let scored = shared
        .into_iter()
        .map(|((a, b), hashes)| ((a, b), score(&printed[a], &printed[b], &hashes, k)))
        .collect();
    (scored, left_out)
}

/// Every k-gram hash of the starter code: any run of it, winnowed or not, is the instructor's.
pub(crate) fn base_hashes(sources: &[Source], settings: &Settings) -> HashSet<u64> {
    sources
        .iter()
        .flat_map(|source| {
            let tokens = tokenize(source.grammar, &source.text);
            kgrams(&tokens.tokens, settings.k)
        })
        .collect()
}

fn score(left: &Printed, right: &Printed, hashes: &HashSet<u64>, k: usize) -> CodeMatch {
    let covered = |side: &Printed| -> usize {
        let mut marked: Vec<Vec<bool>> = side
            .files
            .iter()
            .map(|f| vec![false; f.tokens.len()])
            .collect();
        for &(hash, file, start) in &side.prints {
            if hashes.contains(&hash) {
                let end = (start + k).min(marked[file].len());
                marked[file][start..end].iter_mut().for_each(|m| *m = true);
            }
        }
        marked.iter().flatten().filter(|m| **m).count()
    };
    let (left_tokens, right_tokens) = (left.token_count(), right.token_count());
    let (left_hit, right_hit) = (covered(left), covered(right));
    let share = |hit: usize, all: usize| {
        if all == 0 {
            0.0
        } else {
            hit as f64 / all as f64
        }
    };
    CodeMatch {
        score: share(left_hit + right_hit, left_tokens + right_tokens),
        left_covered: share(left_hit, left_tokens),
        right_covered: share(right_hit, right_tokens),
        fragments: Vec::new(),
        shared: hashes.clone(),
    }
}
