//! `cargo xtask grade`: a whole class at once, resumable and splittable across machines.
//!
//! Each submission is a folder named by the student's id; the run command runs inside it
//! against the suite, through `check`. Each submission's result is written to
//! `results/<id>.json` as soon as it is known (atomically), and a rerun reuses those that match
//! the spec and command, so an interrupted grading resumes where it stopped. `grades.csv` and
//! `grades.json` are built from the results alone, sorted by id, with no timings: a run split
//! into shards and merged gives the same bytes as one run.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::check::{self, Options as CheckOptions};
use crate::error::Error;
use crate::files::write_atomically;
use crate::outcome::{CaseResult, Verdict};
use crate::run::Run;
use crate::shard::Shard;
use crate::target::{display_argv, Program};

pub use crate::gradebook::{CaseRow, Grades, Submission};

/// A submission's own result file.
#[derive(Debug, Serialize, Deserialize)]
struct ResultFile {
    spec: String,
    run: String,
    /// What the result depends on, hashed (see [`run_key`] and [`folder_key`]): a rerun reuses
    /// the result only while the key is the same.
    key: String,
    submission: Submission,
    /// The terminal's block (without colour) of the first failing case of each cause, by case
    /// id: what the HTML report shows. Never in `grades.json`, whose bytes hold no timing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    blocks: BTreeMap<String, String>,
}

/// A stable 64-bit hash of `parts`, each length-prefixed so that no two lists collide by
/// concatenation.
fn hash(parts: &[&[u8]]) -> u64 {
    let mut bytes = Vec::new();
    for part in parts {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part);
    }
    crate::shard::fnv1a(&bytes)
}

/// The hash of every file under `dir` (paths and contents, in path order).
fn folder_key(dir: &Path) -> Result<u64, Error> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|err| Error::io(dir, err.into()))?;
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        parts.push(relative.to_string_lossy().as_bytes().to_vec());
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).map_err(|err| Error::io(entry.path(), err))?;
            parts.push(hash(&[&bytes]).to_le_bytes().to_vec());
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Ok(hash(&refs))
}

/// What every result of a grading depends on besides the submission: the corpus of the suite,
/// the reference, the harness's version, the command, the timeout and every limit.
fn run_key(options: &Options, suite: &crate::suite::Suite) -> Result<u64, Error> {
    let corpus = folder_key(&suite.dir)?;
    let reference = std::fs::read(&options.check.reference)
        .map(|bytes| hash(&[&bytes]))
        .unwrap_or(0);
    let settings = format!(
        "{} {:?} {:?} {:?} {} {:?}",
        env!("CARGO_PKG_VERSION"),
        options.run,
        options.check.timeout,
        options.check.confine.limits,
        options.check.confine.sandbox,
        suite.limits(),
    );
    Ok(hash(&[
        &corpus.to_le_bytes(),
        &reference.to_le_bytes(),
        settings.as_bytes(),
    ]))
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The settings of each submission's check; `target`, `dir` and `spec` are set per run.
    pub check: CheckOptions,
    pub spec: String,
    pub submissions: PathBuf,
    pub run: Vec<OsString>,
    pub out: PathBuf,
    pub shard: Option<Shard>,
    /// Grade every submission again, whatever results there are.
    pub force: bool,
    /// Write gradescope/<id>/results.json for each submission, shown this way.
    pub gradescope: Option<crate::gradescope::Settings>,
    /// Write `report.html` beside `grades.csv`.
    pub html: bool,
}

/// What `grade` did.
#[derive(Debug)]
pub struct Summary {
    /// The grades, each submission without its cases (they are in `grades.json` and in
    /// `results/<id>.json`).
    pub grades: Grades,
    pub n_reused: usize,
    pub n_graded: usize,
    pub interrupted: bool,
    pub warnings: Vec<String>,
    /// Entries of the submissions folder that are no submission (dot-folders, files).
    pub skipped: Vec<String>,
    /// `report.html` was written too.
    pub html: bool,
}

