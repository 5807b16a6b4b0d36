//! A command line of the game, parsed for a field of a given width.

use super::COLORS;
use crate::mutant::{on, Mutant};

/// One command line of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// An empty line: time passes.
    Tick,
    /// `F <col> <a> <b> <c>`, with a 0-based column and the jewels top first.
    Create {
        col: usize,
        jewels: [u8; 3],
    },
    Rotate,
    Left,
    Right,
    Quit,
}

impl Command {
    /// Parses a command line for a field `cols` wide.
    pub fn parse(line: &[u8], cols: usize) -> Result<Command, String> {
        match line {
            b"" => return Ok(Command::Tick),
            b"R" => return Ok(Command::Rotate),
            b"<" => return Ok(Command::Left),
            b">" => return Ok(Command::Right),
            b"Q" => return Ok(Command::Quit),
            _ => {}
        }
        let words: Vec<&[u8]> = line.split(|&byte| byte == b' ').collect();
        if words.len() != 5 || words[0] != b"F" {
            return Err(format!(
                "expected an empty line, `F <col> <a> <b> <c>`, `R`, `<`, `>` or `Q`, found `{}`",
                String::from_utf8_lossy(line)
            ));
        }
        let col_word = match words[1] {
            [first, _, ..] if on(Mutant::ColumnsFirstDigitColumn) => std::slice::from_ref(first),
            word => word,
        };
        let col = parse_number(col_word)
            .filter(|col| (1..=cols).contains(col))
            .ok_or_else(|| {
                format!(
                    "`{}` is not a column number from 1 to {cols}",
                    String::from_utf8_lossy(words[1])
                )
            })?;
        let mut jewels = [0u8; 3];
        for (jewel, word) in jewels.iter_mut().zip(&words[2..]) {
            match word {
                [color] if COLORS.contains(color) => *jewel = *color,
                _ => {
                    return Err(format!(
                        "`{}` is not a jewel colour (S, T, V, W, X, Y or Z)",
                        String::from_utf8_lossy(word)
                    ))
                }
            }
        }
        Ok(Command::Create {
            col: if on(Mutant::ColumnsColumnOffByOne) {
                col % cols
            } else {
                col - 1
            },
            jewels,
        })
    }
}

/// Parses a count made of ASCII digits only.
pub(super) fn parse_number(word: &[u8]) -> Option<usize> {
    if word.is_empty() || !word.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(word).ok()?.parse().ok()
}
