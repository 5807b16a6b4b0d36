//! Go rules: each board size, each error class, shared liberties, the 99 cap, group numbers
//! past 100 and the reading-order numbering. Expected rows follow the doc's layout: a 2-wide
//! row number, a space, then 4-wide cells, with trailing spaces dropped as in the handout.

use crate::support::{check, check_unspecified};

/// One row of the Liberties or Groups printing: `None` is an empty intersection.
fn row(number: usize, cells: &[Option<usize>]) -> String {
    let mut line = format!("{number:>2} ");
    for cell in cells {
        match cell {
            None => line += " .. ",
            Some(value) => line += &format!(" {value:>2} "),
        }
    }
    line.trim_end().to_string() + "\n"
}

/// The whole output for a board, given its lines and the per-row liberties and groups.
fn printing(
    letters: &str,
    board: &[String],
    liberties: &[Vec<Option<usize>>],
    groups: &[Vec<Option<usize>>],
) -> String {
    let mut text = format!("The Stones\n   {letters}\n");
    for (index, line) in board.iter().enumerate() {
        text += &format!("{:>2} {line}\n", index + 1);
    }
    let doubled: String = letters.chars().map(|c| format!(" {c}{c} ")).collect();
    let label = format!("   {doubled}").trim_end().to_string() + "\n";
    for (title, table) in [("The Liberties", liberties), ("The Groups", groups)] {
        text += &format!("\n{title}\n{label}");
        for (index, cells) in table.iter().enumerate() {
            text += &row(index + 1, cells);
        }
    }
    text
}

fn input(board: &[String]) -> String {
    format!("{}\n{}\n", board.len(), board.join("\n"))
}

#[test]
fn each_legal_size_prints_empty_boards_with_plain_letters() {
    for letters in ["ABCDEFGHI", "ABCDEFGHIJKLM", "ABCDEFGHIJKLMNOPQRS"] {
        let size = letters.len();
        let board = vec![".".repeat(size); size];
        let none = vec![vec![None; size]; size];
        check(
            "go",
            &input(&board),
            &printing(letters, &board, &none, &none),
        );
    }
}

#[test]
fn the_label_line_of_19_does_not_skip_i() {
    let (output, _) = crate::support::run("go", &input(&vec![".".repeat(19); 19]));
    assert!(output.contains(
        "\n    AA  BB  CC  DD  EE  FF  GG  HH  II  JJ  KK  LL  MM  NN  OO  PP  QQ  RR  SS\n"
    ));
}

#[test]
fn illegal_sizes() {
    let rest = format!("{}\n", vec![".".repeat(9); 9].join("\n"));
    for size in ["8", "10", "20", "0", "-9", "abc", ""] {
        check(
            "go",
            &format!("{size}\n{rest}"),
            "That is not a legal board size.\n",
        );
    }
}

#[test]
fn illegal_characters_report_the_first_bad_board_line() {
    let good = ".".repeat(9);
    for bad_char in ['b', 'w', '1', ' ', 'X', 'O', '\t', '#', '*'] {
        let bad = format!("...{bad_char}.....");
        for bad_line in [1, 9] {
            let mut board = vec![good.clone(); 9];
            board[bad_line - 1] = bad.clone();
            let expected =
                format!("There was an illegal character on line {bad_line} of the board.\n");
            check("go", &input(&board), &expected);
        }
    }
    let mut board = vec![good.clone(); 9];
    board[3] = "....x....".into();
    board[6] = "o........".into();
    check(
        "go",
        &input(&board),
        "There was an illegal character on line 4 of the board.\n",
    );
}

#[test]
fn groups_are_numbered_in_reading_order_and_share_distinct_liberties() {
    // The B group of row 2 reaches column A, yet the W stone of row 1 is met first.
    let mut board = vec![".".repeat(9); 9];
    board[0] = "...W.B...".into();
    board[1] = "BBB.BB.W.".into();
    let n = None;
    let mut liberties = vec![vec![None; 9]; 7];
    let mut groups = liberties.clone();
    liberties.insert(0, vec![n, n, n, Some(3), n, Some(6), n, n, n]);
    liberties.insert(
        1,
        vec![
            Some(7),
            Some(7),
            Some(7),
            n,
            Some(6),
            Some(6),
            n,
            Some(4),
            n,
        ],
    );
    groups.insert(0, vec![n, n, n, Some(1), n, Some(2), n, n, n]);
    groups.insert(
        1,
        vec![
            Some(3),
            Some(3),
            Some(3),
            n,
            Some(2),
            Some(2),
            n,
            Some(4),
            n,
        ],
    );
    check(
        "go",
        &input(&board),
        &printing("ABCDEFGHI", &board, &liberties, &groups),
    );
}

#[test]
fn more_than_99_liberties_print_99() {
    // Column A and every even row are black: one comb-shaped group whose liberties are the
    // 10 x 18 empty intersections of the odd rows.
    let board: Vec<String> = (0..19)
        .map(|r| {
            if r % 2 == 1 {
                "B".repeat(19)
            } else {
                format!("B{}", ".".repeat(18))
            }
        })
        .collect();
    let table = |value: usize| -> Vec<Vec<Option<usize>>> {
        (0..19)
            .map(|r| {
                (0..19)
                    .map(|c| (r % 2 == 1 || c == 0).then_some(value))
                    .collect()
            })
            .collect()
    };
    check(
        "go",
        &input(&board),
        &printing("ABCDEFGHIJKLMNOPQRS", &board, &table(99), &table(1)),
    );
}

#[test]
fn group_numbers_past_100_print_modulo_100() {
    // A checkerboard: every stone is its own group, with no liberty.
    let board: Vec<String> = (0..19)
        .map(|r| {
            (0..19)
                .map(|c| if (r + c) % 2 == 0 { 'B' } else { 'W' })
                .collect()
        })
        .collect();
    let liberties = vec![vec![Some(0); 19]; 19];
    let groups: Vec<Vec<Option<usize>>> = (0..19)
        .map(|r| (0..19).map(|c| Some((r * 19 + c + 1) % 100)).collect())
        .collect();
    let expected = printing("ABCDEFGHIJKLMNOPQRS", &board, &liberties, &groups);
    // Row 6 holds groups 96 to 114: 100 prints as 0.
    assert!(expected.contains("\n 6  96  97  98  99   0   1   2"));
    check("go", &input(&board), &expected);
}

#[test]
fn unspecified_size_with_a_leading_zero() {
    check_unspecified(
        "go",
        "09\n",
        "That is not a legal board size.\n",
        "leading zeros",
    );
}

#[test]
fn unspecified_short_board_line() {
    let mut board = vec![".".repeat(9); 9];
    board[2] = "....".into();
    let expected = "There was an illegal character on line 3 of the board.\n";
    check_unspecified("go", &input(&board), expected, "too short or too long");
}

#[test]
fn unspecified_missing_board_lines() {
    let expected = "There was an illegal character on line 3 of the board.\n";
    check_unspecified(
        "go",
        "9\n.........\n.........\n",
        expected,
        "before the last board line",
    );
}
