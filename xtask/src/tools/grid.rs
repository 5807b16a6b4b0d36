//! The built-in specs' outputs read as grids: the terms a failure no misreading fits is told
//! in (which cell of which grid, and how it differs: a matched jewel where a frozen one should
//! be, a liberty count higher than it should be; or which kind of line). What one bug keeps
//! making whatever the case's board, so that failures of one kind group together. Each spec's
//! reader is a [`Grid`] in its row of the tools table ([`super::TOOLS`]); the suite hands it to
//! the judge, which knows no game.

use crate::corpus::Grid;

/// Columns' field: cells of three characters between `|`, a bottom line of dashes, and
/// `GAME OVER`.
#[derive(Debug)]
pub(crate) struct Columns;

/// Connect Four's board: rows of `.`, `X` and `O`, the column numbers, the turn lines, the
/// prompt and the invalid-move message.
#[derive(Debug)]
pub(crate) struct Connect4;

/// Collapse's board: rows of single-character blocks.
#[derive(Debug)]
pub(crate) struct Collapse;

/// Go's three tables: the stones, the liberties and the groups.
#[derive(Debug)]
pub(crate) struct Go;

impl Grid for Columns {
    fn kind(&self, want: &str, got: &str, _expected: &str, actual: &str, line: usize) -> String {
        columns(want, got) + &unmarked(want, got, actual, line)
    }

    /// The first cell that differs, by its row (the line within the display, from 1), its
    /// column and its form against the expected one.
    fn cell(&self, expected: &str, line: usize, want: &str, got: &str) -> Option<String> {
        let height = display_height(expected)?;
        let row = (line - 1) % height + 1;
        columns_cell(Some(row), want, got)
    }

    /// The display the reference showed before the one holding output line `line`: the state
    /// a student can set up by hand to see the bug.
    fn before(&self, expected: &str, line: usize) -> Option<Vec<String>> {
        let lines: Vec<&str> = expected.split('\n').collect();
        let height = display_height(expected)?;
        let display = (line - 1) / height;
        Some(match display {
            0 => Vec::new(),
            d => lines
                .get((d - 1) * height..d * height)?
                .iter()
                .map(|l| l.to_string())
                .collect(),
        })
    }
}

impl Grid for Connect4 {
    fn kind(&self, want: &str, got: &str, _expected: &str, _actual: &str, _line: usize) -> String {
        connect4(want, got)
    }
}

impl Grid for Collapse {
    fn kind(&self, want: &str, got: &str, _expected: &str, _actual: &str, _line: usize) -> String {
        cells(want, got, "block")
    }
}

impl Grid for Go {
    fn kind(&self, want: &str, got: &str, expected: &str, _actual: &str, line: usize) -> String {
        go(want, got, expected, line)
    }
}

/// The height of a Columns display in `expected`: the lines before its first dashed line,
/// and that line.
fn display_height(expected: &str) -> Option<usize> {
    Some(expected.split('\n').position(|l| l.starts_with(" -"))? + 1)
}

/// The form of a Columns cell, as its display draws it.
fn form(cell: &str) -> &'static str {
    let bytes = cell.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(b' '), Some(b' ')) if cell.trim().is_empty() => "empty",
        (Some(b' '), Some(b' ')) => "frozen",
        (Some(b'['), Some(b']')) => "falling",
        (Some(b'|'), Some(b'|')) => "landed",
        (Some(b'*'), Some(b'*')) => "matched",
        _ => "something else",
    }
}

/// The cells of a Columns field row (`|` + three characters a cell + `|`).
fn field_cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    if inner.len() % 3 != 0 || !inner.is_ascii() {
        return None;
    }
    Some(
        (0..inner.len())
            .step_by(3)
            .map(|k| &inner[k..k + 3])
            .collect(),
    )
}

