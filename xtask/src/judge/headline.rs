//! The line of a failed build's message that a report shows as its cause: the compiler's first
//! error line, or Python's compile error with its line number.

/// Python's compile error as one line: `SyntaxError at line 3: invalid syntax` (from its
/// `File "...", line 3` and its last line), where the message holds one.
fn python_syntax_error(message: &str) -> Option<String> {
    let kinds = ["SyntaxError", "IndentationError", "TabError"];
    let last = message.lines().map(str::trim).find(|line| {
        kinds
            .iter()
            .any(|kind| line.starts_with(&format!("{kind}:")))
    })?;
    let (kind, words) = last.split_once(':')?;
    let line = message.lines().find_map(|l| {
        let at = l.trim().strip_prefix("File \"")?;
        let (_, rest) = at.split_once("\", line ")?;
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse::<u32>()
            .ok()
    })?;
    Some(format!("{kind} at line {line}:{words}"))
}

/// The line of a failed build's message that says most: the compiler's first error line, else
/// its first line.
pub fn build_headline(message: &str) -> String {
    if let Some(headline) = python_syntax_error(message) {
        return headline;
    }
    // The message's first two lines say which command failed and how.
    let lines = || {
        message
            .lines()
            .skip(2)
            .map(str::trim)
            .filter(|l| !l.is_empty())
    };
    let line = lines()
        .find(|line| line.to_ascii_lowercase().contains("error"))
        .or_else(|| lines().next())
        .unwrap_or("the build failed");
    super::diff::line(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_syntax_error_is_told_with_its_line() {
        let message = "the build failed\n$ python3 -m py_compile project4.py\n  File \"project4.py\", line 3\n    def f(\n         ^\nSyntaxError: '(' was never closed\n";
        assert_eq!(
            build_headline(message),
            "SyntaxError at line 3: '(' was never closed"
        );
        assert_eq!(
            build_headline("x\ny\nmain.c:3: error: oops\n"),
            "main.c:3: error: oops"
        );
    }
}
