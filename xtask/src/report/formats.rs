//! Whether a file is a report gridjudge wrote, by how each reporter begins: a report file is
//! written over only when it is one of ours (or empty), so that a mistyped path never costs
//! a student a program.

/// How much of a file [`is_ours`] needs: every report says what it is within its first lines.
pub const HEAD: usize = 4096;

/// Whether `head` (the start of a file, up to [`HEAD`] bytes) is the start of a report
/// gridjudge writes: the JSON and Gradescope reports, JUnit XML, the HTML reports and the
/// Markdown summary; or nothing at all.
pub fn is_ours(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start();
    text.is_empty()
        || (text.starts_with("<!DOCTYPE html>") && text.contains("<title>gridjudge"))
        || text.starts_with("## gridjudge: ")
        || (text.starts_with("<?xml") && text.contains("<testsuites name=\"gridjudge\""))
        || (text.starts_with('{')
            && (text.contains("\"output\": \"graded by gridjudge against ")
                || text.contains("\"output\": \"gridjudge could not grade ")
                || (text.contains("\"schema\": ") && text.contains("\"target\": "))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_or_a_document_is_not_ours() {
        for text in [
            "import sys\n# checked with gridjudge\nprint(1)\n",
            "#!/bin/sh\necho '## gridjudge: '\n",
            "<!DOCTYPE html><html><title>My page</title>",
            "{\"name\": \"package\"}",
            "\u{7f}ELF\u{2}\u{1}\u{1}",
        ] {
            assert!(!is_ours(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn an_empty_file_is_ours_to_fill() {
        assert!(is_ours(b""));
        assert!(is_ours(b"\n"));
    }
}
