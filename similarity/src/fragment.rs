//! The shared runs of a pair, as a reader checks them: fingerprints both sides hold, paired by
//! position, joined into one fragment while they follow each other at the same offset (as
//! Dolos's pair builds its fragments; here across a gap of up to `k` tokens too, where a
//! fingerprint common to the class was left out), then the longest kept first, each part of
//! either side shown once.

use std::collections::{HashMap, HashSet};

use crate::code::{FileTokens, Fragment, Printed, Span};

/// How many positions of one hash are paired on each side: a hash a file holds many times (a
/// repeated statement) would otherwise pair every copy with every other.
const OCCURRENCES: usize = 4;

#[derive(Debug, Clone, Copy)]
struct Run {
    left_file: usize,
    right_file: usize,
    left_start: usize,
    right_start: usize,
    /// Past the last token of the run, on the left.
    left_end: usize,
}

/// The fragments `left` and `right` share through `hashes`, longest first, overlapping none on
/// either side.
pub(crate) fn fragments(
    left: &Printed,
    right: &Printed,
    hashes: &HashSet<u64>,
    k: usize,
) -> Vec<Fragment> {
    let positions = |side: &Printed| -> HashMap<u64, Vec<(usize, usize)>> {
        let mut at: HashMap<u64, Vec<(usize, usize)>> = HashMap::new();
        for &(hash, file, start) in &side.prints {
            if hashes.contains(&hash) {
                let seen = at.entry(hash).or_default();
                if seen.len() < OCCURRENCES {
                    seen.push((file, start));
                }
            }
        }
        at
    };
    let (on_left, on_right) = (positions(left), positions(right));
    let mut matches: Vec<Run> = Vec::new();
    for (hash, lefts) in &on_left {
        let Some(rights) = on_right.get(hash) else {
            continue;
        };
        for &(left_file, left_start) in lefts {
            for &(right_file, right_start) in rights {
                matches.push(Run {
                    left_file,
                    right_file,
                    left_start,
                    right_start,
                    left_end: left_start + k,
                });
            }
        }
    }
    let offset = |run: &Run| run.left_start as i64 - run.right_start as i64;
    matches.sort_by_key(|run| (run.left_file, run.right_file, offset(run), run.left_start));
    let mut runs: Vec<Run> = Vec::new();
    for next in matches {
        match runs.last_mut() {
            Some(run)
                if (run.left_file, run.right_file, offset(run))
                    == (next.left_file, next.right_file, offset(&next))
                    && next.left_start <= run.left_end + k =>
            {
                run.left_end = run.left_end.max(next.left_end);
            }
            _ => runs.push(next),
        }
    }
    runs.sort_by_key(|run| {
        (
            std::cmp::Reverse(run.left_end - run.left_start),
            run.left_file,
            run.left_start,
        )
    });
    let mut kept: Vec<Run> = Vec::new();
    for run in runs {
        let length = run.left_end - run.left_start;
        let overlaps = kept.iter().any(|other| {
            let other_length = other.left_end - other.left_start;
            (other.left_file == run.left_file
                && run.left_start < other.left_end
                && other.left_start < run.left_end)
                || (other.right_file == run.right_file
                    && run.right_start < other.right_start + other_length
                    && other.right_start < run.right_start + length)
        });
        if !overlaps {
            kept.push(run);
        }
    }
    kept.iter()
        .map(|run| {
            let length = run.left_end - run.left_start;
            Fragment {
                left: span(&left.files[run.left_file], run.left_start, length),
                right: span(&right.files[run.right_file], run.right_start, length),
                tokens: length,
            }
        })
        .collect()
}

fn span(file: &FileTokens, start: usize, length: usize) -> Span {
    let last = (start + length).min(file.tokens.len()).saturating_sub(1);
    Span {
        file: file.path.clone(),
        first_line: file.tokens.get(start).map_or(0, |t| t.first_line) + 1,
        last_line: file.tokens.get(last).map_or(0, |t| t.last_line) + 1,
    }
}
