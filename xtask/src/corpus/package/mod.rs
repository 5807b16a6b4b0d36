//! Problem packages (Kattis's format, which DOMjudge and the ICPC tools read too): a folder
//! holding `problem.yaml` is a suite like a `suite.toml` folder, read by [`load`].
//!
//! [`metadata`] reads `problem.yaml` (both format versions), [`data`] the cases and the
//! `testdata.yaml` of each group. How a package's output validator is built and run is the
//! check's ([`crate::check`]); this module only finds it.
//!
//! Invariant: what this harness cannot judge as the package says (a multi-pass problem, an
//! interactive one without its validator, a validator flag the default validator does not
//! know) is an error naming it when the package is loaded, never a verdict.

mod data;
mod load;
pub mod metadata;

pub use data::PackageCase;
pub use load::{cpu_backstop, is_package, load, Package, DEFAULT_SECONDS};
