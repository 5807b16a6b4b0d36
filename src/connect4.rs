//! Connect Four on 5 rows x 8 columns: BYU CS 110, Project 4 (`connect4.md`).
//!
//! Each turn prints the board and a prompt without a newline; each input line is one move or an
//! invalid input. A valid move is exactly one character `0`..`7` naming a column that is not
//! full. The game ends on four in a row in any direction or a full grid, with no winner message.

use crate::mutant::{on, Mutant};
use crate::program::{Flow, InputError, Program, Unspecified};
use crate::rule::{Command, Rule, Spans};

/// The rules of `connect4.md` that decide parts of the output, for the trace (see
/// [`crate::rule`]).
pub mod rules {
    crate::rules! {
        BLANK = "blank-line", "the board's layout and the prompt", "each turn begins with a blank line";
        HEADER = "header", "the board's layout and the prompt", "the column header `01234567` above and below the grid";
        GRID = "grid", "moves and turns", "a marker goes to the lowest open position of the chosen column";
        X_FIRST = "x-first", "moves and turns", "X moves first";
        TURNS = "turns", "moves and turns", "the players take turns until four in a row or a full grid";
        PROMPT = "prompt", "the board's layout and the prompt", "the prompt `Enter a column: ` with no newline";
        INVALID = "invalid", "invalid input", "input that is not a single digit from 0 to 7 is invalid";
        EMPTY_LINE = "invalid-empty", "invalid input", "ruled: an empty line is invalid";
        EIGHT_NINE = "invalid-8-9", "invalid input", "ruled: `8` and `9` are invalid";
        ONE_CHARACTER = "invalid-length", "invalid input", "ruled: exactly one character `0`..`7`";
        FULL_COLUMN = "invalid-full", "invalid input", "a full column is an invalid move";
        AFTER_INVALID = "after-invalid", "invalid input", "after an invalid input: the message and `Enter a column: ` only";
        HORIZONTAL = "win-horizontal", "the end of the game", "four in a row horizontally ends the game";
        VERTICAL = "win-vertical", "the end of the game", "four in a row vertically ends the game";
        DIAGONAL = "win-diagonal", "the end of the game", "four in a row diagonally ends the game";
        TIE = "tie", "the end of the game", "a full grid ends the game";
    }
}

/// The commands of `connect4.md`, as a trace names them: every input line is one.
pub mod commands {
    crate::commands! {
        MOVE = "move", "a move, a column from 0 to 7 (the handout's game)";
        INVALID = "invalid", "an input line that is no move (the handout's invalid input)";
    }
}

pub const ROWS: usize = 5;
pub const COLS: usize = 8;

const HEADER: &[u8] = b"01234567\n";
const PROMPT: &[u8] = b"Enter a column: ";
const INVALID: &[u8] = b"Invalid move. Enter a column number (0-7).\n";

/// The grid, top row first: `.`, `X` or `O`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    cells: [[u8; COLS]; ROWS],
}

impl Default for Grid {
    fn default() -> Self {
        Grid {
            cells: [[b'.'; COLS]; ROWS],
        }
    }
}

impl Grid {
    pub fn cell(&self, row: usize, col: usize) -> u8 {
        self.cells[row][col]
    }

    /// Whether `col` has no open position left.
    pub fn is_full(&self, col: usize) -> bool {
        self.cells[0][col] != b'.'
    }

    /// Drops `player`'s marker into `col` (not full); returns the row it lands in.
    pub fn drop_marker(&mut self, col: usize, player: u8) -> usize {
        let row = (0..ROWS)
            .rev()
            .find(|&row| self.cells[row][col] == b'.')
            .expect("the column is not full");
        self.cells[row][col] = player;
        row
    }

    /// Whether the marker at (`row`, `col`) is part of four or more in a row.
    pub fn wins_at(&self, row: usize, col: usize) -> bool {
        let needed = if on(Mutant::Connect4ThreeWins) { 3 } else { 4 };
        [(0, 1), (1, 0), (1, 1), (1, -1)]
            .into_iter()
            .filter(|direction| match direction {
                (0, 1) => !on(Mutant::Connect4NoHorizontal),
                (1, 0) => !on(Mutant::Connect4NoVertical),
                (1, 1) => !on(Mutant::Connect4NoDiagonalDown),
                _ => !on(Mutant::Connect4NoDiagonalUp),
            })
            .any(|(d_row, d_col)| self.line_through(row, col, d_row, d_col) >= needed)
    }

