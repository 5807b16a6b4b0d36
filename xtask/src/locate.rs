//! Saying which input line an output difference answers.
//!
//! The reference binary writes, with `--trace FILE`, the number of output bytes that exist
//! after each input line. The first trace entry past the difference's offset in the expected
//! output names the input line whose answer holds the difference.

use std::path::Path;
use std::time::Duration;

use crate::confine::Policy;
use crate::process::{execute, Bounds};
use crate::target::Target;

/// Where a difference shows, in terms of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// A phrase like ``in the output after input line 12: `R` ``.
    pub phrase: String,
    /// The input line the output answers (without its line ending); `None` where it answers
    /// the whole input or none of it.
    pub command: Option<String>,
}

/// Where the byte `offset` of the expected output shows, or `None` when the reference cannot
/// say. `reference` must be the bundled reference: it runs trusted.
pub fn locate(reference: &Target, input: &[u8], offset: usize) -> Option<Location> {
    phrase_of(&trace(reference, input)?, input, offset)
}

/// Where the byte `offset` of the expected output shows, from the reference's trace for this
/// input, written before (the student kit holds one per case instead of the reference).
pub fn from_trace(trace: &Path, input: &[u8], offset: usize) -> Option<Location> {
    phrase_of(&std::fs::read_to_string(trace).ok()?, input, offset)
}

/// The trace the reference writes for `input`: the text of its `--trace` file.
pub fn trace(reference: &Target, input: &[u8]) -> Option<String> {
    let dir = tempfile::tempdir().ok()?;
    let trace_path = dir.path().join("trace");
    let mut traced = reference.clone();
    traced.args.push("--trace".into());
    traced.args.push(trace_path.clone().into());
    let bounds = Bounds {
        timeout: Duration::from_secs(30),
        wall: crate::process::backstop(Duration::from_secs(30)),
        stdout_cap: usize::MAX / 2,
        stderr_cap: 4096,
    };
    execute(&traced, input, &bounds, &Policy::trusted()).ok()?;
    std::fs::read_to_string(&trace_path).ok()
}

fn phrase_of(trace: &str, input: &[u8], offset: usize) -> Option<Location> {
    let entries: Vec<(usize, usize)> = trace
        .lines()
        .filter_map(|line| {
            let (input_line, output_end) = line.split_once(' ')?;
            Some((
                input_line.parse::<usize>().ok()?,
                output_end.parse::<usize>().ok()?,
            ))
        })
        .collect();
    let at = |phrase: &str| {
        Some(Location {
            phrase: phrase.into(),
            command: None,
        })
    };
    let Some(&(input_line, _)) = entries.iter().find(|&&(_, output_end)| output_end > offset)
    else {
        return at("after the end of the expected output");
    };
    if input_line == 0 {
        return at("in the output written before any input is read");
    }
    // A program that answers only once it has read everything (go, collapse): the output
    // answers the whole input, not its last line.
    let before_last = entries.iter().rev().nth(1).map_or(0, |&(_, end)| end);
    if entries.last().is_some_and(|&(line, _)| line == input_line) && before_last == 0 {
        return at("in the output after the whole input");
    }
    let text = input.split(|&b| b == b'\n').nth(input_line - 1)?;
    let text = String::from_utf8_lossy(text.strip_suffix(b"\r").unwrap_or(text));
    let shown = if text.is_empty() {
        "(an empty line)".to_string()
    } else {
        format!("`{text}`")
    };
    Some(Location {
        phrase: format!("in the output after input line {input_line}: {shown}"),
        command: Some(text.into_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_the_line_whose_output_holds_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace");
        std::fs::write(&path, "0 0\n1 0\n2 0\n3 10\n4 20\n5 30\n").unwrap();
        let input = b"4\n3\nEMPTY\nR\n\n";
        let at = |offset| from_trace(&path, input, offset).unwrap().phrase;
        assert_eq!(at(0), "in the output after input line 3: `EMPTY`");
        assert_eq!(at(15), "in the output after input line 4: `R`");
        assert_eq!(at(29), "in the output after input line 5: (an empty line)");
        assert_eq!(at(30), "after the end of the expected output");
        let command = |offset| from_trace(&path, input, offset).unwrap().command;
        assert_eq!(command(15), Some("R".into()));
        assert_eq!(command(29), Some(String::new()));
    }

    #[test]
    fn output_written_only_at_the_end_answers_the_whole_input() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace");
        std::fs::write(&path, "0 0\n1 0\n2 0\n3 0\n4 90\n").unwrap();
        let found = from_trace(&path, b"9\n..B\n...\n.W.\n", 40).unwrap();
        assert_eq!(found.phrase, "in the output after the whole input");
        assert_eq!(found.command, None);
    }
}
