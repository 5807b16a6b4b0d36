//! Comparing a target's output with the expected output: the verdict's raw material.
//!
//! Finds the first difference (line, column, byte offset in the expected output) and names its
//! cause in words a student understands ("a line lacks its trailing space"). A difference is a
//! presentation error when the texts are equal once line endings, spaces and tabs at line ends,
//! and blank lines at the very end are set aside.

use crate::corpus::CompareMode;

/// Where and how two outputs first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// 1-based line of the first difference.
    pub line: usize,
    /// 1-based column (in characters) of the first difference.
    pub column: usize,
    /// Byte offset in the expected output where the difference starts.
    pub expected_offset: usize,
    /// The expected line at the difference, without its line ending; `None` past the end.
    pub expected_line: Option<String>,
    /// The actual line at the difference, without its line ending; `None` past the end.
    pub actual_line: Option<String>,
    /// What is wrong, in a few words.
    pub cause: String,
    /// Only spaces, line endings or the final newline differ.
    pub presentation_only: bool,
}

impl Difference {
    /// The byte of the expected output that tells what is wrong: where the difference starts,
    /// or, where the program's line stops short before spaces (which may not count), the
    /// expected text after them.
    pub fn telling_offset(&self) -> usize {
        let (Some(expected), Some(actual)) = (&self.expected_line, &self.actual_line) else {
            return self.expected_offset;
        };
        let (expected, actual) = (expected.as_bytes(), actual.as_bytes());
        if !expected.starts_with(actual) {
            return self.expected_offset;
        }
        let spaces = expected[actual.len()..]
            .iter()
            .take_while(|&&byte| byte == b' ')
            .count();
        self.expected_offset + spaces
    }
}

/// The first difference between `expected` and `actual` under `mode`, if any.
/// A package's own validator (`Validator`) is not run here: its difference comes from
/// [`crate::package`], and this compares as `Exact`.
pub(super) fn compare(mode: CompareMode, expected: &[u8], actual: &[u8]) -> Option<Difference> {
    if let CompareMode::Tokens(tokens) = mode {
        return tokens.compare(expected, actual);
    }
    let same = |e: &[u8], a: &[u8]| match mode {
        CompareMode::IgnoreTrailingSpaces => {
            e.ends_with(b"\n") == a.ends_with(b"\n") && trim_spaces(e) == trim_spaces(a)
        }
        _ => e == a,
    };
    // Line by line, stopping at the first difference: an output of a million lines costs no
    // more than its lines up to there.
    let (mut expected_lines, mut actual_lines) = (lines(expected), lines(actual));
    let (mut index, mut line_start) = (0, 0);
    let (expected_line, actual_line) = loop {
        match (expected_lines.next(), actual_lines.next()) {
            (None, None) => return None,
            (Some(e), Some(a)) if same(e, a) => {
                index += 1;
                line_start += e.len();
            }
            pair => break pair,
        }
    };
    let common = match (expected_line, actual_line) {
        (Some(e), Some(a)) => e.iter().zip(a).take_while(|(x, y)| x == y).count(),
        _ => 0,
    };
    let column = actual_line.or(expected_line).map_or(1, |line| {
        String::from_utf8_lossy(&line[..common.min(line.len())])
            .chars()
            .count()
            + 1
    });
    Some(Difference {
        line: index + 1,
        column,
        expected_offset: line_start + common,
        expected_line: expected_line.map(content),
        actual_line: actual_line.map(content),
        cause: cause(
            expected_line,
            actual_line,
            actual_lines.next(),
            expected_lines.next(),
        ),
        presentation_only: same_when_normalized(expected, actual),
    })
}

/// A line without its `\n`, as text.
fn content(line: &[u8]) -> String {
    // A line of megabytes is kept as its first kilobytes and a count of the rest: reports cut
    // it there anyway, and a run keeps every failing case's lines.
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let limit = super::diff::MAX_LINE_BYTES;
    if line.len() <= limit {
        return String::from_utf8_lossy(line).into_owned();
    }
    let text = String::from_utf8_lossy(&line[..limit + 4]);
    let (part, _) = super::diff::split_at_most(&text, limit);
    format!("{part} … {} more bytes", line.len() - part.len())
}

