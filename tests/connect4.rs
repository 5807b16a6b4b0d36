//! Connect Four rules: every win direction, a tie, every invalid input the doc lists, a full
//! column, and the exact shape of turns and prompts. Expected texts are built from the doc's
//! output format by the helpers below, never from the program.

use crate::support::{check, check_unspecified, run};

const INVALID: &str = "Invalid move. Enter a column number (0-7).\nEnter a column: ";

/// The board as printed at the start of a turn and at the end.
fn board(rows: [&str; 5]) -> String {
    format!("\n01234567\n{}\n01234567\n", rows.join("\n"))
}

fn turn(rows: [&str; 5], player: char) -> String {
    board(rows) + &format!("{player}'s turn\nEnter a column: ")
}

fn finished(rows: [&str; 5]) -> String {
    board(rows) + "Game finished.\n"
}

const EMPTY: [&str; 5] = ["........"; 5];

#[test]
fn horizontal_win_ends_the_game_without_a_winner_message() {
    let input = "0\n0\n1\n1\n2\n2\n3\n";
    let e = "........";
    let expected = [
        turn(EMPTY, 'X'),
        turn([e, e, e, e, "X......."], 'O'),
        turn([e, e, e, "O.......", "X......."], 'X'),
        turn([e, e, e, "O.......", "XX......"], 'O'),
        turn([e, e, e, "OO......", "XX......"], 'X'),
        turn([e, e, e, "OO......", "XXX....."], 'O'),
        turn([e, e, e, "OOO.....", "XXX....."], 'X'),
        finished([e, e, e, "OOO.....", "XXXX...."]),
    ]
    .concat();
    check("connect4", input, &expected);
}

#[test]
fn diagonal_up_win() {
    let input = "0\n1\n1\n2\n3\n2\n2\n3\n6\n3\n3\n";
    let (output, finished_run) = run("connect4", input);
    let e = "........";
    let end = finished([e, "...X....", "..XO....", ".XOO....", "XOOX..X."]);
    assert!(output.ends_with(&end), "{output}");
    assert_eq!(output.matches("Enter a column: ").count(), 11);
    assert_eq!(finished_run.unspecified, None);
}

#[test]
fn diagonal_down_win() {
    let input = "3\n2\n2\n1\n0\n1\n1\n0\n7\n0\n0\n";
    let (output, finished_run) = run("connect4", input);
    let e = "........";
    let end = finished([e, "X.......", "OX......", "OOX.....", "XOOX...X"]);
    assert!(output.ends_with(&end), "{output}");
    assert_eq!(output.matches("Enter a column: ").count(), 11);
    assert_eq!(finished_run.unspecified, None);
}

#[test]
fn vertical_win_for_o_at_the_right_edge() {
    let input = "0\n7\n1\n7\n0\n7\n1\n7\n";
    let (output, _) = run("connect4", input);
    let e = "........";
    let end = finished([e, ".......O", ".......O", "XX.....O", "XX.....O"]);
    assert!(output.ends_with(&end), "{output}");
}

#[test]
fn full_board_without_four_in_a_row_is_a_tie() {
    // Rows alternate XXOOXXOO and OOXXOOXX: no line of four anywhere.
    let row_even = "0\n2\n1\n3\n4\n6\n5\n7\n";
    let row_odd = "2\n0\n3\n1\n6\n4\n7\n5\n";
    let input = [row_even, row_odd, row_even, row_odd, row_even].concat();
    let (output, finished_run) = run("connect4", &input);
    let end = finished(["XXOOXXOO", "OOXXOOXX", "XXOOXXOO", "OOXXOOXX", "XXOOXXOO"]);
    assert!(output.ends_with(&end), "{output}");
    assert_eq!(output.matches("Enter a column: ").count(), 40);
    assert_eq!(finished_run.unspecified, None);
}

/// Moves that finish a game begun with X in column 4: X wins down column 4. Graded inputs
/// play a game to its end, since input that stops earlier is unspecified.
const FINISH_AFTER_X4: &str = "0\n4\n0\n4\n0\n4\n";

