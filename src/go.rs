//! Go: liberties and groups on a 9, 13 or 19 board, from the UCSC CMPS290e calibration
//! assignment (`go.md`).
//!
//! [`analyse`] labels every stone with its group (numbered in reading order) and its group's
//! number of distinct liberties, in one linear pass: an explicit-stack flood fill per group and
//! a stamp per empty intersection, so no liberty is counted twice and no recursion can overflow.
//! Rows are printed without trailing spaces, as the handout's example is.

use crate::mutant::{on, Mutant};
use crate::program::{Flow, InputError, Program, Unspecified};
use crate::rule::{Rule, Spans};

/// The rules of `go.md` that decide parts of the output, for the trace (see [`crate::rule`]).
pub mod rules {
    crate::rules! {
        SIZE = "size", "illegal input", "sizes other than 9, 13 and 19 are illegal";
        ILLEGAL = "illegal-character", "illegal input", "a board line with a character other than `.`, `B`, `W` is illegal";
        ILLEGAL_LINE = "illegal-line-number", "illegal input", "the illegal-character line counts the first board line as 1";
        TITLES = "titles", "the tables' layout", "three printings: The Stones, The Liberties, The Groups";
        BLANK = "blank-lines", "the tables' layout", "a blank line before each table";
        LABELS = "column-labels", "the tables' layout", "column labels are consecutive letters from `A` (no skipped `I`)";
        ROW_NUMBERS = "row-numbers", "the tables' layout", "row numbers are right-justified in 2 characters";
        STONES = "stones", "the tables' layout", "each row of the stones as given";
        EMPTY = "empty", "the tables' layout", "an empty intersection prints ` .. `";
        LIBERTIES = "liberties", "liberties", "every stone shows its group's number of distinct liberties";
        GROUPS = "groups", "groups", "every stone shows its group's number";
    }
}

/// The legal board sizes.
pub const SIZES: [usize; 3] = [9, 13, 19];

const BAD_SIZE: &[u8] = b"That is not a legal board size.\n";

/// Every stone's group number (from 1, reading order) and its group's liberties; 0 for an
/// empty intersection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    pub groups: Vec<usize>,
    pub liberties: Vec<usize>,
}

/// Labels the stones of a `size` x `size` board of `.`, `B` and `W`.
pub fn analyse(size: usize, cells: &[u8]) -> Analysis {
    let mut groups = vec![0usize; cells.len()];
    let mut liberties = vec![0usize; cells.len()];
    // The group that last counted each empty intersection as a liberty.
    let mut counted_by = vec![0usize; cells.len()];
    let mut stack = Vec::new();
    let mut members = Vec::new();
    let mut n_groups = 0;
    let scan: Vec<usize> = if on(Mutant::GoColumnOrder) {
        (0..size)
            .flat_map(|col| (0..size).map(move |row| row * size + col))
            .collect()
    } else {
        (0..cells.len()).collect()
    };
    for start in scan {
        if cells[start] == b'.' || groups[start] != 0 {
            continue;
        }
        n_groups += 1;
        let color = cells[start];
        let mut n_liberties = 0;
        groups[start] = n_groups;
        stack.push(start);
        members.clear();
        while let Some(index) = stack.pop() {
            members.push(index);
            let (row, col) = (index / size, index % size);
            let (up, down, left, right) = (row > 0, row + 1 < size, col > 0, col + 1 < size);
            let straight = [
                up.then(|| index - size),
                down.then(|| index + size),
                left.then(|| index - 1),
                right.then(|| index + 1),
            ];
            let diagonal = [
                (up && left).then(|| index - size - 1),
                (up && right).then(|| index - size + 1),
                (down && left).then(|| index + size - 1),
                (down && right).then(|| index + size + 1),
            ];
            let mut own_liberties = 0;
            for (neighbour, is_diagonal) in straight.into_iter().map(|n| (n, false)).chain(
                diagonal
                    .into_iter()
                    .filter(|_| on(Mutant::GoDiagonalLiberties) || on(Mutant::GoDiagonalGroups))
                    .map(|n| (n, true)),
            ) {
                let Some(neighbour) = neighbour else { continue };
                let liberty_ok = !is_diagonal || on(Mutant::GoDiagonalLiberties);
                let group_ok = !is_diagonal || on(Mutant::GoDiagonalGroups);
                if cells[neighbour] == b'.' {
                    if !liberty_ok {
                        continue;
                    }
                    own_liberties += 1;
                    if counted_by[neighbour] != n_groups || on(Mutant::GoRepeatedLiberties) {
                        counted_by[neighbour] = n_groups;
                        n_liberties += 1;
                    }
                } else if group_ok && cells[neighbour] == color && groups[neighbour] == 0 {
                    groups[neighbour] = n_groups;
                    stack.push(neighbour);
                }
            }
            if on(Mutant::GoStoneLiberties) {
                liberties[index] = own_liberties;
            }
        }
        if !on(Mutant::GoStoneLiberties) {
            for &index in &members {
                liberties[index] = n_liberties;
            }
        }
    }
    Analysis { groups, liberties }
}

