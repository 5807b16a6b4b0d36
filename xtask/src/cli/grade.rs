//! `cargo xtask grade`: a folder of submissions, one folder per student, graded; what it prints when done.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::{append_step_summary, counted, print_report, show_progress, warn};
use super::progress::GradeProgress;
use super::shared::{ConfineArgs, CorpusArgs, PaceArgs, ReportArgs};
use super::values::{command_line, CommandLine};
use crate::corpus::Shard;
use crate::error::Error;
use crate::files::write_atomically;

#[derive(clap::Args)]
pub struct GradeArgs {
    #[arg(long)]
    pub spec: String,
    /// The folder of submissions: one folder per student, its name the student's id.
    #[arg(long, value_name = "DIR")]
    pub submissions: PathBuf,
    /// The command to run inside each submission folder, e.g. 'python3 project4.py' (split on
    /// spaces); without it, each submission's sources are built (as `check src/` does) and
    /// run.
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub run: Option<CommandLine>,
    /// Build each submission first with CMD (`make`), confined, in a copy of its folder where
    /// --run then runs (instead of the language table's build).
    #[arg(long, value_name = "CMD", value_parser = command_line, requires = "run")]
    pub build: Option<CommandLine>,
    /// Where grades.csv, grades.json and results/ go (default: grades-<spec>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only shard K of N of the submissions (split by id, the same on every machine).
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// Also write `report.html` beside `grades.csv`: the class at a glance (one file, offline).
    #[arg(long)]
    pub html: bool,
    /// Also write gradescope/<id>/results.json for each submission.
    #[arg(long)]
    pub gradescope: bool,
    /// Grade every submission again instead of reusing results that are still valid.
    #[arg(long)]
    pub force: bool,
    /// Say, per submission, whether a grading would reuse its result or grade it again and
    /// why; grade nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only cases whose group or `spec/group/name` contains PATTERN (to try one group first).
    #[arg(long, value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Stop at the first failing graded case: the submissions not finished are graded by the
    /// next run of the same command.
    #[arg(long)]
    pub fail_fast: bool,
    /// Write a Markdown summary of the grading (on GitHub Actions it also goes into the job
    /// summary).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub pace: PaceArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

impl GradeArgs {
    pub fn options(&self) -> Result<crate::grade::Options, Error> {
        let base = crate::check::Options::new(
            self.corpus.root()?,
            self.corpus.reference()?,
            PathBuf::new(),
        );
        let check = crate::check::Options {
            jobs: self.pace.jobs.unwrap_or(base.jobs),
            timeout: self.pace.timeout,
            wall: self.pace.wall,
            idle: self.pace.idle,
            filter: self.filter.clone(),
            fail_fast: self.fail_fast,
            confine: self.confine.settings(),
            ..base
        };
        let out = self
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("grades-{}", self.spec)));
        Ok(crate::grade::Options {
            run: self
                .run
                .as_ref()
                .map(CommandLine::words)
                .unwrap_or_default(),
            build: self
                .build
                .as_ref()
                .map(CommandLine::words)
                .unwrap_or_default(),
            shard: self.shard,
            force: self.force,
            dry_run: self.dry_run,
            gradescope: self.gradescope.then(|| self.report.gradescope()),
            html: self.html,
            ..crate::grade::Options::new(check, &self.spec, &self.submissions, out)?
        })
    }
}

pub(super) fn run(args: GradeArgs) -> Result<ExitCode, Error> {
    let options = args.options()?;
    let progress = GradeProgress::new(show_progress());
    let summary = crate::grade::grade(&options, &|step| progress.step(step))?;
    progress.finish();
    warn(&summary.warnings);
    write_grade_summary(&summary, &args.summary)?;
    print_report(&grade_report(&summary, &options.out))?;
    // --fail-fast found a failure: 1, as check's; 130 is for Ctrl-C.
    Ok(ExitCode::from(
        match (&summary.stopped_at, summary.interrupted) {
            (Some(_), _) => 1,
            (None, true) => 130,
            (None, false) => 0,
        },
    ))
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

/// Writes a grading's Markdown summary to `path` (if given) and to the GitHub job summary (on
/// Actions); nothing for `--dry-run`.
pub(super) fn write_grade_summary(
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
