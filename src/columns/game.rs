//! The Columns program: the header lines (rows, columns, `EMPTY` or `CONTENTS`), then one
//! command per line, each followed by the display.

use super::command::parse_number;
use super::trace::{rules, Provenance};
use super::{Command, Field, Status, COLORS, MAX_CELLS};
use crate::mutant::{on, Mutant};
use crate::program::{Flow, InputError, Program, Unspecified};
use crate::rule::Spans;

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

    fn command(&self, line: &[u8]) -> Option<&'static crate::rule::Command> {
        Some(super::trace::commands::of(line))
    }
}