/// Appends the three printings of the board, marking in `spans` which rule decided each part.
pub fn render(
    size: usize,
    cells: &[u8],
    analysis: &Analysis,
    out: &mut Vec<u8>,
    spans: &mut Spans,
) {
    spans.append(out, b"The Stones\n", &rules::TITLES);
    let at = out.len();
    out.extend_from_slice(b"   ");
    out.extend(letters(size));
    out.push(b'\n');
    spans.mark(at, out.len(), &rules::LABELS);
    for (row, stones) in cells.chunks(size).enumerate() {
        row_label(row, out, spans);
        spans.append(out, stones, &rules::STONES);
        out.push(b'\n');
    }
    for groups in [false, true] {
        if !on(Mutant::GoNoBlankLines) {
            spans.append(out, b"\n", &rules::BLANK);
        }
        let title: &[u8] = if groups {
            b"The Groups\n"
        } else {
            b"The Liberties\n"
        };
        spans.append(out, title, &rules::TITLES);
        let value = |index: usize| {
            if groups && on(Mutant::GoNoGroupModulo) {
                analysis.groups[index]
            } else if groups {
                analysis.groups[index] % 100
            } else if on(Mutant::GoNoLibertyCap) {
                analysis.liberties[index]
            } else {
                analysis.liberties[index].min(99)
            }
        };
        let empty: &[u8] = if on(Mutant::GoBlankEmpty) {
            b"    "
        } else {
            b" .. "
        };
        let rule = if groups {
            &rules::GROUPS
        } else {
            &rules::LIBERTIES
        };
        table(size, cells, &value, empty, rule, out, spans);
    }
}

/// The column labels: consecutive letters from `A`.
fn letters(size: usize) -> impl Iterator<Item = u8> {
    (b'A'..)
        .filter(|&letter| !(letter == b'I' && on(Mutant::GoSkipsI)))
        .take(size)
}

/// A row's number, right-justified in 2 characters, and a space.
fn row_label(row: usize, out: &mut Vec<u8>, spans: &mut Spans) {
    let label = if on(Mutant::GoLeftJustifiedRows) {
        format!("{:<2} ", row + 1)
    } else {
        format!("{:>2} ", row + 1)
    };
    let at = out.len();
    out.extend_from_slice(label.as_bytes());
    spans.mark(at, at + 2, &rules::ROW_NUMBERS);
}

/// The label line and rows of one table: each stone's `value`, `empty` for an empty
/// intersection; stone cells marked with `rule`.
fn table(
    size: usize,
    cells: &[u8],
    value: &dyn Fn(usize) -> usize,
    empty: &[u8],
    rule: &'static Rule,
    out: &mut Vec<u8>,
    spans: &mut Spans,
) {
    let at = out.len();
    out.extend_from_slice(b"   ");
    for letter in letters(size) {
        out.extend_from_slice(&[b' ', letter, letter, b' ']);
    }
    trim_line(out);
    spans.mark(at, out.len(), &rules::LABELS);
    for row in 0..size {
        row_label(row, out, spans);
        for (index, &cell) in cells.iter().enumerate().skip(row * size).take(size) {
            let at = out.len();
            if cell == b'.' {
                out.extend_from_slice(empty);
                spans.mark(at, at + 4, &rules::EMPTY);
            } else {
                out.extend_from_slice(format!(" {:>2} ", value(index)).as_bytes());
                spans.mark(at, at + 4, rule);
            }
        }
        trim_line(out);
    }
}

