//! The reporters: each formats a finished [`Run`](crate::judge::Run) and decides nothing.
//!
//! [`message`] is the terminal ([`text_report`]); [`json`], [`junit`] and [`gradescope`] the
//! report files (with [`redact`], which keeps grader paths out of a student's reason); [`html`]
//! the check and class reports; [`summary`] the Markdown job summary and GitHub annotations;
//! [`gradebook`] what `grades.csv`, `grades.json` and `regrade.json` hold, a submission's row
//! from its run, and the `merge` of shards; [`formats`] is the table of the report files a
//! check writes (flag, extension, how to tell one gridjudge wrote, writer); `similarity` the class's similarity report (instructor only).

mod formats;
mod gradebook;
mod gradescope;
mod html;
mod json;
mod junit;
mod message;
#[cfg(feature = "similarity")]
mod similarity;
mod summary;

pub use formats::{is_ours, Format, FORMATS, HEAD};
pub use gradebook::{
    as_text as csv_text, csv as grades_csv, merge, submission_of, verdict_counts,
    write_outputs_with, Change, Grades, Submission,
};
pub use gradescope::{gradescope_report, redact, render_failure, Settings};
pub use html::{check_report, class_report};
pub use json::{json_document, json_report, JsonBuild, JsonCase, JsonDifference, JsonReport};
pub use junit::junit_report;
pub use message::{case_block, text_report};
#[cfg(feature = "similarity")]
pub use similarity::{
    similarity_csv, similarity_json, similarity_page, similarity_section, Similarity, WrongLine,
    SHOWN_PAIRS,
};
pub use summary::{annotations, class_markdown, markdown};
