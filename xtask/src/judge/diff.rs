//! Rendering the difference between the expected and the actual output for a person.
//!
//! Lines carry their numbers on both sides; unchanged runs beyond three lines of context are
//! elided; inside changed lines the differing characters are emphasised, and invisible ones
//! there are made visible (`·` space, `→` tab, `␍` carriage return), with a note where a side
//! lacks its final newline. Colour is added as ANSI codes: print through `anstream`, which drops
//! them when stdout is not a terminal or NO_COLOR is set.

use std::fmt::Write;

use anstyle::{AnsiColor, Effects, Style};
use similar::{ChangeTag, TextDiff};

/// At most this many diff lines are shown for one case.
const MAX_LINES: usize = 60;

/// A shown line longer than this many bytes is cut, with a note of how much is left out.
pub(super) const MAX_LINE_BYTES: usize = 1000;

const REMOVED: Style = AnsiColor::Red.on_default();
const ADDED: Style = AnsiColor::Green.on_default();
const DIM: Style = Style::new().effects(Effects::DIMMED);

/// How much of each side around the first difference a diff looks at.
const WINDOW: usize = 64 << 10;

/// A line diff of `expected` against `actual`, indented by `indent`.
pub fn render(expected: &[u8], actual: &[u8], indent: &str) -> String {
    render_around(expected, actual, 1, indent)
}

/// The byte offset where line `index` (0-based) of `text` starts (its end if it has fewer).
fn line_start(text: &[u8], index: usize) -> usize {
    if index == 0 {
        return 0;
    }
    text.iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(index - 1)
        .map_or(text.len(), |(at, _)| at + 1)
}

/// At most [`WINDOW`] bytes of `text` from `start`, ending at a line end, each line longer
/// than [`MAX_LINE_BYTES`] cut with a note of how much is left out: what a diff of a flood or
/// of one enormous line can look at without taking seconds and gigabytes.
fn window(text: &[u8], start: usize) -> String {
    let end = (start + WINDOW).min(text.len());
    let mut slice = &text[start.min(end)..end];
    if end < text.len() {
        if let Some(last) = slice.iter().rposition(|&b| b == b'\n') {
            slice = &slice[..=last];
        }
    }
    let text = String::from_utf8_lossy(slice);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let (part, rest) = split_at_most(body, MAX_LINE_BYTES);
        out.push_str(part);
        if !rest.is_empty() {
            out.push_str(&format!(" … {} more bytes", rest.len()));
        }
        out.push_str(newline);
    }
    out
}

/// A line diff of `expected` against `actual` around their first difference, on `line`
/// (1-based): both sides are looked at from a few lines before it, in windows of bounded
/// size, with line numbers as in the whole outputs.
pub(super) fn render_around(expected: &[u8], actual: &[u8], line: usize, indent: &str) -> String {
    let first = line.saturating_sub(4);
    let expected = window(expected, line_start(expected, first));
    let actual = window(actual, line_start(actual, first));
    let diff = TextDiff::configure().diff_lines(expected.as_str(), actual.as_str());
    let mut out = String::new();
    let _ = writeln!(out, "{indent}{REMOVED}--- expected{REMOVED:#}");
    let _ = writeln!(out, "{indent}{ADDED}+++ got{ADDED:#}");
    let mut n_lines = 0;
    for (group_idx, group) in diff.grouped_ops(3).iter().enumerate() {
        if group_idx > 0 {
            let _ = writeln!(out, "{indent}{DIM}   ⋮{DIM:#}");
        }
        for op in group {
            for change in diff.iter_inline_changes(op) {
                if n_lines == MAX_LINES {
                    let _ = writeln!(
                        out,
                        "{indent}{DIM}… (diff cut after {MAX_LINES} lines){DIM:#}"
                    );
                    return out;
                }
                n_lines += 1;
                let (sign, style) = match change.tag() {
                    ChangeTag::Delete => ('-', REMOVED),
                    ChangeTag::Insert => ('+', ADDED),
                    ChangeTag::Equal => (' ', Style::new()),
                };
                let number = |index: Option<usize>| {
                    index.map_or("    ".into(), |i| format!("{:>4}", i + first + 1))
                };
                let _ = write!(
                    out,
                    "{indent}{DIM}{} {}{DIM:#} {style}{sign}",
                    number(change.old_index()),
                    number(change.new_index())
                );
                let mut shown = 0;
                let mut left_out = 0;
                for (emphasised, text) in change.iter_strings_lossy() {
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    if shown >= MAX_LINE_BYTES {
                        left_out += text.len();
                        continue;
                    }
                    let (part, rest) = split_at_most(text, MAX_LINE_BYTES - shown);
                    shown += part.len();
                    left_out += rest.len();
                    if emphasised {
                        let strong = style.effects(Effects::BOLD | Effects::UNDERLINE);
                        let _ = write!(out, "{style:#}{strong}{}{strong:#}{style}", visible(part));
                    } else {
                        out.push_str(&printable(part));
                    }
                }
                if left_out > 0 {
                    let _ = write!(out, "{style:#}{DIM} … {left_out} more bytes{DIM:#}{style}");
                }
                let _ = write!(out, "{style:#}");
                if change.missing_newline() {
                    let _ = write!(out, " {DIM}(no newline at the end){DIM:#}");
                }
                out.push('\n');
            }
        }
    }
    out
}

