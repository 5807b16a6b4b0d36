//! Random Collapse positions: legal (no floating blocks, empty columns only at the sides and
//! each side's empty columns within its own half), with colours clustered so that groups of
//! four or more are common.

use super::random::{Generated, Rng};
use super::shrink::{emptied_cells, join, owned, symbols};

pub(super) fn generate(rng: &mut Rng) -> Generated {
    let large = rng.chance(1, 10);
    let (rows, cols) = if large {
        (rng.range(20, 80), 2 * rng.range(10, 40))
    } else {
        (rng.range(1, 10), 2 * rng.range(1, 6))
    };
    let half = cols / 2;
    let left_empty = if rng.chance(1, 3) {
        rng.range(0, half)
    } else {
        0
    };
    let right_empty = if rng.chance(1, 3) {
        rng.range(0, half)
    } else {
        0
    };
    let (left_empty, right_empty) = if left_empty + right_empty >= cols {
        (left_empty.min(half - 1), 0)
    } else {
        (left_empty, right_empty)
    };
    let n_colors = rng.range(1, 5) as u8;
    let mut cells = vec![b'.'; rows * cols];
    for col in left_empty..cols - right_empty {
        let height = if rng.chance(1, 3) {
            rows
        } else {
            rng.range(1, rows)
        };
        for row in (rows - height..rows).rev() {
            let below = (row + 1 < rows).then(|| cells[(row + 1) * cols + col]);
            let left = (col > 0)
                .then(|| cells[row * cols + col - 1])
                .filter(|&c| c != b'.');
            let color = match (rng.range(0, 9), below, left) {
                (0..=2, Some(below), _) => below,
                (3..=5, _, Some(left)) => left,
                _ => b'1' + rng.range(0, n_colors as usize - 1) as u8,
            };
            cells[row * cols + col] = color;
        }
    }
    let occupied: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != b'.').collect();
    let selected = if rng.chance(4, 5) && !occupied.is_empty() {
        *rng.pick(&occupied)
    } else {
        rng.range(0, cells.len() - 1)
    };
    let mut input = format!("{rows} {cols}\n{} {}\n", selected / cols, selected % cols);
    for line in cells.chunks(cols) {
        input += &String::from_utf8_lossy(line);
        input.push('\n');
    }
    Generated {
        input,
        shape: format!("{rows}x{cols}"),
    }
}

/// Inputs a little simpler than `lines`: drop a row or two columns away from the selection,
/// empty a cell, unify two colours.
pub(super) fn shrink(lines: &[&str]) -> Vec<String> {
    let parse = |line: Option<&&str>| -> Option<(usize, usize)> {
        let (a, b) = line?.split_once(' ')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    let (Some((rows, cols)), Some((sel_row, sel_col))) =
        (parse(lines.first()), parse(lines.get(1)))
    else {
        return Vec::new();
    };
    let board = owned(&lines[2..(2 + rows).min(lines.len())]);
    let build = |rows: usize, cols: usize, sel: (usize, usize), board: &[String]| {
        let mut all = vec![format!("{rows} {cols}"), format!("{} {}", sel.0, sel.1)];
        all.extend(board.iter().cloned());
        join(&all)
    };
    let mut out = Vec::new();
    for gone in 0..rows {
        if rows > 1 && gone != sel_row {
            let mut fewer = board.clone();
            fewer.remove(gone);
            let sel = (if sel_row > gone { sel_row - 1 } else { sel_row }, sel_col);
            out.push(build(rows - 1, cols, sel, &fewer));
        }
    }
    if cols > 2 {
        for gone in 0..cols - 1 {
            if gone == sel_col || gone + 1 == sel_col {
                continue;
            }
            let narrower: Vec<String> = board
                .iter()
                .map(|line| {
                    line.chars()
                        .enumerate()
                        .filter(|&(i, _)| i != gone && i != gone + 1)
                        .map(|(_, c)| c)
                        .collect()
                })
                .collect();
            let sel = (sel_row, if sel_col > gone { sel_col - 2 } else { sel_col });
            out.push(build(rows, cols - 2, sel, &narrower));
        }
    }
    for emptier in emptied_cells(&board, '.') {
        out.push(build(rows, cols, (sel_row, sel_col), &emptier));
    }
    let digits = symbols(&board.join(""), |c| c.is_ascii_digit());
    for &from in &digits {
        for &to in digits.iter().filter(|&&to| to < from) {
            let recolored: Vec<String> = board
                .iter()
                .map(|l| l.replace(from, &to.to_string()))
                .collect();
            out.push(build(rows, cols, (sel_row, sel_col), &recolored));
        }
    }
    out
}