/// The first cell of a Columns field row that differs: its column (from 1), the program's
/// cell and the expected one. `None` where either line is no field row of the same width.
fn first_cell(expected: &str, actual: &str) -> Option<(usize, String, String)> {
    let (want, got) = (field_cells(expected)?, field_cells(actual)?);
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
fn columns_cell(row: Option<usize>, expected: &str, actual: &str) -> Option<String> {
    let (column, got, want) = first_cell(expected, actual)?;
    let row = row.map(|r| format!("row {r}, ")).unwrap_or_default();
    Some(format!(
        "the cell at {row}column {column} is `{got}` ({}) where it should be `{want}` ({})",
        form(&got),
        form(&want),
    ))
}

/// A Columns difference: by the first cell's forms inside two field rows, else by the kinds
/// of line.
fn columns(want: &str, got: &str) -> String {
    if let (Some(want), Some(got)) = (field_cells(want), field_cells(got)) {
        if want.len() == got.len() {
            if let Some((w, g)) = want.iter().zip(&got).find(|(w, g)| w != g) {
                let (w, g) = (form(w), form(g));
                let a = |form: &str| if form == "empty" { "an" } else { "a" };
                return if w == g {
                    format!("{} {g} cell holding another jewel", a(g))
                } else {
                    format!("{} {g} cell where {} {w} one should be", a(g), a(w))
                };
            }
        }
        return "a field row of another width".into();
    }
    let line = |l: &str| {
        if field_cells(l).is_some() {
            "a field row"
        } else if l.starts_with(" -") {
            "the field's bottom line"
        } else if l == "GAME OVER" {
            "`GAME OVER`"
        } else {
            "another line"
        }
    };
    format!("{} where {} should be", line(got), line(want))
}

/// Where a Columns cell should be matched and is not: whether the program marked any jewel of
/// that field (a run it does not see at all, or one of several it sees).
fn unmarked(want: &str, got: &str, actual: &str, line: usize) -> String {
    let cell = |line: &str| {
        let cells = field_cells(line)?;
        Some(cells.into_iter().map(form).collect::<Vec<_>>())
    };
    let (Some(want), Some(got)) = (cell(want), cell(got)) else {
        return String::new();
    };
    let first = want.iter().zip(&got).find(|(w, g)| w != g);
    if !first.is_some_and(|(w, g)| *w == "matched" && *g != "matched") {
        return String::new();
    }
    let lines: Vec<&str> = actual.split('\n').collect();
    let at = line.saturating_sub(1).min(lines.len());
    let is_bottom = |l: &&str| l.starts_with(" -");
    let start = lines[..at].iter().rposition(is_bottom).map_or(0, |k| k + 1);
    let end = lines[at..]
        .iter()
        .position(is_bottom)
        .map_or(lines.len(), |k| at + k);
    let marked = lines[start..end]
        .iter()
        .filter_map(|l| cell(l))
        .any(|cells| cells.contains(&"matched"));
    match marked {
        true => " (other jewels of the field marked)".into(),
        false => " (no jewel of the field marked)".into(),
    }
}

/// A Connect Four difference: by the first cell inside two board rows, else by the kinds of
/// line (a turn, a win, the end of the game, the prompt, the invalid-move message).
fn connect4(want: &str, got: &str) -> String {
    let line = |l: &str| {
        if l.len() == 8 && l.chars().all(|c| matches!(c, '.' | 'X' | 'O')) {
            "a board row"
        } else if l.len() == 8 && l.chars().all(|c| c.is_ascii_digit()) {
            "the column numbers"
        } else if l.ends_with("'s turn") {
            "a turn line"
        } else if l.ends_with(" wins!") {
            "a win"
        } else if l == "Game finished." {
            "the end of the game"
        } else if l.starts_with("Enter a column") {
            "the prompt"
        } else if l.starts_with("Invalid move") {
            "the invalid-move message"
        } else if l.is_empty() {
            "an empty line"
        } else {
            "another line"
        }
    };
    match (line(want), line(got)) {
        ("a board row", "a board row") => cells(want, got, "piece"),
        (w, g) if w == g => format!("{g} of other words"),
        (w, g) => format!("{g} where {w} should be"),
    }
}

/// A difference in a line of single-character cells (Connect Four's board, Collapse's): by
/// the first differing character, an empty cell (`.`) or a `mark` (a letter or digit).
fn cells(want: &str, got: &str, mark: &str) -> String {
    if want.chars().count() != got.chars().count() {
        return "a line of another length".into();
    }
    let class = |c: char| match c {
        '.' => "an empty cell".to_string(),
        c if c.is_alphanumeric() => format!("a {mark}"),
        _ => "another character".into(),
    };
    match want.chars().zip(got.chars()).find(|(w, g)| w != g) {
        Some((w, g)) if class(w) == class(g) => format!("{} of another kind", class(g)),
        Some((w, g)) => format!("{} where {} should be", class(g), class(w)),
        None => "a line of another length".into(),
    }
}

/// A difference in Go's tables: which table (the last title above the line), and how the
/// first differing entry differs; in the liberties table, whether its stone is alone in its
/// group (what the groups table shows).
fn go(want: &str, got: &str, expected: &str, line: usize) -> String {
    // A line that is no row of a table (a title, a message, the column letters) is told by
    // its kind: a usage message where the first title should be is not "another entry".
    let (want_kind, got_kind) = (go_line(want), go_line(got));
    if want_kind != got_kind {
        return format!("{got_kind} where {want_kind} should be");
    }
    let lines: Vec<&str> = expected.split('\n').collect();
    let title = match want_kind {
        "a row" => lines[..line.min(lines.len())]
            .iter()
            .rev()
            .find(|l| l.starts_with("The "))
            .map_or("the output".to_string(), |t| {
                format!("the table {}", t.trim_start_matches("The "))
            }),
        // A message is told entry by entry too: its line number, say.
        "a message of the handout's" => "the handout's message".to_string(),
        "the column letters" => return "other column letters".into(),
        "a table's title" => return "another title".into(),
        _ => return "other words".into(),
    };
    let (w, g): (Vec<&str>, Vec<&str>) = (
        want.split_whitespace().collect(),
        got.split_whitespace().collect(),
    );
    let Some(at) = w.iter().zip(&g).position(|(w, g)| w != g) else {
        return if w.len() == g.len() {
            format!("in {title}: the same entries spaced otherwise")
        } else {
            format!("in {title}: a row with another number of entries")
        };
    };
    let (x, y) = (w[at], g[at]);
    let number = |s: &str| s.parse::<u64>().ok();
    let how = match (number(x), number(y)) {
        (_, Some(_)) if y.len() > 2 => "a number of three digits or more",
        (Some(x), Some(y)) if y > x => "a number higher than it should be",
        (Some(_), Some(_)) => "a number lower than it should be",
        (None, Some(_)) if x == ".." => "a number where `..` should be",
        (Some(_), None) if y == ".." => "`..` where a number should be",
        _ => "another entry",
    };
    let whose = if title == "the table Liberties" && at > 0 {
        match group_size(&lines, w[0], at) {
            Some(1) => " (a stone alone in its group)",
            Some(_) => " (a stone of a larger group)",
            None => "",
        }
    } else {
        ""
    };
    format!("in {title}: {how}{whose}")
}

/// What a line of Go's output is: a table's title, its column letters, one of its rows, an
/// empty line, or one of the handout's messages.
fn go_line(line: &str) -> &'static str {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.first() {
        None => "an empty line",
        Some(_) if line.starts_with("The ") => "a table's title",
        Some(_) if line.starts_with("That is not") || line.starts_with("There was") => {
            "a message of the handout's"
        }
        Some(first) if first.parse::<u32>().is_ok() => "a row",
        Some(_)
            if words
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_uppercase())) =>
        {
            "the column letters"
        }
        Some(_) => "a line of words",
    }
}

