//! The class queue (nextest's dispatcher): every submission's cases in one queue, taken in
//! order by `--jobs` workers. A submission starts when its first case is taken (its reuse key
//! checked, its check planned) and finishes when its last case comes back (its result file
//! written), so both cores stay busy to the last case and only submissions in flight hold case
//! results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::audit::{self, dry_run};
use super::cache::{
    keys_of, previous_result, read_result, result_path, row, run_key, Keys, ResultFile,
};
use super::folder::{Found, Scan};
use super::one::{representative_blocks, BUILT};
use super::options::Options;
use super::summary::{gradebook, Summary};
use crate::check::{self, Options as CheckOptions};
use crate::error::Error;
use crate::files::write_atomically;
use crate::judge::CaseResult;
use crate::judge::Run;
use crate::report::{submission_of, write_outputs_with, Change, Grades, Submission};
use crate::target::display_argv;

/// What a grading tells its progress display.
pub enum Step<'a> {
    /// The cases to run in all (the submissions to grade times the suite's graded cases).
    Planned { cases: u64 },
    /// Submission `id` is done: its cases count as run.
    Graded { id: &'a str, cases: u64 },
}

/// Grades every submission (of the shard), reusing finished results; writes the outputs.
pub fn grade(options: &Options, progress: &(dyn Fn(Step) + Sync)) -> Result<Summary, Error> {
    let suite = crate::corpus::find(&options.check.cases_root, &options.spec)?;
    let run_text = match options.run.is_empty() {
        true => BUILT.to_string(),
        false => display_argv(&options.run),
    };
    let results_dir = options.out.join("results");
    let cases = crate::corpus::discover(&suite)?;
    let (selected, mut grades, filtered) = gradebook(options, &suite, cases, &run_text);
    let (mut n_reused, mut n_graded, mut warnings) = (0, 0, Vec::new());
    let scan = super::folder::scan(&options.submissions, options.shard.as_ref())?;
    super::preflight::check(options, &scan)?;
    let files = scan.files_as_students(&options.submissions);
    warnings.extend(files.map(|said| format!("warning: {said}")));
    let Scan { found, skipped, .. } = scan;
    grades.skipped = skipped;
    let run_key = run_key(options, &suite)?;
    if options.dry_run {
        let plan = dry_run(options, &suite, &run_text, run_key, &results_dir, &found)?;
        return Ok(Summary {
            plan,
            ..Summary::new(grades)
        });
    }
    prepare_results_dir(&results_dir)?;
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
        changes: Mutex::new(Vec::new()),
        failed: AtomicBool::new(false),
        stopped_at: Mutex::new(None),
    };
    let (graded, mut changes, stopped_at) = class.grade_all();
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
            n_reused,
            n_graded,
            interrupted: true,
            warnings,
            filtered,
            stopped_at,
            ..Summary::new(grades)
        });
    }
    changes.sort_by(|a, b| a.id.cmp(&b.id));
    let earlier = match changes.is_empty() {
        true => None,
        false => audit::keep_earlier(&options.out)?,
    };
    audit::write(&options.out, &changes)?;
    write_warnings(&options.out, &warnings)?;
    write_outputs_with(&grades, &options.out, &|row| {
        read_result(&results_dir, &row.id).map(|file| file.submission)
    })?;
    if options.html {
        write_html(&grades, &options.out, similarity_section(options)?)?;
    }
    Ok(Summary {
        n_reused,
        n_graded,
        warnings,
        html: options.html,
        changes,
        earlier,
        filtered,
        ..Summary::new(grades)
    })
}

