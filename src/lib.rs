//! The reference implementations of gridjudge's four assignments.
//!
//! Each assignment is one module of pure state and rules (`columns`, `collapse`, `connect4`,
//! `go`): it takes input lines and appends the bytes a correct student program would print.
//! None of them does I/O. [`driver::run`] feeds them from any reader into any writer, and
//! `src/main.rs` is the only place that touches stdin and stdout. [`spec::SPECS`] is the one
//! table that lists the assignments.

pub mod collapse;
pub mod columns;
pub mod connect4;
pub mod driver;
pub mod go;
#[cfg(feature = "mutants")]
pub mod misread;
pub mod mutant;
pub mod program;
pub mod rule;
pub mod spec;