/// Drops the spaces at the end of the line being written and ends it.
fn trim_line(out: &mut Vec<u8>) {
    while out.last() == Some(&b' ') {
        out.pop();
    }
    out.push(b'\n');
}

/// The wrong variant `go-any-size`: any whole number from 1 to 40 is a size.
fn any_size(line: &[u8]) -> Option<usize> {
    if !on(Mutant::GoAnySize) || line.is_empty() || !line.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(line)
        .ok()?
        .parse()
        .ok()
        .filter(|size| (1..=40).contains(size))
}

#[derive(Debug, Default)]
enum Phase {
    #[default]
    Size,
    Board {
        size: usize,
        cells: Vec<u8>,
    },
}

/// The Go program: a size line and a board in, three printings (or one error message) out.
#[derive(Debug, Default)]
pub struct Go {
    phase: Phase,
    unspecified: Unspecified,
    spans: Spans,
}

impl Go {
    fn illegal_character(&mut self, board_line: usize, out: &mut Vec<u8>) {
        let board_line = if on(Mutant::GoLineFromZero) {
            board_line - 1
        } else {
            board_line
        };
        let at = out.len();
        out.extend_from_slice(b"There was an illegal character on line ");
        let number = out.len();
        out.extend_from_slice(format!("{board_line} of the board.\n").as_bytes());
        self.spans.mark(at, out.len(), &rules::ILLEGAL);
        let digits = board_line.to_string().len();
        self.spans
            .mark(number, number + digits, &rules::ILLEGAL_LINE);
    }

    fn bad_size(&mut self, out: &mut Vec<u8>) {
        self.spans.append(out, BAD_SIZE, &rules::SIZE);
    }
}

impl Program for Go {
    fn feed(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, InputError> {
        match &mut self.phase {
            Phase::Size => {
                let size = SIZES
                    .into_iter()
                    .find(|size| line == size.to_string().as_bytes())
                    .or_else(|| any_size(line));
                let Some(size) = size else {
                    let lenient = std::str::from_utf8(line)
                        .ok()
                        .and_then(|text| text.trim().parse::<usize>().ok());
                    if lenient.is_some_and(|size| SIZES.contains(&size)) {
                        self.unspecified
                            .note(line_no, "a size line with spaces or leading zeros");
                    }
                    self.bad_size(out);
                    return Ok(Flow::Stop);
                };
                self.phase = Phase::Board {
                    size,
                    cells: Vec::with_capacity(size * size),
                };
                Ok(Flow::Continue)
            }
            Phase::Board { size, cells } => {
                let size = *size;
                let board_line = cells.len() / size + 1;
                let lowercase = on(Mutant::GoLowercaseStones);
                let legal = |byte: &u8| {
                    matches!(byte, b'.' | b'B' | b'W') || (lowercase && matches!(byte, b'b' | b'w'))
                };
                if line.len() != size || !line.iter().all(legal) {
                    if line.len() != size {
                        self.unspecified
                            .note(line_no, "a board line that is too short or too long");
                    }
                    self.illegal_character(board_line, out);
                    return Ok(Flow::Stop);
                }
                cells.extend(line.iter().map(u8::to_ascii_uppercase));
                if board_line < size {
                    return Ok(Flow::Continue);
                }
                let analysis = analyse(size, cells);
                render(size, cells, &analysis, out, &mut self.spans);
                Ok(Flow::Stop)
            }
        }
    }

    fn finish(&mut self, last_line: usize, out: &mut Vec<u8>) -> Result<(), InputError> {
        match &self.phase {
            Phase::Size => {
                self.unspecified
                    .note(last_line + 1, "input ends before the size line");
                self.bad_size(out);
            }
            Phase::Board { size, cells } => {
                self.unspecified
                    .note(last_line + 1, "input ends before the last board line");
                let board_line = cells.len() / size + 1;
                self.illegal_character(board_line, out);
            }
        }
        Ok(())
    }

    fn unspecified(&self) -> Option<&(usize, String)> {
        self.unspecified.get()
    }

    fn spans(&mut self) -> Option<&mut Spans> {
        Some(&mut self.spans)
    }
}
