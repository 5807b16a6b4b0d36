//! The problem package format's default output validator: outputs compared token by token,
//! tokens being what whitespace separates, under the validator's flags (`case_sensitive`,
//! `space_change_sensitive`, `float_relative_tolerance`, `float_absolute_tolerance`,
//! `float_tolerance`), as the format's specification says.
//!
//! Where a tolerance is set, a token of the answer that is a floating-point number accepts any
//! number within it, however written (`0.0314` accepts `3.14e-2`); every other token must be
//! the same text (the same letters in either case, unless `case_sensitive`). The flags are
//! the corpus's ([`Tokens`]); the comparison is here.

use super::compare::Difference;
use crate::corpus::Tokens;

impl Tokens {
    /// Whether `actual` is accepted where `expected` is the answer's token.
    fn accepts(&self, expected: &[u8], actual: &[u8]) -> Result<(), String> {
        if let (true, Some(want)) = (self.has_tolerance(), float(expected)) {
            let Some(got) = float(actual) else {
                return Err(format!(
                    "`{}` is no number, where `{}` is expected",
                    show(actual),
                    show(expected)
                ));
            };
            let error = (got - want).abs();
            let within = self.absolute.is_some_and(|eps| error <= eps)
                || self.relative.is_some_and(|eps| error <= eps * want.abs())
                || got == want;
            return match within {
                true => Ok(()),
                false => Err(format!(
                    "`{}` is {error:e} away from the expected `{}`, beyond the tolerance ({})",
                    show(actual),
                    show(expected),
                    self.tolerance_words()
                )),
            };
        }
        let same = match self.case_sensitive {
            true => expected == actual,
            false => expected.eq_ignore_ascii_case(actual),
        };
        match same {
            true => Ok(()),
            false => Err(format!(
                "`{}` where `{}` is expected",
                show(actual),
                show(expected)
            )),
        }
    }

    fn tolerance_words(&self) -> String {
        let mut words = Vec::new();
        if let Some(eps) = self.absolute {
            words.push(format!("absolute {eps:e}"));
        }
        if let Some(eps) = self.relative {
            words.push(format!("relative {eps:e}"));
        }
        words.join(" or ")
    }

    /// What two outputs share exactly when they are the same under these flags, ignoring the
    /// tolerance (which no hash can judge).
    pub fn canonical(&self, text: &[u8]) -> Vec<u8> {
        if self.space_change_sensitive {
            return self.fold(text);
        }
        let words: Vec<&[u8]> = runs(text)
            .filter(|(_, run)| !is_space(run[0]))
            .map(|(_, run)| run)
            .collect();
        self.fold(&words.join(&b' '))
    }

    fn fold(&self, text: &[u8]) -> Vec<u8> {
        match self.case_sensitive {
            true => text.to_vec(),
            false => text.to_ascii_lowercase(),
        }
    }

    /// The first difference of `actual` from `expected`, if the validator would reject it.
    pub fn compare(&self, expected: &[u8], actual: &[u8]) -> Option<Difference> {
        let keep = |(_, run): &(usize, &[u8])| self.space_change_sensitive || !is_space(run[0]);
        let (mut want, mut got) = (runs(expected).filter(keep), runs(actual).filter(keep));
        let mut count = 0;
        loop {
            count += 1;
            let (cause, at_expected, at_actual) = match (want.next(), got.next()) {
                (None, None) => return None,
                (Some((e, word)), Some((a, other))) => match self.accepts(word, other) {
                    Ok(()) => continue,
                    Err(why) => (format!("token {count}: {why}"), e, a),
                },
                (Some((e, word)), None) => (
                    format!(
                        "the output ends where token {count}, `{}`, is expected",
                        show(word)
                    ),
                    e,
                    actual.len(),
                ),
                (None, Some((a, other))) => (
                    format!("more output than expected, from `{}` on", show(other)),
                    expected.len(),
                    a,
                ),
            };
            let presentation_only = self.space_change_sensitive
                && Tokens {
                    space_change_sensitive: false,
                    ..*self
                }
                .compare(expected, actual)
                .is_none();
            return Some(difference(
                expected,
                actual,
                at_expected,
                at_actual,
                cause,
                presentation_only,
            ));
        }
    }
}

