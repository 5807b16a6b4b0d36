//! Matches: every run of three or more equal jewels marked in all four directions at once,
//! cleared on the next tick, and the jewels above falling into the gaps; with the wrong
//! variants' misreadings of the same rules.

use super::field::{DIRECTIONS, IN_FIRST_THREE};
use super::trace::rules;
use super::{Cell, Faller, Field, Status};
use crate::mutant::{on, Mutant};
use crate::rule::Rule;

impl Field {
    pub(super) fn clear_matches(&mut self) -> Status {
        for cell in &mut self.cells {
            if let Cell::Matched(_) = cell {
                *cell = Cell::Empty;
            }
        }
        if !on(Mutant::ColumnsNoFallAfterRemoval) {
            self.settle();
        }
        let mut status = Status::Playing;
        if let Some((col, jewels)) = self.hidden.take() {
            let free = (0..self.rows)
                .take_while(|&row| self.cell(row, col) == Cell::Empty)
                .count();
            for (k, &jewel) in jewels.iter().enumerate() {
                if k < free {
                    self.cells[(free - 1 - k) * self.cols + col] = Cell::Frozen(jewel);
                } else {
                    status = Status::GameOver;
                }
            }
        }
        if !on(Mutant::ColumnsNoChains) {
            self.mark_matches();
        }
        status
    }

    pub(super) fn freeze(&mut self, faller: Faller) -> Status {
        let mut hidden = Vec::new();
        for offset in 0..3 {
            let row = faller.bottom - offset;
            let jewel = faller.jewels[2 - offset as usize];
            if row >= 0 {
                self.cells[row as usize * self.cols + faller.col] = Cell::Frozen(jewel);
            } else {
                hidden.push(jewel);
            }
        }
        if hidden.is_empty() || on(Mutant::ColumnsNoGameOver) {
            self.mark_matches();
            return Status::Playing;
        }
        if on(Mutant::ColumnsGameOverDespiteMatch) {
            self.mark_matches();
            return Status::GameOver;
        }
        if self.hidden_would_match(faller.col, &hidden) {
            self.note("a jewel above the top would extend or complete a run if it counted");
        }
        if !self.mark_matches() {
            return Status::GameOver;
        }
        let remaining = (0..self.rows)
            .filter(|&row| matches!(self.cell(row, faller.col), Cell::Frozen(_)))
            .count();
        if self.rows - remaining < hidden.len() {
            self.note("removing the matches does not make a frozen faller fit");
        }
        self.hidden = Some((faller.col, hidden));
        Status::Playing
    }

    /// Whether a jewel above the top of `col` would be part of a run if it were in the field.
    pub(super) fn hidden_would_match(&self, col: usize, hidden: &[u8]) -> bool {
        let mut tall = Field::new(self.rows + 2, self.cols);
        tall.cells[2 * self.cols..].copy_from_slice(&self.cells);
        for (k, &jewel) in hidden.iter().enumerate() {
            tall.cells[(1 - k) * self.cols + col] = Cell::Frozen(jewel);
        }
        tall.mark_matches();
        (0..hidden.len()).any(|k| matches!(tall.cell(1 - k, col), Cell::Matched(_)))
    }

    /// Lets every column's jewels fall to the bottom, keeping their order.
    pub(super) fn settle(&mut self) {
        for col in 0..self.cols {
            let mut floor = self.rows;
            for row in (0..self.rows).rev() {
                let cell = self.cell(row, col);
                if cell != Cell::Empty {
                    floor -= 1;
                    self.cells[row * self.cols + col] = Cell::Empty;
                    self.cells[floor * self.cols + col] = cell;
                }
            }
        }
    }