fn verdict_counts() -> BTreeMap<String, usize> {
    Verdict::ALL
        .iter()
        .filter(|v| **v != Verdict::Skipped)
        .map(|v| (v.slug().to_string(), 0))
        .collect()
}

impl Summary {
    /// What `grade` prints when it is done; `out` is where it wrote.
    pub fn render(&self, out: &Path) -> String {
        let failed = self
            .grades
            .submissions
            .iter()
            .filter(|s| s.error.is_some())
            .count();
        let mut report = format!(
            "{} submissions: {} graded now, {} reused from an earlier run, {} could not run\n",
            self.grades.submissions.len(),
            self.n_graded,
            self.n_reused,
            failed
        );
        if !self.skipped.is_empty() {
            report += &format!(
                "skipped (not a submission folder): {}\n",
                self.skipped.join(", ")
            );
        }
        if self.interrupted {
            report += "interrupted: run the same command again to resume\n";
        } else {
            report += &format!(
                "wrote `{}` and `{}`\n",
                out.join("grades.csv").display(),
                out.join("grades.json").display()
            );
            if self.html {
                report += &format!("wrote `{}`\n", out.join("report.html").display());
            }
        }
        report
    }
}

/// What a grading tells its progress display.
pub enum Step<'a> {
    /// The cases to run in all (the submissions to grade times the suite's graded cases).
    Planned { cases: u64 },
    /// Submission `id` is done: its cases count as run.
    Graded { id: &'a str, cases: u64 },
}

/// The progress bar of a grading: cases run of all, submissions done and the last one's id.
pub struct Progress {
    bar: indicatif::ProgressBar,
    submissions: std::sync::atomic::AtomicU64,
}

