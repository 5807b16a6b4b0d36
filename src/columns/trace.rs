//! Which rule of `columns.md` decided each part of a display, for the trace (see
//! [`crate::rule`]).
//!
//! [`Provenance`] follows the game from outside the engine: after each command it compares the
//! field's cells with what they showed before, and credits every cell that changed to what the
//! command did (a faller created, moved, rotated, fallen, landed or frozen; matches marked in a
//! direction; removed jewels and the fall after them). A cell that did not change keeps the
//! rule that last changed it. A command that changed nothing is the rule of its whole display.

use super::{Cell, CellView, Command, Field, Status};
use crate::rule::{Rule, Spans};

/// The rules of `columns.md`, numbered as its grading checklist numbers them.
pub mod rules {
    crate::rules! {
        EMPTY_FIELD = "1-empty-field", "the field at the start", "checklist 1: begin with an empty field of the correct size";
        CONTENTS = "2-contents", "the field at the start", "checklist 2: begin with the contents of the field specified";
        HOLES = "3-holes", "the field at the start", "checklist 3: holes in the given contents: jewels fall immediately";
        QUIT = "4-quit", "the end of the game", "checklist 4: quit with Q (nothing more is displayed)";
        CREATED = "5-created", "creating, moving and rotating the faller", "checklist 5: a faller is created with only its bottom jewel visible";
        MOVED = "6-moved", "creating, moving and rotating the faller", "checklist 6: fallers move left and right at any point until frozen";
        BLOCKED = "7-blocked", "creating, moving and rotating the faller", "checklist 7: fallers cannot move left or right when blocked by frozen jewels";
        ROTATED = "8-rotated", "creating, moving and rotating the faller", "checklist 8: fallers can be rotated at any point until frozen";
        FALLS = "timing-3-falls", "falling, landing and freezing", "timing 3: a falling faller moves down one row per tick";
        LANDS = "9-lands", "falling, landing and freezing", "checklist 9: fallers land when they can't move down any further";
        FREEZES = "10-freezes", "falling, landing and freezing", "checklist 10: fallers freeze at the next tick after landing";
        POSTPONED = "11-postponed", "falling, landing and freezing", "checklist 11: freezing is postponed by moving a landed faller over empty space";
        GAME_OVER = "12-game-over", "the end of the game", "checklist 12: the game ends when a faller freezes without fitting in the field";
        HORIZONTAL = "13-horizontal", "matching and removing jewels", "checklist 13: horizontal matching";
        VERTICAL = "14-vertical", "matching and removing jewels", "checklist 14: vertical matching";
        DIAGONAL = "15-diagonal", "matching and removing jewels", "checklist 15: diagonal matching";
        LONGER = "16-longer", "matching and removing jewels", "checklist 16: matched sequences longer than three";
        GAME_OVER_POSTPONED = "18-postponed", "the end of the game", "checklist 18: game over is postponed when a match makes everything fit";
        START_MATCH = "19-start-match", "matching and removing jewels", "checklist 19: matching triggered by the given contents";
        MATCH_AFTER_HOLES = "20-match-after-holes", "matching and removing jewels", "checklist 20: matching triggered after the given contents' holes are filled";
        REMOVAL = "timing-1-removal", "matching and removing jewels", "timing 1: matched jewels are removed and the jewels above them fall";
        CHAIN = "timing-1-chain", "matching and removing jewels", "timing 1: after a removal, new matches show in the same display";
        IDLE = "timing-idle", "falling, landing and freezing", "a tick with no faller and no matches changes nothing";
        CREATED_LANDED = "ruled-created-landed", "falling, landing and freezing", "ruled: a faller created on support is landed at once";
        CREATE_IGNORED = "ruled-create-ignored", "creating, moving and rotating the faller", "ruled: `F` has no effect while a faller exists";
        WHILE_MATCHING = "ruled-while-matching", "creating, moving and rotating the faller", "ruled: `R`, `<` and `>` have no effect while matches show";
        NO_FALLER = "display-no-faller", "the display", "every command but `Q` is followed by a display, even one with no effect";
        BOTTOM = "display-bottom", "the display", "display: the bottom line is a space, 3 dashes per column and a space";
        CELLS = "display-cells", "the display", "display: a cell shows `   `, ` X `, `[X]`, `|X|` or `*X*`";
    }
}

/// The commands of `columns.md`, as a trace names them: every input line is one.
pub mod commands {
    crate::commands! {
        TICK = "tick", "a tick, an empty line (the handout's timing model)";
        ROTATE = "R", "`R`, the rotation (the handout's commands)";
        MOVE = "<>", "`<` or `>`, a move of the faller (the handout's commands)";
        QUIT = "Q", "`Q`, quitting (the handout's commands)";
        CREATE = "F", "`F`, the creation of a faller (the handout's commands)";
        START = "start", "the field given at the start (the handout's input)";
    }

    /// The command input line `line` is, by its text alone: a line that is none of the
    /// game's commands belongs to the field given at the start.
    pub fn of(line: &[u8]) -> &'static crate::rule::Command {
        match line {
            b"" => &TICK,
            b"R" => &ROTATE,
            b"<" | b">" => &MOVE,
            b"Q" => &QUIT,
            _ if line.starts_with(b"F ") => &CREATE,
            _ => &START,
        }
    }
}

/// The rule behind every cell of the field and behind the faller.
#[derive(Debug, Clone)]
pub struct Provenance {
    cells: Vec<&'static Rule>,
    faller: &'static Rule,
    /// A command that changed nothing: the rule of its whole display.
    unchanged: Option<&'static Rule>,
    /// What the cells showed before the command.
    before: Vec<CellView>,
    had_faller: Option<super::Faller>,
    /// Jewels of a frozen faller waited above the top before the command.
    had_hidden: bool,
}