    /// How many markers of the one at (`row`, `col`) lie in a row through it, along
    /// (`d_row`, `d_col`) both ways.
    fn line_through(&self, row: usize, col: usize, d_row: isize, d_col: isize) -> usize {
        let player = self.cells[row][col];
        let count = |d_row: isize, d_col: isize| {
            let (mut r, mut c, mut n) = (row as isize + d_row, col as isize + d_col, 0);
            while (0..ROWS as isize).contains(&r)
                && (0..COLS as isize).contains(&c)
                && self.cells[r as usize][c as usize] == player
            {
                n += 1;
                (r, c) = (r + d_row, c + d_col);
            }
            n
        };
        1 + count(d_row, d_col) + count(-d_row, -d_col)
    }

    /// The rule of the line of four through (`row`, `col`), if there is one.
    fn winning_rule(&self, row: usize, col: usize) -> Option<&'static Rule> {
        [
            ((0, 1), &rules::HORIZONTAL),
            ((1, 0), &rules::VERTICAL),
            ((1, 1), &rules::DIAGONAL),
            ((1, -1), &rules::DIAGONAL),
        ]
        .into_iter()
        .find(|((d_row, d_col), _)| self.line_through(row, col, *d_row, *d_col) >= 4)
        .map(|(_, rule)| rule)
    }

    pub fn is_complete(&self) -> bool {
        (0..COLS).all(|col| self.is_full(col))
    }

    /// Appends the board as printed at the start of a turn: blank line, header, grid, header.
    pub fn render(&self, out: &mut Vec<u8>, spans: &mut Spans) {
        if !on(Mutant::Connect4NoBlankLine) {
            spans.append(out, b"\n", &rules::BLANK);
        }
        spans.append(out, HEADER, &rules::HEADER);
        for row in &self.cells {
            let at = out.len();
            out.extend_from_slice(row);
            out.push(b'\n');
            spans.mark(at, out.len(), &rules::GRID);
        }
        spans.append(out, HEADER, &rules::HEADER);
    }
}

/// A valid column: exactly one character `0`..`7`.
/// The rule that makes `line` invalid: an empty line, `8` or `9`, more than one character, a
/// full column (`full`), or else any other input.
fn invalid_rule(line: &[u8], full: bool) -> &'static Rule {
    match line {
        _ if full => &rules::FULL_COLUMN,
        [] => &rules::EMPTY_LINE,
        [b'8' | b'9'] => &rules::EIGHT_NINE,
        [_, _, ..] => &rules::ONE_CHARACTER,
        _ => &rules::INVALID,
    }
}

pub fn parse_column(line: &[u8]) -> Option<usize> {
    let line = match line {
        [first, _, ..] if on(Mutant::Connect4FirstCharacter) => std::slice::from_ref(first),
        line => line,
    };
    match line {
        [digit @ b'8'..=b'9'] if on(Mutant::Connect4WrapsColumns) => {
            Some(usize::from(digit - b'8'))
        }
        [digit @ b'0'..=b'7'] => Some(usize::from(digit - b'0')),
        _ => None,
    }
}

/// Whether an invalid line is one a lenient reader would take for a column from 0 to 7:
/// surrounding spaces, a sign, leading zeros, `_` separators or non-ASCII digits (Python's
/// `int()`), or digits whose first group before a `_` is a column (C's `atoi`, which reads `3_0`
/// as 3). The handout does not say how such lines are treated (connect4.md lists them as
/// unspecified).
pub fn looks_like_column(line: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    let text = text.trim();
    let negative = text.starts_with('-');
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c == '_' || c.is_numeric());
    if !well_formed {
        return false;
    }
    if !digits.is_ascii() {
        return true;
    }
    let leading_group = digits.split('_').next().unwrap_or("");
    let is_column = |value: u64| value <= 7 && !(negative && value != 0);
    if digits.contains('_') && leading_group.parse::<u64>().is_ok_and(is_column) {
        return true;
    }
    match digits.replace('_', "").parse::<u64>() {
        Ok(value) => is_column(value),
        // Too many digits to be a column, except for a long run of zeros.
        Err(_) => digits.bytes().all(|b| b == b'0' || b == b'_'),
    }
}

