//! Random Columns games: a field (empty or with contents), then commands chosen while the
//! reference engine plays along, so that no command reaches unspecified behaviour.

use gridjudge::columns::{Command, Field, Status, COLORS};

use super::{Generated, Rng};

pub fn generate(rng: &mut Rng) -> Generated {
    let large = rng.chance(1, 8);
    let (rows, cols) = if large {
        (rng.range(12, 30), rng.range(10, 24))
    } else {
        (rng.range(4, 9), rng.range(3, 8))
    };
    // Few colours make matches likely; all seven keep them rare.
    let n_colors = *rng.pick(&[2, 3, 3, 4, 4, 5, 7]);
    let palette = &COLORS[..n_colors];
    let mut input = format!("{rows}\n{cols}\n");
    let mut field = if rng.chance(1, 2) {
        input += "EMPTY\n";
        Field::new(rows, cols)
    } else {
        input += "CONTENTS\n";
        let fill = rng.range(10, 70) as u64;
        let lines: Vec<Vec<u8>> = (0..rows)
            .map(|row| {
                // Lower rows are fuller.
                let chance = fill * (row as u64 + 1) / rows as u64;
                (0..cols)
                    .map(|_| {
                        if rng.chance(chance, 100) {
                            *rng.pick(palette)
                        } else {
                            b' '
                        }
                    })
                    .collect()
            })
            .collect();
        for line in &lines {
            input += &String::from_utf8_lossy(line);
            input.push('\n');
        }
        Field::with_contents(rows, cols, &lines)
    };
    let n_commands = if large {
        rng.range(20, 400)
    } else {
        rng.range(1, 90)
    };
    let mut n_written = 0;
    for _ in 0..n_commands {
        let command = pick_command(rng, &field, palette);
        let mut next = field.clone();
        let status = next.apply(command);
        if next.unspecified().is_some() {
            continue;
        }
        field = next;
        n_written += 1;
        input += &line(command);
        if status == Status::GameOver {
            return Generated {
                input,
                shape: format!("{rows}x{cols}-{n_written}-commands-game-over"),
            };
        }
    }
    input += "Q\n";
    Generated {
        input,
        shape: format!("{rows}x{cols}-{n_written}-commands"),
    }
}

fn pick_command(rng: &mut Rng, field: &Field, palette: &[u8]) -> Command {
    let create = |rng: &mut Rng| Command::Create {
        col: rng.range(0, field.cols() - 1),
        jewels: [0; 3].map(|_| *rng.pick(palette)),
    };
    if field.faller().is_none() && !field.has_matches() {
        return if rng.chance(2, 3) {
            create(rng)
        } else {
            Command::Tick
        };
    }
    match rng.range(0, 99) {
        0..=49 => Command::Tick,
        50..=62 => Command::Rotate,
        63..=77 => Command::Left,
        78..=92 => Command::Right,
        _ => create(rng),
    }
}

fn line(command: Command) -> String {
    match command {
        Command::Tick => "\n".into(),
        Command::Create { col, jewels } => {
            let [a, b, c] = jewels.map(char::from);
            format!("F {} {a} {b} {c}\n", col + 1)
        }
        Command::Rotate => "R\n".into(),
        Command::Left => "<\n".into(),
        Command::Right => ">\n".into(),
        Command::Quit => "Q\n".into(),
    }
}
