//! The harness's own errors: what stops a run before any verdict (bad arguments, a missing or
//! invalid corpus, a target that cannot be started). A misbehaving target is never an error;
//! it is a `Verdict` (in `judge`).

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
    /// A build the harness started (the reference, the kit's program) failed.
    Build(String),
    /// A report, a result file or an archive could not be encoded or written.
    Write(String),
    /// The reference engine or the reference binary failed where it never should (no graded
    /// input from a seed, the reference not starting).
    Reference(String),
    /// A benchmark could not measure what it was asked to.
    Measure(String),
    /// Ctrl-C or SIGTERM came while the harness waited (for a build): exit status 130.
    Interrupted,
    /// The machine refused the harness something it needs (threads), or the harness broke one
    /// of its own invariants: a bug to report.
    Internal(String),
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
            Error::Build(message)
            | Error::Write(message)
            | Error::Reference(message)
            | Error::Measure(message) => f.write_str(message),
            Error::Internal(message) => write!(f, "internal error: {message}"),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The name of `names` closest to a mistyped `typed`, as a hint to end a message with
/// (`` (did you mean `generated`?)``); empty where none is close (Jaro-Winkler above 0.8).
pub fn did_you_mean<'a>(typed: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|name| (strsim::jaro_winkler(typed, name), name))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_keeps_its_cause_as_its_source() {
        let cause = io::Error::new(io::ErrorKind::NotFound, "gone");
        let err = Error::io(Path::new("cases/x.in"), cause);
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("gone"));
        assert!(std::error::Error::source(&Error::Usage("no".into())).is_none());
    }

    #[test]
    fn a_typo_is_told_the_nearest_name_and_a_stranger_nothing() {
        let groups = ["generated", "handout", "liberties"];
        assert_eq!(
            did_you_mean("generatd", groups),
            " (did you mean `generated`?)"
        );
        assert_eq!(did_you_mean("zzz", groups), "");
    }
}
