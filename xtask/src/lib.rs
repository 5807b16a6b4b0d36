//! gridjudge's harness: runs any program against a folder of stdin / expected-stdout cases.
//!
//! One module per stage. Finding cases: `suite`, `discover`, `shard`. Running one target on one
//! input: `target` (what runs), `confine` and `limits` (how it is confined), `process` (the
//! run itself), `sandbox` (the per-worker helper that builds each case's box), `pool` (how many
//! at once), with `sys` (system calls, wrapped once) and `interrupt` (Ctrl-C) below them. Judging: `compare`, `outcome`, `locate`. The result
//! model: `run`. Reporting it: `message` (the terminal), `diff`, `json`, `junit`, `gradescope`,
//! `html`; `cli` writes them for both command lines. Tasks: `check`, `bless`, `grade`, `bench`,
//! `fuzz` with `generate`, `tools`, `random` and `shrink`, `kit` (with `hidden`) and
//! `autograder`, `gradebook` (the grade files); `flags` is the command line, `cli` what both
//! command lines print and write. Without the `reference` feature (the student
//! kit), the modules that run the reference engine in process are left out. The harness never
//! imports the reference's game modules outside `tools` (generators and shrinkers): it sees a
//! folder of cases and a command line, so it works unchanged for any target.

#[cfg(feature = "reference")]
pub mod adequacy;
pub mod archive;
pub mod autograder;
pub mod bench;
pub mod bless;
pub mod cause;
pub mod check;
pub mod cli;
pub mod compare;
pub mod compile;
pub mod confine;
#[cfg(feature = "reference")]
pub mod diagnosis;
pub mod diff;
pub mod discover;
pub mod error;
pub mod fair;
pub mod files;
pub mod flags;
#[cfg(feature = "reference")]
pub mod fuzz;
#[cfg(feature = "reference")]
pub mod generate;
pub mod grade;
pub mod gradebook;
pub mod gradescope;
pub mod hidden;
pub mod html;
pub mod interrupt;
pub mod json;
pub mod junit;
pub mod kit;
pub mod language;
pub mod limits;
pub mod locate;
pub mod message;
#[cfg(feature = "reference")]
pub mod oracle;
pub mod outcome;
pub mod pool;
pub mod process;
pub mod random;
pub mod run;
pub mod sandbox;
pub mod scaffold;
pub mod shard;
pub mod shrink;
pub mod suite;
pub mod summary;
pub mod sys;
pub mod target;
#[cfg(feature = "reference")]
pub mod tools;
pub mod workspace;
