//! The submissions an exported package ships: for each built-in spec, one of the independent
//! Python solutions of the similarity bench (written apart from the reference), and wrong
//! programs made from it by edits, each a misreading of the handout that a hand-written case
//! kills. Every edit names text that occurs exactly once in the solution; [`source`] refuses
//! any other, so a changed solution cannot silently make a wrong program right.

use crate::error::Error;

/// One edit: the text to find (exactly once) and its replacement.
type Edit = (&'static str, &'static str);

/// A spec's programs.
pub(super) struct Programs {
    pub(super) spec: &'static str,
    /// The solution's file name in the package.
    pub(super) name: &'static str,
    pub(super) solution: &'static str,
    /// The input validator (`input_validators/SPEC/validate.py`): the graded domain's format.
    pub(super) input_validator: &'static str,
    /// Edits that make the solution whole (none where it already is).
    pub(super) fixes: &'static [Edit],
    /// Wrong programs: a name, the misreading, and its edits of the fixed solution.
    pub(super) wrong: &'static [(&'static str, &'static str, &'static [Edit])],
}

/// The programs of `spec`, if it is a built-in spec.
pub(super) fn of(spec: &str) -> Option<&'static Programs> {
    PROGRAMS.iter().find(|p| p.spec == spec)
}

/// The specs export has programs for.
pub(super) fn specs() -> Vec<&'static str> {
    PROGRAMS.iter().map(|p| p.spec).collect()
}

/// `base` with `edits` made, each on text found exactly once.
pub(super) fn source(base: &str, edits: &[Edit]) -> Result<String, Error> {
    let mut text = base.to_string();
    for (find, replace) in edits {
        match text.matches(find).count() {
            1 => text = text.replacen(find, replace, 1),
            n => {
                return Err(Error::Internal(format!(
                    "an export edit finds its text {n} times, not once: {find:?}"
                )))
            }
        }
    }
    Ok(text)
}

const PROGRAMS: &[Programs] = &[
    Programs {
        spec: "go",
        name: "go.py",
        solution: include_str!("../../bench/similar/go/board_class.py"),
        input_validator: include_str!("../../export/input/go.py"),
        fixes: &[],
        wrong: &[
            (
                "liberties_per_stone",
                "a stone shows its own liberties, not its group's",
                &[(
                    "self.liberty_count[stone] = len(libs)",
                    "self.liberty_count[stone] = sum(\n                            1 for nr, nc in \
                     self.neighbours(*stone) if self.rows[nr][nc] == \".\")",
                )],
            ),
            (
                "liberties_uncapped",
                "more than 99 liberties print as they are",
                &[("min(board.liberty_count[p], 99)", "board.liberty_count[p]")],
            ),
            (
                "groups_not_modulo",
                "group numbers past 99 print whole",
                &[("board.group_of[p] % 100", "board.group_of[p]")],
            ),
            (
                "error_line_from_size",
                "the illegal character's line counts the size line",
                &[("on line %d of the board.\" % (i + 1)", "on line %d of the board.\" % (i + 2)")],
            ),
        ],
    },
    Programs {
        spec: "collapse",
        name: "collapse.py",
        solution: include_str!("../../bench/similar/collapse/game_object.py"),
        input_validator: include_str!("../../export/input/collapse.py"),
        fixes: &[],
        wrong: &[
            (
                "three_are_enough",
                "a group of three blocks is removed",
                &[("if len(chosen) < 4:", "if len(chosen) < 3:")],
            ),
            (
                "no_column_shift",
                "empty columns stay where they are",
                &[("        self.shift_halves()\n", "")],
            ),
            (
                "diagonal_groups",
                "blocks touching at a corner are one group",
                &[(
                    "((0, 1), (1, 0), (0, -1), (-1, 0))",
                    "((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1))",
                )],
            ),
            (
                "no_gravity",
                "blocks above a removed group stay up",
                &[("        self.apply_gravity()\n", "")],
            ),
        ],
    },
    Programs {
        spec: "connect4",
        name: "connect4.py",
        solution: include_str!("../../bench/similar/connect4/flat.py"),
        input_validator: include_str!("../../export/input/connect4.py"),
        fixes: &[],
        wrong: &[
            ("o_first", "O moves first", &[("turn = 0\n", "turn = 1\n")]),
            (
                "no_diagonals",
                "four in a diagonal does not win",
                &[("[(0, 1), (1, 0), (1, 1), (1, -1)]", "[(0, 1), (1, 0)]")],
            ),
            (
                "short_message",
                "the invalid-move message is shortened",
                &[(
                    "'Invalid move. Enter a column number (0-7).\\n'",
                    "'Invalid move.\\n'",
                )],
            ),
            (
                "no_tie",
                "a full grid without four in a row does not end the game",
                &[("if won or '.' not in cells:", "if won:")],
            ),
        ],
    },
    Programs {
        spec: "columns",
        name: "columns.py",
        solution: include_str!("../../bench/similar/columns/compact.py"),
        input_validator: include_str!("../../export/input/columns.py"),
        // Feature 18: jewels above the top, kept while the matches they made show, fall in
        // with the rest once the matches are gone.
        fixes: &[
            (
                "M = set()\n",
                "M = set()\nH = {}  # jewels above the top of a column, kept while matches show\n",
            ),
            (
                "js = [G[r][c] for r in range(R) if G[r][c] != ' ']",
                "js = H.pop(c, []) + [G[r][c] for r in range(R) if G[r][c] != ' ']",
            ),
            (
                "            lost = F[1] < 2 and not M\n",
                "            lost = F[1] < 2 and not M\n            if F[1] < 2 and M:\n                \
                 H[F[0]] = F[2][:2 - F[1]]\n",
            ),
        ],
        wrong: &[
            (
                "rotates_upward",
                "rotation moves the top jewel to the bottom",
                &[("F[2] = F[2][2:] + F[2][:2]", "F[2] = F[2][1:] + F[2][:1]")],
            ),
            (
                "no_diagonal_match",
                "diagonal runs do not match",
                &[("((0, 1), (1, 0), (1, 1), (-1, 1))", "((0, 1), (1, 0))")],
            ),
            (
                "four_to_match",
                "a run must be four long to match",
                &[(
                    "[(r + dr * i, c + dc * i) for i in range(3)]",
                    "[(r + dr * i, c + dc * i) for i in range(4)]",
                )],
            ),
            (
                "quit_displays",
                "Q displays the field once more",
                &[("    if cmd == 'Q':\n        break", "    if cmd == 'Q':\n        show()\n        break")],
            ),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_edit_finds_its_text_once_and_changes_the_program() {
        for programs in PROGRAMS {
            let fixed = source(programs.solution, programs.fixes).unwrap();
            for (name, _, edits) in programs.wrong {
                let wrong = source(&fixed, edits).unwrap();
                assert_ne!(wrong, fixed, "{} {name}", programs.spec);
            }
        }
        assert!(source("a a", &[("a", "b")]).is_err());
        assert!(source("a", &[("c", "b")]).is_err());
    }
}
