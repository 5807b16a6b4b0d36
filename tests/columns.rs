//! Columns rules, one test per checklist feature (1-20) and per ruled and unspecified item of
//! `columns.md`. Every expected display was worked out by hand from the doc's timing model.
//!
//! `frame(cols, rows)` writes one display: each row is the text between the two bars, and a row
//! shorter than `3 * cols` is padded with spaces (empty cells).

use crate::support::{check, check_unspecified};

fn frame(cols: usize, rows: &[&str]) -> String {
    let mut text = String::new();
    for row in rows {
        assert!(row.len() <= 3 * cols, "row `{row}` is too wide");
        text += &format!("|{row:<width$}|\n", width = 3 * cols);
    }
    text + &format!(" {} \n", "-".repeat(3 * cols))
}

fn frames(cols: usize, all: &[&[&str]]) -> String {
    all.iter().map(|rows| frame(cols, rows)).collect()
}

#[test]
fn f01_empty_field_of_the_correct_size() {
    check(
        "columns",
        "4\n3\nEMPTY\nQ\n",
        &frames(3, &[&["", "", "", ""]]),
    );
    let expected = "|               |\n".repeat(6) + " --------------- \n";
    check("columns", "6\n5\nEMPTY\nQ\n", &expected);
}

#[test]
fn f02_field_contents_specified() {
    let input = "4\n3\nCONTENTS\nS T\nTVW\nVWS\nXYZ\nQ\n";
    let expected = frame(3, &[" S     T ", " T  V  W ", " V  W  S ", " X  Y  Z "]);
    check("columns", input, &expected);
}

#[test]
fn f03_holes_in_the_contents_fill_immediately() {
    let input = "4\n3\nCONTENTS\nS  \n T \n   \n  V\nQ\n";
    check("columns", input, &frame(3, &["", "", "", " S  T  V "]));
}

#[test]
fn f04_quit_prints_nothing_more() {
    let input = "4\n3\nEMPTY\nF 1 X Y Z\nQ\n\n\n";
    let expected = frames(3, &[&["", "", "", ""], &["[Z]", "", "", ""]]);
    check("columns", input, &expected);
}

#[test]
fn f05_f06_f08_faller_shows_its_bottom_jewel_moves_and_rotates() {
    let input = "4\n3\nEMPTY\nF 2 X Y Z\nR\nR\nR\n<\n<\n>\n>\n>\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", ""],
            &["   [Z]", "", "", ""],
            &["   [Y]", "", "", ""],
            &["   [X]", "", "", ""],
            &["   [Z]", "", "", ""],
            &["[Z]", "", "", ""],
            &["[Z]", "", "", ""],
            &["   [Z]", "", "", ""],
            &["      [Z]", "", "", ""],
            &["      [Z]", "", "", ""],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f07_faller_blocked_by_frozen_jewels_beside_its_visible_jewels() {
    // The frozen T and S block the way left once a visible jewel is beside them.
    let input_blocked = "4\n3\nCONTENTS\n   \n   \nT  \nS  \nF 2 X Y Z\n\n\n<\n\n<\n>\n\nQ\n";
    let expected_blocked = frames(
        3,
        &[
            &["", "", " T", " S"],
            &["   [Z]", "", " T", " S"],
            &["   [Y]", "   [Z]", " T", " S"],
            &["   [X]", "   [Y]", " T [Z]", " S"],
            &["   [X]", "   [Y]", " T [Z]", " S"],
            &["", "   |X|", " T |Y|", " S |Z|"],
            &["", "   |X|", " T |Y|", " S |Z|"],
            &["", "      |X|", " T    |Y|", " S    |Z|"],
            &["", "       X ", " T     Y ", " S     Z "],
        ],
    );
    check("columns", input_blocked, &expected_blocked);
}