impl Progress {
    /// A bar on stderr when `show`, a hidden one otherwise.
    pub fn new(show: bool) -> Progress {
        let bar = if show {
            indicatif::ProgressBar::new(0)
        } else {
            indicatif::ProgressBar::hidden()
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases, {msg} {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Progress {
            bar,
            submissions: std::sync::atomic::AtomicU64::new(0),
        }
    }

    pub fn step(&self, step: Step) {
        match step {
            Step::Planned { cases } => self.bar.set_length(cases),
            Step::Graded { id, cases } => {
                let done = self
                    .submissions
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    + 1;
                self.bar.inc(cases);
                self.bar
                    .set_message(format!("{done} submissions graded, last {id}"));
            }
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The grade of one finished check of a submission.
fn submission_of(id: &str, run: &Run) -> Submission {
    let groups: BTreeMap<String, f64> = run
        .group_scores()
        .iter()
        .map(|g| (g.group.to_string(), g.score()))
        .collect();
    let mut verdicts = verdict_counts();
    for result in run.results.iter().filter(|r| r.case.graded) {
        *verdicts
            .entry(result.judgement.verdict.slug().to_string())
            .or_default() += 1;
    }
    Submission {
        id: id.to_string(),
        score: groups.values().sum(),
        groups,
        verdicts,
        error: None,
        cases: run
            .results
            .iter()
            .map(|r| CaseRow {
                id: r.case.id(),
                group: r.case.group.clone(),
                verdict: r.judgement.verdict.slug().to_string(),
                cause: (!r.judgement.verdict.passed()).then(|| r.judgement.cause()),
                line: r.judgement.difference.as_ref().map(|d| d.line),
                column: r.judgement.difference.as_ref().map(|d| d.column),
            })
            .collect(),
    }
}

/// The submission folders, sorted by id, with the shard applied.
/// The submission folders (id and path) of the shard, and the entries that are none.
type Found = (Vec<(String, PathBuf)>, Vec<String>);

fn submissions(options: &Options) -> Result<Found, Error> {
    let entries = std::fs::read_dir(&options.submissions)
        .map_err(|err| Error::io(&options.submissions, err))?;
    let (mut found, mut skipped) = (Vec::new(), Vec::new());
    for entry in entries {
        let entry = entry.map_err(|err| Error::io(&options.submissions, err))?;
        let id = entry.file_name().to_string_lossy().into_owned();
        // `.git`, `.github` and files beside the folders are no students.
        if id.starts_with('.') || !entry.path().is_dir() {
            skipped.push(id);
            continue;
        }
        if options.shard.is_none_or(|shard| shard.contains(&id)) {
            found.push((id, entry.path()));
        }
    }
    found.sort();
    skipped.sort();
    Ok((found, skipped))
}

/// Grades every submission (of the shard), reusing finished results; writes the outputs.
pub fn grade(options: &Options, progress: &(dyn Fn(Step) + Sync)) -> Result<Summary, Error> {
    let suite = crate::suite::find(&options.check.cases_root, &options.spec)?;
    let run_text = display_argv(&options.run);
    let results_dir = options.out.join("results");
    std::fs::create_dir_all(&results_dir).map_err(|err| Error::io(&results_dir, err))?;
    // A run killed while writing a result leaves its temporary file; the result itself is
    // either whole or absent, so the leftover only needs to go.
    for entry in std::fs::read_dir(&results_dir)
        .map_err(|err| Error::io(&results_dir, err))?
        .flatten()
    {
        if entry.file_name().to_string_lossy().starts_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    // Only groups with graded cases count: an empty `found` group is worth nothing yet.
    let cases = crate::discover::discover(&suite)?;
    let groups: BTreeMap<String, f64> = suite
        .file
        .groups
        .iter()
        .filter(|(group, _)| cases.iter().any(|c| c.graded && &c.group == *group))
        .map(|(group, points)| (group.clone(), *points))
        .collect();
    let mut grades = Grades {
        schema: 1,
        spec: suite.name.clone(),
        run: run_text.clone(),
        max_score: groups.values().sum(),
        groups,
        shard: options.shard.map(|shard| shard.to_string()),
        submissions: Vec::new(),
    };
    let (mut n_reused, mut n_graded, mut warnings) = (0, 0, Vec::new());
    let (found, skipped) = submissions(options)?;
    let run_key = run_key(options, &suite)?;
    let (selected, _, _) = check::select(&options.check, cases);
    let cases_each = selected.iter().filter(|c| c.graded).count() as u64;
    progress(Step::Planned {
        cases: cases_each * found.len() as u64,
    });
    let class = Class {
        options,
        suite: &suite,
        cases: &selected,
        run_text: &run_text,
        run_key,
        results_dir: &results_dir,
        found: &found,
        slots: found.iter().map(|_| Mutex::new(Slot::Waiting)).collect(),
        progress,
        cases_each,
    };
    let graded = class.grade_all();
    let mut interrupted = false;
    for outcome in graded {
        match outcome? {
            Graded::Reused(submission) => {
                grades.submissions.push(submission);
                n_reused += 1;
            }
            Graded::Fresh(submission, found) => {
                crate::confine::note_once(&mut warnings, found);
                grades.submissions.push(submission);
                n_graded += 1;
            }
            Graded::Interrupted => interrupted = true,
        }
    }
    if interrupted {
        return Ok(Summary {
            grades,
            n_reused,
            n_graded,
            interrupted: true,
            warnings,
            skipped,
            html: false,
        });
    }
    write_outputs_with(&grades, &options.out, &|row| {
        read_result(&results_dir, &row.id).map(|file| file.submission)
    })?;
    if options.html {
        write_html(&grades, &options.out)?;
    }
    Ok(Summary {
        grades,
        n_reused,
        n_graded,
        interrupted: false,
        warnings,
        skipped,
        html: options.html,
    })
}

/// What grading one submission came to.
enum Graded {
    /// Its result from an earlier run still holds.
    Reused(Submission),
    /// Graded now, with the confinement warnings of its run.
    Fresh(Submission, Vec<String>),
    /// Ctrl-C came first.
    Interrupted,
}

/// Where one submission's grading stands.
enum Slot {
    /// None of its cases has been taken yet.
    Waiting,
    /// Its cases are running: the results so far, and how many are still out.
    Running {
        check: Arc<(CheckOptions, check::Prepared)>,
        key: String,
        results: Vec<Option<CaseResult>>,
        left: usize,
    },
    /// Graded (or reused, or failed): the outcome, until it is collected.
    Done(Option<Result<Graded, Error>>),
}

/// A class being graded: every submission's cases in one queue, taken in order by `jobs`
/// workers. Both cores stay busy to the last case (when one submission has few cases left, the
/// next one's start), submissions finish in order, each result file is written the moment its
/// last case is judged, and only the submissions in flight hold case results in memory.
struct Class<'a> {
    options: &'a Options,
    suite: &'a crate::suite::Suite,
    /// The cases every submission runs, loaded once.
    cases: &'a [crate::discover::Case],
    run_text: &'a str,
    run_key: u64,
    results_dir: &'a Path,
    found: &'a [(String, PathBuf)],
    slots: Vec<Mutex<Slot>>,
    progress: &'a (dyn Fn(Step) + Sync),
    cases_each: u64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Class<'_> {
    /// Grades every submission; the outcomes in submission order.
    fn grade_all(self) -> Vec<Result<Graded, Error>> {
        // A submission is one slot of the queue even when it has no case to run.
        let per = self.cases.len().max(1);
        let total = self.found.len() * per;
        let next = AtomicUsize::new(0);
        crate::pool::workers(self.options.check.jobs, || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= total {
                return;
            }
            self.take(k / per, k % per);
        });
        self.slots
            .into_iter()
            .map(
                |slot| match slot.into_inner().unwrap_or_else(|p| p.into_inner()) {
                    Slot::Done(Some(outcome)) => outcome,
                    _ => Err(Error::Command("a submission was left ungraded".into())),
                },
            )
            .collect()
    }

    /// Runs case `case` of submission `index`, starting the submission first if it is the
    /// first of its cases to be taken, and finishing it if it is the last to come back.
    fn take(&self, index: usize, case: usize) {
        let (id, dir) = &self.found[index];
        let check = {
            let mut slot = lock(&self.slots[index]);
            if let Slot::Waiting = *slot {
                *slot = self.start(id, dir);
                if let Slot::Done(Some(Ok(Graded::Reused(_)))) = *slot {
                    (self.progress)(Step::Graded {
                        id,
                        cases: self.cases_each,
                    });
                }
            }
            match &*slot {
                Slot::Running { check, .. } => Arc::clone(check),
                _ => return,
            }
        };
        let result = check::run_one(&check.0, &check.1, case);
        // Before the count goes down: the worker that takes it to zero holds the last handle.
        drop(check);
        let mut slot = lock(&self.slots[index]);
        let Slot::Running { results, left, .. } = &mut *slot else {
            return;
        };
        match result {
            Ok(result) => results[case] = Some(result),
            Err(err) => {
                *slot = Slot::Done(Some(Err(err)));
                return;
            }
        }
        *left -= 1;
        if *left > 0 {
            return;
        }
        let Slot::Running {
            check,
            key,
            results,
            ..
        } = std::mem::replace(&mut *slot, Slot::Done(None))
        else {
            return;
        };
        let results: Vec<CaseResult> = results.into_iter().flatten().collect();
        let outcome = match Arc::try_unwrap(check) {
            Ok((_, prepared)) => self.finish(id, key, check::finish(prepared, results)),
            Err(_) => Err(Error::Command(format!("submission `{id}` finished twice"))),
        };
        if let Ok(Graded::Fresh(..)) = &outcome {
            (self.progress)(Step::Graded {
                id,
                cases: self.cases_each,
            });
        }
        *slot = Slot::Done(Some(outcome));
    }

    /// The start of submission `id` in `dir`: its earlier result if that still holds, else
    /// its check, planned.
    fn start(&self, id: &str, dir: &Path) -> Slot {
        if crate::interrupt::interrupted() {
            return Slot::Done(Some(Ok(Graded::Interrupted)));
        }
        let key = match folder_key(dir) {
            Ok(folder) => format!(
                "{:016x}",
                hash(&[&self.run_key.to_le_bytes(), &folder.to_le_bytes()])
            ),
            Err(err) => return Slot::Done(Some(Err(err))),
        };
        let previous = read_result(self.results_dir, id).ok().filter(|r| {
            !self.options.force
                && r.spec == self.suite.name
                && r.run == self.run_text
                && r.key == key
        });
        if let Some(previous) = previous {
            return Slot::Done(Some(Ok(Graded::Reused(row(previous.submission)))));
        }
        let mut check_options = CheckOptions {
            spec: Some(self.suite.name.clone()),
            program: Program::Command(self.options.run.clone()),
            dir: dir.to_path_buf(),
            progress: false,
            ..self.options.check.clone()
        };
        // The student's program runs in the student's folder, whatever its command line names.
        check_options.confine.cwd = Some(dir.to_path_buf());
        let planned = check::prepare_suite(&check_options, self.suite, self.cases);
        match planned {
            Ok(prepared) if !prepared.is_empty() => Slot::Running {
                left: prepared.len(),
                results: (0..prepared.len()).map(|_| None).collect(),
                check: Arc::new((check_options, prepared)),
                key,
            },
            Ok(prepared) => Slot::Done(Some(self.finish(
                id,
                key,
                check::finish(prepared, Vec::new()),
            ))),
            Err(err) => Slot::Done(Some(self.finish(id, key, Err(err)))),
        }
    }

    /// Submission `id`'s grade from its finished check; its result file, written.
    fn finish(&self, id: &str, key: String, run: Result<Run, Error>) -> Result<Graded, Error> {
        let options = self.options;
        let mut warnings = Vec::new();
        let mut blocks = BTreeMap::new();
        let submission = match run {
            Ok(run) if run.interrupted => return Ok(Graded::Interrupted),
            Ok(run) => {
                warnings = run.warnings.clone();
                blocks = representative_blocks(&run);
                if let Some(settings) = &options.gradescope {
                    let text = crate::gradescope::render(&run, settings);
                    write_gradescope(&options.out, id, &text)?;
                }
                submission_of(id, &run)
            }
            Err(err @ Error::CouldNotRun { .. }) => {
                let mut verdicts = verdict_counts();
                verdicts.insert(Verdict::CouldNotRun.slug().into(), self.cases_each as usize);
                if options.gradescope.is_some() {
                    let text = crate::gradescope::render_failure(&err.to_string());
                    write_gradescope(&options.out, id, &text)?;
                }
                Submission {
                    id: id.to_string(),
                    score: 0.0,
                    groups: BTreeMap::new(),
                    verdicts,
                    error: Some(err.to_string()),
                    cases: Vec::new(),
                }
            }
            Err(err) => return Err(err),
        };
        let file = ResultFile {
            spec: self.suite.name.clone(),
            run: self.run_text.to_string(),
            key,
            submission,
            blocks,
        };
        let json =
            serde_json::to_string_pretty(&file).map_err(|err| Error::Command(err.to_string()))?;
        write_atomically(&result_path(self.results_dir, id), json.as_bytes())?;
        Ok(Graded::Fresh(file.submission, warnings))
    }
}

/// Writes `report.html` into `out` for `grades` (rows, as a grading keeps them; the cases
/// come from the result files); its size in bytes.
pub fn write_html(grades: &Grades, out: &Path) -> Result<usize, Error> {
    // The report shows every case of every submission: it holds them all, once, each result
    // file read once for its cases and its blocks.
    let results_dir = out.join("results");
    let mut submissions = Vec::new();
    let mut blocks = BTreeMap::new();
    for row in &grades.submissions {
        let file = read_result(&results_dir, &row.id)?;
        submissions.push(file.submission);
        blocks.insert(row.id.clone(), file.blocks);
    }
    let whole = Grades {
        submissions,
        ..grades.clone()
    };
    let report =
        crate::html::class_report(&whole, &|id| blocks.get(id).cloned().unwrap_or_default());
    write_atomically(&out.join("report.html"), report.as_bytes())?;
    Ok(report.len())
}

/// A submission without its cases: what a grading keeps in memory of each (its cases are in
/// its result file), so that a class of any size takes the same memory.
fn row(submission: Submission) -> Submission {
    Submission {
        cases: Vec::new(),
        ..submission
    }
}

/// Where submission `id`'s result file is, in `results_dir`.
fn result_path(results_dir: &Path, id: &str) -> PathBuf {
    results_dir.join(format!("{id}.json"))
}

/// Submission `id`'s result file, from `results_dir`.
fn read_result(results_dir: &Path, id: &str) -> Result<ResultFile, Error> {
    let path = result_path(results_dir, id);
    let bytes = std::fs::read(&path).map_err(|err| Error::io(&path, err))?;
    serde_json::from_slice(&bytes)
        .map_err(|err| Error::corpus(&path, format!("not a result file: {err}")))
}

/// The block of the first failing graded case of each cause, by case id.
fn representative_blocks(run: &Run) -> BTreeMap<String, String> {
    let mut seen = std::collections::BTreeSet::new();
    run.results
        .iter()
        .filter(|r| r.case.graded && !r.judgement.verdict.passed())
        .filter(|r| r.judgement.verdict != Verdict::Skipped)
        .filter(|r| seen.insert(r.judgement.cause_key()))
        .map(|r| {
            let block = crate::message::case_block(&r.case.id(), true, &r.judgement);
            (
                r.case.id(),
                anstream::adapter::strip_str(&block).to_string(),
            )
        })
        .collect()
}

/// Writes a submission's `gradescope/<id>/results.json` under `out`.
fn write_gradescope(out: &Path, id: &str, text: &str) -> Result<(), Error> {
    let path = out.join("gradescope").join(id).join("results.json");
    std::fs::create_dir_all(path.parent().unwrap_or(out)).map_err(|err| Error::io(&path, err))?;
    write_atomically(&path, text.as_bytes())
}

/// Writes `grades.csv` and `grades.json` into `out`.
pub fn write_outputs(grades: &Grades, out: &Path) -> Result<(), Error> {
    write_outputs_with(grades, out, &|submission| Ok(submission.clone()))
}

/// Writes `grades.csv` and `grades.json` into `out`, where `grades` may hold rows without their
/// cases and `full(row)` gives each submission whole, one at a time: `grades.json` is written
/// as it is read, never held whole. The bytes are those of `serde_json::to_string_pretty`.
pub fn write_outputs_with(
    grades: &Grades,
    out: &Path,
    full: &dyn Fn(&Submission) -> Result<Submission, Error>,
) -> Result<(), Error> {
    crate::files::write_atomically_streamed(&out.join("grades.json"), &mut |writer| {
        let mut serializer = serde_json::Serializer::with_formatter(
            &mut *writer,
            serde_json::ser::PrettyFormatter::new(),
        );
        Streamed { grades, full }
            .serialize(&mut serializer)
            .map_err(std::io::Error::other)?;
        writer.write_all(b"\n")
    })?;
    write_atomically(&out.join("grades.csv"), &csv(grades)?)?;
    Ok(())
}

/// [`Grades`] serialised with each submission read whole only while it is written.
struct Streamed<'a> {
    grades: &'a Grades,
    full: &'a dyn Fn(&Submission) -> Result<Submission, Error>,
}

impl Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let grades = self.grades;
        // The fields of `Grades`, in its order, as its derived implementation writes them.
        let mut fields = serializer.serialize_struct("Grades", 7)?;
        fields.serialize_field("schema", &grades.schema)?;
        fields.serialize_field("spec", &grades.spec)?;
        fields.serialize_field("run", &grades.run)?;
        fields.serialize_field("groups", &grades.groups)?;
        fields.serialize_field("max_score", &grades.max_score)?;
        match &grades.shard {
            Some(shard) => fields.serialize_field("shard", shard)?,
            None => fields.skip_field("shard")?,
        }
        fields.serialize_field("submissions", &Whole(self))?;
        fields.end()
    }
}

/// The submissions of a [`Streamed`], each made whole as it is written.
struct Whole<'a>(&'a Streamed<'a>);

impl Serialize for Whole<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let rows = &self.0.grades.submissions;
        let mut seq = serializer.serialize_seq(Some(rows.len()))?;
        for row in rows {
            let submission = (self.0.full)(row).map_err(S::Error::custom)?;
            seq.serialize_element(&submission)?;
        }
        seq.end()
    }
}

