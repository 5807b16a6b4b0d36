//! Random Collapse positions: legal (no floating blocks, empty columns only at the sides and
//! each side's empty columns within its own half), with colours clustered so that groups of
//! four or more are common.

use super::{Generated, Rng};

pub fn generate(rng: &mut Rng) -> Generated {
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
