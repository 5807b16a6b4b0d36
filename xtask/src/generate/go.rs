//! Random Go boards of every legal size, with clustered stones; some inputs carry a graded
//! error instead (an illegal size, or one illegal character on a board line).

use super::{Generated, Rng};

const BAD_SIZES: [&str; 7] = ["8", "10", "20", "0", "-9", "abc", ""];
const ILLEGAL: [u8; 9] = [b'b', b'w', b'1', b' ', b'X', b'O', b'\t', b'#', b'*'];

pub fn generate(rng: &mut Rng) -> Generated {
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
