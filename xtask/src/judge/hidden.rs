//! Hidden cases: an expected output known only by salted hashes, so that the student kit can
//! judge a case without holding (or showing) its expected output.
//!
//! A `.hidden` file holds a random salt and two Argon2id hashes of the salted expected output:
//! of its canonical form under the suite's comparison (equal exactly when `compare` finds no
//! difference), and of its presentation form (equal exactly when the outputs differ at most in
//! spaces, line endings and blank lines at the end). So a hidden case still tells a wrong
//! answer from a presentation error, and says nothing more.
//!
//! Argon2id, not a fast hash: from an output one character off, a fast salted hash gave the
//! exact expected output back after a thousand guesses in about a second. Each guess now costs
//! [`COST_KIB`] KiB of memory and [`PASSES`] passes over it (tens of milliseconds), which a
//! kit run pays once or twice per hidden case and a guesser pays per guess. The inputs of
//! hidden cases are only masked: they reach the student's program anyway.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::compare::{canonical, presentation_canonical, Difference};
use crate::corpus::CompareMode;
use crate::error::Error;
use crate::files::{from_hex, to_hex};

/// What a `.hidden` file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hashes {
    pub salt: Vec<u8>,
    /// Of the canonical form under the suite's comparison.
    pub exact: [u8; 32],
    /// Of the presentation form.
    pub presentation: [u8; 32],
}

/// Memory per hash, in KiB.
pub(super) const COST_KIB: u32 = 32 * 1024;

/// Passes over that memory per hash.
pub(super) const PASSES: u32 = 2;

fn salted(salt: &[u8], text: &[u8]) -> [u8; 32] {
    use argon2::{Algorithm, Argon2, Params, Version};
    let mut out = [0u8; 32];
    // Argon2 wants a salt of 8 bytes or more; the kit's are 16, random.
    let salt: Vec<u8> = salt.iter().copied().chain(*b"gridjudg").collect();
    let hashed = Params::new(COST_KIB, PASSES, 1, Some(32)).and_then(|params| {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password_into(text, &salt, &mut out)
    });
    if hashed.is_err() {
        // Only invalid parameters fail, and these are constants: still, never a fast hash.
        let mut hasher = Sha256::new();
        hasher.update(&salt);
        hasher.update(text);
        out = hasher.finalize().into();
    }
    out
}

impl Hashes {
    /// The hashes of `expected` under `mode`, with `salt`.
    pub fn of(mode: CompareMode, salt: &[u8], expected: &[u8]) -> Hashes {
        Hashes {
            salt: salt.to_vec(),
            exact: salted(salt, &canonical(mode, expected)),
            presentation: salted(salt, &presentation_canonical(expected)),
        }
    }

    /// The text of a `.hidden` file.
    pub fn to_text(&self) -> String {
        format!(
            "salt {}\nexact {}\npresentation {}\n",
            to_hex(&self.salt),
            to_hex(&self.exact),
            to_hex(&self.presentation)
        )
    }

    /// Reads the text of the `.hidden` file at `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Hashes, Error> {
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
                .and_then(from_hex)
                .ok_or_else(|| Error::corpus(path, format!("has no valid `{name}` line")))
        };
        let hash = |name: &str| -> Result<[u8; 32], Error> {
            field(name)?
                .try_into()
                .map_err(|_| Error::corpus(path, format!("`{name}` is not a SHA-256 hash")))
        };
        Ok(Hashes {
            salt: field("salt")?,
            exact: hash("exact")?,
            presentation: hash("presentation")?,
        })
    }

    /// How `actual` differs from the hidden expected output: nothing, a difference of
    /// presentation, or of content. The difference says no more than that.
    pub fn difference(&self, mode: CompareMode, actual: &[u8]) -> Option<Difference> {
        if salted(&self.salt, &canonical(mode, actual)) == self.exact {
            return None;
        }
        let presentation_only =
            salted(&self.salt, &presentation_canonical(actual)) == self.presentation;
        Some(Difference {
            line: 0,
            column: 0,
            expected_offset: 0,
            expected_line: None,
            actual_line: None,
            cause: if presentation_only {
                "differs from the hidden expected output in spaces or line endings".into()
            } else {
                "differs from the hidden expected output".into()
            },
            presentation_only,
        })
    }
}

/// Hides (or shows again) a hidden case's input in the kit's file: XORed with a stream made
/// from the salt, so that the inputs are not readable as text in the file.
pub fn mask(salt: &[u8], bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (block, chunk) in bytes.chunks(32).enumerate() {
        let mut hasher = Sha256::new();
        hasher.update(b"gridjudge mask");
        hasher.update(salt);
        hasher.update((block as u64).to_le_bytes());
        let stream: [u8; 32] = hasher.finalize().into();
        out.extend(chunk.iter().zip(stream).map(|(b, s)| b ^ s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_tell_right_from_presentation_from_wrong() {
        let expected = b"A B\nC\n";
        let hashes = Hashes::of(CompareMode::Exact, b"salt", expected);
        let back = Hashes::parse(&hashes.to_text(), Path::new("x.hidden")).unwrap();
        assert_eq!(back, hashes);
        assert!(back.difference(CompareMode::Exact, expected).is_none());
        let crlf = back
            .difference(CompareMode::Exact, b"A B\r\nC\r\n")
            .unwrap();
        assert!(crlf.presentation_only);
        let wrong = back.difference(CompareMode::Exact, b"A B\nD\n").unwrap();
        assert!(!wrong.presentation_only);
        // Another salt, other hashes: a table of hashes of likely outputs is no use.
        assert_ne!(
            Hashes::of(CompareMode::Exact, b"other", expected).exact,
            hashes.exact
        );
    }

    /// Not a timed assertion: the cost of a guess, printed for the record (`--nocapture`).
    #[test]
    fn a_guess_costs_what_the_parameters_say() {
        let start = std::time::Instant::now();
        let n = 4;
        for k in 0..n {
            let _ = salted(b"0123456789abcdef", format!("guess {k}").as_bytes());
        }
        let each = start.elapsed() / n;
        // The fast salted hash the kit used before, for comparison.
        let start = std::time::Instant::now();
        let fast = 100_000u32;
        for k in 0..fast {
            let mut hasher = Sha256::new();
            hasher.update(b"0123456789abcdef");
            hasher.update(format!("guess {k}").as_bytes());
            std::hint::black_box(hasher.finalize());
        }
        let fast_each = start.elapsed() / fast;
        eprintln!(
            "one guess: {each:?} ({:.1} guesses per second); salted SHA-256: {fast_each:?} \
             ({:.0} per second)",
            1.0 / each.as_secs_f64(),
            1.0 / fast_each.as_secs_f64()
        );
        assert_ne!(salted(b"salt", b"a"), salted(b"salt", b"b"));
    }

    #[test]
    fn a_damaged_file_is_named() {
        let err = Hashes::parse("salt zz\n", Path::new("g/007.hidden")).unwrap_err();
        assert!(err.to_string().contains("g/007.hidden"), "{err}");
    }

    #[test]
    fn masking_twice_gives_the_input_back() {
        let input: Vec<u8> = (0..100u8).collect();
        let masked = mask(b"salt", &input);
        assert_ne!(masked, input);
        assert_eq!(mask(b"salt", &masked), input);
    }
}
