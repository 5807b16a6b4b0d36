//! The command line: [`Cli`] and its [`Task`]s, one argument struct per task (`tasks`), the
//! flag groups tasks share (`shared`) and the value parsers (`values`). Flags convert into each
//! task's options; they decide nothing (what a target may see is decided where its run is
//! planned).

mod command;
mod shared;
mod tasks;
mod values;

pub use command::{parse_error, split_attached_values, Cli, Task};
pub use shared::{current_dir, ConfineArgs, CorpusArgs, PaceArgs, ReportArgs, RunArgs};
pub use tasks::*;
pub use values::*;