#[test]
fn f09_f10_faller_lands_on_the_floor_then_freezes_at_the_next_tick() {
    let input = "4\n3\nEMPTY\nF 1 X Y Z\n\n\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", ""],
            &["[Z]", "", "", ""],
            &["[Y]", "[Z]", "", ""],
            &["[X]", "[Y]", "[Z]", ""],
            &["", "|X|", "|Y|", "|Z|"],
            &["", " X", " Y", " Z"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f11_moving_a_landed_faller_over_a_hole_postpones_freezing() {
    let input = "4\n3\nCONTENTS\n   \n   \n   \nS  \nF 1 X Y Z\n\n\n>\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", " S"],
            &["[Z]", "", "", " S"],
            &["[Y]", "[Z]", "", " S"],
            &["|X|", "|Y|", "|Z|", " S"],
            &["   [X]", "   [Y]", "   [Z]", " S"],
            &["", "   |X|", "   |Y|", " S |Z|"],
            &["", "    X", "    Y", " S  Z"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f11_moving_a_falling_faller_onto_support_lands_it_at_once() {
    let input = "5\n3\nCONTENTS\n   \n   \n   \n S \n T \nF 1 X Y Z\n\n\n>\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", "    S", "    T"],
            &["[Z]", "", "", "    S", "    T"],
            &["[Y]", "[Z]", "", "    S", "    T"],
            &["[X]", "[Y]", "[Z]", "    S", "    T"],
            &["   |X|", "   |Y|", "   |Z|", "    S", "    T"],
            &["    X", "    Y", "    Z", "    S", "    T"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f12_game_over_when_a_faller_freezes_without_fitting() {
    let input = "4\n3\nEMPTY\nF 1 X Y Z\n\n\n\n\nF 1 S T V\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", ""],
            &["[Z]", "", "", ""],
            &["[Y]", "[Z]", "", ""],
            &["[X]", "[Y]", "[Z]", ""],
            &["", "|X|", "|Y|", "|Z|"],
            &["", " X", " Y", " Z"],
            // Lands at creation: the cell under its bottom jewel holds X.
            &["|V|", " X", " Y", " Z"],
            &[" V", " X", " Y", " Z"],
        ],
    ) + "GAME OVER\n";
    check("columns", input, &expected);
}

