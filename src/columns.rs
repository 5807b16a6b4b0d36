//! Columns: the falling-jewel game of UC Irvine ICS 32, Project 4 (`columns.md`).
//!
//! The timing model is explicit. A frozen field cell is [`Cell::Empty`], [`Cell::Frozen`] or
//! [`Cell::Matched`]; the faller lives beside the field, falling or landed, so a display shows
//! each cell in one of the five [`CellView`] states. One tick ([`Field::tick`]) does exactly the
//! first of three things that applies: clear matches, freeze a landed faller, or move a falling
//! faller down. Matching marks every run of three or more in all four directions at once.
//!
//! Invariants: a falling faller always has an empty cell under its bottom jewel (landed status
//! is recomputed after every fall and sideways move); no faller exists while matches show.
//! Whenever a step reaches behaviour the handout leaves unspecified, [`Field::unspecified`]
//! says so, so that graded cases and the case generator can stay clear of it.

mod trace;

use crate::mutant::{on, Mutant};
use crate::program::{Flow, InputError, Program, Unspecified};
use crate::rule::{Rule, Spans};
pub use trace::rules;
use trace::Provenance;

/// The jewel colours, as the letters the input and the display use.
pub const COLORS: &[u8; 7] = b"STVWXYZ";

/// The largest field the reference accepts, in cells (the handout sets no bound; memory does).
pub const MAX_CELLS: usize = 64 * 1024 * 1024;

/// A field cell that is not part of the faller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    Empty,
    Frozen(u8),
    Matched(u8),
}

/// What a display shows in one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellView {
    Empty,
    Frozen(u8),
    Falling(u8),
    Landed(u8),
    Matched(u8),
}

/// The three-jewel piece under the player's control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Faller {
    /// 0-based column.
    pub col: usize,
    /// Top, middle, bottom.
    pub jewels: [u8; 3],
    /// Row of the bottom jewel; the others are above it and may be above the field (row < 0).
    pub bottom: isize,
    pub landed: bool,
}

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

/// Whether the game goes on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Playing,
    /// Display the field, then `GAME OVER`.
    GameOver,
}

const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// The field, the faller and the jewels waiting above the top: the whole game state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    rows: usize,
    cols: usize,
    cells: Vec<Cell>,
    faller: Option<Faller>,
    /// Jewels of a frozen faller still above the top of a column, bottom first, waiting for the
    /// showing matches to clear (feature 18).
    hidden: Option<(usize, Vec<u8>)>,
    unspecified: Option<&'static str>,
    /// Per cell, how the last marking of matches marked it: a bit per direction of its runs
    /// ([`DIRECTIONS`] order), and [`IN_FIRST_THREE`] when it is among the first three jewels
    /// of one of them. For the trace.
    marks: Vec<u8>,
}

/// In [`Field::marks`]: the cell is one of the first three jewels of a run.
const IN_FIRST_THREE: u8 = 1 << 4;

impl Field {
    /// An empty field. The caller keeps `rows * cols` within [`MAX_CELLS`].
    pub fn new(rows: usize, cols: usize) -> Field {
        Field {
            rows,
            cols,
            cells: vec![Cell::Empty; rows * cols],
            faller: None,
            hidden: None,
            unspecified: None,
            marks: Vec::new(),
        }
    }

    /// A field with the given contents (rows of colour letters or spaces, validated by the
    /// caller): jewels fall to fill holes, then matches are marked.
    pub fn with_contents(rows: usize, cols: usize, lines: &[Vec<u8>]) -> Field {
        let mut field = Field::new(rows, cols);
        for (row, line) in lines.iter().enumerate() {
            for (col, &byte) in line.iter().enumerate() {
                if byte != b' ' {
                    let col = if on(Mutant::ColumnsMirroredContents) {
                        cols - 1 - col
                    } else {
                        col
                    };
                    field.cells[row * cols + col] = Cell::Frozen(byte);
                }
            }
        }
        if on(Mutant::ColumnsStartMatchBeforeFall) {
            field.mark_matches();
        }
        if !on(Mutant::ColumnsHolesStay) {
            field.settle();
        }
        if !on(Mutant::ColumnsNoStartMatch) && !on(Mutant::ColumnsStartMatchBeforeFall) {
            field.mark_matches();
        }
        field
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn faller(&self) -> Option<&Faller> {
        self.faller.as_ref()
    }

    /// Whether matched jewels are showing.
    pub fn has_matches(&self) -> bool {
        self.cells
            .iter()
            .any(|cell| matches!(cell, Cell::Matched(_)))
    }

    /// The first behaviour the handout leaves unspecified that this game has reached.
    pub fn unspecified(&self) -> Option<&'static str> {
        self.unspecified
    }

