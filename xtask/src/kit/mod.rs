//! A suite taken elsewhere: the student kit, the Gradescope autograder built on it, and a
//! problem package for Kattis, DOMjudge and the ICPC tools.
//!
//! [`bundle`] is the kit: the bundle of a spec's cases appended to the kit's program, read back
//! at its start ([`Bundle`]), and [`build`] from a [`Plan`]; [`autograder`] is the Gradescope
//! zip around a kit, its two scripts, and [`build_autograder`]; [`export`] writes a built-in
//! suite as a problem package that Kattis's verifyproblem accepts, with the submissions of
//! [`programs`].

mod autograder;
mod bundle;
mod export;
mod programs;

pub use autograder::build_autograder;
pub use bundle::{attached, build, case_folder, extract, Bundle, Plan};
pub use export::{export, Exported};