impl Provenance {
    /// The provenance of the first display: an empty field, or the given contents `lines`
    /// after their holes filled and their matches were marked.
    pub fn start(field: &Field, lines: Option<&[Vec<u8>]>) -> Provenance {
        let cols = field.cols();
        let mut cells = vec![&rules::EMPTY_FIELD; field.rows() * cols];
        if let Some(lines) = lines {
            for (index, rule) in cells.iter_mut().enumerate() {
                let (row, col) = (index / cols, index % cols);
                let given = lines[row][col];
                *rule = match field.cell(row, col) {
                    Cell::Matched(jewel) if jewel == given => &rules::START_MATCH,
                    Cell::Matched(_) => &rules::MATCH_AFTER_HOLES,
                    Cell::Frozen(jewel) if jewel == given => &rules::CONTENTS,
                    Cell::Empty if given == b' ' => &rules::CONTENTS,
                    _ => &rules::HOLES,
                };
            }
        }
        Provenance {
            cells,
            faller: &rules::CREATED,
            unchanged: None,
            before: Vec::new(),
            had_faller: None,
            had_hidden: false,
        }
    }

    /// The rule that decided how the last command's display ends, with `status`: GAME OVER
    /// (postponed until the matches cleared, or not), or none yet (jewels wait above the top,
    /// the command had no effect, or the game simply goes on).
    pub fn ending(&self, field: &Field, status: Status) -> &'static Rule {
        let hidden = field.hidden.is_some();
        let had_matches = self
            .before
            .iter()
            .any(|v| matches!(v, CellView::Matched(_)));
        match status {
            Status::GameOver if had_matches && self.had_hidden => &rules::GAME_OVER_POSTPONED,
            Status::GameOver => &rules::GAME_OVER,
            Status::Playing if hidden && !self.had_hidden => &rules::GAME_OVER_POSTPONED,
            Status::Playing => self.unchanged.unwrap_or(&rules::GAME_OVER),
        }
    }

    /// Notes the field as it is before a command.
    pub fn before(&mut self, field: &Field) {
        self.before = views(field);
        self.had_faller = field.faller().cloned();
        self.had_hidden = field.hidden.is_some();
    }

    /// Credits what `command` changed on `field` (now after it).
    pub fn after(&mut self, field: &Field, command: Command, status: Status) {
        let after = views(field);
        let changed = after != self.before;
        let had_matches = self
            .before
            .iter()
            .any(|v| matches!(v, CellView::Matched(_)));
        let faller = field.faller();
        self.unchanged = match command {
            _ if changed => None,
            Command::Create { .. } if self.had_faller.is_some() => Some(&rules::CREATE_IGNORED),
            Command::Rotate | Command::Left | Command::Right if had_matches => {
                Some(&rules::WHILE_MATCHING)
            }
            Command::Rotate | Command::Left | Command::Right if faller.is_none() => {
                Some(&rules::NO_FALLER)
            }
            Command::Left | Command::Right => Some(&rules::BLOCKED),
            Command::Tick => Some(&rules::IDLE),
            _ => None,
        };
        if let Some(faller) = faller {
            let landed_before = self.had_faller.as_ref().is_some_and(|f| f.landed);
            self.faller = match command {
                Command::Create { .. } if self.had_faller.is_none() && faller.landed => {
                    &rules::CREATED_LANDED
                }
                Command::Create { .. } if self.had_faller.is_none() => &rules::CREATED,
                Command::Rotate if changed => &rules::ROTATED,
                Command::Left | Command::Right if changed && faller.landed != landed_before => {
                    &rules::POSTPONED
                }
                Command::Left | Command::Right if changed => &rules::MOVED,
                Command::Left | Command::Right => &rules::BLOCKED,
                Command::Tick if faller.landed => &rules::LANDS,
                Command::Tick => &rules::FALLS,
                _ => self.faller,
            };
        }
        let froze = command == Command::Tick && self.had_faller.is_some() && faller.is_none();
        for (index, (was, is)) in self.before.iter().zip(&after).enumerate() {
            if was == is {
                continue;
            }
            self.cells[index] = match is {
                CellView::Matched(_) if had_matches => &rules::CHAIN,
                CellView::Matched(_) => field.match_rule(index),
                CellView::Frozen(_) if froze && status == Status::GameOver => &rules::GAME_OVER,
                CellView::Frozen(_) if froze => &rules::FREEZES,
                _ if had_matches => &rules::REMOVAL,
                _ => self.faller,
            };
        }
    }

    /// Appends a display of `field`, each cell marked with its rule.
    pub fn render(&self, field: &Field, out: &mut Vec<u8>, spans: &mut Spans) {
        let start = out.len();
        let mut last_cell = start;
        field.render_cells(out, |index, view, at| {
            let rule = match view {
                CellView::Falling(_) | CellView::Landed(_) => self.faller,
                _ => self.cells[index],
            };
            spans.mark(at, at + 3, self.unchanged.unwrap_or(rule));
            last_cell = at;
        });
        // The bottom line follows the last cell and the row's end, `|\n`.
        let bottom = last_cell + 3 + 2;
        spans.mark(bottom, out.len(), &rules::BOTTOM);
        spans.mark(start, out.len(), self.unchanged.unwrap_or(&rules::CELLS));
    }
}

/// What every cell of `field` shows.
fn views(field: &Field) -> Vec<CellView> {
    let cols = field.cols();
    (0..field.rows() * cols)
        .map(|index| field.view(index / cols, index % cols))
        .collect()
}
