//! Random Columns games: a field (empty or with contents), then commands chosen while the
//! reference engine plays along, so that no command reaches unspecified behaviour.

use gridjudge::columns::{Command, Field, Status, COLORS};

use super::random::{Generated, Rng};
use super::shrink::{drop_chunks, emptied_cells, join, owned, symbols};

pub(super) fn generate(rng: &mut Rng) -> Generated {
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

/// Inputs a little simpler than `lines`: stop early, drop commands, rows or columns, empty a
/// cell, unify two colours, lower a faller's column.
pub(super) fn shrink(lines: &[&str]) -> Vec<String> {
    let (Some(rows), Some(cols)) = (
        lines.first().and_then(|l| l.parse::<usize>().ok()),
        lines.get(1).and_then(|l| l.parse::<usize>().ok()),
    ) else {
        return Vec::new();
    };
    let contents = lines.get(2) == Some(&"CONTENTS");
    let first_command = if contents { 3 + rows } else { 3 };
    if lines.len() < first_command {
        return Vec::new();
    }
    // Stop early with `Q`: shortest first, since the first failing display is often early.
    let mut out: Vec<String> = (first_command..lines.len())
        .map(|end| join(&owned(&lines[..end])) + "Q\n")
        .collect();
    out.extend(drop_chunks(lines, first_command, lines.len()));
    let field: Vec<&str> = if contents {
        lines[3..3 + rows].to_vec()
    } else {
        Vec::new()
    };
    let commands = &lines[first_command..];
    let build = |rows: usize, cols: usize, field: Option<&[String]>, commands: &[String]| {
        let mut all = vec![rows.to_string(), cols.to_string()];
        match field {
            Some(field) => {
                all.push("CONTENTS".into());
                all.extend(field.iter().cloned());
            }
            None => all.push("EMPTY".into()),
        }
        all.extend(commands.iter().cloned());
        join(&all)
    };
    let field_owned = owned(&field);
    fn field_of(contents: bool, field: &[String]) -> Option<&[String]> {
        contents.then_some(field)
    }
    if contents {
        out.push(build(rows, cols, None, &owned(commands)));
    }
    // Fewer rows: drop the top one.
    if rows > 4 {
        let fewer = if contents {
            field_owned[1..].to_vec()
        } else {
            Vec::new()
        };
        out.push(build(
            rows - 1,
            cols,
            field_of(contents, &fewer),
            &owned(commands),
        ));
    }
    // Fewer columns: drop column `gone`, moving fallers right of it one to the left.
    if cols > 3 {
        for gone in (0..cols).rev() {
            let (narrower, moved) = without_column(&field_owned, commands, cols, gone);
            out.push(build(rows, cols - 1, field_of(contents, &narrower), &moved));
        }
    }
    // Empty one cell of the contents.
    for emptier in emptied_cells(&field_owned, ' ') {
        out.push(build(rows, cols, Some(&emptier), &owned(commands)));
    }
    // Unify two colours everywhere.
    let colors = symbols(&lines[2..].join("\n"), |c| "STVWXYZ".contains(c));
    for &from in &colors {
        for &to in colors.iter().filter(|&&to| to < from) {
            let recolor = |line: &&str| line.replace(from, &to.to_string());
            let field: Vec<String> = field_owned.iter().map(|l| recolor(&l.as_str())).collect();
            let commands: Vec<String> = commands.iter().map(recolor).collect();
            out.push(build(rows, cols, field_of(contents, &field), &commands));
        }
    }
    // Lower one faller's column.
    for (index, command) in commands.iter().enumerate() {
        if let ["F", col, a, b, c] = command.split(' ').collect::<Vec<_>>()[..] {
            if let Some(col) = col.parse::<usize>().ok().filter(|&col| col > 1) {
                let mut lowered = owned(commands);
                lowered[index] = format!("F {} {a} {b} {c}", col - 1);
                out.push(build(
                    rows,
                    cols,
                    field_of(contents, &field_owned),
                    &lowered,
                ));
            }
        }
    }
    out
}

/// `field` and `commands` without column `gone` (0-based) of `cols`: fallers right of it (or
/// in the last column) move one to the left.
fn without_column(
    field: &[String],
    commands: &[&str],
    cols: usize,
    gone: usize,
) -> (Vec<String>, Vec<String>) {
    let narrower: Vec<String> = field
        .iter()
        .map(|line| {
            line.chars()
                .enumerate()
                .filter(|&(i, _)| i != gone)
                .map(|(_, c)| c)
                .collect()
        })
        .collect();
    let moved: Vec<String> = commands
        .iter()
        .map(|command| match command.split(' ').collect::<Vec<_>>()[..] {
            ["F", col, a, b, c] => {
                let col: usize = col.parse().unwrap_or(1);
                let col = if col > gone + 1 || col == cols {
                    col - 1
                } else {
                    col
                };
                format!("F {col} {a} {b} {c}")
            }
            _ => command.to_string(),
        })
        .collect();
    (narrower, moved)
}

#[cfg(test)]
mod tests {

    #[test]
    fn every_candidate_is_smaller_or_simpler() {
        let input = "5\n4\nCONTENTS\n    \n    \n  S \n TXS\nSTVW\nF 2 X Y Z\n\n\nR\nQ\n";
        let all = crate::tools::table::find("columns")
            .unwrap()
            .tools
            .candidates(input);
        assert!(all.iter().any(|c| c.starts_with("4\n4\n")), "a row fewer");
        assert!(
            all.iter().any(|c| c.starts_with("5\n3\n")),
            "a column fewer"
        );
        assert!(all.iter().any(|c| c.contains("EMPTY")), "no contents");
        assert!(all.iter().all(|c| c.len() <= input.len()));
    }
}
