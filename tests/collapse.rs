//! Collapse rules, one test per determined and ruled item of `collapse.md`, with boards worked
//! out by hand.

use crate::support::{check, check_unspecified};

#[test]
fn group_of_three_is_left_alone() {
    check("collapse", "2 4\n1 0\n....\n111.\n", "....\n111.\n");
}

#[test]
fn group_of_exactly_four_need_not_be_straight() {
    check(
        "collapse",
        "3 4\n2 0\n....\n1...\n1112\n",
        "....\n....\n..2.\n",
    );
}

#[test]
fn selecting_an_empty_cell_changes_nothing() {
    check("collapse", "2 4\n0 0\n....\n1111\n", "....\n1111\n");
}

#[test]
fn groups_are_4_connected_not_diagonal() {
    // With the diagonal neighbour the 1s would be four; 4-connected they are three.
    check("collapse", "2 4\n1 1\n1...\n2111\n", "1...\n2111\n");
}

#[test]
fn blocks_fall_before_columns_shift() {
    check(
        "collapse",
        "3 4\n2 1\n.2..\n.3..\n1111\n",
        "....\n.2..\n.3..\n",
    );
}

#[test]
fn ruled_emptied_left_half_column_is_filled_from_the_left() {
    let input = "4 6\n0 1\n.1....\n.1....\n21.5..\n314566\n";
    check("collapse", input, "......\n......\n.2.5..\n.34566\n");
}

#[test]
fn ruled_emptied_right_half_column_is_filled_from_the_right() {
    let input = "4 6\n0 4\n....1.\n....1.\n..5.12\n665413\n";
    check("collapse", input, "......\n......\n..5.2.\n66543.\n");
}

#[test]
fn ruled_several_columns_emptied_in_each_half_close_toward_the_centre_in_order() {
    check(
        "collapse",
        "2 8\n1 2\n........\n12111134\n",
        "........\n..1234..\n",
    );
    check(
        "collapse",
        "2 8\n1 1\n........\n21111113\n",
        "........\n...23...\n",
    );
}

#[test]
fn the_whole_board_can_be_removed() {
    check("collapse", "2 2\n0 0\n11\n11\n", "..\n..\n");
    check("collapse", "1 6\n0 2\n111111\n", "......\n");
}

#[test]
fn unspecified_empty_side_columns_past_the_centre() {
    // Columns 0..3 of 6 are empty: "from the sides" and "toward the centre" disagree.
    let input = "4 6\n3 4\n......\n....1.\n....1.\n....11\n";
    check_unspecified(
        "collapse",
        input,
        "......\n......\n......\n......\n",
        "past the centre",
    );
}

#[test]
fn unspecified_a_second_problem_is_ignored() {
    let input = "2 2\n0 0\n11\n11\n2 2\n0 0\n11\n11\n";
    check_unspecified("collapse", input, "..\n..\n", "after the board");
}