#[test]
fn f13_horizontal_matching() {
    let input = "4\n3\nCONTENTS\n   \n   \n   \nXX \nF 3 S T X\n\n\n\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", " X  X"],
            &["      [X]", "", "", " X  X"],
            &["      [T]", "      [X]", "", " X  X"],
            &["      [S]", "      [T]", "      [X]", " X  X"],
            &["", "      |S|", "      |T|", " X  X |X|"],
            &["", "       S", "       T", "*X**X**X*"],
            &["", "", "       S", "       T"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f14_vertical_matching() {
    let input = "4\n3\nCONTENTS\n   \n   \n   \n Y \nF 2 X Y Y\n\n\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", "    Y"],
            &["   [Y]", "", "", "    Y"],
            &["   [Y]", "   [Y]", "", "    Y"],
            &["   |X|", "   |Y|", "   |Y|", "    Y"],
            &["    X", "   *Y*", "   *Y*", "   *Y*"],
            &["", "", "", "    X"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f15_diagonal_matching_down_to_the_right() {
    let input = "5\n3\nCONTENTS\n   \n   \n   \nSZ \nTVZ\nF 1 X Y Z\n\n\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", " S  Z", " T  V  Z"],
            &["[Z]", "", "", " S  Z", " T  V  Z"],
            &["[Y]", "[Z]", "", " S  Z", " T  V  Z"],
            &["|X|", "|Y|", "|Z|", " S  Z", " T  V  Z"],
            &[" X", " Y", "*Z*", " S *Z*", " T  V *Z*"],
            &["", " X", " Y", " S", " T  V"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f15_diagonal_matching_up_to_the_right() {
    let input = "5\n3\nCONTENTS\n   \n   \n   \n ZS\nZVT\nF 3 X Y Z\n\n\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", "    Z  S", " Z  V  T"],
            &["      [Z]", "", "", "    Z  S", " Z  V  T"],
            &["      [Y]", "      [Z]", "", "    Z  S", " Z  V  T"],
            &[
                "      |X|",
                "      |Y|",
                "      |Z|",
                "    Z  S",
                " Z  V  T",
            ],
            &["       X", "       Y", "      *Z*", "   *Z* S", "*Z* V  T"],
            &["", "       X", "       Y", "       S", "    V  T"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f16_sequences_longer_than_three_match_whole() {
    let input = "4\n4\nCONTENTS\n    \n    \n    \nXX X\nF 3 S T X\n\n\n\n\n\nQ\n";
    let expected = frames(
        4,
        &[
            &["", "", "", " X  X     X"],
            &["      [X]", "", "", " X  X     X"],
            &["      [T]", "      [X]", "", " X  X     X"],
            &["      [S]", "      [T]", "      [X]", " X  X     X"],
            &["", "      |S|", "      |T|", " X  X |X| X"],
            &["", "       S", "       T", "*X**X**X**X*"],
            &["", "", "       S", "       T"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f17_several_sequences_match_at_the_same_time() {
    let input = "5\n3\nCONTENTS\n   \n   \n   \nZZ \nXX \nF 3 S Z X\n\n\n\n\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", " Z  Z", " X  X"],
            &["      [X]", "", "", " Z  Z", " X  X"],
            &["      [Z]", "      [X]", "", " Z  Z", " X  X"],
            &["      [S]", "      [Z]", "      [X]", " Z  Z", " X  X"],
            &["", "      [S]", "      [Z]", " Z  Z [X]", " X  X"],
            &["", "", "      |S|", " Z  Z |Z|", " X  X |X|"],
            &["", "", "       S", "*Z**Z**Z*", "*X**X**X*"],
            &["", "", "", "", "       S"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f18_a_match_that_makes_room_postpones_game_over() {
    // The faller lands at creation with two jewels above the top; its bottom X completes a row
    // and a column, and removing them leaves room for the hidden S and T, which fall in.
    let input = "4\n3\nCONTENTS\nXX \nYZX\nZYX\nYZW\nF 3 T S X\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &[" X  X", " Y  Z  X", " Z  Y  X", " Y  Z  W"],
            &[" X  X |X|", " Y  Z  X", " Z  Y  X", " Y  Z  W"],
            &["*X**X**X*", " Y  Z *X*", " Z  Y *X*", " Y  Z  W"],
            &["", " Y  Z  T", " Z  Y  S", " Y  Z  W"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f19_matching_triggered_by_the_given_contents() {
    let input = "4\n3\nCONTENTS\n   \n   \nYZS\nXXX\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", " Y  Z  S", "*X**X**X*"],
            &["", "", "", " Y  Z  S"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn f20_matching_after_the_contents_holes_fill() {
    let input = "4\n3\nCONTENTS\n X \n   \n   \nX X\n\nQ\n";
    let expected = frames(3, &[&["", "", "", "*X**X**X*"], &["", "", "", ""]]);
    check("columns", input, &expected);
}

#[test]
fn chain_reaction_shows_in_the_same_display_as_the_removal() {
    let input = "5\n3\nCONTENTS\n   \n  Y\n  X\n  X\nYYX\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "       Y", "      *X*", "      *X*", " Y  Y *X*"],
            &["", "", "", "", "*Y**Y**Y*"],
            &["", "", "", "", ""],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn wide_fields_take_multi_digit_column_numbers() {
    let input = "4\n11\nEMPTY\nF 10 X Y Z\n>\n>\nQ\n";
    let empty = "";
    let expected = frames(
        11,
        &[
            &[empty, empty, empty, empty],
            &[&format!("{}[Z]", " ".repeat(27)), empty, empty, empty],
            &[&format!("{}[Z]", " ".repeat(30)), empty, empty, empty],
            &[&format!("{}[Z]", " ".repeat(30)), empty, empty, empty],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn ruled_rotate_and_move_while_matches_show_change_nothing() {
    let input = "4\n3\nCONTENTS\n   \n   \nYZS\nXXX\nR\n<\n>\n\nQ\n";
    let showing: &[&str] = &["", "", " Y  Z  S", "*X**X**X*"];
    let expected = frames(
        3,
        &[
            showing,
            showing,
            showing,
            showing,
            &["", "", "", " Y  Z  S"],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn ruled_f_while_a_faller_exists_has_no_effect() {
    let input = "4\n3\nEMPTY\nF 1 X Y Z\nF 3 S T V\n\nQ\n";
    let expected = frames(
        3,
        &[
            &["", "", "", ""],
            &["[Z]", "", "", ""],
            &["[Z]", "", "", ""],
            &["[Y]", "[Z]", "", ""],
        ],
    );
    check("columns", input, &expected);
}

#[test]
fn unspecified_f_into_an_occupied_top_cell_ends_the_game() {
    let input = "4\n3\nCONTENTS\nS  \nT  \nV  \nW  \nF 1 X Y Z\n";
    let field: &[&str] = &[" S", " T", " V", " W"];
    let expected = frames(3, &[field, field]) + "GAME OVER\n";
    check_unspecified("columns", input, &expected, "top cell is occupied");
}

#[test]
fn unspecified_f_while_matches_show_has_no_effect() {
    let input = "4\n3\nCONTENTS\n   \n   \nYZS\nXXX\nF 1 S T V\nQ\n";
    let showing: &[&str] = &["", "", " Y  Z  S", "*X**X**X*"];
    let expected = frames(3, &[showing, showing]);
    check_unspecified(
        "columns",
        input,
        &expected,
        "while matched jewels are showing",
    );
}

#[test]
fn unspecified_hidden_jewels_never_match() {
    // The hidden middle S would complete the diagonal S S S if it counted.
    let input = "4\n3\nCONTENTS\n S \nTVS\nVTW\nTVX\nF 1 Z S X\n\n";
    let expected = frames(
        3,
        &[
            &["    S", " T  V  S", " V  T  W", " T  V  X"],
            &["|X| S", " T  V  S", " V  T  W", " T  V  X"],
            &[" X  S", " T  V  S", " V  T  W", " T  V  X"],
        ],
    ) + "GAME OVER\n";
    check_unspecified("columns", input, &expected, "above the top");
}

#[test]
fn unspecified_a_match_that_leaves_no_room_ends_the_game_after_the_removal() {
    let input = "4\n3\nCONTENTS\nXX \nYZW\nZYS\nYZT\nF 3 T S X\n\n\nQ\n";
    let expected = frames(
        3,
        &[
            &[" X  X", " Y  Z  W", " Z  Y  S", " Y  Z  T"],
            &[" X  X |X|", " Y  Z  W", " Z  Y  S", " Y  Z  T"],
            &["*X**X**X*", " Y  Z  W", " Z  Y  S", " Y  Z  T"],
            &["       S", " Y  Z  W", " Z  Y  S", " Y  Z  T"],
        ],
    ) + "GAME OVER\n";
    check_unspecified("columns", input, &expected, "does not make");
}

#[test]
fn unspecified_input_ending_before_q_stops_quietly() {
    let expected = frame(3, &["", "", "", ""]);
    check_unspecified("columns", "4\n3\nEMPTY\n", &expected, "input ends");
}

#[test]
fn unspecified_crlf_line_endings_are_ignored() {
    let expected = frames(3, &[&["", "", "", ""], &["[Z]", "", "", ""]]);
    check_unspecified(
        "columns",
        "4\r\n3\r\nEMPTY\r\nF 1 X Y Z\r\nQ\r\n",
        &expected,
        "\\r\\n",
    );
}
