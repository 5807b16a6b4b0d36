//! The harness's own errors: what stops a run before any verdict (bad arguments, a missing or
//! invalid corpus, a target that cannot be started). A misbehaving target is never an error;
//! it is a [`crate::outcome::Verdict`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file failed.
    Io { path: PathBuf, source: io::Error },
    /// A corpus file is malformed.
    Corpus { path: PathBuf, message: String },
    /// The command line asks for something impossible.
    Usage(String),
    /// The target could not be started at all.
    CouldNotRun { command: String, message: String },
    /// A helper command (building the reference) failed.
    Command(String),
}

impl Error {
    pub fn io(path: &Path, source: io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn corpus(path: &Path, message: impl Into<String>) -> Error {
        Error::Corpus {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "`{}`: {source}", path.display()),
            Error::Corpus { path, message } => write!(f, "`{}`: {message}", path.display()),
            Error::Usage(message) => f.write_str(message),
            Error::CouldNotRun { command, message } => {
                write!(f, "could not run `{command}`: {message}")
            }
            Error::Command(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
