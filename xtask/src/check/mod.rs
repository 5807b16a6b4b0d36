//! `cargo xtask check`: choose the suites and the target, run every case in parallel, judge.
//!
//! [`engine`] builds sources first, plans suites and targets, runs the cases and returns the
//! [`Run`](crate::judge::Run); it prints nothing, and reports its progress through the
//! callback it is given. [`infer`] chooses the spec from the handout cases' results when none
//! is named; [`setup`] where the cases and the reference come from, for every caller.
//! `grade` and `bench` use its steps (`prepare_suite`, `run_one`, `finish`).

mod engine;
mod infer;
mod setup;
mod time_limit;
mod validator;

pub use engine::{check, finish, prepare_suite, run_one, select, Options, Prepared, Step};
pub use setup::{corpus_root, reference_binary, reference_for};
