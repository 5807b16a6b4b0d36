//! The command lines: what is parsed, converted and printed; nothing here decides.
//!
//! [`command`] is [`Cli`] and its [`Task`]s, and runs the task asked for. Each task is one file,
//! its flags, its run and its closing message: `check`, `bless`, `new`, `gen`, `bench`, `fuzz`,
//! `grade`, `merge`, `adequacy`, `kit`, `autograder`, `serve`, `similar`. [`shared`] holds the
//! flag groups several tasks flatten (the corpus, the pace, the confinement, the reports, a
//! run); [`values`] the value parsers, where every flag value is range-checked once.
//! [`output`] is what both command lines (`cargo xtask` and the student kit) print and write:
//! report files, the printed report and its exit status; [`progress`] the bars (the only place
//! indicatif is used) and, without a terminal, a grading's lines; [`guard`] where a report may
//! be written.

mod adequacy;
mod autograder;
mod bench;
mod bless;
mod check;
mod command;
mod fuzz;
mod gen;
mod grade;
mod guard;
mod kit;
mod merge;
mod new;
mod output;
mod progress;
mod serve;
mod shared;
#[cfg(feature = "similarity")]
mod similar;
mod values;

pub use check::CheckArgs;
pub use command::{parse_error, split_attached_values, Cli, Task};
pub use grade::{grade_report, GradeArgs};
pub use output::{conclude, print_report, show_progress, start, warn};
pub use progress::{check_drawn, CheckProgress, GradeProgress};
pub use shared::{current_dir, ConfineArgs, CorpusArgs, PaceArgs, ReportArgs, RunArgs};
pub use values::*;
