//! Random Go boards of every legal size, with clustered stones; some inputs carry a graded
//! error instead (an illegal size, or one illegal character on a board line).

use super::random::{Generated, Rng};
use super::shrink::{emptied_cells, join, owned, symbols};

const BAD_SIZES: [&str; 7] = ["8", "10", "20", "0", "-9", "abc", ""];
const ILLEGAL: [u8; 9] = [b'b', b'w', b'1', b' ', b'X', b'O', b'\t', b'#', b'*'];

pub(super) fn generate(rng: &mut Rng) -> Generated {
    let size = *rng.pick(&[9, 13, 19]);
    let density = rng.range(5, 95) as u64;
    let mut cells: Vec<u8> = vec![b'.'; size * size];
    for index in 0..cells.len() {
        let left = (index % size > 0).then(|| cells[index - 1]);
        let up = (index >= size).then(|| cells[index - size]);
        cells[index] = match (rng.range(0, 9), left, up) {
            (0..=2, Some(left), _) => left,
            (3..=4, _, Some(up)) => up,
            _ if rng.chance(density, 100) => *rng.pick(b"BW"),
            _ => b'.',
        };
    }
    let board = |cells: &[u8]| -> String {
        cells
            .chunks(size)
            .map(|line| String::from_utf8_lossy(line).into_owned() + "\n")
            .collect()
    };
    match rng.range(0, 19) {
        0..=2 => {
            let bad = *rng.pick(&BAD_SIZES);
            Generated {
                input: format!("{bad}\n{}", board(&cells)),
                shape: "illegal-size".into(),
            }
        }
        3..=5 => {
            let line = rng.range(0, size - 1);
            let col = rng.range(0, size - 1);
            cells[line * size + col] = *rng.pick(&ILLEGAL);
            Generated {
                input: format!("{size}\n{}", board(&cells)),
                shape: format!("{size}-illegal-character-line-{}", line + 1),
            }
        }
        _ => Generated {
            input: format!("{size}\n{}", board(&cells)),
            shape: format!("{size}-board"),
        },
    }
}

/// Inputs a little simpler than `lines`: a smaller board, a colour or a stone cleared, white
/// turned black; after an illegal size, the size line alone.
pub(super) fn shrink(lines: &[&str]) -> Vec<String> {
    let Some(size) = lines.first().and_then(|l| l.parse::<usize>().ok()) else {
        // An illegal size: the board that follows does not matter.
        return vec![format!("{}\n", lines.first().unwrap_or(&""))];
    };
    let board = owned(&lines[1..lines.len().min(1 + size)]);
    let build = |size: usize, board: &[String]| {
        let mut all = vec![size.to_string()];
        all.extend(board.iter().cloned());
        join(&all)
    };
    let mut out = Vec::new();
    for smaller in [9, 13].into_iter().filter(|&s| s < size) {
        let cropped: Vec<String> = board
            .iter()
            .take(smaller)
            .map(|l| l.chars().take(smaller).collect())
            .collect();
        out.push(build(smaller, &cropped));
    }
    let stones = symbols(&board.join(""), |c| c != '.');
    for &stone in &stones {
        let cleared: Vec<String> = board.iter().map(|l| l.replace(stone, ".")).collect();
        out.push(build(size, &cleared));
    }
    for emptier in emptied_cells(&board, '.') {
        out.push(build(size, &emptier));
    }
    if stones.contains(&'W') {
        out.push(build(
            size,
            &board
                .iter()
                .map(|l| l.replace('W', "B"))
                .collect::<Vec<_>>(),
        ));
    }
    out
}
