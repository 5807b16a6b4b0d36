//! What the command lines print and write, beyond `message`'s check report: the reports a
//! check writes, the printed report and its exit status (shared by `cargo xtask` and the
//! student kit), when to draw progress bars, and a grading's progress bar and closing lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::Error;
use crate::files::write_atomically;
use crate::judge::Run;
use crate::report::{redact, text_report, Format, Settings as GradescopeSettings};

/// The report files a check writes, and how it prints.
pub struct Reports {
    /// The report files to write, each with its row of the report table.
    pub files: Vec<(&'static Format, PathBuf)>,
    /// Print one `::error` workflow command per cause (GitHub Actions annotations).
    pub annotations: bool,
    pub gradescope_settings: GradescopeSettings,
    pub verbose: bool,
    /// The folder a student's messages may name paths in (the submission's); any other
    /// absolute path in a could-not-run message is cut to its last component.
    pub student_root: PathBuf,
    /// Write over an existing file that is not a report gridjudge wrote.
    pub force: bool,
}

impl Reports {
    /// Fails now, before any case runs, if a report file cannot be written, or may not be:
    /// over the program checked by `options` (typed as `named`), a file of its submission,
    /// into the corpus, or over a file that is not one of gridjudge's reports.
    pub fn check_writable(
        &self,
        options: &crate::check::Options,
        named: &[std::ffi::OsString],
    ) -> Result<(), Error> {
        let guard = super::guard::Guard::new(options, named, self.force);
        for (k, (format, path)) in self.files.iter().enumerate() {
            let flag = format.option();
            if let Some((other, _)) = self.files[..k].iter().find(|(_, earlier)| earlier == path) {
                return Err(Error::Usage(format!(
                    "{} and {flag} both name `{}`: give each report a file of its own",
                    other.option(),
                    path.display()
                )));
            }
            guard.allows(format, path)?;
            writable(&flag, &Some(path.to_path_buf()))?;
        }
        Ok(())
    }

    /// Writes the reports of a finished check and prints it; the exit status: 0 when every
    /// graded case passed, 1 when one failed, 3 when none failed but some could not be judged,
    /// 130 when interrupted.
    /// Writes, for a check that could not run at all (`err`), the report files that say so:
    /// Gradescope shows a 0 with the reason rather than "the autograder failed".
    pub fn write_failure(&self, err: &Error) -> Result<(), Error> {
        let reason = redact(&err.to_string(), &self.student_root);
        for (format, path) in &self.files {
            if let Some(failure) = format.failure {
                write_atomically(path, failure(&reason).as_bytes())?;
            }
        }
        Ok(())
    }

    pub fn finish(&self, run: Result<Run, Error>) -> Result<ExitCode, Error> {
        let run = match run {
            Ok(run) => run,
            Err(err) => {
                if matches!(err, Error::CouldNotRun { .. }) {
                    self.write_failure(&err)?;
                }
                return Err(err);
            }
        };
        for warning in &run.warnings {
            eprintln!("{warning}");
        }
        // Each report is rendered only when it is asked for.
        for (format, path) in &self.files {
            let report = (format.write)(&run, &self.gradescope_settings);
            write_atomically(path, report.as_bytes())?;
        }
        github_step_summary(&run)?;
        if self.annotations || on_github_actions() {
            print_report(&crate::report::annotations(&run))?;
        }
        print_report(&text_report(&run, self.verbose))?;
        let totals = run.totals();
        Ok(if run.interrupted {
            ExitCode::from(130)
        } else if totals.failed == 0 && totals.unjudged > 0 {
            // Nothing failed, but not everything could be judged: neither a pass nor a fail.
            ExitCode::from(3)
        } else if run.all_graded_passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
}

/// Whether this runs in a GitHub Actions job.
fn on_github_actions() -> bool {
    std::env::var_os("GITHUB_ACTIONS").is_some_and(|value| value == "true")
}

/// On GitHub Actions, adds the run's Markdown summary to the job's summary.
fn github_step_summary(run: &Run) -> Result<(), Error> {
    if std::env::var_os("GITHUB_STEP_SUMMARY").is_none() {
        return Ok(());
    }
    append_step_summary(&crate::report::markdown(run))
}

/// Appends `markdown` to the GitHub job summary (the file named by `GITHUB_STEP_SUMMARY`,
/// which every step appends to), when there is one.
pub(super) fn append_step_summary(markdown: &str) -> Result<(), Error> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").map(PathBuf::from) else {
        return Ok(());
    };
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .map_err(|err| Error::io(&path, err))?;
    file.write_all(markdown.as_bytes())
        .map_err(|err| Error::io(&path, err))
}

/// Checks before a run that a report can be written at `path`: its folder exists and takes a
/// new file. A bad path is found now, not after the whole run.
fn writable(flag: &str, path: &Option<PathBuf>) -> Result<(), Error> {
    let Some(path) = path else {
        return Ok(());
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => std::path::Path::new("."),
    };
    tempfile::NamedTempFile::new_in(dir)
        .map(drop)
        .map_err(|err| Error::Usage(format!("{flag}: cannot write `{}`: {err}", path.display())))
}

/// Whether to draw progress bars: on a terminal, outside CI.
pub fn show_progress() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("CI").is_none()
}

/// Prints a report on stdout; a reader that went away is not an error.
pub fn print_report(report: &str) -> Result<(), Error> {
    let mut stdout = anstream::stdout();
    match stdout
        .write_all(report.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::Write(format!("failed to write the report: {err}")))
        }
        _ => Ok(()),
    }
}

/// Lines for the user's eye (warnings, notes), on stderr.
pub fn warn(lines: &[String]) {
    for line in lines {
        eprintln!("{line}");
    }
}

/// What every command line does first, after its sandbox-helper dispatch: large buffers given
/// back to the system (before any thread starts) and Ctrl-C and SIGTERM handled.
pub fn start() {
    crate::sys::return_large_buffers();
    crate::sys::catch_interrupts();
}

/// What every command line does last: this thread's sandbox helper (and its cgroup) ended, an
/// error said in one `error:` line, and the exit status (2 for an error).
pub fn conclude(result: Result<ExitCode, Error>) -> ExitCode {
    crate::sandbox::release();
    match result {
        Ok(code) => code,
        Err(Error::Interrupted) => {
            eprintln!("interrupted");
            ExitCode::from(130)
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}

/// `n` and the noun that goes with it: `1 score moved`, `2 scores moved`.
pub(super) fn counted(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// Prints `report`: the task is done, exit status 0.
#[cfg(all(feature = "reference", feature = "similarity"))]
pub(super) fn done(report: &str) -> Result<ExitCode, Error> {
    print_report(report)?;
    Ok(ExitCode::SUCCESS)
}

/// Exit status 1 when something was found wanting, else 0.
#[cfg(all(feature = "reference", feature = "similarity"))]
pub(super) fn failed_if(failed: bool) -> ExitCode {
    ExitCode::from(u8::from(failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_a_thing_is_said_in_the_singular() {
        assert_eq!(counted(1, "score moved", "scores moved"), "1 score moved");
        assert_eq!(counted(0, "score moved", "scores moved"), "0 scores moved");
        assert_eq!(counted(2, "submission", "submissions"), "2 submissions");
    }
}