/// The form of `text` that two outputs share exactly when `compare` finds no difference
/// between them under `mode`: what a hidden case's expected output is hashed in.
pub(super) fn canonical(mode: CompareMode, text: &[u8]) -> Vec<u8> {
    match mode {
        CompareMode::Exact | CompareMode::Validator => text.to_vec(),
        CompareMode::Tokens(tokens) => tokens.canonical(text),
        CompareMode::IgnoreTrailingSpaces => {
            // Each line as its length, its text without trailing spaces and whether a newline
            // ends it: a last line of spaces alone still counts as a line.
            let mut out = Vec::with_capacity(text.len() + 16);
            for line in lines(text) {
                let trimmed = trim_spaces(line);
                out.extend_from_slice(&(trimmed.len() as u64).to_le_bytes());
                out.extend_from_slice(trimmed);
                out.push(u8::from(line.ends_with(b"\n")));
            }
            out
        }
    }
}

/// The form of `text` that two outputs share exactly when they differ at most in
/// presentation (line endings, spaces and tabs at line ends, blank lines at the end).
pub(super) fn presentation_canonical(text: &[u8]) -> Vec<u8> {
    let mut kept: Vec<&[u8]> = lines(text)
        .map(|line| normalized_line(line.strip_suffix(b"\n").unwrap_or(line)))
        .collect();
    while kept.last().is_some_and(|line| line.is_empty()) {
        kept.pop();
    }
    kept.join(&b'\n')
}

/// A line (without its `\n`) without the `\r`, spaces and tabs at its end.
fn normalized_line(line: &[u8]) -> &[u8] {
    let mut line = line;
    while let [rest @ .., b' ' | b'\t' | b'\r'] = line {
        line = rest;
    }
    line
}

/// A line without its `\n` and the spaces before it.
fn trim_spaces(line: &[u8]) -> &[u8] {
    let mut line = line.strip_suffix(b"\n").unwrap_or(line);
    while let [rest @ .., b' '] = line {
        line = rest;
    }
    line
}

/// Whether the texts are equal once line endings are unified, spaces and tabs at line ends
/// dropped, and blank lines at the very end removed. Line by line, stopping at the first line
/// that differs: a flood of megabytes costs no more than its first line. (Past its end, a text
/// reads as blank lines, so trailing blank lines on either side compare equal.)
fn same_when_normalized(expected: &[u8], actual: &[u8]) -> bool {
    let line = normalized_line;
    let (mut expected, mut actual) = (lines(expected), lines(actual));
    loop {
        match (expected.next(), actual.next()) {
            (None, None) => return true,
            (e, a) => {
                let (e, a) = (e.unwrap_or_default(), a.unwrap_or_default());
                if line(e.strip_suffix(b"\n").unwrap_or(e))
                    != line(a.strip_suffix(b"\n").unwrap_or(a))
                {
                    return false;
                }
            }
        }
    }
}

/// The lines of `text`, each with its `\n` (the last perhaps without), found with memchr.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |at| at + 1);
        let (line, after) = rest.split_at(end);
        rest = after;
        Some(line)
    })
}

