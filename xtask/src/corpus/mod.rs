//! Finding cases: suite files, the cases of a folder, and the split of a corpus across machines.
//!
//! [`suite`] reads `cases/<spec>/suite.toml` ([`Suite`], [`Rules`], `find` by name); [`discover`]
//! lists a suite's [`Case`]s, sorted by path; [`package`] reads a problem package (a folder
//! holding `problem.yaml`) as a suite, whose groups may compare as the format's default
//! validator does ([`Tokens`], its flags); [`shard`] is the FNV-1a split behind `--shard`.

mod discover;
pub mod package;
mod rules;
mod shard;
mod suite;
mod tokens;

pub use discover::{discover, Case};
pub use rules::{CompareMode, Grid, Rules};
pub use shard::{fnv1a, Shard};
pub use suite::{find, load_all, Suite, SuiteFile};
pub use tokens::Tokens;
