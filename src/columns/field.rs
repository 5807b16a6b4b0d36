//! The game state: the field's cells, the faller beside them and the jewels waiting above the
//! top; creating, moving and freezing fallers, and time passing ([`Field::tick`]).

use super::Command;
use crate::mutant::{on, Mutant};

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

/// Whether the game goes on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Playing,
    /// Display the field, then `GAME OVER`.
    GameOver,
}

pub(super) const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// The field, the faller and the jewels waiting above the top: the whole game state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) cells: Vec<Cell>,
    pub(super) faller: Option<Faller>,
    /// Jewels of a frozen faller still above the top of a column, bottom first, waiting for the
    /// showing matches to clear (feature 18).
    pub(super) hidden: Option<(usize, Vec<u8>)>,
    pub(super) unspecified: Option<&'static str>,
    /// Per cell, how the last marking of matches marked it: a bit per direction of its runs
    /// ([`DIRECTIONS`] order), and [`IN_FIRST_THREE`] when it is among the first three jewels
    /// of one of them. For the trace.
    pub(super) marks: Vec<u8>,
}

/// In [`Field::marks`]: the cell is one of the first three jewels of a run.
pub(super) const IN_FIRST_THREE: u8 = 1 << 4;

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

    pub(super) fn note(&mut self, what: &'static str) {
        self.unspecified.get_or_insert(what);
    }

    pub(super) fn cell(&self, row: usize, col: usize) -> Cell {
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

    pub(super) fn create(&mut self, col: usize, jewels: [u8; 3]) -> Status {
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
    pub(super) fn shift(&mut self, delta: isize) {
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
    pub(super) fn supported(&self, faller: &Faller) -> bool {
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
}