/// A difference at byte `at_expected` of `expected` and `at_actual` of `actual`, told where the
/// program's output has it.
fn difference(
    expected: &[u8],
    actual: &[u8],
    at_expected: usize,
    at_actual: usize,
    cause: String,
    presentation_only: bool,
) -> Difference {
    let line_of = |text: &[u8], at: usize| -> Option<String> {
        let start = text[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let end = text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| at + i);
        (start < text.len()).then(|| String::from_utf8_lossy(&text[start..end]).into_owned())
    };
    let line_start = actual[..at_actual]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Difference {
        line: actual[..at_actual].iter().filter(|&&b| b == b'\n').count() + 1,
        column: String::from_utf8_lossy(&actual[line_start..at_actual])
            .chars()
            .count()
            + 1,
        expected_offset: at_expected,
        expected_line: line_of(expected, at_expected),
        actual_line: line_of(actual, at_actual),
        cause,
        presentation_only,
    }
}

fn is_space(byte: u8) -> bool {
    byte.is_ascii_whitespace()
}

/// The text as runs of whitespace and of anything else, each with its offset.
fn runs(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = text.get(at..).filter(|rest| !rest.is_empty())?;
        let space = is_space(rest[0]);
        let len = rest
            .iter()
            .position(|&b| is_space(b) != space)
            .unwrap_or(rest.len());
        let run = (at, &rest[..len]);
        at += len;
        Some(run)
    })
}

/// A token that is a finite floating-point number, as the validator reads one.
fn float(token: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(token).ok()?;
    // Only digits, signs, a point and an exponent: not `inf` or `nan` spelled out.
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A token as a report shows it: its first 40 characters.
fn show(token: &[u8]) -> String {
    let text = String::from_utf8_lossy(token);
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(words: &str) -> Tokens {
        let words: Vec<String> = words.split_whitespace().map(String::from).collect();
        Tokens::parse(&words).unwrap()
    }

    #[test]
    fn whitespace_and_case_do_not_count_by_default() {
        let plain = flags("");
        assert!(plain
            .compare(b"Hello World!\n", b"  hello\n\tWORLD!")
            .is_none());
        let wrong = plain.compare(b"1 2 3\n4\n", b"1 2 3\n5\n").unwrap();
        assert_eq!((wrong.line, wrong.column), (2, 1));
        assert_eq!(wrong.expected_offset, 6);
        assert!(wrong.cause.contains("token 4") && wrong.cause.contains("`5`"));
        assert!(plain.compare(b"1 2", b"1").unwrap().cause.contains("ends"));
        assert!(plain
            .compare(b"1", b"1 2")
            .unwrap()
            .cause
            .contains("more output"));
    }

    #[test]
    fn the_sensitive_flags_make_case_and_spacing_count() {
        assert!(flags("case_sensitive").compare(b"Yes", b"yes").is_some());
        let spaced = flags("space_change_sensitive");
        let difference = spaced.compare(b"1 2\n", b"1  2\n").unwrap();
        assert!(difference.presentation_only);
        assert!(spaced.compare(b"1 2\n", b"1 2\n").is_none());
        assert!(spaced.compare(b"1 2\n", b"1 2").is_some());
    }

    #[test]
    fn a_tolerance_accepts_any_spelling_of_a_number_within_it() {
        let near = flags("float_tolerance 1e-6");
        assert!(near.compare(b"0.0314\n", b"3.14000000e-2\n").is_none());
        assert!(near.compare(b"1000000\n", b"1000000.5\n").is_none()); // relative
        assert!(near.compare(b"0.5\n", b"0.5001\n").is_some());
        assert!(near
            .compare(b"0.5\n", b"half\n")
            .unwrap()
            .cause
            .contains("no number"));
        // Words stay words, and an absolute tolerance alone is only absolute.
        assert!(near.compare(b"abc 1\n", b"ABC 1.0000001\n").is_none());
        let absolute = flags("float_absolute_tolerance 0.01");
        assert!(absolute.compare(b"1000\n", b"1000.5\n").is_some());
        assert!(absolute.compare(b"1000\n", b"1000.005\n").is_none());
        // Without a tolerance, numbers are texts: 2.0e2 is not 200.
        assert!(flags("").compare(b"200\n", b"2.0e2\n").is_some());
    }

    #[test]
    fn the_canonical_form_is_equal_exactly_for_accepted_outputs() {
        let plain = flags("");
        assert_eq!(plain.canonical(b"A  b\n"), plain.canonical(b"a b"));
        assert_ne!(plain.canonical(b"a b"), plain.canonical(b"ab"));
        let strict = flags("case_sensitive space_change_sensitive");
        assert_ne!(strict.canonical(b"a b"), strict.canonical(b"a  b"));
    }
}
