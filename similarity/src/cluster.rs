//! Rings: three or more students whose code is flagged pair by pair, joined into one group,
//! so that a solution shared by a whole group reads as one finding and not as k(k-1)/2 pairs.
//! The group names the source most of them share (the member whose code is most alike to the
//! others') and the lines of it that most of them hold.

use std::collections::HashSet;

use serde::Serialize;

use crate::code::{Printed, Span};

/// A ring of students.
#[derive(Debug, Clone, Serialize)]
pub struct Cluster {
    /// The members: the source first, then by how alike each is to the others.
    pub members: Vec<String>,
    /// The member whose code is most alike to the others': the source most of them share.
    pub source: String,
    /// The mean code score over every pair of the ring (a pair sharing nothing counts 0).
    pub mean_score: f64,
    /// The pairs of the ring flagged for their code, of `members.len() * (len - 1) / 2`.
    pub flagged_pairs: usize,
    /// The source's lines that at least half of the ring holds too, in order.
    pub core: Vec<Span>,
}

/// Spans of the core shown at most.
const CORE_SPANS: usize = 30;

/// The rings of a class of `ids`: the groups of three or more joined by `scores` (a, b, code
/// score) at `flag` or above.
pub(crate) fn clusters(
    ids: &[String],
    printed: &[Printed],
    scores: &[(usize, usize, f64)],
    flag: f64,
    k: usize,
) -> Vec<Cluster> {
    let n = ids.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for &(a, b, score) in scores {
        if score >= flag {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); n];
    for x in 0..n {
        let r = root(&mut parent, x);
        groups[r].push(x);
    }
    let mut found: Vec<Cluster> = groups
        .into_iter()
        .filter(|g| g.len() >= 3)
        .map(|members| ring(ids, printed, scores, flag, k, members))
        .collect();
    found.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| a.source.cmp(&b.source))
    });
    found
}

fn ring(
    ids: &[String],
    printed: &[Printed],
    scores: &[(usize, usize, f64)],
    flag: f64,
    k: usize,
    members: Vec<usize>,
) -> Cluster {
    let size = members.len();
    let inside: HashSet<usize> = members.iter().copied().collect();
    let mut total = vec![0.0; ids.len()];
    let (mut sum, mut flagged) = (0.0, 0);
    for &(a, b, score) in scores {
        if inside.contains(&a) && inside.contains(&b) {
            total[a] += score;
            total[b] += score;
            sum += score;
            flagged += usize::from(score >= flag);
        }
    }
    let mut order = members;
    order.sort_by(|&a, &b| total[b].total_cmp(&total[a]).then(a.cmp(&b)));
    let source = order[0];
    let held: Vec<HashSet<u64>> = order[1..]
        .iter()
        .map(|&m| printed[m].prints.iter().map(|p| p.0).collect())
        .collect();
    // A fingerprint of the source held by at least half of the ring, the source included.
    let half = size.div_ceil(2);
    let core = core(&printed[source], k, |hash| {
        1 + held.iter().filter(|set| set.contains(&hash)).count() >= half
    });
    Cluster {
        members: order.iter().map(|&m| ids[m].clone()).collect(),
        source: ids[source].clone(),
        mean_score: sum / (size * (size - 1) / 2) as f64,
        flagged_pairs: flagged,
        core,
    }
}

/// The lines of `source` under the fingerprints `keep` says yes to, joined where they touch.
fn core(source: &Printed, k: usize, keep: impl Fn(u64) -> bool) -> Vec<Span> {
    let mut marked: Vec<Vec<bool>> = source
        .files
        .iter()
        .map(|f| vec![false; f.tokens.len()])
        .collect();
    for &(hash, file, start) in &source.prints {
        if keep(hash) {
            let end = (start + k).min(marked[file].len());
            marked[file][start..end].iter_mut().for_each(|m| *m = true);
        }
    }
    let mut spans: Vec<Span> = Vec::new();
    for (file, marks) in source.files.iter().zip(&marked) {
        for (token, _) in file.tokens.iter().zip(marks).filter(|(_, m)| **m) {
            match spans.last_mut() {
                // A span's lines are 1-based, as a fragment's are; a token's are the parser's,
                // from 0: one on the span's last line or the next touches it.
                Some(last) if last.file == file.path && token.first_line <= last.last_line => {
                    last.last_line = last.last_line.max(token.last_line + 1);
                }
                _ => spans.push(Span {
                    file: file.path.clone(),
                    first_line: token.first_line + 1,
                    last_line: token.last_line + 1,
                }),
            }
        }
    }
    spans.truncate(CORE_SPANS);
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::FileTokens;
    use crate::tokens::Token;

    /// The core's lines are 1-based, both ends included, as every span the report shows: a
    /// file's first line is line 1 (the ring once listed `go.py 0–2`).
    #[test]
    fn a_cores_lines_count_from_one() {
        let token = |line: u32| Token {
            kind: 1,
            first_line: line,
            last_line: line,
        };
        let printed = Printed {
            files: vec![FileTokens {
                path: "go.py".into(),
                tokens: vec![token(0), token(1), token(2), token(5)],
                unparsed_bytes: 0,
            }],
            prints: vec![(7, 0, 0), (8, 0, 3)],
        };
        let spans = core(&printed, 3, |_| true);
        let lines: Vec<(u32, u32)> = spans.iter().map(|s| (s.first_line, s.last_line)).collect();
        assert_eq!(lines, [(1, 3), (6, 6)]);
    }
}
