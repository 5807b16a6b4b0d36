//! gridjudge's harness: runs any program against a folder of stdin / expected-stdout cases.
//!
//! One folder per stage, each with a face (its `mod.rs`) that says what it offers the others.
//! From the top down: the command lines (`cli`); the tasks (`check`, `grade`, `bench`,
//! `adequacy`, `kit`, and `tools` with `gen` and `fuzz`; `bless` and `scaffold` are one file
//! each); the reporters (`report`); judging and the result model (`judge`); submissions as
//! sources (`submission`); running one target on one input (`process`), in the per-worker
//! helper that builds each case's box (`sandbox`), behind the layers of `confine`; finding
//! cases (`corpus`); and the ground: `target` (what runs), `language` (the language table),
//! `workspace` (where the checkout, the corpus and the reference are), `files` (atomic writes,
//! the cache), `error` and `sys` (system calls and interrupts, wrapped once). Without the
//! `reference` feature (the student kit), `adequacy` and the part of `tools` that runs the
//! reference engine in process are left out; the tools table's grids stay. The harness never
//! imports the reference's game modules outside `tools`, and knows the built-in specs' outputs
//! only through their rows of the tools table, which a check hands to the judge with the suite:
//! the judge knows no game.

#![warn(unreachable_pub)]

#[cfg(feature = "reference")]
pub mod adequacy;
pub mod bench;
pub mod bless;
pub mod check;
pub mod cli;
pub mod confine;
pub mod corpus;
pub mod error;
pub mod files;
pub mod grade;
pub mod judge;
pub mod kit;
pub mod language;
pub mod process;
pub mod report;
pub mod sandbox;
pub mod scaffold;
pub mod submission;
pub mod sys;
pub mod target;
pub mod tools;
pub mod workspace;