    /// Marks every run of three or more equal jewels, in all four directions at once.
    /// Returns whether anything matched.
    pub(super) fn mark_matches(&mut self) -> bool {
        let mut marked = vec![0u8; self.cells.len()];
        let mut any = false;
        let min_run = if on(Mutant::ColumnsMinRunFour) { 4 } else { 3 };
        let directions =
            if on(Mutant::ColumnsRowBrokenByVertical) || on(Mutant::ColumnsRowEndsInColumns) {
                [(1, 0), (0, 1), (1, 1), (1, -1)]
            } else {
                DIRECTIONS
            };
        for (d_row, d_col) in directions {
            let skipped = match (d_row, d_col) {
                (0, 1) => on(Mutant::ColumnsNoHorizontal),
                (1, 0) => on(Mutant::ColumnsNoVertical),
                (1, 1) => on(Mutant::ColumnsNoDiagonalDown),
                _ => on(Mutant::ColumnsNoDiagonalUp),
            };
            if skipped {
                continue;
            }
            any = self.mark_direction((d_row, d_col), min_run, &mut marked, any);
        }
        if on(Mutant::ColumnsWrapVertical) && self.rows >= 4 {
            any |= self.mark_wrapped_runs(&mut marked);
        }
        if on(Mutant::ColumnsWrapDiagonalUp) && self.rows >= 4 {
            any |= self.mark_wrapped_diagonals(&mut marked);
        }
        for (cell, &marked) in self.cells.iter_mut().zip(&marked) {
            if let (true, Cell::Frozen(jewel)) = (marked != 0, *cell) {
                *cell = Cell::Matched(jewel);
            }
        }
        self.marks = marked;
        if any && on(Mutant::ColumnsRemovalSameTick) {
            for cell in &mut self.cells {
                if let Cell::Matched(_) = cell {
                    *cell = Cell::Empty;
                }
            }
            self.settle();
            self.mark_matches();
        }
        any
    }

    /// Marks, in `marked`, the runs of `min_run` or more along every line of direction
    /// `(d_row, d_col)`. `any`: whether an earlier direction marked one; returns whether any
    /// direction has now.
    fn mark_direction(
        &self,
        (d_row, d_col): (isize, isize),
        min_run: usize,
        marked: &mut [u8],
        mut any: bool,
    ) -> bool {
        let (rows, cols) = (self.rows as isize, self.cols as isize);
        let inside = |row: isize, col: isize| row >= 0 && row < rows && col >= 0 && col < cols;
        let broken_by_marks = on(Mutant::ColumnsRowBrokenByVertical) && d_row == 0;
        let ends_in_columns = on(Mutant::ColumnsRowEndsInColumns) && d_row == 0;
        for start in 0..self.cells.len() {
            let (row, col) = ((start / self.cols) as isize, (start % self.cols) as isize);
            if inside(row - d_row, col - d_col) {
                continue; // not the first cell of its line
            }
            let (mut run_start, mut run_len, mut run_color) = ((row, col), 0usize, None);
            let (mut r, mut c) = (row, col);
            loop {
                let color = if inside(r, c) {
                    match self.cells[(r * cols + c) as usize] {
                        Cell::Frozen(jewel) | Cell::Matched(jewel) => Some(jewel),
                        Cell::Empty => None,
                    }
                } else {
                    None
                };
                if color.is_some() && color == run_color {
                    run_len += 1;
                } else {
                    let (sr, sc) = run_start;
                    let started_marked = run_len >= 3 && marked[(sr * cols + sc) as usize] != 0;
                    let ended_marked = run_len >= 3
                        && marked[(sr * cols + sc + run_len as isize - 1) as usize] != 0;
                    if run_len >= min_run
                        && !(any && on(Mutant::ColumnsOneRun))
                        && !(broken_by_marks && started_marked)
                        && !(ends_in_columns && started_marked && ended_marked)
                    {
                        any = true;
                        let (mut mr, mut mc) = run_start;
                        let length = if on(Mutant::ColumnsRunsOfThree) {
                            3
                        } else {
                            run_len
                        };
                        let bit = 1 << direction_index(d_row, d_col);
                        for k in 0..length {
                            let first_three = if k < 3 { IN_FIRST_THREE } else { 0 };
                            marked[(mr * cols + mc) as usize] |= bit | first_three;
                            (mr, mc) = (mr + d_row, mc + d_col);
                        }
                        let (br, bc) = (mr + d_row, mc + d_col);
                        if on(Mutant::ColumnsMarkPastGap)
                            && inside(mr, mc)
                            && inside(br, bc)
                            && self.cells[(mr * cols + mc) as usize] == Cell::Empty
                            && matches!(self.cells[(br * cols + bc) as usize],
                            Cell::Frozen(j) | Cell::Matched(j) if Some(j) == run_color)
                        {
                            marked[(br * cols + bc) as usize] |= 1;
                        }
                    }
                    (run_start, run_len, run_color) = ((r, c), 1, color);
                }
                if !inside(r, c) {
                    break;
                }
                (r, c) = (r + d_row, c + d_col);
            }
        }
        any
    }

