//! Problem packages in and out: [`verify`] judges a package's own submissions and checks that
//! each gets the verdict of its folder; [`export`] writes a built-in suite as a package that
//! Kattis's verifyproblem accepts, with the submissions of [`programs`]. Reading a package as a
//! suite is the corpus's ([`crate::corpus::package`]).

pub mod export;
pub mod programs;
pub mod verify;

pub use export::{export, Exported};
pub use verify::{verdict_of, verify, Row};
