//! Shrinking a failing input: smaller candidates, spec by spec.
//!
//! [`candidates`] lists inputs a little simpler than the given one, biggest cuts first: drop
//! chunks of commands or moves, drop rows and columns of a field, empty cells, unify colours,
//! lower numbers. A candidate may fall outside the graded domain; [`is_graded`] (the reference
//! engine) is the judge of that, and the fuzzer only ever runs a target on graded candidates.

use gridjudge::driver::run_bytes;
use gridjudge::spec;

/// The reference's output for `input` when it is well formed and touches only determined and
/// ruled behaviour; `None` otherwise.
pub fn graded_output(spec_name: &str, input: &str) -> Option<Vec<u8>> {
    let spec = spec::find(spec_name)?;
    let (output, result) = run_bytes(spec, input.as_bytes());
    matches!(result, Ok(finished) if finished.unspecified.is_none()).then_some(output)
}

/// Whether `input` is well formed and touches only determined and ruled behaviour.
pub fn is_graded(spec_name: &str, input: &str) -> bool {
    graded_output(spec_name, input).is_some()
}

/// Inputs a little simpler than `input`, most promising first.
pub fn candidates(spec_name: &str, input: &str) -> Vec<String> {
    let lines: Vec<&str> = input.lines().collect();
    let mut out = match spec_name {
        "columns" => columns(&lines),
        "collapse" => collapse(&lines),
        "connect4" => drop_chunks(&lines, 0, lines.len()),
        "go" => go(&lines),
        _ => Vec::new(),
    };
    if spec_name == "connect4" {
        out.extend(connect4_simpler_lines(&lines));
    }
    out.retain(|candidate| candidate != input);
    out
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|line| line.to_string()).collect()
}

/// Candidates that drop chunks of `lines[start..end]`, halves first, then quarters, down to
/// single lines.
fn drop_chunks(lines: &[&str], start: usize, end: usize) -> Vec<String> {
    let mut out = Vec::new();
    let len = end.saturating_sub(start);
    let mut size = len.div_ceil(2).max(1);
    loop {
        let mut from = start;
        while from < end {
            let to = (from + size).min(end);
            let mut kept = owned(&lines[..from]);
            kept.extend(owned(&lines[to..]));
            out.push(join(&kept));
            from = to;
        }
        if size == 1 {
            break;
        }
        size = size.div_ceil(2);
    }
    out
}

/// Copies of `grid` with one cell that is not `empty` emptied, for every such cell.
fn emptied_cells(grid: &[String], empty: char) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (row, line) in grid.iter().enumerate() {
        for (col, c) in line.chars().enumerate() {
            if c != empty {
                let mut emptier = grid.to_vec();
                emptier[row] = line
                    .chars()
                    .enumerate()
                    .map(|(i, c)| if i == col { empty } else { c })
                    .collect();
                out.push(emptier);
            }
        }
    }
    out
}

/// The distinct letters (or digits) of `text` that `keep` accepts.
fn symbols(text: &str, keep: impl Fn(char) -> bool) -> Vec<char> {
    let mut found: Vec<char> = text.chars().filter(|&c| keep(c)).collect();
    found.sort();
    found.dedup();
    found
}

fn columns(lines: &[&str]) -> Vec<String> {
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
            let narrower: Vec<String> = field_owned
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

fn collapse(lines: &[&str]) -> Vec<String> {
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

fn connect4_simpler_lines(lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
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

fn go(lines: &[&str]) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_go_from_halves_to_single_lines() {
        let lines = ["a", "b", "c", "d"];
        let out = drop_chunks(&lines, 0, 4);
        assert_eq!(out[0], "c\nd\n");
        assert_eq!(out[1], "a\nb\n");
        assert!(out.contains(&"a\nb\nd\n".to_string()));
    }

    #[test]
    fn every_candidate_is_smaller_or_simpler() {
        let input = "5\n4\nCONTENTS\n    \n    \n  S \n TXS\nSTVW\nF 2 X Y Z\n\n\nR\nQ\n";
        let all = candidates("columns", input);
        assert!(all.iter().any(|c| c.starts_with("4\n4\n")), "a row fewer");
        assert!(
            all.iter().any(|c| c.starts_with("5\n3\n")),
            "a column fewer"
        );
        assert!(all.iter().any(|c| c.contains("EMPTY")), "no contents");
        assert!(all.iter().all(|c| c.len() <= input.len()));
    }
}
