//! How a suite judges an output: [`CompareMode`] and [`Rules`], the same for a `suite.toml`
//! suite and a problem package.

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