    fn note(&mut self, what: &'static str) {
        self.unspecified.get_or_insert(what);
    }

    fn cell(&self, row: usize, col: usize) -> Cell {
        self.cells[row * self.cols + col]
    }

    /// What the display shows at `row`, `col`.
    pub fn view(&self, row: usize, col: usize) -> CellView {
        if let Some(faller) = &self.faller {
            let offset = faller.bottom - row as isize;
            if faller.col == col && (0..3).contains(&offset) {
                let jewel = if on(Mutant::ColumnsFallerUpsideDown) {
                    faller.jewels[offset as usize]
                } else {
                    faller.jewels[2 - offset as usize]
                };
                return if faller.landed && !on(Mutant::ColumnsLandedAsFalling) {
                    CellView::Landed(jewel)
                } else {
                    CellView::Falling(jewel)
                };
            }
        }
        match self.cell(row, col) {
            Cell::Empty => CellView::Empty,
            Cell::Frozen(jewel) => CellView::Frozen(jewel),
            Cell::Matched(jewel) => CellView::Matched(jewel),
        }
    }

    /// Appends one display of the field.
    pub fn render(&self, out: &mut Vec<u8>) {
        self.render_cells(out, |_, _, _| {});
    }

    /// Appends one display of the field, telling `drawn` of each cell as it is written: its
    /// index in the field, what it shows, and where its three bytes start in `out`.
    pub fn render_cells(&self, out: &mut Vec<u8>, mut drawn: impl FnMut(usize, CellView, usize)) {
        out.reserve((self.rows + 1) * (3 * self.cols + 3));
        let empty = self.faller.is_none() && self.cells.iter().all(|c| *c == Cell::Empty);
        let shown = if on(Mutant::ColumnsShortEmptyField) && empty {
            self.rows - 1
        } else {
            self.rows
        };
        for row in 0..shown {
            out.push(b'|');
            for col in 0..self.cols {
                let view = self.view(row, col);
                drawn(row * self.cols + col, view, out.len());
                let cell = match view {
                    CellView::Empty => *b"   ",
                    CellView::Frozen(jewel) => [b' ', jewel, b' '],
                    CellView::Falling(jewel) => [b'[', jewel, b']'],
                    CellView::Landed(jewel) => [b'|', jewel, b'|'],
                    CellView::Matched(jewel) => [b'*', jewel, b'*'],
                };
                out.extend_from_slice(&cell);
            }
            out.extend_from_slice(b"|\n");
        }
        out.push(b' ');
        out.resize(out.len() + 3 * self.cols, b'-');
        if on(Mutant::ColumnsBottomLineNoSpace) {
            out.push(b'\n');
        } else {
            out.extend_from_slice(b" \n");
        }
    }

    /// Carries out one command other than `Q`.
    pub fn apply(&mut self, command: Command) -> Status {
        if on(Mutant::ColumnsCommandsTickWhileMatching)
            && self.has_matches()
            && matches!(command, Command::Rotate | Command::Left | Command::Right)
        {
            return self.tick();
        }
        match command {
            Command::Tick => return self.tick(),
            Command::Create { col, jewels } => return self.create(col, jewels),
            Command::Rotate => {
                if let Some(faller) = &mut self.faller {
                    let [top, middle, bottom] = faller.jewels;
                    if on(Mutant::ColumnsLandedCannotRotate) && faller.landed {
                    } else if on(Mutant::ColumnsRotateBackwards) {
                        faller.jewels = [middle, bottom, top];
                    } else {
                        faller.jewels = [bottom, top, middle];
                    }
                }
            }
            Command::Left => self.shift(-1),
            Command::Right => self.shift(1),
            Command::Quit => {}
        }
        Status::Playing
    }

