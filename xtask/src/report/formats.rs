//! The report files a check writes, one row of [`FORMATS`] each: its flag, its file's usual
//! extension, how to tell a file it wrote, and its writer. A new format is its writer and its
//! row: the command lines' flags (`cli::RunArgs`), where a report may be written
//! (`cli::guard`), the writing (`cli::Reports`) and the test of a file gridjudge wrote
//! ([`is_ours`]) all read this table. A report file is written over only when it is one of
//! ours (or empty), so that a mistyped path never costs a student a program.

use super::gradescope::Settings;
use crate::judge::Run;

/// A report a check writes to a file.
#[derive(Debug)]
pub struct Format {
    /// Its flag, without the dashes (`json` for `--json FILE`).
    pub flag: &'static str,
    /// What the flag does, as `--help` says it.
    pub help: &'static str,
    /// The extension its file usually has, for the advice when a path is refused.
    pub extension: &'static str,
    /// Whether `text` (the start of a file, its leading space trimmed) begins like this report.
    pub recognise: fn(&str) -> bool,
    /// The report of a finished run.
    pub write: fn(&Run, &Settings) -> String,
    /// What it holds when the check could not run at all (the reason, grader paths kept out):
    /// Gradescope's 0 with the reason. `None`: nothing is written then.
    pub failure: Option<fn(&str) -> String>,
}

impl Format {
    /// Its flag as typed: `--json`.
    pub fn option(&self) -> String {
        format!("--{}", self.flag)
    }
}

/// Every report file a check can write, in the order `--help` lists them.
pub static FORMATS: &[Format] = &[
    Format {
        flag: "json",
        help: "Write every case's result as JSON",
        extension: ".json",
        recognise: |text| {
            text.starts_with('{') && text.contains("\"schema\": ") && text.contains("\"target\": ")
        },
        write: |run, _| super::json_report(run),
        failure: None,
    },
    Format {
        flag: "junit",
        help: "Write a JUnit XML report",
        extension: ".xml",
        recognise: |text| {
            text.starts_with("<?xml") && text.contains("<testsuites name=\"gridjudge\"")
        },
        write: |run, _| super::junit_report(run),
        failure: None,
    },
    Format {
        flag: "gradescope",
        help: "Write Gradescope's results.json",
        extension: ".json",
        recognise: |text| {
            text.starts_with('{')
                && (text.contains("\"output\": \"graded by gridjudge against ")
                    || text.contains("\"output\": \"gridjudge could not grade "))
        },
        write: super::gradescope_report,
        failure: Some(super::render_failure),
    },
    Format {
        flag: "html",
        help: "Write an HTML report: a card per cause of failure, the boards side by side",
        extension: ".html",
        recognise: |text| text.starts_with("<!DOCTYPE html>") && text.contains("<title>gridjudge"),
        write: |run, _| super::check_report(run),
        failure: None,
    },
    Format {
        flag: "summary",
        help: "Write a Markdown summary (totals, a table of groups, each cause with its first \
               difference); on GitHub Actions it also goes into the job summary",
        extension: ".md",
        recognise: |text| text.starts_with("## gridjudge: "),
        write: |run, _| super::markdown(run),
        failure: None,
    },
];

/// How much of a file [`is_ours`] needs: every report says what it is within its first lines.
pub const HEAD: usize = 4096;

/// Whether `head` (the start of a file, up to [`HEAD`] bytes) is the start of a report
/// gridjudge writes (a row of [`FORMATS`], or the class report, an HTML report too), or
/// nothing at all.
pub fn is_ours(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start();
    text.is_empty() || FORMATS.iter().any(|format| (format.recognise)(text))
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
