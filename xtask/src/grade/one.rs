//! One submission graded on its own, as `grade` grades each one of a class: the course
//! server's way into the harness. The same check options (the student's folder as the working
//! directory, the gradebook protected), the same steps (`prepare_suite`, `run_one` on seated
//! workers, `finish`), the same row, and the same errors turned into a row.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::options::Options;
use crate::check::{self, Options as CheckOptions, Step};
use crate::error::Error;
use crate::judge::{Run, Verdict};
use crate::report::{submission_of, verdict_counts, Grades, Submission};
use crate::target::Program;

/// The command line a gradebook shows for submissions built from their sources.
pub(super) const BUILT: &str = "(each submission's sources, built)";

/// What grading one submission came to.
#[derive(Debug)]
pub struct One {
    /// Its row, cases included: what `results/<id>.json` holds in a class's grading.
    pub submission: Submission,
    /// Its run (what every report is drawn from); none when it could not be built or run.
    pub run: Option<Run>,
    /// The terminal's block (without colour) of the first graded case of each cause, by case
    /// id: what the class report shows.
    pub blocks: BTreeMap<String, String>,
    /// The confinement warnings of its run.
    pub warnings: Vec<String>,
    /// Why it has no score of its own, if so.
    pub failure: Option<Failure>,
}

/// Why a submission could not be graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Its sources did not build (or could not be built as they are).
    Build,
    /// Its command could not be started.
    Run,
}

/// Where the check of a `--run` command keeps what it compiles, in the copy of the folder it
/// checks and runs in.
const CHECK_CACHE: &str = ".gridjudge-check";

/// The check of the submission in `dir` under `options`: what `grade` runs for each student.
pub(super) fn submission_check(options: &Options, spec: &str, dir: &Path) -> CheckOptions {
    let (run, build) = (&options.run, &options.build);
    // `--run 'python3 go.py'` of a language that checks its sources is built as that check:
    // a syntax error is then one failed build, not every case failing one by one.
    let build = match build.is_empty() && !run.is_empty() {
        true => {
            crate::language::check_of_command(dir, run, Path::new(CHECK_CACHE)).unwrap_or_default()
        }
        false => build.clone(),
    };
    let sources = run.is_empty() || !build.is_empty();
    let mut check_options = CheckOptions {
        spec: Some(spec.to_string()),
        program: match sources {
            true => Program::Sources(dir.to_path_buf()),
            false => Program::Command(run.clone()),
        },
        custom_build: (!build.is_empty()).then(|| crate::submission::Custom {
            build,
            run: run.clone(),
        }),
        dir: dir.to_path_buf(),
        ..options.check.clone()
    };
    // The student's program runs in the student's folder, whatever its command line names,
    // and never sees the grades of the others.
    check_options.confine.cwd = Some(dir.to_path_buf());
    check_options.hide(&options.out);
    check_options
}

/// The row of a submission that could not be built or run: every graded case counted as
/// "could not run", the reason as its error.
pub(super) fn failed_row(id: &str, err: &Error, graded_cases: usize) -> Submission {
    let mut verdicts = verdict_counts();
    verdicts.insert(Verdict::CouldNotRun.slug().into(), graded_cases);
    Submission {
        id: id.to_string(),
        score: 0.0,
        groups: BTreeMap::new(),
        verdicts,
        error: Some(err.to_string()),
        cases: Vec::new(),
    }
}

/// The gradebook of `options.spec` before any submission: its graded groups with their
/// points, and the score they add up to.
pub fn empty_gradebook(options: &Options) -> Result<Grades, Error> {
    let suite = crate::corpus::find(&options.check.cases_root, &options.spec)?;
    let cases = crate::corpus::discover(&suite)?;
    let run_text = match options.run.is_empty() {
        true => BUILT.to_string(),
        false => crate::target::display_argv(&options.run),
    };
    Ok(super::summary::gradebook(options, &suite, cases, &run_text).1)
}

/// Grades the submission of student `id` in folder `dir` as `grade` would (`options.out` is
/// protected from it, `options.submissions` is not read), its cases on `seats` (which other
/// gradings may share, so that all of them together run as many cases at once as one class
/// under `grade`), telling `progress` of each case; `stop` set makes the cases not yet started
/// wait no more (the result is then [`Error::Interrupted`]).
pub fn grade_one(
    options: &Options,
    id: &str,
    dir: &Path,
    seats: &crate::process::SharedSeats,
    progress: &(dyn Fn(Step) + Sync),
    stop: &AtomicBool,
) -> Result<One, Error> {
    let suite = crate::corpus::find(&options.check.cases_root, &options.spec)?;
    let cases = crate::corpus::discover(&suite)?;
    let (selected, _, _) = check::select(&options.check, cases);
    let graded_cases = selected.iter().filter(|c| c.graded).count();
    let check_options = submission_check(options, &suite.name, dir);
    let sources = matches!(check_options.program, Program::Sources(_));
    let nested = options
        .build
        .is_empty()
        .then(|| super::folder::nested_program(dir, &options.run))
        .flatten();
    let run: Result<Run, Error> = match nested {
        Some(hint) => Err(Error::CouldNotRun {
            command: crate::target::display_argv(&options.run),
            message: hint,
        }),
        None => match check::prepare_suite(&check_options, &suite, &selected) {
            Err(Error::Usage(why)) if sources => Err(Error::Build(why)),
            Err(err) => Err(err),
            Ok(prepared) => {
                progress(Step::Planned {
                    cases: prepared.len() as u64,
                });
                let indices: Vec<usize> = (0..prepared.len()).collect();
                let results = crate::process::seated_map_in(seats, &indices, |k| {
                    if stop.load(Ordering::Relaxed) {
                        return Err(Error::Interrupted);
                    }
                    let result = check::run_one(&check_options, &prepared, *k);
                    progress(Step::Ran);
                    result
                });
                match results.into_iter().collect::<Result<Vec<_>, _>>() {
                    Ok(results) => check::finish(prepared, results),
                    Err(err) => Err(err),
                }
            }
        },
    };
    match run {
        Ok(run) if run.interrupted => Err(Error::Interrupted),
        Ok(run) => Ok(One {
            failure: run
                .build
                .as_ref()
                .and_then(|build| build.failure())
                .map(|_| Failure::Build),
            submission: submission_of(id, &run),
            blocks: representative_blocks(&run),
            warnings: run.warnings.clone(),
            run: Some(run),
        }),
        Err(err @ (Error::CouldNotRun { .. } | Error::Build(_))) => Ok(One {
            failure: Some(match err {
                Error::Build(_) => Failure::Build,
                _ => Failure::Run,
            }),
            submission: failed_row(id, &err, graded_cases),
            run: None,
            blocks: BTreeMap::new(),
            warnings: Vec::new(),
        }),
        Err(err) => Err(err),
    }
}

/// The block of the first failing graded case of each cause, by case id.
pub(super) fn representative_blocks(run: &Run) -> BTreeMap<String, String> {
    // A cause's first graded case: its first case if graded, else the first graded one of it.
    run.summaries
        .causes
        .iter()
        .filter_map(|cause| run.cases_of(cause).find(|r| r.case.graded))
        .map(|r| {
            let block = crate::report::case_block(&r.case.id(), true, &r.judgement);
            (
                r.case.id(),
                anstream::adapter::strip_str(&block).to_string(),
            )
        })
        .collect()
}