/// Invisible characters made visible, for the emphasised parts of a changed line: spaces,
/// tabs and carriage returns as symbols, other control characters as [`printable`] shows them.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ' ' => "·".to_string(),
            '\t' => "→".to_string(),
            '\r' => "␍".to_string(),
            c => printable_char(c),
        })
        .collect()
}

/// Text a target printed, safe to show on a terminal: control characters (escape sequences,
/// bells, backspaces, C1 codes) shown as symbols or `\u{..}`, never sent raw.
pub(super) fn printable(text: &str) -> String {
    text.chars().map(printable_char).collect()
}

fn printable_char(c: char) -> String {
    match c {
        '\t' => "\t".to_string(),
        // C0 controls have their own symbols in the Control Pictures block (␛ for escape).
        c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('?').to_string(),
        '\u{7f}' => "␡".to_string(),
        c if ('\u{80}'..='\u{9f}').contains(&c) => format!("\\u{{{:x}}}", c as u32),
        c => c.to_string(),
    }
}

/// `text` cut to at most `limit` bytes at a character boundary, and the rest.
pub(super) fn split_at_most(text: &str, limit: usize) -> (&str, &str) {
    if text.len() <= limit {
        return (text, "");
    }
    let mut at = limit;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text.split_at(at)
}

/// One line of a target's text for a report: printable, and cut past [`MAX_LINE_BYTES`] with
/// a note of how much is left out.
pub fn line(text: &str) -> String {
    let (part, rest) = split_at_most(text, MAX_LINE_BYTES);
    let mut out = printable(part);
    if !rest.is_empty() {
        out += &format!(" … {} more bytes", rest.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(expected: &str, actual: &str) -> String {
        let rendered = render(expected.as_bytes(), actual.as_bytes(), "");
        anstream::adapter::strip_str(&rendered).to_string()
    }

    #[test]
    fn a_missing_trailing_space_is_visible_and_numbered() {
        let text = plain("a\n --- \nc\n", "a\n ---\nc\n");
        assert!(text.contains("   2      - ---·"), "{text}");
        assert!(text.contains("        2 + ---"), "{text}");
    }

    #[test]
    fn long_unchanged_runs_are_elided() {
        let expected: String = (0..40).map(|i| format!("{i}\n")).collect();
        let actual = expected.replace("5\n", "five\n").replace("35\n", "x\n");
        let text = plain(&expected, &actual);
        assert!(text.contains('⋮'), "{text}");
        assert!(!text.contains(" 20\n"), "{text}");
    }

    #[test]
    fn control_characters_never_reach_the_terminal_and_long_lines_are_cut() {
        let text = plain("ok\n", "\x1b[2J\x07\u{9b}31m\n");
        assert!(
            !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\u{9b}'),
            "{text}"
        );
        assert!(text.contains('␛') && text.contains("\\u{9b}"), "{text}");
        let long = "x".repeat(5000);
        let shown = line(&long);
        assert!(shown.ends_with(" … 4000 more bytes"), "{}", &shown[990..]);
        let text = plain("a\n", &format!("{long}\n"));
        assert!(
            text.contains("more bytes") && text.len() < 2000,
            "{}",
            text.len()
        );
    }

    #[test]
    fn a_missing_final_newline_is_noted() {
        let text = plain("a\nb\n", "a\nb");
        assert!(text.contains("(no newline at the end)"), "{text}");
    }
}
