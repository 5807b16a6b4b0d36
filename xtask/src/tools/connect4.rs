//! Random Connect Four games played to the end, with graded invalid inputs mixed in. Some games
//! avoid winning moves where they can, which makes full-board ties common enough.

use gridjudge::connect4::{parse_column, Grid, COLS};

use super::random::{Generated, Rng};
use super::shrink::{drop_chunks, join, owned};

/// The invalid inputs `connect4.md` grades (a full column is added when there is one).
const INVALID: [&str; 7] = ["8", "9", "x", "10", "-1", "3.0", ""];

pub(super) fn generate(rng: &mut Rng) -> Generated {
    let cautious = rng.chance(1, 3);
    let invalid_rate = *rng.pick(&[0, 0, 5, 15, 40]);
    let mut grid = Grid::default();
    let mut player = b'X';
    let mut input = String::new();
    let (mut n_moves, mut n_invalid) = (0, 0);
    loop {
        if rng.chance(invalid_rate, 100) {
            let full: Vec<usize> = (0..COLS).filter(|&c| grid.is_full(c)).collect();
            if !full.is_empty() && rng.chance(1, 3) {
                input += &format!("{}\n", rng.pick(&full));
            } else {
                input += *rng.pick(&INVALID);
                input.push('\n');
            }
            n_invalid += 1;
            continue;
        }
        let open: Vec<usize> = (0..COLS).filter(|&c| !grid.is_full(c)).collect();
        let safe: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&col| {
                let mut trial = grid.clone();
                let row = trial.drop_marker(col, player);
                !trial.wins_at(row, col)
            })
            .collect();
        let choices = if cautious && !safe.is_empty() {
            &safe
        } else {
            &open
        };
        let col = *rng.pick(choices);
        debug_assert_eq!(parse_column(col.to_string().as_bytes()), Some(col));
        input += &format!("{col}\n");
        n_moves += 1;
        let row = grid.drop_marker(col, player);
        if grid.wins_at(row, col) {
            return Generated {
                input,
                shape: format!("{n_moves}-moves-{n_invalid}-invalid-win"),
            };
        }
        if grid.is_complete() {
            return Generated {
                input,
                shape: format!("{n_moves}-moves-{n_invalid}-invalid-tie"),
            };
        }
        player = if player == b'X' { b'O' } else { b'X' };
    }
}

/// Inputs a little simpler than `lines`: drop moves, turn a move into `0` or an empty line.
pub(super) fn shrink(lines: &[&str]) -> Vec<String> {
    let mut out = drop_chunks(lines, 0, lines.len());
    for (index, line) in lines.iter().enumerate() {
        let simpler: &[&str] = match *line {
            "" => &[],
            l if l.len() == 1 && l.as_bytes()[0].is_ascii_digit() && l != "0" => &["0"],
            _ => &[""],
        };
        for replacement in simpler {
            let mut changed = owned(lines);
            changed[index] = replacement.to_string();
            out.push(join(&changed));
        }
    }
    out
}