/// One row per submission: id, score, each group's score, each verdict's count, the error.
fn csv(grades: &Grades) -> Result<Vec<u8>, Error> {
    let to_error = |err: csv::Error| Error::Command(format!("failed to write CSV: {err}"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    let verdicts = verdict_counts();
    let mut header = vec!["id".to_string(), "score".into(), "max_score".into()];
    header.extend(grades.groups.keys().cloned());
    header.extend(verdicts.keys().cloned());
    header.push("error".into());
    writer.write_record(&header).map_err(to_error)?;
    for submission in &grades.submissions {
        let mut row = vec![
            submission.id.clone(),
            format!("{:.2}", submission.score),
            format!("{:.2}", grades.max_score),
        ];
        row.extend(
            grades
                .groups
                .keys()
                .map(|g| format!("{:.2}", submission.groups.get(g).copied().unwrap_or(0.0))),
        );
        row.extend(
            verdicts
                .keys()
                .map(|v| submission.verdicts.get(v).copied().unwrap_or(0).to_string()),
        );
        row.push(submission.error.clone().unwrap_or_default());
        writer.write_record(&row).map_err(to_error)?;
    }
    writer
        .into_inner()
        .map_err(|err| Error::Command(format!("failed to write CSV: {err}")))
}

/// Combines the `grades.json` of several shards into the outputs one run would have written.
/// Refuses an incomplete set of shards unless `allow_partial`.
pub fn merge(files: &[PathBuf], out: &Path, allow_partial: bool) -> Result<Grades, Error> {
    let mut merged: Option<Grades> = None;
    let mut shards: Vec<(u64, u64)> = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).map_err(|err| Error::io(path, err))?;
        let grades: Grades = serde_json::from_slice(&bytes)
            .map_err(|err| Error::corpus(path, format!("not a grades.json: {err}")))?;
        if let Some(shard) = &grades.shard {
            let parsed: Shard = shard
                .parse()
                .map_err(|err: String| Error::corpus(path, err))?;
            shards.push((parsed.index, parsed.count));
        }
        match &mut merged {
            None => merged = Some(grades),
            Some(all) => {
                if (&all.spec, &all.run, &all.groups) != (&grades.spec, &grades.run, &grades.groups)
                {
                    return Err(Error::corpus(
                        path,
                        "graded another spec, command or suite than the first file",
                    ));
                }
                all.submissions.extend(grades.submissions);
            }
        }
    }
    let mut merged =
        merged.ok_or_else(|| Error::Usage("merge needs at least one grades.json".into()))?;
    if let Some(&(_, count)) = shards.first() {
        let missing: Vec<String> = (1..=count)
            .filter(|k| !shards.contains(&(*k, count)))
            .map(|k| format!("{k}/{count}"))
            .collect();
        let mixed = shards.iter().any(|&(_, n)| n != count);
        if (mixed || !missing.is_empty()) && !allow_partial {
            return Err(Error::Usage(format!(
                "merging {} of {count} shards: missing {}; pass --allow-partial to merge anyway",
                shards.len(),
                if mixed {
                    "(shards of different splits)".to_string()
                } else {
                    missing.join(", ")
                }
            )));
        }
    }
    merged.shard = None;
    merged.submissions.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(pair) = merged.submissions.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(Error::Usage(format!(
            "submission `{}` is in more than one file",
            pair[0].id
        )));
    }
    std::fs::create_dir_all(out).map_err(|err| Error::io(out, err))?;
    write_outputs(&merged, out)?;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_score_read_back_from_json_is_the_same_to_the_last_bit() {
        // Found merging shards: read back with serde_json's default float parsing, this score
        // came back one unit in the last place off, and the merged grades.json differed.
        let score = 110.811_416_408_668_73_f64;
        let text = serde_json::to_string(&score).unwrap();
        let back: f64 = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_bits(), score.to_bits(), "{text}");
    }
}