/// What a difference is, from the first expected and actual lines that differ, and the line
/// after each (a line the program added shows as the expected line one line later; a line it
/// left out, as the actual line one line early).
fn cause(
    expected: Option<&[u8]>,
    actual: Option<&[u8]>,
    next_actual: Option<&[u8]>,
    next_expected: Option<&[u8]>,
) -> String {
    let (Some(e), Some(a)) = (expected, actual) else {
        return if actual.is_none() {
            "the output ends before the expected end".into()
        } else {
            "extra output after the expected end".into()
        };
    };
    let (e_text, a_text) = (
        e.strip_suffix(b"\n").unwrap_or(e),
        a.strip_suffix(b"\n").unwrap_or(a),
    );
    if a.ends_with(b"\r\n") && a_text.strip_suffix(b"\r") == Some(e_text) {
        return "lines end in CRLF (\\r\\n) instead of \\n".into();
    }
    if e_text == a_text {
        return if e.ends_with(b"\n") {
            "the final newline is missing".into()
        } else {
            "a newline is printed after the expected end".into()
        };
    }
    if trim_spaces(e) == trim_spaces(a) {
        return if e_text.len() > a_text.len() {
            "a line lacks its trailing space".into()
        } else {
            "a line has extra trailing spaces".into()
        };
    }
    if e_text.is_empty() {
        // Missing only where the program goes on with the line after the blank one.
        let next = next_expected.map(|n| n.strip_suffix(b"\n").unwrap_or(n));
        return if next == Some(a_text) {
            "a blank line is missing".into()
        } else {
            "a line stands where a blank line is expected".into()
        };
    }
    if a_text.is_empty() {
        return "an extra blank line".into();
    }
    if a_text.len() > e_text.len() && a_text.ends_with(e_text) {
        return "extra text before the expected line (a prompt?)".into();
    }
    if next_actual.map(|n| n.strip_suffix(b"\n").unwrap_or(n)) == Some(e_text) {
        // A line of the expected line's own form (a row of the same field or table: as long,
        // and the same first and last byte) is no prompt: a row printed once too often.
        return if same_form(a_text, e_text) {
            "an extra line before the expected one".into()
        } else {
            "an extra line before the expected one (a prompt on a line of its own?)".into()
        };
    }
    if let Some(kind) = number_difference(e_text, a_text) {
        return kind;
    }
    "a line differs".into()
}

/// Whether two lines have one form: as long, beginning and ending with the same byte.
fn same_form(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.first() == b.first() && a.last() == b.last()
}