    /// The rule that marked cell `index` as matched: a run longer than three, where the cell
    /// is past the third jewel of every run it is in; else its run's direction.
    pub(super) fn match_rule(&self, index: usize) -> &'static Rule {
        let marks = self.marks.get(index).copied().unwrap_or(0);
        if marks & IN_FIRST_THREE == 0 {
            &rules::LONGER
        } else if marks & 1 != 0 {
            &rules::HORIZONTAL
        } else if marks & 2 != 0 {
            &rules::VERTICAL
        } else {
            &rules::DIAGONAL
        }
    }
}

impl Field {
    /// The wrong variant `columns-wrap-vertical`: vertical runs of three that go on from the
    /// bottom row to the top row, as reading row -1 with Python's negative indices does.
    pub(super) fn mark_wrapped_runs(&self, marked: &mut [u8]) -> bool {
        let rows = self.rows;
        let mut any = false;
        for col in 0..self.cols {
            for triple in [[rows - 2, rows - 1, 0], [rows - 1, 0, 1]] {
                let colors: Vec<Option<u8>> = triple
                    .iter()
                    .map(|&row| match self.cell(row, col) {
                        Cell::Frozen(jewel) | Cell::Matched(jewel) => Some(jewel),
                        Cell::Empty => None,
                    })
                    .collect();
                if colors[0].is_some() && colors.iter().all(|c| *c == colors[0]) {
                    for row in triple {
                        marked[row * self.cols + col] |= 2 | IN_FIRST_THREE;
                    }
                    any = true;
                }
            }
        }
        any
    }
}

impl Field {
    /// The wrong variant `columns-wrap-diagonal-up`: `/` diagonal runs of three that go on up
    /// and to the right past the top row into the bottom row, as reading row -1 with Python's
    /// negative indices does.
    pub(super) fn mark_wrapped_diagonals(&self, marked: &mut [u8]) -> bool {
        let rows = self.rows;
        let mut any = false;
        for col in 0..self.cols.saturating_sub(2) {
            for triple in [[1, 0, rows - 1], [0, rows - 1, rows - 2]] {
                let cells: Vec<(usize, usize)> = triple
                    .iter()
                    .enumerate()
                    .map(|(k, &row)| (row, col + k))
                    .collect();
                let colors: Vec<Option<u8>> = cells
                    .iter()
                    .map(|&(row, col)| match self.cell(row, col) {
                        Cell::Frozen(jewel) | Cell::Matched(jewel) => Some(jewel),
                        Cell::Empty => None,
                    })
                    .collect();
                if colors[0].is_some() && colors.iter().all(|c| *c == colors[0]) {
                    for (row, col) in cells {
                        marked[row * self.cols + col] |= 8 | IN_FIRST_THREE;
                    }
                    any = true;
                }
            }
        }
        any
    }
}

/// The place of a direction in [`DIRECTIONS`]: its bit in [`Field::marks`].
fn direction_index(d_row: isize, d_col: isize) -> usize {
    DIRECTIONS
        .iter()
        .position(|&direction| direction == (d_row, d_col))
        .unwrap_or(0)
}