    fn create(&mut self, col: usize, jewels: [u8; 3]) -> Status {
        if let Some(faller) = &self.faller {
            if on(Mutant::ColumnsCreateNearlyFull)
                && self.rows > 1
                && self.cell(1, col) != Cell::Empty
            {
                return Status::GameOver;
            }
            if on(Mutant::ColumnsCreateOwnColumnFewEmpty) && faller.col == col && !faller.landed {
                let empty = (0..self.rows)
                    .filter(|&row| self.cell(row, col) == Cell::Empty)
                    .count();
                if empty <= 3 {
                    return Status::GameOver;
                }
            }
            if on(Mutant::ColumnsCreateOwnColumnNearlyFull) && faller.col == col {
                let covered =
                    |row: usize| (faller.bottom - 2..=faller.bottom).contains(&(row as isize));
                let free = (0..self.rows)
                    .filter(|&row| self.cell(row, col) == Cell::Empty && !covered(row))
                    .count();
                if free < 3 {
                    return Status::GameOver;
                }
            }
            let replace = on(Mutant::ColumnsCreateReplaces)
                || (on(Mutant::ColumnsCreateOwnColumn) && faller.col == col);
            if !replace {
                return Status::Playing;
            }
        }
        if self.has_matches() {
            self.note("`F` while matched jewels are showing");
            return Status::Playing;
        }
        if self.cell(0, col) != Cell::Empty {
            self.note("`F` into a column whose top cell is occupied");
            return Status::GameOver;
        }
        let mut faller = Faller {
            col,
            jewels,
            bottom: 0,
            landed: false,
        };
        faller.landed = !on(Mutant::ColumnsCreatedOnSupportFalls) && self.supported(&faller);
        self.faller = Some(faller);
        Status::Playing
    }

    /// Moves the faller one column, unless the edge or a frozen jewel beside one of its
    /// visible jewels blocks it.
    fn shift(&mut self, delta: isize) {
        let Some(faller) = &self.faller else { return };
        if on(Mutant::ColumnsLandedCannotMove) && faller.landed {
            return;
        }
        let target = faller.col as isize + delta;
        if target < 0 || target >= self.cols as isize {
            return;
        }
        let target = target as usize;
        // The wrong variant reads rows above the top as Python's negative indices do: from the
        // bottom of the field.
        let wraps = on(Mutant::ColumnsBlockedAboveTop);
        let blocked = (0..3)
            .map(|offset| faller.bottom - offset)
            .map(|row| {
                if wraps && row < 0 {
                    row + self.rows as isize
                } else {
                    row
                }
            })
            .filter(|&row| row >= 0)
            .any(|row| self.cell(row as usize, target) != Cell::Empty);
        if blocked {
            return;
        }
        let mut moved = faller.clone();
        moved.col = target;
        moved.landed = if on(Mutant::ColumnsLandedAfterMove) {
            faller.landed
        } else {
            self.supported(&moved)
        };
        self.faller = Some(moved);
    }

    /// Whether the cell under the faller's bottom jewel is the floor or a jewel.
    fn supported(&self, faller: &Faller) -> bool {
        let below = faller.bottom + 1;
        below as usize >= self.rows || self.cell(below as usize, faller.col) != Cell::Empty
    }

    /// Lets time pass: clear matches, else freeze a landed faller, else move a faller down.
    pub fn tick(&mut self) -> Status {
        if self.has_matches() {
            return self.clear_matches();
        }
        let Some(faller) = self.faller.take() else {
            return Status::Playing;
        };
        if faller.landed {
            return self.freeze(faller);
        }
        let late = on(Mutant::ColumnsLandsTickLate) || on(Mutant::ColumnsCreatedOnSupportFalls);
        if late && self.supported(&faller) {
            self.faller = Some(Faller {
                landed: true,
                ..faller
            });
            return Status::Playing;
        }
        let mut fallen = faller;
        fallen.bottom += 1;
        fallen.landed = !on(Mutant::ColumnsLandsTickLate) && self.supported(&fallen);
        if fallen.landed && on(Mutant::ColumnsFreezesOnLanding) {
            return self.freeze(fallen);
        }
        self.faller = Some(fallen);
        Status::Playing
    }

