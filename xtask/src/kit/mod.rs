//! The student kit and the Gradescope autograder built on it.
//!
//! [`bundle`] is the kit: the bundle of a spec's cases appended to the kit's program, read back
//! at its start ([`Bundle`]), and [`build`] from a [`Plan`]; [`autograder`] is the Gradescope
//! zip around a kit, its two scripts, and [`build_autograder`].

mod autograder;
mod bundle;

pub use autograder::build_autograder;
pub use bundle::{attached, build, case_folder, extract, Bundle, Plan};