/// Makes `results/`; a run killed while writing a result leaves its temporary file (the result
/// itself is whole or absent), which only needs to go.
fn prepare_results_dir(results_dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(results_dir).map_err(|err| Error::io(results_dir, err))?;
    for entry in std::fs::read_dir(results_dir)
        .map_err(|err| Error::io(results_dir, err))?
        .flatten()
    {
        if entry.file_name().to_string_lossy().starts_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Keeps the warnings of a grading (a machine too busy, a missing layer) with its files, in
/// `warnings.txt` (none: no file).
fn write_warnings(out: &Path, warnings: &[String]) -> Result<(), Error> {
    let log = out.join("warnings.txt");
    if warnings.is_empty() {
        let _ = std::fs::remove_file(&log);
        return Ok(());
    }
    write_atomically(&log, (warnings.join("\n") + "\n").as_bytes())
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
        keys: Keys,
        /// Its earlier result, to say why its score moved.
        previous: Option<Box<ResultFile>>,
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
    suite: &'a crate::corpus::Suite,
    /// The cases every submission runs, loaded once.
    cases: &'a [crate::corpus::Case],
    run_text: &'a str,
    run_key: u64,
    results_dir: &'a Path,
    found: &'a [Found],
    slots: Vec<Mutex<Slot>>,
    progress: &'a (dyn Fn(Step) + Sync),
    cases_each: u64,
    /// The students whose score moved, as they finish.
    changes: Mutex<Vec<Change>>,
    /// `--fail-fast` saw a graded case fail: no case starts any more.
    failed: AtomicBool,
    /// Where `--fail-fast` stopped: the first failure seen.
    stopped_at: Mutex<Option<String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Class<'_> {
    /// Grades every submission; the outcomes in submission order.
    fn grade_all(self) -> (Vec<Result<Graded, Error>>, Vec<Change>, Option<String>) {
        // A submission is one slot of the queue even when it has no case to run.
        let per = self.cases.len().max(1);
        let total = self.found.len() * per;
        let next = AtomicUsize::new(0);
        crate::process::seated_workers(self.options.check.jobs, || loop {
            crate::process::admit();
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= total {
                return;
            }
            self.take(k / per, k % per);
        });
        let outcomes = self
            .slots
            .into_iter()
            .map(
                |slot| match slot.into_inner().unwrap_or_else(|p| p.into_inner()) {
                    Slot::Done(Some(outcome)) => outcome,
                    // Stopped by --fail-fast before it finished: graded at the next run.
                    _ if self.failed.load(Ordering::Relaxed) => Ok(Graded::Interrupted),
                    _ => Err(Error::Internal("a submission was left ungraded".into())),
                },
            )
            .collect();
        let changes = self.changes.into_inner().unwrap_or_else(|p| p.into_inner());
        let stopped_at = self
            .stopped_at
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        (outcomes, changes, stopped_at)
    }

    /// `--fail-fast`: nothing more starts; the first failure seen is where it stopped.
    fn stop_at(&self, place: String) {
        lock(&self.stopped_at).get_or_insert(place);
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Runs case `case` of submission `index`, starting the submission first if it is the
    /// first of its cases to be taken, and finishing it if it is the last to come back.
    fn take(&self, index: usize, case: usize) {
        // --fail-fast: nothing more starts once a graded case failed.
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        let (id, entry) = &self.found[index];
        let check = {
            let mut slot = lock(&self.slots[index]);
            if let Slot::Waiting = *slot {
                *slot = self.start(id, entry);
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
            Ok(result) => {
                let failed = result.case.graded && !result.judgement.verdict.passed();
                if failed && self.options.check.fail_fast {
                    self.stop_at(format!(
                        "{id}, case {} ({})",
                        result.case.id(),
                        result.judgement.verdict
                    ));
                }
                results[case] = Some(result);
            }
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
            keys,
            previous,
            results,
            ..
        } = std::mem::replace(&mut *slot, Slot::Done(None))
        else {
            return;
        };
        let results: Vec<CaseResult> = results.into_iter().flatten().collect();
        let outcome = match Arc::try_unwrap(check) {
            Ok((_, prepared)) => {
                let run = check::finish(prepared, results);
                self.finish(id, keys, previous.as_deref(), run)
            }
            Err(_) => Err(Error::Internal(format!("submission `{id}` finished twice"))),
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
    fn start(&self, id: &str, entry: &Result<PathBuf, String>) -> Slot {
        if crate::sys::interrupted() {
            return Slot::Done(Some(Ok(Graded::Interrupted)));
        }
        let dir = match entry {
            Ok(dir) => dir,
            Err(why) => {
                let refused = Error::Build(why.clone());
                let keys = Keys::of_refusal(self.run_key, why);
                return Slot::Done(Some(self.finish(id, keys, None, Err(refused))));
            }
        };
        let keys = match keys_of(self.run_key, dir) {
            Ok(keys) => keys,
            Err(err) => return Slot::Done(Some(Err(err))),
        };
        let previous = previous_result(self.results_dir, id, self.suite, self.run_text);
        if audit::rerun_reason(previous.as_ref(), &keys, self.options.force).is_none() {
            if let Some(previous) = previous {
                return Slot::Done(Some(Ok(Graded::Reused(row(previous.submission)))));
            }
        }
        let previous = previous.map(Box::new);
        let (run, build) = (&self.options.run, &self.options.build);
        let check_options = super::one::submission_check(self.options, &self.suite.name, dir);
        let sources = matches!(check_options.program, crate::target::Program::Sources(_));
        // A command that runs what --build makes names files that are not there yet.
        let nested = build
            .is_empty()
            .then(|| super::folder::nested_program(dir, run))
            .flatten();
        let planned = match nested {
            Some(hint) => Err(Error::CouldNotRun {
                command: self.run_text.to_string(),
                message: hint,
            }),
            // Sources that cannot be built as they are (none, or two languages) are the
            // submission's row, not the grading's error.
            None => match check::prepare_suite(&check_options, self.suite, self.cases) {
                Err(Error::Usage(why)) if sources => Err(Error::Build(why)),
                planned => planned,
            },
        };
        match planned {
            Ok(prepared) if !prepared.is_empty() => Slot::Running {
                left: prepared.len(),
                results: (0..prepared.len()).map(|_| None).collect(),
                check: Arc::new((check_options, prepared)),
                keys,
                previous,
            },
            Ok(prepared) => Slot::Done(Some(self.finish(
                id,
                keys,
                previous.as_deref(),
                check::finish(prepared, Vec::new()),
            ))),
            Err(err) => Slot::Done(Some(self.finish(id, keys, previous.as_deref(), Err(err)))),
        }
    }

    /// Submission `id`'s grade from its finished check; its result file, written.
    fn finish(
        &self,
        id: &str,
        keys: Keys,
        previous: Option<&ResultFile>,
        run: Result<Run, Error>,
    ) -> Result<Graded, Error> {
        let options = self.options;
        let mut warnings = Vec::new();
        let mut blocks = BTreeMap::new();
        let mut outputs = BTreeMap::new();
        let submission = match run {
            Ok(run) if run.interrupted => return Ok(Graded::Interrupted),
            Ok(run) => {
                warnings = run.warnings.clone();
                blocks = representative_blocks(&run);
                outputs = super::cache::wrong_outputs(&run);
                if let Some(settings) = &options.gradescope {
                    let text = crate::report::gradescope_report(&run, settings);
                    write_gradescope(&options.out, id, &text)?;
                }
                submission_of(id, &run)
            }
            Err(err @ (Error::CouldNotRun { .. } | Error::Build(_))) => {
                if options.gradescope.is_some() {
                    let text = crate::report::render_failure(&err.to_string());
                    write_gradescope(&options.out, id, &text)?;
                }
                super::one::failed_row(id, &err, self.cases_each as usize)
            }
            Err(err) => return Err(err),
        };
        if let (true, Some(error)) = (self.options.check.fail_fast, &submission.error) {
            self.stop_at(format!("{id} ({error})"));
        }
        if let Some(change) = previous.and_then(|p| audit::change(p, &keys, &submission)) {
            lock(&self.changes).push(change);
        }
        let file = ResultFile {
            spec: self.suite.name.clone(),
            run: self.run_text.to_string(),
            key: keys.combined,
            folder: keys.folder,
            submission,
            blocks,
            outputs,
        };
        let json =
            serde_json::to_string_pretty(&file).map_err(|err| Error::Write(err.to_string()))?;
        write_atomically(&result_path(self.results_dir, id), json.as_bytes())?;
        // Its cases are in its result file now: what the grading keeps of it is its row, so
        // that the harness's memory does not grow with the class.
        Ok(Graded::Fresh(row(file.submission), warnings))
    }
}

/// The class report's similarity section (for the instructor): the pairs of the class ranked
/// by shared code and shared wrong outputs, from the submissions and this grading's results.
#[cfg(feature = "similarity")]
fn similarity_section(options: &Options) -> Result<Option<maud::Markup>, Error> {
    let report = super::similar::similar(&super::similar::SimilarOptions {
        submissions: options.submissions.clone(),
        grades: Some(options.out.clone()),
        base: None,
        shard: options.shard,
        common: super::similar::COMMON,
    })?;
    Ok(Some(crate::report::similarity_section(&report)))
}

#[cfg(not(feature = "similarity"))]
fn similarity_section(_: &Options) -> Result<Option<maud::Markup>, Error> {
    Ok(None)
}

/// Writes `report.html` into `out` for `grades` (rows, as a grading keeps them; the cases
/// come from the result files), with `similarity` as its last section; its size in bytes.
pub fn write_html(
    grades: &Grades,
    out: &Path,
    similarity: Option<maud::Markup>,
) -> Result<usize, Error> {
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
    let report = crate::report::class_report(
        &whole,
        &audit::read(out),
        &|id| blocks.get(id).cloned().unwrap_or_default(),
        similarity,
    );
    write_atomically(&out.join("report.html"), report.as_bytes())?;
    Ok(report.len())
}

/// Writes a submission's `gradescope/<id>/results.json` under `out`.
fn write_gradescope(out: &Path, id: &str, text: &str) -> Result<(), Error> {
    let path = out.join("gradescope").join(id).join("results.json");
    std::fs::create_dir_all(path.parent().unwrap_or(out)).map_err(|err| Error::io(&path, err))?;
    write_atomically(&path, text.as_bytes())
}
