//! The line of a failed build's message that a report shows as its cause: the compiler's first
//! error line, or a compile error the language table says is told with its line number.

/// The line of a failed build's message that says most: the compiler's first error line, else
/// its first line.
pub fn build_headline(message: &str) -> String {
    if let Some(headline) = crate::language::syntax_error(message) {
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
