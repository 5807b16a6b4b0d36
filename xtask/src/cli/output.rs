//! What the command lines print and write, beyond `message`'s check report: the reports a
//! check writes, the printed report and its exit status (shared by `cargo xtask` and the
//! student kit), when to draw progress bars, and a grading's progress bar and closing lines.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::error::Error;
use crate::files::write_atomically;
use crate::judge::Run;
use crate::report::{
    gradescope_report, json_report, junit_report, redact, render_failure, text_report,
    Settings as GradescopeSettings,
};

/// The report files a check writes, and how it prints.
pub struct Reports {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub gradescope: Option<PathBuf>,
    pub html: Option<PathBuf>,
    /// A Markdown job summary to write.
    pub summary: Option<PathBuf>,
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
        let reports = [
            ("--json", &self.json),
            ("--junit", &self.junit),
            ("--gradescope", &self.gradescope),
            ("--html", &self.html),
            ("--summary", &self.summary),
        ];
        let given: Vec<(&str, &PathBuf)> = reports
            .iter()
            .filter_map(|(flag, path)| path.as_ref().map(|path| (*flag, path)))
            .collect();
        for (k, (flag, path)) in given.iter().enumerate() {
            if let Some((other, _)) = given[..k].iter().find(|(_, earlier)| earlier == path) {
                return Err(Error::Usage(format!(
                    "{other} and {flag} both name `{}`: give each report a file of its own",
                    path.display()
                )));
            }
            guard.allows(flag, path)?;
            writable(flag, &Some(path.to_path_buf()))?;
        }
        Ok(())
    }

    /// Writes the reports of a finished check and prints it; the exit status: 0 when every
    /// graded case passed, 1 when one failed, 3 when none failed but some could not be judged,
    /// 130 when interrupted.
    pub fn finish(&self, run: Result<Run, Error>) -> Result<ExitCode, Error> {
        let run = match run {
            Ok(run) => run,
            Err(err) => {
                // Gradescope shows a 0 with the reason rather than "the autograder failed".
                if let (Some(path), Error::CouldNotRun { .. }) = (&self.gradescope, &err) {
                    let reason = redact(&err.to_string(), &self.student_root);
                    write_atomically(path, render_failure(&reason).as_bytes())?;
                }
                return Err(err);
            }
        };
        for warning in &run.warnings {
            eprintln!("{warning}");
        }
        // Each report is rendered only when it is asked for.
        let write = |path: &Option<PathBuf>, render: &dyn Fn() -> String| match path {
            Some(path) => write_atomically(path, render().as_bytes()),
            None => Ok(()),
        };
        write(&self.json, &|| json_report(&run))?;
        write(&self.junit, &|| junit_report(&run))?;
        write(&self.gradescope, &|| {
            gradescope_report(&run, &self.gradescope_settings)
        })?;
        write(&self.html, &|| crate::report::check_report(&run))?;
        write(&self.summary, &|| crate::report::markdown(&run))?;
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

/// Writes a grading's Markdown summary to `path` (if given) and to the GitHub job summary (on
/// Actions); nothing for `--dry-run`.
pub fn write_grade_summary(
    summary: &crate::grade::Summary,
    path: &Option<PathBuf>,
) -> Result<(), Error> {
    if !summary.plan.is_empty() {
        return Ok(());
    }
    let markdown = crate::report::class_markdown(&summary.grades, &summary.changes);
    if let Some(path) = path {
        write_atomically(path, markdown.as_bytes())?;
    }
    append_step_summary(&markdown)
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

/// What `grade` prints when it is done; `out` is where it wrote.
pub fn grade_report(summary: &crate::grade::Summary, out: &std::path::Path) -> String {
    if !summary.plan.is_empty() {
        let mut report = String::from("--dry-run: nothing graded; a grading would\n");
        for (id, what) in &summary.plan {
            report += &format!("  {id}: {what}\n");
        }
        return report;
    }
    let failed = summary.grades.could_not_run();
    let mut report = match summary.filtered {
        Some((kept, whole)) => format!(
            "--filter: scores are out of {kept} points, the groups it keeps (the whole suite: \
             {whole})\n"
        ),
        None => String::new(),
    };
    report += &format!(
        "{}: {} graded now, {} reused from an earlier run, {} could not be graded (run, built or unpacked: their `error`)\n",
        counted(summary.grades.submissions.len(), "submission", "submissions"),
        summary.n_graded,
        summary.n_reused,
        failed
    );
    for (name, why) in &summary.grades.skipped {
        report += &format!("skipped `{name}`: {why}\n");
    }
    if !summary.changes.is_empty() {
        report += &format!(
            "regrade: {} since the earlier grading{}\n",
            counted(summary.changes.len(), "score moved", "scores moved"),
            summary
                .earlier
                .as_ref()
                .map(|kept| format!(" (kept as `{}`)", kept.display()))
                .unwrap_or_default()
        );
        for change in &summary.changes {
            report += &format!(
                "  {}: {:.2} → {:.2}: {}\n",
                change.id, change.old_score, change.new_score, change.why
            );
        }
    }
    if let (true, Some(place)) = (summary.interrupted, &summary.stopped_at) {
        report += &format!(
            "stopped by --fail-fast at {place}: run the same command again to grade the rest\n"
        );
    } else if summary.interrupted {
        report += "stopped (Ctrl-C): run the same command again to grade the rest\n";
    } else {
        report += &format!(
            "wrote `{}` and `{}`\n",
            out.join("grades.csv").display(),
            out.join("grades.json").display()
        );
        if summary.html {
            report += &format!("wrote `{}`\n", out.join("report.html").display());
        }
    }
    report
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

/// What `new` says it made, and the next steps.
pub fn new_suite_report(folder: &Path, request: &crate::scaffold::Request) -> String {
    let corpus = request.corpus.display();
    let name = &request.name;
    let mut notes = String::new();
    for file in crate::scaffold::outside(request, folder) {
        notes +=
            &format!(
            "note: `{file}` stays where it is, outside the suite's folder, and suite.toml names \
             it there; a graded program run in a folder that holds it could read it: keep it \
             beside suite.toml (move it and name it `{}` in suite.toml), where no graded \
             program can\n",
            Path::new(&file).file_name().unwrap_or_default().to_string_lossy()
        );
    }
    notes + &format!(
        "created `{}` and its `handout/` group\n\
         next:\n  \
         1. put the handout's examples in `handout/` as `001-NAME.in` files (and your \
         solution and generator beside `suite.toml`)\n  \
         2. cargo xtask bless --cases {corpus} --spec {name}     (writes their `.out` with your solution)\n  \
         3. cargo xtask gen --cases {corpus} --spec {name} --count 50   (with a `generate` command)\n  \
         4. cargo xtask check --cases {corpus} --spec {name} -- python3 ~/student/student.py   \
         (a program outside this checkout: the checkout is hidden from graded programs)\n",
        folder.join("suite.toml").display()
    )
}

/// `check --list`: each suite's graded groups with their cases and points, its ungraded groups,
/// and the points a perfect program scores (a group without cases is worth nothing yet).
pub fn suite_listing(root: &Path, spec: Option<&str>) -> Result<String, Error> {
    let suites = match spec {
        Some(spec) => vec![crate::corpus::find(root, spec)?],
        None => crate::corpus::load_all(root)?,
    };
    let mut out = String::new();
    for suite in &suites {
        let cases = crate::corpus::discover(suite)?;
        let count = |group: &str, graded: bool| {
            cases
                .iter()
                .filter(|c| c.group == group && c.graded == graded)
                .count()
        };
        let mut total = 0.0;
        let mut lines = String::new();
        for (group, points) in &suite.file.groups {
            let n = count(group, true);
            if n > 0 {
                total += points;
                let n = counted(n, "case ", "cases");
                lines += &format!("  {group:<28} {n:>10}  {points:>5} points\n");
            } else {
                lines += &format!(
                    "  {group:<28} {:>10}  (worth nothing until it has some)\n",
                    "0 cases"
                );
            }
        }
        for group in suite.file.ungraded.keys() {
            let n = counted(count(group, false), "case ", "cases");
            lines += &format!("  {group:<28} {n:>10}  (ungraded)\n");
        }
        let graded = cases.iter().filter(|c| c.graded).count();
        out += &format!(
            "{}: {}, {total} points in all\n{lines}",
            suite.name,
            counted(graded, "graded case", "graded cases")
        );
    }
    Ok(out)
}

/// What `gen` says it wrote.
pub fn gen_report(written: usize, spec: &str, dir: &Path) -> String {
    format!("wrote {written} {spec} cases into `{}`\n", dir.display())
}

/// The line `fuzz` starts with: how to repeat it.
pub fn fuzz_banner(spec: &str, seed: u64) -> String {
    format!("fuzzing {spec} with seed {seed} (repeat with --seed {seed})")
}

/// What `merge` says it merged.
pub fn merge_report(submissions: usize, files: usize, out: &Path) -> String {
    format!(
        "merged {submissions} submissions from {files} files into `{}`\n",
        out.display()
    )
}

/// What `kit` says it wrote.
pub fn kit_report(path: &Path, bytes: u64, bundle: &str) -> String {
    format!(
        "wrote `{}`: {:.1} MB, {bundle}\n",
        path.display(),
        bytes as f64 / 1e6
    )
}

/// What `autograder` says it wrote, and how submissions will run.
pub fn autograder_report(
    path: &Path,
    bytes: usize,
    bundle: &crate::kit::Bundle,
    run: &[String],
) -> String {
    let run = match run.is_empty() {
        true => "its sources, built".to_string(),
        false => run.join(" "),
    };
    format!(
        "wrote `{}`: {:.1} MB, the kit of {} run as `{run}`\n\
         total points: {} (enter them as the Gradescope assignment's points)\n",
        path.display(),
        bytes as f64 / 1e6,
        bundle.summary(),
        bundle.points()
    )
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
