//! Collapse: remove the selected group of four or more blocks, then close the board up
//! (`collapse.md`, problem 5 of a 2004 contest).
//!
//! The board is read whole, then [`Board::remove`] does the move in three passes, each linear in
//! the board's size: an explicit-stack flood fill (no recursion, so a group of millions of
//! blocks cannot overflow the stack), gravity within each column, and each half of the board
//! closing up toward the centre.

use crate::mutant::{on, Mutant};
use crate::program::{Flow, InputError, Program, Unspecified};
use crate::rule::{Rule, Spans};

/// The rules of `collapse.md` that decide parts of the output, for the trace (see
/// [`crate::rule`]).
pub mod rules {
    crate::rules! {
        UNCHANGED = "unchanged", "which blocks are removed", "an empty cell or a group of fewer than 4 blocks leaves the board unchanged";
        GROUP = "group", "which blocks are removed", "the selected block's group of 4 or more (4-connected, one colour) is removed";
        FALL = "fall", "how the board closes up", "blocks above removed ones fall";
        SHIFT_LEFT = "shift-left", "how the board closes up", "empty columns of the left half are filled by shifting from the left";
        SHIFT_RIGHT = "shift-right", "how the board closes up", "empty columns of the right half are filled by shifting from the right";
        REST = "rest", "how the board closes up", "the other blocks stay where they are";
    }
}

const EMPTY: u8 = b'.';

/// A collapse board: `rows` lines of `cols` bytes, digits or `.`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    rows: usize,
    cols: usize,
    cells: Vec<u8>,
}

impl Board {
    /// A board from its lines, which the caller has validated.
    pub fn new(rows: usize, cols: usize, cells: Vec<u8>) -> Board {
        debug_assert_eq!(cells.len(), rows * cols);
        Board { rows, cols, cells }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn cell(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.cols + col]
    }

    /// The cells 4-connected to (`row`, `col`) with its colour, as indices; empty for an empty
    /// cell.
    pub fn group(&self, row: usize, col: usize) -> Vec<usize> {
        let start = row * self.cols + col;
        let color = self.cells[start];
        if color == EMPTY {
            return Vec::new();
        }
        if on(Mutant::CollapseStraightLines) {
            return self.straight_lines(row, col);
        }
        let mut seen = vec![false; self.cells.len()];
        let mut group = vec![start];
        seen[start] = true;
        let mut next = 0;
        while next < group.len() {
            let index = group[next];
            next += 1;
            let (r, c) = (index / self.cols, index % self.cols);
            let (up, down, left, right) = (r > 0, r + 1 < self.rows, c > 0, c + 1 < self.cols);
            let diagonal = on(Mutant::CollapseEightConnected);
            let neighbours = [
                up.then(|| index - self.cols),
                down.then(|| index + self.cols),
                left.then(|| index - 1),
                right.then(|| index + 1),
                (diagonal && up && left).then(|| index - self.cols - 1),
                (diagonal && up && right).then(|| index - self.cols + 1),
                (diagonal && down && left).then(|| index + self.cols - 1),
                (diagonal && down && right).then(|| index + self.cols + 1),
            ];
            for neighbour in neighbours.into_iter().flatten() {
                let same = self.cells[neighbour] == color
                    || (on(Mutant::CollapseAnyColor) && self.cells[neighbour] != EMPTY);
                if !seen[neighbour] && same {
                    seen[neighbour] = true;
                    group.push(neighbour);
                }
            }
        }
        group
    }

    /// Selects (`row`, `col`): a group of four or more is removed and the board collapses.
    /// Returns whether anything was removed.
    pub fn remove(&mut self, row: usize, col: usize) -> bool {
        let group = self.group(row, col);
        let enough = if on(Mutant::CollapseThree) {
            3
        } else if on(Mutant::CollapseFiveOrMore) {
            5
        } else {
            4
        };
        if group.len() < enough {
            return false;
        }
        for index in group {
            self.cells[index] = EMPTY;
        }
        if on(Mutant::CollapseShiftBeforeFall) {
            self.close_columns();
            self.fall();
            return true;
        }
        if !on(Mutant::CollapseNoFall) {
            self.fall();
        }
        if !on(Mutant::CollapseNoShift) {
            self.close_columns();
        }
        true
    }

