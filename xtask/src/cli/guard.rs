//! Where a check may write its reports: never over the program being checked or a file of the
//! submission, never into the corpus, and over an existing file only when it is a report
//! gridjudge wrote (or `--force`). Each refusal is a usage error that names the flag and the
//! path, said before any case runs.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::report::Format;
use crate::target::Program;

/// What a report path is checked against.
pub(super) struct Guard<'a> {
    /// The files of the program being checked: a command's file arguments, or the sources.
    program: Vec<PathBuf>,
    /// A folder of sources: every file already in it is the submission's.
    sources: Option<PathBuf>,
    corpus: Option<PathBuf>,
    /// The words the user gave as the program (none: the reference is checked).
    named: &'a [OsString],
    force: bool,
}

impl<'a> Guard<'a> {
    pub(super) fn new(
        options: &crate::check::Options,
        named: &'a [OsString],
        force: bool,
    ) -> Guard<'a> {
        let dir = &options.dir;
        let (program, sources) = match &options.program {
            Program::Reference => (Vec::new(), None),
            Program::Command(argv) => (
                argv.iter()
                    .filter_map(|word| canonical(&dir.join(word)))
                    .collect(),
                None,
            ),
            Program::Sources(path) => {
                let path = canonical(&dir.join(path));
                match path {
                    Some(path) if path.is_dir() => (Vec::new(), Some(path)),
                    Some(path) => (vec![path], None),
                    None => (Vec::new(), None),
                }
            }
        };
        Guard {
            program,
            sources,
            corpus: canonical(&options.cases_root),
            named,
            force,
        }
    }

    /// Whether `flag`'s report may be written at `path`.
    pub(super) fn allows(&self, format: &Format, path: &Path) -> Result<(), Error> {
        let flag = format.option();
        let refuse = |why: String| Err(Error::Usage(format!("{flag} `{}`: {why}", path.display())));
        let target = crate::files::canonical_even_if_absent(path);
        if let Some(corpus) = &self.corpus {
            if target.starts_with(corpus) {
                return refuse(format!(
                    "that is inside the corpus (`{}`): reports are written elsewhere",
                    corpus.display()
                ));
            }
        }
        let Ok(meta) = std::fs::metadata(path) else {
            return Ok(());
        };
        if meta.is_dir() {
            return refuse("that is a folder: name a file for the report".into());
        }
        let existing = canonical(path);
        let ours = is_ours(path);
        // An earlier report in the submission's folder is no file of the submission.
        let of_program = existing.as_ref().is_some_and(|file| {
            self.program.contains(file)
                || (!ours
                    && self
                        .sources
                        .as_ref()
                        .is_some_and(|folder| file.starts_with(folder)))
        });
        if of_program {
            return refuse(format!(
                "that is {} being checked: a report is never written over it (name the report \
                 first: `{flag} report{} {}`)",
                if self.sources.is_some() {
                    "a file of the submission"
                } else {
                    "the program"
                },
                format.extension,
                self.named_text()
            ));
        }
        if self.force || ours {
            return Ok(());
        }
        let mut why = String::from(
            "that file exists and is not a report gridjudge wrote, so it is left as it is (name \
             another file, or add --force to replace it)",
        );
        if self.named.is_empty() {
            why.push_str(&format!(
                "; with no program named, {flag} took `{0}` as its file and the reference would \
                 be checked: to check `{0}`, write `{flag} report{1} {0}`",
                path.display(),
                format.extension
            ));
        }
        refuse(why)
    }

    fn named_text(&self) -> String {
        crate::target::display_argv(self.named)
    }
}

/// Whether the file at `path` begins like a report gridjudge writes.
fn is_ours(path: &Path) -> bool {
    let mut head = Vec::with_capacity(crate::report::HEAD);
    std::fs::File::open(path)
        .and_then(|file| file.take(crate::report::HEAD as u64).read_to_end(&mut head))
        .is_ok_and(|_| crate::report::is_ours(&head))
}

fn canonical(path: &Path) -> Option<PathBuf> {
    path.canonicalize().ok()
}
