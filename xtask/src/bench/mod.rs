//! `cargo xtask bench`: what the harness costs on top of running the targets.
//!
//! [`measure`] times `check` against the floor (a C fork/exec loop the bench compiles) and an
//! in-process baseline, per `--jobs` value and per confinement layer, as text or JSON rows;
//! [`figures`] what they share (the figures, copies of programs outside the checkout);
//! [`one_case`] a check of one case as a whole process against one plain run; [`hog`] a
//! submission of 64 busy processes beside an honest classmate; [`class`] is
//! the synthetic class of submissions and its spawn floor; `similar` measures the
//! similarity report against Dolos on disguised copies, and `rings` on classes where several
//! students share one source; `separation` what their tables share.

mod class;
mod figures;
mod hog;
mod measure;
mod one_case;
#[cfg(feature = "similarity")]
mod rings;
#[cfg(feature = "similarity")]
mod separation;
#[cfg(feature = "similarity")]
mod similar;

pub use class::Settings;
pub use measure::{measure, spawn_main, write_json, Measure, SPAWN_ARG};
#[cfg(feature = "similarity")]
pub use similar::{similar_bench, SimilarFigures};
