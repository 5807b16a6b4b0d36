//! gridjudge's harness: runs any program against a folder of stdin / expected-stdout cases.
//!
//! One module per stage: `suite` and `discover` find the cases, `process` runs one target on one
//! input, `compare` and `outcome` judge it, `locate` maps a difference to an input line, `check`
//! runs a whole corpus in parallel, and `message`, `diff`, `json`, `junit` and `gradescope`
//! report. The harness never imports the reference's game modules: it sees a folder of cases
//! and a command line, so it works unchanged for any target.

pub mod bench;
pub mod bless;
pub mod check;
pub mod compare;
pub mod confine;
pub mod diff;
pub mod discover;
pub mod error;
pub mod fuzz;
pub mod generate;
pub mod grade;
pub mod gradescope;
pub mod json;
pub mod junit;
pub mod locate;
pub mod message;
pub mod outcome;
pub mod process;
pub mod shard;
pub mod shrink;
pub mod suite;
pub mod workspace;
