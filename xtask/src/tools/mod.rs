//! The specs' tools and the tasks that run the reference engine in process: `gen` and `fuzz`.
//!
//! [`table`] is [`TOOLS`], the harness's table of each spec's tools: how its outputs read as a
//! grid ([`grid`], the terms the judge tells a failure in), and, with the `reference` feature,
//! its generator and shrinker (one file per spec: `columns`, `collapse`, `connect4`, `go`),
//! built from [`random`] and [`shrink`]; [`oracle`] is where inputs and expected outputs come
//! from (a built-in spec's engine, or an instructor's `generate` and `reference` commands);
//! [`generate`] writes seeded cases and [`fuzz`] searches for disagreements and shrinks them.
//! All but the table and the grids are built only with the `reference` feature.

#[cfg(feature = "reference")]
mod collapse;
#[cfg(feature = "reference")]
mod columns;
#[cfg(feature = "reference")]
mod connect4;
#[cfg(feature = "reference")]
mod fuzz;
#[cfg(feature = "reference")]
mod generate;
#[cfg(feature = "reference")]
mod go;
mod grid;
#[cfg(feature = "reference")]
mod oracle;
#[cfg(feature = "reference")]
mod random;
#[cfg(feature = "reference")]
mod shrink;
mod table;

#[cfg(feature = "reference")]
pub use fuzz::{fuzz, report, warnings, Budget, Event, Found, Options, Outcome};
#[cfg(feature = "reference")]
pub use generate::write;
#[cfg(feature = "reference")]
pub use oracle::Oracle;
#[cfg(feature = "reference")]
pub use random::{Generated, Rng};
#[cfg(feature = "reference")]
pub use shrink::drop_chunks;
#[cfg(feature = "reference")]
pub use table::{find, missing, Assignment};
pub use table::{grid_for, grid_of, Tools, TOOLS};