    fn clear_matches(&mut self) -> Status {
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

    fn freeze(&mut self, faller: Faller) -> Status {
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
    fn hidden_would_match(&self, col: usize, hidden: &[u8]) -> bool {
        let mut tall = Field::new(self.rows + 2, self.cols);
        tall.cells[2 * self.cols..].copy_from_slice(&self.cells);
        for (k, &jewel) in hidden.iter().enumerate() {
            tall.cells[(1 - k) * self.cols + col] = Cell::Frozen(jewel);
        }
        tall.mark_matches();
        (0..hidden.len()).any(|k| matches!(tall.cell(1 - k, col), Cell::Matched(_)))
    }

    /// Lets every column's jewels fall to the bottom, keeping their order.
    fn settle(&mut self) {
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
    fn mark_matches(&mut self) -> bool {
        let (rows, cols) = (self.rows as isize, self.cols as isize);
        let inside = |row: isize, col: isize| row >= 0 && row < rows && col >= 0 && col < cols;
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

    /// The rule that marked cell `index` as matched: a run longer than three, where the cell
    /// is past the third jewel of every run it is in; else its run's direction.
    fn match_rule(&self, index: usize) -> &'static Rule {
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
    fn mark_wrapped_runs(&self, marked: &mut [u8]) -> bool {
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
    fn mark_wrapped_diagonals(&self, marked: &mut [u8]) -> bool {
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

/// Parses a count made of ASCII digits only.
fn parse_number(word: &[u8]) -> Option<usize> {
    if word.is_empty() || !word.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(word).ok()?.parse().ok()
}

#[derive(Debug, Default)]
enum Phase {
    #[default]
    Rows,
    Cols {
        rows: usize,
    },
    Start {
        rows: usize,
        cols: usize,
    },
    Contents {
        rows: usize,
        cols: usize,
        lines: Vec<Vec<u8>>,
    },
    Playing(Field),
    Ended,
}

/// The Columns program: the header lines, then the game.
#[derive(Debug, Default)]
pub struct Columns {
    phase: Phase,
    unspecified: Unspecified,
    spans: Spans,
    /// The rule behind each cell, kept while the spans record.
    provenance: Option<Provenance>,
}

impl Columns {
    fn play(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, String> {
        let Phase::Playing(field) = &mut self.phase else {
            unreachable!("play is only called while playing")
        };
        let command = Command::parse(line, field.cols())?;
        if command == Command::Quit {
            if on(Mutant::ColumnsQuitDisplays) {
                field.render(out);
            }
            self.spans.mark(out.len(), out.len(), &rules::QUIT);
            self.phase = Phase::Ended;
            return Ok(Flow::Stop);
        }
        let no_effect = field.faller().is_none()
            && matches!(command, Command::Rotate | Command::Left | Command::Right);
        if let Some(provenance) = &mut self.provenance {
            provenance.before(field);
        }
        let status = field.apply(command);
        if !(no_effect && on(Mutant::ColumnsNoDisplayWithoutEffect)) {
            match &mut self.provenance {
                Some(provenance) => {
                    provenance.after(field, command, status);
                    provenance.render(field, out, &mut self.spans);
                }
                None => field.render(out),
            }
        }
        if let Some(what) = field.unspecified() {
            self.unspecified.note(line_no, what);
        }
        if status == Status::GameOver {
            let at = out.len();
            if !on(Mutant::ColumnsNoGameOverLine) {
                out.extend_from_slice(b"GAME OVER\n");
            }
            if let Some(provenance) = &self.provenance {
                self.spans
                    .mark(at, out.len(), provenance.ending(field, status));
            }
            self.phase = Phase::Ended;
            return Ok(Flow::Stop);
        }
        if let Some(provenance) = &self.provenance {
            // No GAME OVER after this display: an empty span says why.
            self.spans
                .mark(out.len(), out.len(), provenance.ending(field, status));
        }
        Ok(Flow::Continue)
    }

    /// The first display: of an empty field, or of the given contents `lines`.
    fn show_first(&mut self, field: &Field, lines: Option<&[Vec<u8>]>, out: &mut Vec<u8>) {
        if !self.spans.is_on() {
            return field.render(out);
        }
        let provenance = Provenance::start(field, lines);
        provenance.render(field, out, &mut self.spans);
        self.provenance = Some(provenance);
    }

    fn header(&mut self, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, String> {
        let text = || String::from_utf8_lossy(line).into_owned();
        self.phase = match std::mem::take(&mut self.phase) {
            Phase::Rows => match parse_number(line) {
                Some(rows) if rows >= 4 => Phase::Cols { rows },
                _ => {
                    return Err(format!(
                        "the number of rows must be a whole number of at least 4, found `{}`",
                        text()
                    ))
                }
            },
            Phase::Cols { rows } => match parse_number(line) {
                Some(cols) if cols >= 3 => match rows.checked_mul(cols) {
                    Some(cells) if cells <= MAX_CELLS => Phase::Start { rows, cols },
                    _ => {
                        return Err(format!(
                            "a {rows}x{cols} field has more than {MAX_CELLS} cells"
                        ))
                    }
                },
                _ => {
                    return Err(format!(
                        "the number of columns must be a whole number of at least 3, found `{}`",
                        text()
                    ))
                }
            },
            Phase::Start { rows, cols } => match line {
                b"EMPTY" => {
                    let field = Field::new(rows, cols);
                    self.show_first(&field, None, out);
                    Phase::Playing(field)
                }
                b"CONTENTS" => Phase::Contents {
                    rows,
                    cols,
                    lines: Vec::with_capacity(rows),
                },
                _ => {
                    return Err(format!(
                        "expected `EMPTY` or `CONTENTS`, found `{}`",
                        text()
                    ))
                }
            },
            Phase::Contents {
                rows,
                cols,
                mut lines,
            } => {
                if line.len() != cols {
                    return Err(format!(
                        "a field line must have exactly {cols} characters, found {}",
                        line.len()
                    ));
                }
                if let Some(bad) = line.iter().find(|b| **b != b' ' && !COLORS.contains(b)) {
                    return Err(format!(
                        "`{}` is not a jewel colour (S, T, V, W, X, Y or Z) or a space",
                        String::from_utf8_lossy(std::slice::from_ref(bad))
                    ));
                }
                lines.push(line.to_vec());
                if lines.len() == rows {
                    let field = Field::with_contents(rows, cols, &lines);
                    self.show_first(&field, Some(&lines), out);
                    Phase::Playing(field)
                } else {
                    Phase::Contents { rows, cols, lines }
                }
            }
            Phase::Playing(_) | Phase::Ended => unreachable!("header lines come first"),
        };
        Ok(Flow::Continue)
    }
}

impl Program for Columns {
    fn feed(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, InputError> {
        let result = match self.phase {
            Phase::Playing(_) => self.play(line_no, line, out),
            Phase::Ended => Ok(Flow::Stop),
            _ => self.header(line, out),
        };
        result.map_err(|message| InputError::new(line_no, message))
    }

    fn finish(&mut self, last_line: usize, _out: &mut Vec<u8>) -> Result<(), InputError> {
        let missing = match &self.phase {
            Phase::Rows => "the number of rows",
            Phase::Cols { .. } => "the number of columns",
            Phase::Start { .. } => "`EMPTY` or `CONTENTS`",
            Phase::Contents { .. } => "the rest of the field contents",
            Phase::Playing(_) => {
                self.unspecified
                    .note(last_line + 1, "input ends before `Q` or GAME OVER");
                return Ok(());
            }
            Phase::Ended => return Ok(()),
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