/// How many stones the group at row `row`, entry `at` of the expected groups table holds.
fn group_size(lines: &[&str], row: &str, at: usize) -> Option<usize> {
    let start = lines.iter().position(|l| *l == "The Groups")?;
    let rows: Vec<Vec<&str>> = lines[start + 2..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    let group = *rows.iter().find(|r| r.first() == Some(&row))?.get(at)?;
    Some(
        rows.iter()
            .map(|r| r[1..].iter().filter(|e| **e == group).count())
            .sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Difference;
    use crate::tools::grid_of;

    fn differing(want: &str, got: &str) -> Difference {
        let rules = crate::corpus::Rules {
            compare: crate::corpus::CompareMode::Exact,
            grade_exit_status: false,
        };
        let execution = crate::process::Execution::finished(
            crate::process::Exit::Code(0),
            got.as_bytes().to_vec(),
            Vec::new(),
        );
        let timeout = std::time::Duration::from_secs(1);
        crate::judge::judge(rules, want.as_bytes().to_vec(), execution, timeout)
            .difference
            .unwrap()
    }

    /// The kind the judge tells of `d` with the reader of the built-in spec `spec`.
    fn kind(spec: &str, d: &Difference, expected: &str, actual: &str) -> String {
        let grid = grid_of(spec).unwrap();
        crate::judge::kind_in(grid, d, expected, actual)
    }

    #[test]
    fn a_columns_cell_is_told_by_its_forms() {
        let d = differing("|    X    |\n", "|   *X*   |\n");
        assert_eq!(
            kind("columns", &d, "|    X    |\n", "|   *X*   |\n"),
            "a matched cell where a frozen one should be"
        );
        let d = differing("|*X**X**X*|\n", "| X  X  X |\n");
        assert_eq!(
            kind("columns", &d, "", "| X  X  X |\n"),
            "a frozen cell where a matched one should be (no jewel of the field marked)"
        );
        let (want, got) = ("|*X*|\n|*Y*|\n ---\n", "|*X*|\n| Y |\n ---\n");
        assert_eq!(
            kind("columns", &differing(want, got), want, got),
            "a frozen cell where a matched one should be (other jewels of the field marked)"
        );
        let d = differing("|[S]|\n", "|[T]|\n");
        assert_eq!(
            kind("columns", &d, "", ""),
            "a falling cell holding another jewel"
        );
        let d = differing(" --- \nGAME OVER\n", " --- \n|   |\n");
        assert_eq!(
            kind("columns", &d, "", ""),
            "a field row where `GAME OVER` should be"
        );
        let d = differing("a\nb\n", "a\n");
        assert_eq!(kind("columns", &d, "", ""), "the output stops short");
        let d = differing("| X |\n", "|   |\n");
        assert_eq!(
            kind("columns", &d, "", ""),
            "an empty cell where a frozen one should be"
        );
    }

    #[test]
    fn a_board_cell_is_told_by_what_it_holds() {
        let d = differing("X......O\n", "X.....OO\n");
        assert_eq!(
            kind("connect4", &d, "", ""),
            "a piece where an empty cell should be"
        );
        let d = differing("X's turn\n", "Game finished.\n");
        assert_eq!(
            kind("connect4", &d, "", ""),
            "the end of the game where a turn line should be"
        );
        let d = differing("..242.\n", "..342.\n");
        assert_eq!(kind("collapse", &d, "", ""), "a block of another kind");
    }

    #[test]
    fn a_go_entry_is_told_by_its_table_and_its_group() {
        let expected = "The Liberties\n    AA  BB\n 1   3   3\n 2   4  ..\n\n\
                        The Groups\n    AA  BB\n 1   1   1\n 2   2  ..\n";
        let d = differing(expected, &expected.replace(" 1   3   3", " 1   5   3"));
        assert_eq!(
            kind("go", &d, expected, ""),
            "in the table Liberties: a number higher than it should be (a stone of a larger group)"
        );
        let d = differing(expected, &expected.replace(" 2   4  ..", " 2   3  .."));
        assert_eq!(
            kind("go", &d, expected, ""),
            "in the table Liberties: a number lower than it should be (a stone alone in its group)"
        );
        let d = differing(expected, &expected.replace(" 2   2  ..", " 2  100 .."));
        assert_eq!(
            kind("go", &d, expected, ""),
            "in the table Groups: a number of three digits or more"
        );
        // A program that prints no table at all is told what it printed instead.
        let d = differing(expected, "usage: go < board\n");
        assert_eq!(
            kind("go", &d, expected, ""),
            "a line of words where a table's title should be"
        );
        let d = differing(expected, "That is not a legal board size.\n");
        assert_eq!(
            kind("go", &d, expected, ""),
            "a message of the handout's where a table's title should be"
        );
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

    /// The judgement of a program that printed `stdout` and ended with `exit` (and `stderr`),
    /// where `expected` was right and the difference answers the input line `answers`.
    fn judged(
        expected: &str,
        stdout: &str,
        exit: crate::process::Exit,
        stderr: &str,
        answers: &str,
    ) -> crate::judge::Judgement {
        let execution = crate::process::Execution::finished(
            exit,
            stdout.as_bytes().to_vec(),
            stderr.as_bytes().to_vec(),
        );
        let rules = crate::corpus::Rules {
            compare: crate::corpus::CompareMode::Exact,
            grade_exit_status: false,
        };
        let timeout = std::time::Duration::from_secs(1);
        let mut judgement =
            crate::judge::judge(rules, expected.as_bytes().to_vec(), execution, timeout);
        judgement.answers = Some(answers.to_string());
        judgement
    }

    /// Where no misreading fits a Columns failure, its own cause names the command it shows
    /// after, with the handout's section, and the cell that differs, by row, column and form.
    #[test]
    fn an_unexplained_columns_failure_names_its_command_and_cell() {
        let field = "|         |\n|    X    |\n ---------\n";
        let mut marked = judged(
            &format!("{field}{field}"),
            &format!("{field}|         |\n|   *X*   |\n ---------\n"),
            crate::process::Exit::Code(0),
            "",
            "",
        );
        // What the reference's trace says there, and the grid the suite hands the judge.
        marked.rule = Some(crate::judge::RuleAt {
            slug: "13-horizontal".into(),
            words: "horizontal matching".into(),
            section: "matching and removing jewels".into(),
            misread: false,
            whole: false,
        });
        marked.line_command = Some(crate::judge::Command {
            key: "tick".into(),
            words: "a tick, an empty line (the handout's timing model)".into(),
        });
        marked.grid = grid_of("columns");
        let cause = marked.cause();
        assert!(
            cause.contains(
                "the cell at row 2, column 2 is `*X*` (matched) where it should be ` X ` (frozen)"
            ),
            "{cause}"
        );
        assert!(
            cause.contains("first after a tick, an empty line (the handout's timing model)"),
            "{cause}"
        );
        // The cell, and the field before the tick as the reference showed it (what a case's
        // block tells).
        let (words, before) = marked.in_the_field().unwrap();
        assert!(words.starts_with("the cell at row 2, column 2"), "{words}");
        assert_eq!(before, ["|         |", "|    X    |", " ---------"]);
        // Go's tables in their own terms too: which table, how the entry differs.
        let expected = "The Liberties\n    AA\n 1   4\n\nThe Groups\n    AA\n 1   1\n";
        let stdout = expected.replace(" 1   4", " 1   6");
        let mut liberties = judged(expected, &stdout, crate::process::Exit::Code(0), "", "");
        liberties.answers = None;
        liberties.rule = marked.rule.clone().map(|rule| crate::judge::RuleAt {
            slug: "liberties".into(),
            section: "liberties".into(),
            ..rule
        });
        liberties.grid = grid_of("go");
        let cause = liberties.cause();
        assert!(
            cause.starts_with(
                "wrong output: in the table Liberties: a number higher than it should be (a \
                 stone alone in its group), where the handout's rules on liberties decide"
            ),
            "{cause}"
        );
        // A misreading that fits says so instead, in its own words.
        marked.rule.as_mut().unwrap().misread = true;
        assert!(
            !marked.cause().contains("first after"),
            "{}",
            marked.cause()
        );
    }
}