    /// The wrong variant `collapse-straight-lines`: the selected block and the same-coloured
    /// blocks in an unbroken straight line from it, in each of the four directions.
    fn straight_lines(&self, row: usize, col: usize) -> Vec<usize> {
        let color = self.cell(row, col);
        let mut group = vec![row * self.cols + col];
        for (d_row, d_col) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)] {
            let (mut r, mut c) = (row as isize + d_row, col as isize + d_col);
            while (0..self.rows as isize).contains(&r)
                && (0..self.cols as isize).contains(&c)
                && self.cell(r as usize, c as usize) == color
            {
                group.push(r as usize * self.cols + c as usize);
                (r, c) = (r + d_row, c + d_col);
            }
        }
        group
    }

    /// Blocks fall straight down within their column.
    fn fall(&mut self) {
        for col in 0..self.cols {
            let mut floor = self.rows;
            for row in (0..self.rows).rev() {
                let cell = self.cell(row, col);
                if cell != EMPTY {
                    floor -= 1;
                    self.cells[row * self.cols + col] = EMPTY;
                    self.cells[floor * self.cols + col] = cell;
                }
            }
        }
    }

    fn column_is_empty(&self, col: usize) -> bool {
        // After `fall`, a column is empty exactly when its bottom cell is.
        self.cell(self.rows - 1, col) == EMPTY
    }

    /// Each half closes up toward the centre, keeping the order of its non-empty columns.
    fn close_columns(&mut self) {
        let order = self.closing_order();
        let mut cells = vec![EMPTY; self.cells.len()];
        for (to, from) in order.into_iter().enumerate() {
            if let Some(from) = from {
                for row in 0..self.rows {
                    cells[row * self.cols + to] = self.cells[row * self.cols + from];
                }
            }
        }
        self.cells = cells;
    }

    /// Where each column comes from when the halves close up: `None` for a column left empty.
    fn closing_order(&self) -> Vec<Option<usize>> {
        let half = if on(Mutant::CollapseWideLeftHalf) {
            (self.cols / 2 + 1).min(self.cols)
        } else {
            self.cols / 2
        };
        let mut left: Vec<usize> = (0..half).filter(|&c| !self.column_is_empty(c)).collect();
        if on(Mutant::CollapseReversedHalf) {
            left.reverse();
        }
        let right: Vec<usize> = (half..self.cols)
            .filter(|&c| !self.column_is_empty(c))
            .collect();
        // Where each final column comes from: left columns pushed against the centre from the
        // left, right columns against it from the right, empty columns at the sides.
        let mut order: Vec<Option<usize>> = vec![None; half - left.len()];
        if on(Mutant::CollapseAllShiftLeft) {
            order.clear();
            order.extend(left.into_iter().map(Some));
            order.extend(std::iter::repeat_n(None, half - order.len()));
        } else {
            order.extend(left.into_iter().map(Some));
        }
        let right_gap = self.cols - half - right.len();
        order.extend(right.into_iter().map(Some));
        order.extend(std::iter::repeat_n(None, right_gap));
        order
    }

    /// Which rule decided each cell of the board a move on `before` (selecting `row`, `col`)
    /// leaves: the group's removal, the fall, a half closing up, or none (the rest).
    fn cell_rules(before: &Board, row: usize, col: usize) -> Vec<&'static Rule> {
        let group = before.group(row, col);
        if group.len() < 4 {
            return vec![&rules::UNCHANGED; before.cells.len()];
        }
        let mut removed = before.clone();
        for &index in &group {
            removed.cells[index] = EMPTY;
        }
        let mut fallen = removed.clone();
        fallen.fall();
        let order = fallen.closing_order();
        let mut decided = Vec::with_capacity(before.cells.len());
        for index in 0..before.cells.len() {
            let to = index % before.cols;
            decided.push(if order[to] != Some(to) && to < before.cols / 2 {
                &rules::SHIFT_LEFT
            } else if order[to] != Some(to) {
                &rules::SHIFT_RIGHT
            } else if fallen.cells[index] != removed.cells[index] {
                &rules::FALL
            } else if removed.cells[index] != before.cells[index] {
                &rules::GROUP
            } else {
                &rules::REST
            });
        }
        decided
    }

    /// Appends the board's lines.
    /// Appends the board; where `spans` record, each cell is marked with the rule in
    /// `decided` at its index.
    pub fn render(&self, out: &mut Vec<u8>, spans: &mut Spans, decided: &[&'static Rule]) {
        out.reserve(self.rows * (self.cols + 1));
        for (row, line) in self.cells.chunks(self.cols).enumerate() {
            let at = out.len();
            out.extend_from_slice(line);
            out.push(b'\n');
            if spans.is_on() {
                // The newline goes with the row's last cell, so that rows of one rule join.
                for (col, rule) in decided[row * self.cols..][..self.cols].iter().enumerate() {
                    let end = if col + 1 == self.cols {
                        col + 2
                    } else {
                        col + 1
                    };
                    spans.mark(at + col, at + end, rule);
                }
            }
        }
    }
}

/// Parses `A B`: two whole numbers separated by one space.
fn parse_pair(line: &[u8]) -> Option<(usize, usize)> {
    let text = std::str::from_utf8(line).ok()?;
    let (a, b) = text.split_once(' ')?;
    let number = |word: &str| -> Option<usize> {
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        word.parse().ok()
    };
    Some((number(a)?, number(b)?))
}

#[derive(Debug, Default)]
enum Phase {
    #[default]
    Size,
    Selection {
        rows: usize,
        cols: usize,
    },
    Board {
        rows: usize,
        cols: usize,
        selected: (usize, usize),
        cells: Vec<u8>,
    },
    Done,
}

/// The Collapse program: two header lines and a board in, the board after the move out.
#[derive(Debug, Default)]
pub struct Collapse {
    phase: Phase,
    unspecified: Unspecified,
    spans: Spans,
}

