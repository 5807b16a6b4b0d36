//! Fingerprints by winnowing (Schleimer, Wilkerson and Aiken, as MOSS and Dolos use it): every
//! run of `k` consecutive tokens is hashed, and of every `window` consecutive hashes the
//! smallest is kept (the rightmost of equals, once). Two files that share a run of at least
//! `k + window - 1` tokens share at least one fingerprint; runs shorter than `k` are never seen.

use crate::tokens::{fnv1a, Token};

/// One kept hash and the token it starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    pub hash: u64,
    /// Index of the first token of its run.
    pub start: usize,
}

/// The hash of every run of `k` tokens, in order: the run starting at token `i` is entry `i`.
pub fn kgrams(tokens: &[Token], k: usize) -> Vec<u64> {
    if k == 0 || tokens.len() < k {
        return Vec::new();
    }
    tokens
        .windows(k)
        .map(|run| {
            let mut bytes = Vec::with_capacity(8 * k);
            for token in run {
                bytes.extend_from_slice(&token.kind.to_le_bytes());
            }
            fnv1a(&bytes)
        })
        .collect()
}

/// The winnowed fingerprints of `hashes` with a window of `window` hashes (at least 1: every
/// hash kept). A text shorter than one window keeps its smallest hash.
pub fn winnow(hashes: &[u64], window: usize) -> Vec<Fingerprint> {
    let window = window.max(1);
    let mut kept: Vec<Fingerprint> = Vec::new();
    if hashes.is_empty() {
        return kept;
    }
    let last_start = hashes.len().saturating_sub(window);
    for start in 0..=last_start {
        let end = (start + window).min(hashes.len());
        let mut best = start;
        for (i, hash) in hashes.iter().enumerate().take(end).skip(start) {
            if *hash <= hashes[best] {
                best = i;
            }
        }
        if kept.last().map(|f| f.start) != Some(best) {
            kept.push(Fingerprint {
                hash: hashes[best],
                start: best,
            });
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(kinds: &[u64]) -> Vec<Token> {
        kinds
            .iter()
            .map(|&kind| Token {
                kind,
                first_line: 0,
                last_line: 0,
            })
            .collect()
    }

    #[test]
    fn a_kgram_hash_depends_on_its_tokens_only() {
        let a = kgrams(&tokens(&[1, 2, 3, 4, 1, 2, 3]), 3);
        assert_eq!(a.len(), 5);
        assert_eq!(a[0], a[4]);
        assert_ne!(a[0], a[1]);
        assert!(kgrams(&tokens(&[1, 2]), 3).is_empty());
    }

    #[test]
    fn winnowing_keeps_the_minimum_of_every_window_once() {
        let hashes = [
            77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98,
        ];
        let kept: Vec<(u64, usize)> = winnow(&hashes, 4)
            .iter()
            .map(|f| (f.hash, f.start))
            .collect();
        // The example of the winnowing paper (rightmost minimum of each window).
        assert_eq!(kept, vec![(17, 3), (17, 6), (8, 8), (39, 11), (17, 15)]);
    }

    #[test]
    fn a_shared_run_of_k_plus_window_minus_one_tokens_shares_a_fingerprint() {
        let shared: Vec<u64> = (100..140).collect();
        let mut a: Vec<u64> = (0..50).collect();
        a.extend(&shared);
        let mut b: Vec<u64> = (200..230).collect();
        b.extend(&shared);
        b.extend(300..310);
        let (k, window) = (10, 8);
        let fa = winnow(&kgrams(&tokens(&a), k), window);
        let fb = winnow(&kgrams(&tokens(&b), k), window);
        assert!(fa.iter().any(|x| fb.iter().any(|y| x.hash == y.hash)));
    }
}
