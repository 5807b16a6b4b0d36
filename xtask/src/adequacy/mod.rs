//! `cargo xtask adequacy`: what the corpus proves, measured with the reference's wrong variants.
//!
//! [`matrix`] runs every variant of `gridjudge::mutant::MUTANTS` in process on every graded case
//! of its spec (the kill matrix), with the causes `check` gives each, its report and its table;
//! [`diagnosis`] is the causes' part of that table and what breaks one cause per variant. Built
//! only with the `reference` feature.

mod diagnosis;
mod matrix;

pub use matrix::{measure, twins};