impl Collapse {
    fn take_line(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        self.phase = match std::mem::take(&mut self.phase) {
            Phase::Size => match parse_pair(line) {
                Some((rows, cols)) if rows > 0 && cols > 0 && cols % 2 == 0 => {
                    Phase::Selection { rows, cols }
                }
                _ => {
                    return Err(format!(
                        "expected `R C` (positive row and column counts, C even), found `{}`",
                        String::from_utf8_lossy(line)
                    ))
                }
            },
            Phase::Selection { rows, cols } => match parse_pair(line) {
                Some((row, col)) if row < rows && col < cols => Phase::Board {
                    rows,
                    cols,
                    selected: if on(Mutant::CollapseSwappedSelection) && col < rows && row < cols {
                        (col, row)
                    } else {
                        (row, col)
                    },
                    cells: Vec::new(),
                },
                _ => {
                    return Err(format!(
                        "expected `r c` with 0 <= r < {rows} and 0 <= c < {cols}, found `{}`",
                        String::from_utf8_lossy(line)
                    ))
                }
            },
            Phase::Board {
                rows,
                cols,
                selected,
                mut cells,
            } => {
                if line.len() != cols {
                    return Err(format!(
                        "a board line must have exactly {cols} characters, found {}",
                        line.len()
                    ));
                }
                if let Some(bad) = line.iter().find(|b| **b != EMPTY && !b.is_ascii_digit()) {
                    return Err(format!(
                        "`{}` is neither a digit nor `.`",
                        String::from_utf8_lossy(std::slice::from_ref(bad))
                    ));
                }
                cells.extend_from_slice(line);
                if cells.len() < rows * cols {
                    Phase::Board {
                        rows,
                        cols,
                        selected,
                        cells,
                    }
                } else {
                    let mut board = Board::new(rows, cols, cells);
                    check_legal(&board, line_no)?;
                    self.note_wide_empty_sides(&board, line_no);
                    let decided = if self.spans.is_on() {
                        Board::cell_rules(&board, selected.0, selected.1)
                    } else {
                        Vec::new()
                    };
                    let removed = board.remove(selected.0, selected.1);
                    if removed || !on(Mutant::CollapseSilentWhenUnchanged) {
                        board.render(out, &mut self.spans, &decided);
                    }
                    Phase::Done
                }
            }
            Phase::Done => {
                if !line.is_empty() {
                    self.unspecified
                        .note(line_no, "input goes on after the board");
                }
                Phase::Done
            }
        };
        Ok(())
    }

    fn note_wide_empty_sides(&mut self, board: &Board, line_no: usize) {
        let empty = |col: usize| board.cell(board.rows() - 1, col) == EMPTY;
        let half = board.cols() / 2;
        let left = (0..board.cols()).take_while(|&c| empty(c)).count();
        let right = (0..board.cols()).rev().take_while(|&c| empty(c)).count();
        if left > half || right > half {
            self.unspecified.note(
                line_no,
                "the empty columns of one side reach past the centre of the board",
            );
        }
    }
}

/// The input must be a legal game position: no block above an empty cell, and the empty
/// columns all at the sides. `last_line` is the input line of the bottom board row.
fn check_legal(board: &Board, last_line: usize) -> Result<(), String> {
    let first_line = last_line + 1 - board.rows();
    for col in 0..board.cols() {
        for row in 1..board.rows() {
            if board.cell(row, col) == EMPTY && board.cell(row - 1, col) != EMPTY {
                return Err(format!(
                    "not a legal position: the block in column {col} on input line {} has an \
                     empty cell under it",
                    first_line + row - 1
                ));
            }
        }
    }
    let filled: Vec<usize> = (0..board.cols())
        .filter(|&c| board.cell(board.rows() - 1, c) != EMPTY)
        .collect();
    if let (Some(first), Some(last)) = (filled.first(), filled.last()) {
        if last - first + 1 != filled.len() {
            return Err("not a legal position: an empty column lies between non-empty ones".into());
        }
    }
    Ok(())
}

impl Program for Collapse {
    fn feed(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, InputError> {
        self.take_line(line_no, line, out)
            .map_err(|message| InputError::new(line_no, message))?;
        Ok(Flow::Continue)
    }

    fn finish(&mut self, last_line: usize, _out: &mut Vec<u8>) -> Result<(), InputError> {
        let missing = match &self.phase {
            Phase::Size => "`R C`".to_string(),
            Phase::Selection { .. } => "`r c`".to_string(),
            Phase::Board {
                rows, cols, cells, ..
            } => format!("board line {} of {rows}", cells.len() / cols + 1),
            Phase::Done => return Ok(()),
        };
        Err(InputError::new(
            last_line + 1,
            format!("input ended where {missing} should be"),
        ))
    }

    fn unspecified(&self) -> Option<&(usize, String)> {
        self.unspecified.get()
    }

    fn spans(&mut self) -> Option<&mut Spans> {
        Some(&mut self.spans)
    }
}
