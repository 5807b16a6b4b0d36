//! The table of assignments: the one place that lists them.
//!
//! Every other place of the reference that needs "all specs" (the CLI, `--help`, tests) iterates
//! this table. A new assignment is a new module and a row here on the reference's side;
//! "Adding an assignment" in ARCHITECTURE.md lists every other piece it needs (the harness's
//! tools, the spec, the corpus, the rule tests, the wrong variants).

use crate::program::Program;
use crate::{collapse, columns, connect4, go};

/// One assignment the reference implements.
pub struct Spec {
    /// The one spelling used everywhere: CLI argument, module, `cases/` folder.
    pub name: &'static str,
    /// One line for `--help`.
    pub summary: &'static str,
    /// Interactive programs are flushed after every input line.
    pub interactive: bool,
    /// A fresh program, ready for its first input line.
    pub program: fn() -> Box<dyn Program>,
}

pub static SPECS: &[Spec] = &[
    Spec {
        name: "columns",
        summary: "Columns falling-jewel mechanics (UC Irvine ICS 32, Project 4)",
        interactive: true,
        program: || Box::new(columns::Columns::default()),
    },
    Spec {
        name: "collapse",
        summary: "remove a group of 4 or more blocks and collapse the board (contest problem 5)",
        interactive: false,
        program: || Box::new(collapse::Collapse::default()),
    },
    Spec {
        name: "connect4",
        summary: "Connect Four on 5 rows x 8 columns (BYU CS 110, Project 4)",
        interactive: true,
        program: || Box::new(connect4::Connect4::default()),
    },
    Spec {
        name: "go",
        summary: "Go board liberties and groups (UCSC CMPS290e calibration assignment)",
        interactive: false,
        program: || Box::new(go::Go::default()),
    },
];

/// The spec called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|spec| spec.name == name)
}
