//! `cargo xtask similar`: its command line and what it prints (the instructor's similarity
//! report; the work is `grade::similar`).

use std::process::ExitCode;

use super::output::done;
use std::path::PathBuf;

use super::output::counted;
use super::values::share;
use crate::error::Error;

#[derive(clap::Args)]
pub struct SimilarArgs {
    /// The folder of submissions, as `grade` takes it (one folder, archive or source per
    /// student).
    #[arg(long, value_name = "DIR")]
    pub submissions: PathBuf,
    /// The --out folder of a grading of the same class: the wrong outputs its students share
    /// are compared too.
    #[arg(long, value_name = "OUT")]
    pub grades: Option<PathBuf>,
    /// The starter code the class was given: none of it counts.
    #[arg(long, value_name = "DIR")]
    pub base: Option<PathBuf>,
    /// Where similarity.html, .csv and .json go (default: the --grades folder, else
    /// `similarity-report` in the current folder, or in `target/` when that folder is in a
    /// gridjudge checkout). A folder that holds anything but an earlier report is refused.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Code held by more than this share of the class is common to the assignment and counts
    /// for nothing, unless its holders are a group (a ring sharing most of its code).
    #[arg(long, value_name = "SHARE", default_value_t = crate::grade::COMMON, value_parser = share)]
    pub common: f64,
}

impl SimilarArgs {
    /// What `similar` is asked, and where its report goes.
    pub fn options(&self) -> Result<(crate::grade::SimilarOptions, PathBuf), Error> {
        let out = self
            .out
            .clone()
            .or_else(|| self.grades.clone())
            .unwrap_or_else(|| crate::workspace::default_out(crate::grade::SIMILARITY_OUT));
        crate::grade::out_folder(&out, &self.submissions)?;
        // Beside a grading, its folder is the report's; any other holds a report or nothing.
        if self.grades.as_ref() != Some(&out) {
            crate::grade::report_folder(&out)?;
        }
        if !self.submissions.is_dir() {
            return Err(Error::Usage(format!(
                "--submissions `{}`: not a folder",
                self.submissions.display()
            )));
        }
        let options = crate::grade::SimilarOptions {
            submissions: self.submissions.clone(),
            grades: self.grades.clone(),
            base: self.base.clone(),
            shard: None,
            common: self.common,
        };
        Ok((options, out))
    }
}

/// What `similar` prints: the pairs at the top of the ranking, each with its evidence, what was
/// not measured, and the files written.
pub(super) fn similar_report(report: &crate::report::Similarity, written: &[PathBuf]) -> String {
    let analysis = &report.analysis;
    let mut text = format!(
        "{}, {} with anything in common, {} flagged\n",
        counted(analysis.students.len(), "submission", "submissions"),
        counted(analysis.pairs.len(), "pair", "pairs"),
        analysis.flagged()
    );
    for ring in &analysis.clusters {
        text += &format!(
            "ring of {}: {} (the source most of them share: {}; mean code score {:.2})\n",
            ring.members.len(),
            ring.members.join(", "),
            ring.source,
            ring.mean_score
        );
    }
    for (rank, pair) in analysis.pairs.iter().take(10).enumerate() {
        text += &format!(
            "{:>3}. {} and {}: {:.2} (code {:.2}, mistakes {:.2}; {})\n",
            rank + 1,
            pair.left,
            pair.right,
            pair.score,
            pair.code.as_ref().map_or(0.0, |c| c.score),
            pair.behaviour.as_ref().map_or(0.0, |b| b.score),
            pair.evidence.words()
        );
    }
    for note in &report.notes {
        text += &format!("note: {note}\n");
    }
    for path in written {
        text += &format!("wrote {}\n", path.display());
    }
    text
}

/// `similar`: the report written, and what it says.
pub(super) fn run(args: SimilarArgs) -> Result<ExitCode, Error> {
    let (options, out) = args.options()?;
    let report = crate::grade::similar(&options)?;
    let written = crate::grade::write_similarity(&report, &out)?;
    done(&similar_report(&report, &written))
}
