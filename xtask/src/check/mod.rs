//! `cargo xtask check`: choose the suites and the target, run every case in parallel, judge.
//!
//! [`engine`] builds sources first, plans suites and targets, runs the cases and returns the
//! [`Run`](crate::judge::Run); it prints nothing, and reports its progress through the
//! callback it is given. [`select`] chooses which cases of a suite a check runs; [`infer`]
//! chooses the spec from the handout cases' results when none is named; [`never_ran`] tells a
//! program that never started from one that failed; [`setup`] where the cases and the
//! reference come from, for every caller. `grade` and `bench` use its steps (`prepare_suite`,
//! `run_one`, `finish`). For a problem package, [`time_limit`] sets the limit the package
//! leaves to its accepted submissions, and [`validator`] builds and runs its own output
//! validator; [`verify`] judges a package's own submissions against the verdicts of their
//! folders.

mod engine;
mod infer;
mod never_ran;
mod select;
mod setup;
mod time_limit;
mod validator;
pub mod verify;

pub use engine::{check, finish, prepare_suite, run_one, Options, Prepared, Step};
pub use select::select;
pub use setup::{corpus_root, reference_binary, reference_for};
