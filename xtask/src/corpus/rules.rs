//! How a suite judges an output: [`CompareMode`] and [`Rules`], the same for a `suite.toml`
//! suite and a problem package; and [`Grid`], how a built-in spec's outputs read as grids,
//! which the suite hands to the judge.

use serde::Deserialize;

/// How an output is compared with the expected one.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareMode {
    /// Byte for byte.
    Exact,
    /// Line by line, with spaces at the ends of lines ignored.
    IgnoreTrailingSpaces,
    /// A problem package's default output validator: tokens, under its flags.
    #[serde(skip)]
    Tokens(super::tokens::Tokens),
    /// A problem package's own output validator decides (see [`crate::package`]).
    #[serde(skip)]
    Validator,
}

/// How a suite judges one output: what `judge::judge` needs of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    pub compare: CompareMode,
    /// Whether a non-zero exit status fails a case whose output is right.
    pub grade_exit_status: bool,
}

/// How one spec's outputs read as a grid: the terms a failure no misreading of the handout fits
/// is told in (which cell, which table, which kind of line), so that one bug's failures group
/// together whatever the case's board. A built-in spec's reader is its row of the tools table;
/// a suite carries it ([`super::Suite::grid`]) to the judge, which knows no game.
pub trait Grid: Sync + std::fmt::Debug {
    /// The kind of difference between the expected line `want` and the program's `got`, at
    /// line `line` (from 1) of the outputs whose whole texts are `expected` and `actual`.
    fn kind(&self, want: &str, got: &str, expected: &str, actual: &str, line: usize) -> String;

    /// The first cell that differs between `want` and `got` at output line `line` of
    /// `expected`, by its place and form; `None` where the grid has no cells to name there.
    fn cell(&self, _expected: &str, _line: usize, _want: &str, _got: &str) -> Option<String> {
        None
    }

    /// The display the reference showed before the one holding line `line` of `expected`,
    /// as its lines: the state a student can set up by hand to see the bug.
    fn before(&self, _expected: &str, _line: usize) -> Option<Vec<String>> {
        None
    }
}