/// The Connect Four program.
#[derive(Debug)]
pub struct Connect4 {
    grid: Grid,
    player: u8,
    over: bool,
    unspecified: Unspecified,
    spans: Spans,
}

impl Default for Connect4 {
    fn default() -> Self {
        Connect4 {
            grid: Grid::default(),
            player: if on(Mutant::Connect4OFirst) {
                b'O'
            } else {
                b'X'
            },
            over: false,
            unspecified: Unspecified::default(),
            spans: Spans::default(),
        }
    }
}

impl Connect4 {
    /// The board, whose turn it is (`turn`: the rule that says so) and the prompt.
    fn prompt_turn(&mut self, out: &mut Vec<u8>, turn: &'static Rule) {
        self.grid.render(out, &mut self.spans);
        let at = out.len();
        out.push(self.player);
        out.extend_from_slice(b"'s turn\n");
        self.spans.mark(at, out.len(), turn);
        self.spans.append(out, PROMPT, &rules::PROMPT);
    }
}

impl Program for Connect4 {
    fn start(&mut self, out: &mut Vec<u8>) {
        self.prompt_turn(out, &rules::X_FIRST);
    }

    fn feed(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, InputError> {
        if self.over {
            self.unspecified
                .note(line_no, "input goes on after the game is over");
            return Ok(Flow::Continue);
        }
        if line.is_empty() && on(Mutant::Connect4EmptyLineIgnored) {
            return Ok(Flow::Continue);
        }
        let column = parse_column(line);
        if let Some(col) = column.filter(|&col| self.grid.is_full(col)) {
            if on(Mutant::Connect4FullColumnLosesTurn) {
                let _ = col;
                self.player = if self.player == b'X' { b'O' } else { b'X' };
                self.prompt_turn(out, &rules::FULL_COLUMN);
                return Ok(Flow::Continue);
            }
        }
        let Some(col) = column.filter(|&col| !self.grid.is_full(col)) else {
            // A valid digit naming a full column is a graded invalid move.
            if column.is_none() && looks_like_column(line) {
                self.unspecified.note(
                    line_no,
                    "a column number with spaces, a sign, extra zeros, `_` or non-ASCII digits",
                );
            }
            let full = column.is_some();
            self.spans.append(out, INVALID, invalid_rule(line, full));
            if on(Mutant::Connect4InvalidShowsBoard) {
                self.prompt_turn(out, &rules::AFTER_INVALID);
            } else {
                self.spans.append(out, PROMPT, &rules::AFTER_INVALID);
            }
            return Ok(Flow::Continue);
        };
        let row = self.grid.drop_marker(col, self.player);
        let wins = self.grid.wins_at(row, col);
        let complete = self.grid.is_complete() && !on(Mutant::Connect4NoTie);
        if wins || complete {
            self.over = true;
            self.grid.render(out, &mut self.spans);
            let at = out.len();
            if wins && on(Mutant::Connect4WinnerMessage) {
                out.push(self.player);
                out.extend_from_slice(b" wins!\n");
            }
            out.extend_from_slice(b"Game finished.\n");
            let why = self.grid.winning_rule(row, col).unwrap_or(&rules::TIE);
            self.spans.mark(at, out.len(), why);
            return Ok(Flow::Continue);
        }
        self.player = if self.player == b'X' { b'O' } else { b'X' };
        self.prompt_turn(out, &rules::TURNS);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, last_line: usize, _out: &mut Vec<u8>) -> Result<(), InputError> {
        if !self.over {
            self.unspecified
                .note(last_line + 1, "input ends before the game is over");
        }
        Ok(())
    }

    fn unspecified(&self) -> Option<&(usize, String)> {
        self.unspecified.get()
    }

    fn spans(&mut self) -> Option<&mut Spans> {
        Some(&mut self.spans)
    }

    /// A move is what the handout takes for one: exactly one character `0`..`7` (into a full
    /// column too, which the handout then refuses); any other line is input that is no move.
    fn command(&self, line: &[u8]) -> Option<&'static Command> {
        Some(match line {
            [b'0'..=b'7'] => &commands::MOVE,
            _ => &commands::INVALID,
        })
    }
}
