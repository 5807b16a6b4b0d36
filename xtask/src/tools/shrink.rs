//! Shrinking a failing input: the moves every spec's shrinker is made of.
//!
//! A spec's own shrinker (in `tools/`) lists inputs a little simpler than the given one,
//! biggest cuts first, built from these pieces: drop chunks of commands or moves, empty cells,
//! unify symbols. A candidate may fall outside the graded domain; the reference engine is the
//! judge of that, and the fuzzer only ever runs a target on graded candidates.

pub(super) fn join(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

pub(super) fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|line| line.to_string()).collect()
}

/// Candidates that drop chunks of `lines[start..end]`, halves first, then quarters, down to
/// single lines.
pub fn drop_chunks(lines: &[&str], start: usize, end: usize) -> Vec<String> {
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
pub(super) fn emptied_cells(grid: &[String], empty: char) -> Vec<Vec<String>> {
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
pub(super) fn symbols(text: &str, keep: impl Fn(char) -> bool) -> Vec<char> {
    let mut found: Vec<char> = text.chars().filter(|&c| keep(c)).collect();
    found.sort();
    found.dedup();
    found
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
}