/// Where the two lines first differ inside a number in both: how the number is off. Looks only
/// around the first differing byte, so a line of megabytes costs what its common prefix does.
fn number_difference(expected: &[u8], actual: &[u8]) -> Option<String> {
    let common = expected
        .iter()
        .zip(actual)
        .take_while(|(e, a)| e == a)
        .count();
    let is_number = |b: &u8| b.is_ascii_digit() || *b == b'-';
    // The number the difference falls in starts at the last non-number byte before it.
    let start = expected[..common]
        .iter()
        .rposition(|b| !is_number(b))
        .map_or(0, |at| at + 1);
    let number_at = |line: &[u8]| -> Option<i64> {
        let rest = &line[start.min(line.len())..];
        let end = rest
            .iter()
            .position(|b| !is_number(b))
            .unwrap_or(rest.len());
        std::str::from_utf8(&rest[..end.min(24)]).ok()?.parse().ok()
    };
    let (e, a) = (number_at(expected)?, number_at(actual)?);
    // The same number on both sides: the lines differ after it, not in it.
    Some(match a.checked_sub(e)? {
        0 => return None,
        1 => "a number is one too high".into(),
        -1 => "a number is one too low".into(),
        _ => "a number differs".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_line_is_missing_only_where_the_next_line_comes_early() {
        let said = |expected: &[u8], actual: &[u8]| {
            compare(CompareMode::Exact, expected, actual)
                .map(|d| d.cause)
                .unwrap_or_default()
        };
        assert_eq!(said(b"A\n\nB\n", b"A\nB\n"), "a blank line is missing");
        assert_eq!(
            said(b"A\n\nB\n", b"A\nC\nB\n"),
            "a line stands where a blank line is expected"
        );
    }

    #[test]
    fn numbers_off_by_one_are_named() {
        let cause = |e: &str, a: &str| cause(Some(e.as_bytes()), Some(a.as_bytes()), None, None);
        assert_eq!(
            cause(" 1   3  12\n", " 1   4  12\n"),
            "a number is one too high"
        );
        assert_eq!(
            cause(" 1   3  12\n", " 1   3  11\n"),
            "a number is one too low"
        );
        assert_eq!(cause("line 10 of\n", "line 19 of\n"), "a number differs");
        assert_eq!(cause("|[X]|\n", "|[Y]|\n"), "a line differs");
        assert_eq!(
            cause(" 1 ..B\n", " 1"),
            "a line differs",
            "the number is the same"
        );
        assert_eq!(
            cause("Enter a column: \n", "> Enter a column: \n"),
            "extra text before the expected line (a prompt?)"
        );
        // A prompt on a line of its own: the expected line comes one line later.
        let prompted = compare(
            CompareMode::Exact,
            b"RED\n. . .\n",
            b"RED\nYour move:\n. . .\n",
        )
        .unwrap();
        assert_eq!(
            prompted.cause,
            "an extra line before the expected one (a prompt on a line of its own?)"
        );
        assert_eq!(prompted.line, 2);
        // A row of the field printed once too often is no prompt, though the expected row
        // comes one line later.
        let row = compare(
            CompareMode::Exact,
            b"|      |\n| X    |\n",
            b"|      |\n|      |\n| X    |\n",
        )
        .unwrap();
        assert_eq!(row.cause, "an extra line before the expected one");
    }

    #[test]
    fn the_canonical_forms_agree_with_compare() {
        // Every text of up to 5 bytes over the bytes that matter, against every other: equal
        // canonical forms exactly when `compare` finds no difference, and equal presentation
        // forms exactly when the difference is one of presentation (or there is none).
        let alphabet = [b'a', b' ', b'\t', b'\r', b'\n'];
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..=4usize {
            for n in 0..alphabet.len().pow(len as u32) {
                let mut text = Vec::new();
                let mut k = n;
                for _ in 0..len {
                    text.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                texts.push(text);
            }
        }
        for mode in [CompareMode::Exact, CompareMode::IgnoreTrailingSpaces] {
            for e in &texts {
                for a in &texts {
                    let difference = compare(mode, e, a);
                    assert_eq!(
                        canonical(mode, e) == canonical(mode, a),
                        difference.is_none(),
                        "{mode:?} {e:?} {a:?}"
                    );
                    assert_eq!(
                        presentation_canonical(e) == presentation_canonical(a),
                        difference.is_none_or(|d| d.presentation_only),
                        "{mode:?} {e:?} {a:?}"
                    );
                }
            }
        }
    }

    fn check(expected: &str, actual: &str, want: Option<(usize, usize, &str, bool)>) {
        let got = compare(CompareMode::Exact, expected.as_bytes(), actual.as_bytes())
            .map(|d| (d.line, d.column, d.cause.clone(), d.presentation_only));
        assert_eq!(
            got,
            want.map(|(l, c, cause, p)| (l, c, cause.to_string(), p))
        );
    }

    #[test]
    fn finds_and_names_the_first_difference() {
        check("a\nb\n", "a\nb\n", None);
        check(
            "a\n -- \n",
            "a\n --\n",
            Some((2, 4, "a line lacks its trailing space", true)),
        );
        check(
            "a\nb\n",
            "a\r\nb\r\n",
            Some((1, 2, "lines end in CRLF (\\r\\n) instead of \\n", true)),
        );
        check(
            "a\nb\n",
            "a\nb",
            Some((2, 2, "the final newline is missing", true)),
        );
        check(
            "a\nxyz\n",
            "a\nxYz\n",
            Some((2, 2, "a line differs", false)),
        );
        check(
            "a\nb\n",
            "a\n",
            Some((2, 1, "the output ends before the expected end", false)),
        );
        check(
            "a\n",
            "a\nb\n",
            Some((2, 1, "extra output after the expected end", false)),
        );
    }

    #[test]
    fn ignoring_trailing_spaces_still_sees_everything_else() {
        let mode = CompareMode::IgnoreTrailingSpaces;
        assert_eq!(compare(mode, b" 1  ..  3 \n", b" 1  ..  3\n"), None);
        assert!(compare(mode, b" 1  ..  3\n", b" 1  .. 3\n").is_some());
        assert!(compare(mode, b"x\n", b"x").is_some());
        assert!(compare(mode, b"x\n", b"x\r\n").is_some());
    }

    #[test]
    fn the_offset_points_into_the_expected_output() {
        let difference = compare(CompareMode::Exact, b"ab\ncd\n", b"ab\ncX\n").unwrap();
        assert_eq!(difference.expected_offset, 4);
    }
}
