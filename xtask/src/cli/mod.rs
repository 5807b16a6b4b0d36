//! The command lines: what is parsed, converted and printed; nothing here decides.
//!
//! [`command`] is [`Cli`] and its [`Task`]s; [`tasks`] one argument struct per task and its
//! conversion into the task's options; [`shared`] the flag groups several tasks flatten (the
//! corpus, the pace, the confinement, the reports, a run); [`values`] the value parsers, where
//! every flag value is range-checked once. [`output`] is what both command lines (`cargo xtask`
//! and the student kit) print and write: report files, the printed report and its exit status,
//! and the closing lines of each task; [`progress`] the bars (the only place indicatif is used)
//! and, without a terminal, a grading's lines; [`guard`] where a report may be written;
//! `similar` the similarity report's command line and what it prints.

mod command;
mod guard;
mod output;
mod progress;
mod shared;
#[cfg(feature = "similarity")]
mod similar;
mod tasks;
mod values;

pub use command::{parse_error, split_attached_values, Cli, Task};
pub use output::{
    autograder_report, conclude, fuzz_banner, gen_report, grade_report, kit_report, merge_report,
    new_suite_report, print_report, show_progress, start, suite_listing, warn, write_grade_summary,
};
pub use progress::{check_drawn, CheckProgress, GradeProgress};
pub use shared::{current_dir, ConfineArgs, CorpusArgs, PaceArgs, ReportArgs, RunArgs};
#[cfg(feature = "similarity")]
pub use similar::{similar_report, SimilarArgs};
pub use tasks::*;
pub use values::*;
