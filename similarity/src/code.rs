//! Code similarity across a class: every submission's files fingerprinted, the fingerprints
//! indexed to the submissions that hold them, and every pair sharing one scored by how much of
//! both it covers (as Dolos scores: the tokens of either side under a shared run, over the
//! tokens of both). Fingerprints of the instructor's starter code are evidence of nothing and
//! are left out before any pair is scored; so are the idioms of the assignment: fingerprints
//! held by a large part of the class whose holders are not a group. What tells an idiom from a
//! ring's shared code is what else its holders share: students who wrote the same idiom
//! independently share little besides it, while a ring's members, copies of one source, share
//! most of their code with each other. A fingerprint held by many is kept when its holders'
//! mean overlap (the share of the smaller one's fingerprints that the other holds too) reaches
//! [`Settings::cohesive`] and lies well above the overlap two students of the class typically
//! have (two fifths of the way from it to identical), whatever the size of the class or of
//! the ring.

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
    /// submissions) is common to the assignment, and left out, unless its holders are a group
    /// (see `cohesive`).
    pub common: f64,
    /// The mean overlap of a fingerprint's holders from which they are a group (a ring), whose
    /// shared code counts however many they are.
    pub cohesive: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            k: 12,
            window: 4,
            common: 0.2,
            cohesive: 0.5,
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
    /// Fingerprints held by more than the common share of the class, by holders who are no
    /// group.
    pub common: usize,
    /// The most submissions a fingerprint may be held by and still count, unless its holders
    /// are a group.
    pub most_holders: usize,
    /// Fingerprints held by more than that, kept because their holders are a group.
    pub kept_for_a_group: usize,
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
    let overlap = Overlap::of(printed, &holders, base);
    // Holders are a group where they overlap well beyond what two of the class typically do.
    let everyone: Vec<usize> = (0..printed.len()).collect();
    let background = overlap.mean(&everyone);
    let group_from = settings
        .cohesive
        .max(background + (1.0 - background) * BEYOND);
    let mut groups: HashMap<&[usize], bool> = HashMap::new();
    let mut shared: BTreeMap<(usize, usize), HashSet<u64>> = BTreeMap::new();
    for (hash, who) in &holders {
        if base.contains(hash) {
            left_out.base += 1;
            continue;
        }
        if who.len() > most_holders {
            let group = *groups
                .entry(who.as_slice())
                .or_insert_with(|| overlap.mean(who) >= group_from);
            if !group {
                left_out.common += 1;
                continue;
            }
            left_out.kept_for_a_group += 1;
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

/// How far from the class's typical overlap towards identity a group's overlap must be.
const BEYOND: f64 = 0.4;

/// Holders above this many are a fingerprint too common to tell who is related to whom: the
/// overlap of two submissions is counted over the rarer ones.
const RELATING: usize = 256;
/// Pairs of a large holder set whose overlap is averaged, at most (taken evenly).
const SAMPLED: usize = 4096;

/// How much of their code each two submissions share: the fingerprints both hold, counted
/// once over every fingerprint of at most [`RELATING`] holders (the starter code's left out),
/// over the smaller one's count.
struct Overlap {
    n: usize,
    /// The upper triangle, row by row: entry of (a, b), a < b.
    both: Vec<u32>,
    own: Vec<u32>,
}

impl Overlap {
    fn of(printed: &[Printed], holders: &HashMap<u64, Vec<usize>>, base: &HashSet<u64>) -> Overlap {
        let n = printed.len();
        let mut overlap = Overlap {
            n,
            both: vec![0; n * n.saturating_sub(1) / 2],
            own: vec![0; n],
        };
        for (hash, who) in holders {
            if base.contains(hash) {
                continue;
            }
            for &a in who {
                overlap.own[a] += 1;
            }
            if who.len() < 2 || who.len() > RELATING {
                continue;
            }
            for (i, &a) in who.iter().enumerate() {
                for &b in &who[i + 1..] {
                    let at = overlap.index(a, b);
                    overlap.both[at] += 1;
                }
            }
        }
        overlap
    }

    fn index(&self, a: usize, b: usize) -> usize {
        let (a, b) = (a.min(b), a.max(b));
        // Rows 0..a hold n-1, n-2, ... entries.
        a * (2 * self.n - a - 1) / 2 + (b - a - 1)
    }

    fn of_pair(&self, a: usize, b: usize) -> f64 {
        let smaller = self.own[a].min(self.own[b]);
        match smaller {
            0 => 0.0,
            _ => f64::from(self.both[self.index(a, b)]) / f64::from(smaller),
        }
    }

    /// The mean overlap of the pairs of `who` (of an even sample, when they are many).
    fn mean(&self, who: &[usize]) -> f64 {
        let h = who.len();
        let all = h * (h - 1) / 2;
        let step = all.div_ceil(SAMPLED).max(1);
        let (mut sum, mut count) = (0.0, 0usize);
        let mut k = 0usize;
        for (i, &a) in who.iter().enumerate() {
            for &b in &who[i + 1..] {
                if k.is_multiple_of(step) {
                    sum += self.of_pair(a, b);
                    count += 1;
                }
                k += 1;
            }
        }
        if count == 0 {
            0.0
        } else {
            sum / count as f64
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Grammar;

    /// A Python function whose shape (the token kinds) comes from `seed`: a statement of
    /// sixteen short shapes per step, so that a run of twelve tokens spans two or three of
    /// them and two seeds share few runs, by chance.
    fn body(seed: u64, statements: usize) -> String {
        let shapes = [
            "x = y\n",
            "x += 1\n",
            "y = -x\n",
            "z = [x]\n",
            "print(x)\n",
            "y = f(x)\n",
            "x = y[0]\n",
            "x = not y\n",
            "z = x.y\n",
            "del z\n",
            "x = y * 2\n",
            "z = (x, y)\n",
            "y = {}\n",
            "x = y if z else x\n",
            "z = f(x, y)\n",
            "assert x\n",
        ];
        let mut text = format!("def f{seed}(x, y):\n");
        for step in 0..statements as u64 {
            // splitmix64 of (seed, step).
            let mut state = (seed << 20 ^ step).wrapping_add(0x9e37_79b9_7f4a_7c15);
            state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            state ^= state >> 31;
            text += "    ";
            text += shapes[state as usize % shapes.len()];
        }
        text + "    return x\n"
    }

    /// The idiom every student of the assignment writes.
    const IDIOM: &str = "def read():\n    rows = int(input())\n    board = []\n    for r in range(rows):\n        board.append(input().split())\n    return board\n";

    fn class(sources: Vec<String>) -> Vec<Printed> {
        sources
            .into_iter()
            .map(|text| {
                let source = Source {
                    path: "a.py".into(),
                    grammar: Grammar::Python,
                    text,
                };
                Printed::of(&[source], &Settings::default())
            })
            .collect()
    }

    /// Thirty independent students who all write the idiom, five of whom hand in one source:
    /// the idiom is left out, the ring's shared code counts, whatever share of the class the
    /// ring is.
    #[test]
    fn an_idiom_of_the_class_is_left_out_and_a_ring_s_code_counts() {
        for (students, ring) in [(30, 5), (7, 3), (12, 8), (100, 8)] {
            let shared = body(999, 60);
            let sources: Vec<String> = (0..students)
                .map(|i| match i < ring {
                    true => format!("{IDIOM}{shared}"),
                    false => format!("{IDIOM}{}", body(i as u64, 60)),
                })
                .collect();
            let printed = class(sources);
            let (pairs, left_out) = pairs(&printed, &HashSet::new(), &Settings::default());
            let flag = crate::Options::default().code_flag;
            for a in 0..ring {
                for b in a + 1..ring {
                    let score = pairs.get(&(a, b)).map_or(0.0, |m| m.score);
                    assert!(
                        score >= flag,
                        "{students}/{ring}: ring pair {a},{b}: {score}"
                    );
                }
            }
            let independent = pairs
                .iter()
                .filter(|((a, b), _)| *b >= ring || *a >= ring)
                .map(|(_, m)| m.score)
                .fold(0.0, f64::max);
            let worst = pairs
                .iter()
                .filter(|((a, b), _)| *b >= ring || *a >= ring)
                .max_by(|x, y| x.1.score.total_cmp(&y.1.score))
                .map(|(k, _)| *k);
            assert!(
                independent < flag,
                "{students}/{ring}: {independent} {worst:?}"
            );
            assert!(left_out.common > 0, "{students}/{ring}: the idiom stays");
        }
    }
}
