//! The command lines: what is parsed, converted and printed; nothing here decides.
//!
//! `command` is `Cli` and its `Task`s, and runs the task asked for. Each task is one file, its
//! flags, its run and its closing message: `check`, `bless`, `new`, `gen`, `bench`, `fuzz`,
//! `grade`, `merge`, `adequacy`, `kit`, `autograder`, `serve`, `similar` (all of them only in
//! the harness's own build, with the reference and the similarity library; the student kit has
//! a command line of its own). [`parse`] is what both command lines share in parsing: a short
//! option's attached value, and what a line that did not parse prints. [`shared`] holds the
//! flag groups several tasks flatten (the corpus, the pace, the confinement, the reports, a
//! run); [`values`] the value parsers, where every flag value is range-checked once.
//! [`output`] is what both command lines (`cargo xtask` and the student kit) print and write:
//! report files, the printed report and its exit status; [`progress`] the bars (the only place
//! indicatif is used) and, without a terminal, a grading's lines; [`guard`] where a report may
//! be written.

#[cfg(all(feature = "reference", feature = "similarity"))]
mod adequacy;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod autograder;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod bench;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod bless;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod check;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod command;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod export;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod fuzz;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod gen;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod grade;
mod guard;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod kit;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod merge;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod new;
mod output;
mod parse;
mod progress;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod serve;
mod shared;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod similar;
mod values;
#[cfg(all(feature = "reference", feature = "similarity"))]
mod verify;

#[cfg(all(feature = "reference", feature = "similarity"))]
pub use check::CheckArgs;
#[cfg(all(feature = "reference", feature = "similarity"))]
pub use command::{Cli, Task};
#[cfg(all(feature = "reference", feature = "similarity"))]
pub use grade::{grade_report, GradeArgs};
pub use output::{conclude, print_report, show_progress, start, warn};
pub use parse::{parse_error, split_attached_values};
pub use progress::{check_drawn, CheckProgress, GradeProgress};
pub use shared::{current_dir, ConfineArgs, CorpusArgs, PaceArgs, ReportArgs, RunArgs};
pub use values::*;
