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

const REMOVED: Style = AnsiColor::Red.on_default();
const ADDED: Style = AnsiColor::Green.on_default();
const DIM: Style = Style::new().effects(Effects::DIMMED);

/// A line diff of `expected` against `actual`, indented by `indent`.
pub fn render(expected: &[u8], actual: &[u8], indent: &str) -> String {
    let expected = String::from_utf8_lossy(expected);
    let actual = String::from_utf8_lossy(actual);
    let diff = TextDiff::configure().diff_lines(expected.as_ref(), actual.as_ref());
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
                let number =
                    |index: Option<usize>| index.map_or("    ".into(), |i| format!("{:>4}", i + 1));
                let _ = write!(
                    out,
                    "{indent}{DIM}{} {}{DIM:#} {style}{sign}",
                    number(change.old_index()),
                    number(change.new_index())
                );
                for (emphasised, text) in change.iter_strings_lossy() {
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    if emphasised {
                        let strong = style.effects(Effects::BOLD | Effects::UNDERLINE);
                        let _ = write!(out, "{style:#}{strong}{}{strong:#}{style}", visible(text));
                    } else {
                        out.push_str(text);
                    }
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

/// Invisible characters made visible, for the emphasised parts of a changed line.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ' ' => '·',
            '\t' => '→',
            '\r' => '␍',
            c => c,
        })
        .collect()
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
    fn a_missing_final_newline_is_noted() {
        let text = plain("a\nb\n", "a\nb");
        assert!(text.contains("(no newline at the end)"), "{text}");
    }
}
