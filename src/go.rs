//! Go: liberties and groups on a 9, 13 or 19 board, from the UCSC CMPS290e calibration
//! assignment (`go.md`).
//!
//! [`analyse`] labels every stone with its group (numbered in reading order) and its group's
//! number of distinct liberties, in one linear pass: an explicit-stack flood fill per group and
//! a stamp per empty intersection, so no liberty is counted twice and no recursion can overflow.
//! Rows are printed without trailing spaces, as the handout's example is.

use crate::mutant::{on, Mutant};
use crate::program::{Flow, InputError, Program, Unspecified};

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

/// Appends the three printings of the board.
pub fn render(size: usize, cells: &[u8], analysis: &Analysis, out: &mut Vec<u8>) {
    let letters = || {
        (b'A'..)
            .filter(|&letter| !(letter == b'I' && on(Mutant::GoSkipsI)))
            .take(size)
    };
    let row_label = |row: usize| {
        if on(Mutant::GoLeftJustifiedRows) {
            format!("{:<2} ", row + 1)
        } else {
            format!("{:>2} ", row + 1)
        }
    };
    out.extend_from_slice(b"The Stones\n   ");
    out.extend(letters());
    out.push(b'\n');
    for (row, line) in cells.chunks(size).enumerate() {
        out.extend_from_slice(row_label(row).as_bytes());
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    let tables: [(&str, &dyn Fn(usize) -> usize); 2] = [
        ("The Liberties", &|index| {
            let liberties = analysis.liberties[index];
            if on(Mutant::GoNoLibertyCap) {
                liberties
            } else {
                liberties.min(99)
            }
        }),
        ("The Groups", &|index| {
            let group = analysis.groups[index];
            if on(Mutant::GoNoGroupModulo) {
                group
            } else {
                group % 100
            }
        }),
    ];
    for (title, value) in tables {
        let blank = if on(Mutant::GoNoBlankLines) { "" } else { "\n" };
        out.extend_from_slice(format!("{blank}{title}\n   ").as_bytes());
        for letter in letters() {
            out.extend_from_slice(&[b' ', letter, letter, b' ']);
        }
        trim_line(out);
        for row in 0..size {
            out.extend_from_slice(row_label(row).as_bytes());
            for (index, &cell) in cells.iter().enumerate().skip(row * size).take(size) {
                if cell == b'.' && on(Mutant::GoBlankEmpty) {
                    out.extend_from_slice(b"    ");
                } else if cell == b'.' {
                    out.extend_from_slice(b" .. ");
                } else {
                    out.extend_from_slice(format!(" {:>2} ", value(index)).as_bytes());
                }
            }
            trim_line(out);
        }
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
}

impl Go {
    fn illegal_character(board_line: usize, out: &mut Vec<u8>) {
        let board_line = if on(Mutant::GoLineFromZero) {
            board_line - 1
        } else {
            board_line
        };
        out.extend_from_slice(
            format!("There was an illegal character on line {board_line} of the board.\n")
                .as_bytes(),
        );
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
                    out.extend_from_slice(BAD_SIZE);
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
                    Go::illegal_character(board_line, out);
                    return Ok(Flow::Stop);
                }
                cells.extend(line.iter().map(u8::to_ascii_uppercase));
                if board_line < size {
                    return Ok(Flow::Continue);
                }
                let analysis = analyse(size, cells);
                render(size, cells, &analysis, out);
                Ok(Flow::Stop)
            }
        }
    }

    fn finish(&mut self, last_line: usize, out: &mut Vec<u8>) -> Result<(), InputError> {
        match &self.phase {
            Phase::Size => {
                self.unspecified
                    .note(last_line + 1, "input ends before the size line");
                out.extend_from_slice(BAD_SIZE);
            }
            Phase::Board { size, cells } => {
                self.unspecified
                    .note(last_line + 1, "input ends before the last board line");
                Go::illegal_character(cells.len() / size + 1, out);
            }
        }
        Ok(())
    }

    fn unspecified(&self) -> Option<&(usize, String)> {
        self.unspecified.get()
    }
}
