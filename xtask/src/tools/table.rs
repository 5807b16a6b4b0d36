//! The table of the specs' harness tools: for each assignment, how its outputs read as a grid
//! and, with the `reference` feature, the generator of random graded inputs and the shrinker
//! of failing ones.
//!
//! This is the harness's twin of the reference's `gridjudge::spec::SPECS`, and the only list of
//! specs the harness keeps: a check hands a built-in suite its grid from here, `gen`, `fuzz`
//! and the shrinker find a spec here by name, and [`missing`] names any spec one table has and
//! the other lacks (a test keeps it empty).

#[cfg(feature = "reference")]
use super::{collapse, columns, connect4, go};
#[cfg(feature = "reference")]
use std::fmt;

#[cfg(feature = "reference")]
use gridjudge::spec::{Spec, SPECS};

use super::grid;
#[cfg(feature = "reference")]
use super::random::{Generated, Rng};
use crate::corpus::{Grid, Suite};
#[cfg(feature = "reference")]
use crate::error::Error;

/// One spec's harness tools.
pub struct Tools {
    /// The spec's one spelling, as in `gridjudge::spec::SPECS`.
    pub name: &'static str,
    /// How its outputs read as a grid: what the judge tells a failure no misreading fits by
    /// (`None`: such failures are told by their words alone).
    pub grid: Option<&'static dyn Grid>,
    /// A random input; it may stray out of the graded domain, which [`crate::generate`]
    /// checks with the reference.
    #[cfg(feature = "reference")]
    pub generate: fn(&mut Rng) -> Generated,
    /// Inputs a little simpler than the given lines, most promising first.
    #[cfg(feature = "reference")]
    pub shrink: fn(&[&str]) -> Vec<String>,
}

/// The grid of the built-in spec `name`; `None` for a name the table does not list.
pub fn grid_of(name: &str) -> Option<&'static dyn Grid> {
    TOOLS.iter().find(|tools| tools.name == name)?.grid
}

/// The grid of `suite`: its built-in spec's (the one its `args` name, as the bundled
/// reference takes it); `None` for a suite with a reference of its own or a problem package.
pub fn grid_for(suite: &Suite) -> Option<&'static dyn Grid> {
    if !suite.is_built_in() {
        return None;
    }
    suite
        .file
        .args
        .iter()
        .flatten()
        .find_map(|arg| grid_of(arg))
}

#[cfg(feature = "reference")]
impl Tools {
    /// Inputs a little simpler than `input`, most promising first, never `input` itself.
    pub fn candidates(&self, input: &str) -> Vec<String> {
        let lines: Vec<&str> = input.lines().collect();
        let mut out = (self.shrink)(&lines);
        out.retain(|candidate| candidate != input);
        out
    }
}

pub static TOOLS: &[Tools] = &[
    Tools {
        name: "columns",
        grid: Some(&grid::Columns),
        #[cfg(feature = "reference")]
        generate: columns::generate,
        #[cfg(feature = "reference")]
        shrink: columns::shrink,
    },
    Tools {
        name: "collapse",
        grid: Some(&grid::Collapse),
        #[cfg(feature = "reference")]
        generate: collapse::generate,
        #[cfg(feature = "reference")]
        shrink: collapse::shrink,
    },
    Tools {
        name: "connect4",
        grid: Some(&grid::Connect4),
        #[cfg(feature = "reference")]
        generate: connect4::generate,
        #[cfg(feature = "reference")]
        shrink: connect4::shrink,
    },
    Tools {
        name: "go",
        grid: Some(&grid::Go),
        #[cfg(feature = "reference")]
        generate: go::generate,
        #[cfg(feature = "reference")]
        shrink: go::shrink,
    },
];

#[cfg(feature = "reference")]
/// An assignment as the harness's tools see it: the reference's engine and the harness's tools.
#[derive(Clone, Copy)]
pub struct Assignment<'a> {
    pub reference: &'a Spec,
    pub tools: &'a Tools,
}

#[cfg(feature = "reference")]
impl Assignment<'_> {
    pub fn name(&self) -> &str {
        self.reference.name
    }

    /// The reference's output for `input` when it is well formed and touches only determined
    /// and ruled behaviour; `None` otherwise.
    pub fn graded_output(&self, input: &str) -> Option<Vec<u8>> {
        gridjudge::driver::graded_output(self.reference, input.as_bytes())
    }
}

#[cfg(feature = "reference")]
impl fmt::Debug for Assignment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Assignment({})", self.name())
    }
}

#[cfg(feature = "reference")]
/// The bundled assignment called `name`.
pub fn find(name: &str) -> Result<Assignment<'static>, Error> {
    let reference = gridjudge::spec::find(name);
    let tools = TOOLS.iter().find(|tools| tools.name == name);
    match (reference, tools) {
        (Some(reference), Some(tools)) => Ok(Assignment { reference, tools }),
        _ => {
            let names: Vec<&str> = SPECS.iter().map(|spec| spec.name).collect();
            Err(Error::Usage(format!(
                "unknown spec `{name}` (expected one of: {})",
                names.join(", ")
            )))
        }
    }
}

#[cfg(feature = "reference")]
/// Specs that one table lists and the other lacks, as sentences: empty when every reference
/// spec has its harness tools and every tool its reference spec.
pub fn missing(references: &[Spec], tools: &[Tools]) -> Vec<String> {
    let mut missing = Vec::new();
    for spec in references {
        if !tools.iter().any(|t| t.name == spec.name) {
            missing.push(format!(
                "spec `{}` has no row in the harness's tools table (`xtask/src/tools/table.rs`)",
                spec.name
            ));
        }
    }
    for tool in tools {
        if !references.iter().any(|spec| spec.name == tool.name) {
            missing.push(format!(
                "tools `{}` have no spec in the reference's table (`src/spec.rs`)",
                tool.name
            ));
        }
    }
    missing
}

#[cfg(all(test, feature = "reference"))]
mod tests {
    use super::*;

    #[test]
    fn every_reference_spec_has_its_tools() {
        assert_eq!(missing(SPECS, TOOLS), Vec::<String>::new());
        for spec in SPECS {
            assert_eq!(find(spec.name).unwrap().name(), spec.name);
        }
    }

    #[test]
    fn a_spec_without_tools_is_named() {
        let found = missing(SPECS, &TOOLS[1..]);
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("`columns`"), "{found:?}");
    }

    #[test]
    fn an_unknown_name_lists_the_specs() {
        let err = find("chess").unwrap_err().to_string();
        assert!(err.contains("columns, collapse, connect4, go"), "{err}");
    }
}
