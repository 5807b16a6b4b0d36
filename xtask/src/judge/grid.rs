//! The kind of a difference in a built-in spec's own terms, where no misreading fits it: which
//! cell of which grid, and how it differs (a matched jewel where a frozen one should be, a
//! liberty count higher than it should be), or which kind of line. What one bug keeps making
//! whatever the case's board, so failures of one kind group together ([`super::unexplained`]),
//! and the cause a group is given.

use super::compare::Difference;

/// The kind of `difference` in the output of `spec` (`columns`, `collapse`, `connect4`, `go`),
/// whose whole expected output is `expected` and /// `actual` the program's.
pub(super) fn kind(spec: &str, difference: &Difference, expected: &str, actual: &str) -> String {
    if difference.presentation_only {
        return difference.cause.clone();
    }
    let (want, got) = match (&difference.expected_line, &difference.actual_line) {
        (None, _) => return STOPS_LATE.into(),
        (_, None) => return STOPS_SHORT.into(),
        (Some(want), Some(got)) => (want.as_str(), got.as_str()),
    };
    match spec {
        "columns" => columns(want, got) + &unmarked(want, got, actual, difference.line),
        "go" => go(want, got, expected, difference.line),
        "connect4" => connect4(want, got),
        "collapse" => cells(want, got, "block"),
        _ => "the output differs".into(),
    }
}

/// The cause a group of failures no misreading fits is given ([`super::unexplained`]): the key
/// it is grouped by and its words, the same for every failure of the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unexplained {
    pub key: String,
    pub words: String,
    /// This failure's own kind within the group: the command it first shows after and its
    /// kind of difference (what a cause shows an example of each of).
    pub shows: (String, String),
}

/// The kinds that say nothing of the grid: output past the end, or missing at the end.
pub(super) const STOPS_LATE: &str = "more output than expected";
pub(super) const STOPS_SHORT: &str = "the output stops short";

/// The form of a Columns cell, as its display draws it.
pub(super) fn form(cell: &str) -> &'static str {
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
pub(super) fn field_cells(line: &str) -> Option<Vec<&str>> {
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
    let lines: Vec<&str> = expected.split('\n').collect();
    let title = lines[..line.min(lines.len())]
        .iter()
        .rev()
        .find(|l| l.starts_with("The "))
        .map_or("the output".to_string(), |t| {
            format!("the table {}", t.trim_start_matches("The "))
        });
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

    fn differing(want: &str, got: &str) -> Difference {
        crate::judge::compare::compare(
            crate::corpus::CompareMode::Exact,
            want.as_bytes(),
            got.as_bytes(),
        )
        .unwrap()
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
        assert_eq!(kind("columns", &d, "", ""), STOPS_SHORT);
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
    }
}