/// The output must begin with `expected_prefix`, and the whole input must be graded.
#[track_caller]
fn check_prefix(input: &str, expected_prefix: &str) {
    let (output, finished_run) = run("connect4", input);
    assert!(output.starts_with(expected_prefix), "{output}");
    assert!(output.ends_with("Game finished.\n"), "{output}");
    assert_eq!(finished_run.unspecified, None);
}

#[test]
fn each_listed_invalid_input_repeats_only_the_message_and_prompt() {
    for invalid in ["8", "9", "x", "10", "-1", "3.0", ""] {
        let input = format!("{invalid}\n4\n{FINISH_AFTER_X4}");
        let e = "........";
        let expected = turn(EMPTY, 'X') + INVALID + &turn([e, e, e, e, "....X..."], 'O');
        check_prefix(&input, &expected);
    }
}

#[test]
fn several_invalid_inputs_in_a_row() {
    let e = "........";
    let expected =
        turn(EMPTY, 'X') + INVALID + INVALID + INVALID + &turn([e, e, e, e, "....X..."], 'O');
    check_prefix(&format!("9\nabc\n\n4\n{FINISH_AFTER_X4}"), &expected);
}

#[test]
fn a_full_column_is_an_invalid_move() {
    // Column 2 fills up, the sixth 2 is refused, then O and X finish the game in column 3/4.
    let (output, finished_run) = run("connect4", "2\n2\n2\n2\n2\n2\n3\n4\n3\n4\n3\n4\n3\n");
    assert_eq!(
        finished_run.unspecified, None,
        "a full column is a graded invalid move"
    );
    let full = ["..X.....", "..O.....", "..X.....", "..O.....", "..X....."];
    let expected_tail = turn(full, 'O') + INVALID;
    let e = "........";
    let after = turn([e, e, e, e, "...O...."], 'X');
    assert!(
        !output.contains(&after),
        "the full column must not take the move"
    );
    assert!(output.contains(&expected_tail), "{output}");
    let after_refusal = turn(
        ["..X.....", "..O.....", "..X.....", "..O.....", "..XO...."],
        'X',
    );
    assert!(
        output.contains(&(expected_tail + &after_refusal)),
        "{output}"
    );
    assert!(output.ends_with("Game finished.\n"), "{output}");
}

#[test]
fn unspecified_spaces_around_a_digit() {
    let expected = turn(EMPTY, 'X') + INVALID;
    check_unspecified("connect4", " 3\n", &expected, "column number with spaces");
}

#[test]
fn unspecified_lenient_spellings_of_a_column() {
    // connect4.md: `+3`, `03`, `-0` and `3_0` (read as 3 by C's atoi) are unspecified, like
    // non-ASCII digits; `3.0`, `10` and `-1` stay graded invalid inputs.
    let expected = turn(EMPTY, 'X') + INVALID;
    for line in ["+3", "03", "-0", "3_0", "0_7", "\u{0663}"] {
        check_unspecified("connect4", &format!("{line}\n"), &expected, "column number");
    }
    for graded in ["3.0", "10", "-1", "8_0", "_3"] {
        let (_, finished_run) = run("connect4", &format!("{graded}\n4\n{FINISH_AFTER_X4}"));
        assert_eq!(
            finished_run.unspecified, None,
            "`{graded}` is a graded invalid input"
        );
    }
}

#[test]
fn unspecified_input_ending_before_the_game_is_over() {
    check_unspecified("connect4", "", &turn(EMPTY, 'X'), "before the game is over");
}

#[test]
fn unspecified_lines_after_the_game_is_over_are_ignored() {
    let input = "0\n0\n1\n1\n2\n2\n3\n5\n";
    let (output, finished_run) = run("connect4", input);
    assert!(output.ends_with("Game finished.\n"));
    let (_, what) = finished_run.unspecified.expect("unspecified");
    assert!(what.contains("after the game is over"));
}
