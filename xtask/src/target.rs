//! What runs: a command line and its folder ([`Target`]), and whether the user asked for the
//! bundled reference or a program of their own ([`Program`]).
//!
//! A `Target` says nothing about trust: how it is confined is the [`crate::confine::Policy`]
//! every run is given alongside it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The program a task runs: the bundled reference (trusted), or a command line the user gave
/// (confined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    Reference,
    Command(Vec<OsString>),
}

impl Program {
    /// The reference for an empty command line, the command otherwise.
    pub fn from_argv(argv: Vec<OsString>) -> Program {
        if argv.is_empty() {
            Program::Reference
        } else {
            Program::Command(argv)
        }
    }

    /// How reports name it.
    pub fn display(&self) -> String {
        match self {
            Program::Reference => "the reference".into(),
            Program::Command(argv) => display_argv(argv),
        }
    }

    /// The command to run for a suite whose reference arguments are `args`.
    pub fn target(&self, reference: &Path, args: &[String], dir: &Path) -> Target {
        match self {
            Program::Reference => Target::reference(reference, args, dir),
            Program::Command(argv) => Target::command(argv, dir),
        }
    }
}

/// A command line to run, and the folder to run it in.
#[derive(Debug, Clone)]
pub struct Target {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub dir: PathBuf,
}

impl Target {
    /// A command line given by the user (`python3 project4.py`). An empty one cannot be
    /// started, which the run reports as such.
    pub fn command(argv: &[OsString], dir: &Path) -> Target {
        let (program, args) = match argv.split_first() {
            Some((program, args)) => (program.clone(), args.to_vec()),
            None => (OsString::new(), Vec::new()),
        };
        Target {
            program,
            args,
            dir: dir.to_path_buf(),
        }
    }

    /// The reference binary with a suite's arguments.
    pub fn reference(binary: &Path, args: &[String], dir: &Path) -> Target {
        Target {
            program: binary.into(),
            args: args.iter().map(OsString::from).collect(),
            dir: dir.to_path_buf(),
        }
    }

    /// The command line as a user would type it.
    pub fn display(&self) -> String {
        let argv: Vec<OsString> = std::iter::once(&self.program)
            .chain(&self.args)
            .cloned()
            .collect();
        display_argv(&argv)
    }
}

/// A command line as a user would type it.
pub fn display_argv(argv: &[OsString]) -> String {
    argv.iter()
        .map(|word| word.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
