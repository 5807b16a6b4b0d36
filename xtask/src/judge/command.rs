//! The command of a built-in spec that a failure's first difference shows after, and the
//! handout section that defines it: what holds where no misreading of the handout fits. Every
//! input line of Columns and Connect Four is a command of the spec; the output after it is that
//! command's. (Collapse and Go answer their whole input once: no command to name.)
//!
//! For Columns, a difference inside the field is told in the grid's terms too: the cell's row
//! and column, and its form against the expected one (`*X*`, matched, where ` X `, frozen).

/// A command of a spec, as its handout names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Command {
    /// Its short form, as the key names it (`R`, `F`, `tick`).
    pub key: &'static str,
    /// In words, with the handout's section that defines it.
    pub words: &'static str,
}

/// Whether `slug` is a rule of Columns (its checklist, timing, ruled and display rules).
pub(super) fn columns_rule(slug: &str) -> bool {
    slug.starts_with(|c: char| c.is_ascii_digit())
        || ["timing-", "ruled-", "display-"]
            .iter()
            .any(|prefix| slug.starts_with(prefix))
}

/// Whether `slug` is a rule of Connect Four.
pub(super) fn connect4_rule(slug: &str) -> bool {
    [
        "blank-line",
        "header",
        "prompt",
        "grid",
        "x-first",
        "turns",
        "tie",
    ]
    .contains(&slug)
        || slug.starts_with("invalid")
        || slug.starts_with("win-")
        || slug == "after-invalid"
}

/// The command of input line `line` (the one the difference answers) of the spec whose rule
/// `slug` decided the output there; `None` for a spec without commands.
pub(super) fn command(slug: &str, line: &str) -> Option<Command> {
    if columns_rule(slug) {
        return Some(match line {
            "" => Command {
                key: "tick",
                words: "a tick, an empty line (the handout's timing model)",
            },
            "R" => Command {
                key: "R",
                words: "`R`, the rotation (the handout's commands)",
            },
            "<" | ">" => Command {
                key: "<>",
                words: "`<` or `>`, a move of the faller (the handout's commands)",
            },
            "Q" => Command {
                key: "Q",
                words: "`Q`, quitting (the handout's commands)",
            },
            _ if line.starts_with("F ") => Command {
                key: "F",
                words: "`F`, the creation of a faller (the handout's commands)",
            },
            _ => Command {
                key: "start",
                words: "the field given at the start (the handout's input)",
            },
        });
    }
    if connect4_rule(slug) {
        let is_move = matches!(line.trim().parse::<u32>(), Ok(1..=8));
        return Some(match is_move {
            true => Command {
                key: "move",
                words: "a move, a column from 1 to 8 (the handout's game)",
            },
            false => Command {
                key: "invalid",
                words: "an input line that is no move (the handout's invalid input)",
            },
        });
    }
    None
}

impl super::Judgement {
    /// Where no misreading fits a Columns failure: the difference in the field's terms, and
    /// the field the reference showed before the command it first shows after (the state a
    /// student can set up by hand to see the bug).
    pub fn in_the_field(&self) -> Option<(String, Vec<String>)> {
        if self.rule.as_ref().is_none_or(|rule| rule.misread) {
            return None;
        }
        let words = self.in_the_grid()?;
        let expected = String::from_utf8_lossy(&self.expected);
        let lines: Vec<&str> = expected.split('\n').collect();
        let height = lines.iter().position(|l| l.starts_with(" -"))? + 1;
        let display = (self.difference.as_ref()?.line - 1) / height;
        let before = match display {
            0 => Vec::new(),
            d => lines
                .get((d - 1) * height..d * height)?
                .iter()
                .map(|l| l.to_string())
                .collect(),
        };
        Some((words, before))
    }
}

/// The first cell of a Columns field row that differs: its column (from 1), the program's
/// cell and the expected one. `None` where either line is no field row of the same width.
fn first_cell(expected: &str, actual: &str) -> Option<(usize, String, String)> {
    let (want, got) = (
        super::grid::field_cells(expected)?,
        super::grid::field_cells(actual)?,
    );
    if want.len() != got.len() {
        return None;
    }
    let column = want.iter().zip(&got).position(|(w, g)| w != g)?;
    Some((
        column + 1,
        got[column].to_string(),
        want[column].to_string(),
    ))
}

/// A difference inside a Columns field row, in the grid's terms: the first cell that differs,
/// its row (`row`, from 1: the line within the display) and column, and its form against the
/// expected one.
pub(super) fn columns_cell(row: Option<usize>, expected: &str, actual: &str) -> Option<String> {
    let (column, got, want) = first_cell(expected, actual)?;
    let row = row.map(|r| format!("row {r}, ")).unwrap_or_default();
    Some(format!(
        "the cell at {row}column {column} is `{got}` ({}) where it should be `{want}` ({})",
        super::grid::form(&got),
        super::grid::form(&want),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_columns_line_is_its_command() {
        assert_eq!(command("8-rotated", "R").unwrap().key, "R");
        assert_eq!(command("timing-1-removal", "").unwrap().key, "tick");
        assert_eq!(command("5-created", "F 3 S T V").unwrap().key, "F");
        assert_eq!(command("6-moved", ">").unwrap().key, "<>");
        assert_eq!(command("2-contents", "XY Z").unwrap().key, "start");
        assert_eq!(command("win-diagonal", "4").unwrap().key, "move");
        assert_eq!(command("invalid", "9").unwrap().key, "invalid");
        assert_eq!(command("liberties", "x"), None);
        assert_eq!(command("group", "x"), None);
    }

    #[test]
    fn a_field_row_s_difference_is_told_by_its_cell() {
        assert_eq!(
            columns_cell(Some(4), "|    X    |", "|   *X*   |").as_deref(),
            Some(
                "the cell at row 4, column 2 is `*X*` (matched) where it should be ` X ` (frozen)"
            )
        );
        assert_eq!(
            columns_cell(None, "|[S]|", "|   |").as_deref(),
            Some("the cell at column 1 is `   ` (empty) where it should be `[S]` (falling)")
        );
        assert_eq!(columns_cell(Some(1), "GAME OVER", "|   |"), None);
    }
}
