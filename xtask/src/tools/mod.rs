//! The specs' tools and the tasks that run the reference engine in process: `gen` and `fuzz`.
//!
//! [`table`] is [`TOOLS`], the harness's table of each spec's generator and shrinker (one file
//! per spec: `columns`, `collapse`, `connect4`, `go`), built from [`random`] and [`shrink`];
//! [`oracle`] is where inputs and expected outputs come from (a built-in spec's engine, or an
//! instructor's `generate` and `reference` commands); [`generate`] writes seeded cases and
//! [`fuzz`] searches for disagreements and shrinks them. Built only with the `reference`
//! feature.

mod collapse;
mod columns;
mod connect4;
mod fuzz;
mod generate;
mod go;
mod oracle;
mod random;
mod shrink;
mod table;

pub use fuzz::{fuzz, report, warnings, Budget, Event, Found, Options, Outcome};
pub use generate::write;
pub use oracle::Oracle;
pub use random::{Generated, Rng};
pub use shrink::drop_chunks;
pub use table::{find, missing, Assignment, Tools, TOOLS};
