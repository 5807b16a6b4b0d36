//! `cargo xtask fuzz`: random graded inputs until the target disagrees with the reference, then
//! the smallest input that still fails the same way.
//!
//! Inputs come from the spec's generator (`generate`), expected outputs from the reference
//! engine, and each run goes through the same runner and judge as `check`. Input k of a run
//! with seed S is generated from seed `S * 1_000_003 + k`; workers take inputs in order and the
//! lowest failing k wins, so a seed always finds the same failure. Shrinking is greedy: take the
//! first candidate of `shrink::candidates` that is graded and fails with the same verdict,
//! repeat until none does or the run budget is spent.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::oracle::Oracle;
use crate::confine::{Policy, Settings, Warnings};
use crate::corpus::Suite;
use crate::error::Error;
use crate::judge::{judge, Judgement, Verdict};
use crate::process::{execute, Bounds};
use crate::target::{Program, Target};

/// When to stop looking.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    Time(Duration),
    Runs(u64),
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The spec's generator, shrinker and graded domain.
    pub oracle: Oracle,
    /// The spec's suite, for its rules, timeout and limits.
    pub suite: Suite,
    /// The corpus the suite is in, kept out of the target's reach.
    pub cases_root: PathBuf,
    /// How the target is confined.
    pub confine: Settings,
    pub seed: u64,
    pub budget: Budget,
    pub jobs: usize,
    pub target: Vec<OsString>,
    pub dir: PathBuf,
    pub timeout: Duration,
    /// Target runs the shrinker may spend.
    pub max_shrink_runs: usize,
    /// Where a found case is written.
    pub out: PathBuf,
    /// The reference binary, to say which input line a difference answers.
    pub reference: PathBuf,
}

/// A failure found and shrunk.
#[derive(Debug)]
pub struct Found {
    /// The generator seed of the failing input.
    pub case_seed: u64,
    pub original: String,
    pub shrunk: String,
    /// The judgement of the shrunk input.
    pub judgement: Judgement,
    /// Inputs run before the failure was found (all workers).
    pub runs: u64,
    pub time_to_find: Duration,
    pub shrink_steps: usize,
    pub shrink_runs: usize,
    pub shrink_time: Duration,
}

#[derive(Debug)]
pub enum Outcome {
    Found(Box<Found>),
    /// No disagreement within the budget.
    Clean {
        runs: u64,
        elapsed: Duration,
    },
}

/// Progress the fuzzer reports while it works.
pub enum Event<'a> {
    Searching {
        runs: u64,
        elapsed: Duration,
    },
    Failed {
        case_seed: u64,
        verdict: Verdict,
    },
    Shrunk {
        steps: usize,
        runs: usize,
        size: usize,
        input: &'a str,
    },
}

impl fmt::Display for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Searching { runs, elapsed } => {
                write!(f, "{runs} inputs in {:.1} s", elapsed.as_secs_f64())
            }
            Event::Failed { case_seed, verdict } => {
                write!(
                    f,
                    "{verdict} on the input of generator seed {case_seed}: shrinking"
                )
            }
            Event::Shrunk {
                steps, runs, size, ..
            } => write!(f, "shrink step {steps} ({runs} runs): {size} bytes"),
        }
    }
}

/// The seed of input `index` of a run with `seed`.
pub(super) fn case_seed(seed: u64, index: u64) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(index)
}

struct Judge<'a> {
    options: &'a Options,
    target: Target,
    policy: Policy,
    bounds: Bounds,
}

impl Judge<'_> {
    /// Runs the target on `input` and judges it against `expected`, the reference's output.
    fn run(&self, input: &str, expected: Vec<u8>) -> Result<Judgement, Error> {
        let execution = execute(&self.target, input.as_bytes(), &self.bounds, &self.policy)
            .map_err(|err| Error::CouldNotRun {
                command: self.target.display(),
                message: err.to_string(),
            })?;
        Ok(judge(
            self.options.suite.rules(),
            expected,
            execution,
            self.bounds.timeout,
        ))
    }
}

/// The confinement warnings of fuzzing with `options`, to show before the search starts.
pub fn warnings(options: &Options) -> Result<Warnings, Error> {
    judge_of(options).map(|(_, warnings)| warnings)
}

fn judge_of(options: &Options) -> Result<(Judge<'_>, Warnings), Error> {
    let mut warnings = Warnings::new();
    let (target, policy) = crate::process::Planning {
        program: &Program::Command(options.target.clone()),
        settings: &options.confine,
        corpus_root: &options.cases_root,
        reference: &options.reference,
        dir: &options.dir,
    }
    .plan(&options.suite, &mut warnings)?;
    let judge = Judge {
        options,
        target,
        policy,
        bounds: Bounds {
            timeout: options.timeout,
            wall: crate::process::backstop(options.timeout),
            asleep_after: None,
            stdout_cap: 16 << 20,
            stderr_cap: 64 << 10,
        },
    };
    Ok((judge, warnings))
}

pub fn fuzz(options: &Options, progress: &(dyn Fn(Event) + Sync)) -> Result<Outcome, Error> {
    let (judge, _) = judge_of(options)?;
    let start = Instant::now();
    check_it_runs(options, &judge)?;
    let (failure, n_runs) = search(options, &judge, progress, start)?;
    let Some((index, original, result)) = failure else {
        return Ok(Outcome::Clean {
            runs: n_runs,
            elapsed: start.elapsed(),
        });
    };
    let time_to_find = start.elapsed();
    let case_seed = case_seed(options.seed, index);
    progress(Event::Failed {
        case_seed,
        verdict: result.verdict,
    });
    let shrink_start = Instant::now();
    // A time budget covers the shrinking too: it stops at the budget with the smallest input
    // found so far.
    let deadline = match options.budget {
        Budget::Time(limit) => Some(start + limit),
        Budget::Runs(_) => None,
    };
    let shrunk = shrink(
        options,
        &judge,
        original.clone(),
        result,
        deadline,
        progress,
    )?;
    Ok(Outcome::Found(Box::new(Found {
        case_seed,
        original,
        shrunk: shrunk.input,
        judgement: shrunk.judgement,
        runs: n_runs,
        time_to_find,
        shrink_steps: shrunk.steps,
        shrink_runs: shrunk.runs,
        shrink_time: shrink_start.elapsed(),
    })))
}

/// Catches a target that cannot run, or never finishes, before the budget is spent on it.
fn check_it_runs(options: &Options, judge: &Judge) -> Result<(), Error> {
    let mut n_timeouts = 0;
    for index in 0..3 {
        let (generated, expected) = options.oracle.case(case_seed(options.seed, index))?;
        if judge.run(&generated.input, expected)?.verdict == Verdict::Timeout {
            n_timeouts += 1;
        }
    }
    if n_timeouts == 3 {
        return Err(Error::CouldNotRun {
            command: judge.target.display(),
            message: format!(
                "it timed out on each of the first 3 inputs (after {:.1} s each): does it read stdin line by line and exit at the end?",
                options.timeout.as_secs_f64()
            ),
        });
    }
    Ok(())
}

/// A failing input: its index in seed order, the input and its judgement.
type Failure = (u64, String, Judgement);

/// Runs generated inputs `--jobs` at a time until one fails or the budget is spent: the first
/// failure in seed order, if any, and how many inputs ran.
fn search(
    options: &Options,
    judge: &Judge,
    progress: &(dyn Fn(Event) + Sync),
    start: Instant,
) -> Result<(Option<Failure>, u64), Error> {
    let next = AtomicU64::new(0);
    let runs = AtomicU64::new(0);
    let first_failure = AtomicU64::new(u64::MAX);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Failure>> = Mutex::new(None);
    let error: Mutex<Option<Error>> = Mutex::new(None);
    let out_of_budget = |runs: u64| match options.budget {
        Budget::Time(limit) => start.elapsed() >= limit,
        Budget::Runs(limit) => runs >= limit,
    };
    crate::process::workers(options.jobs, || loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= first_failure.load(Ordering::Relaxed) || out_of_budget(index) {
            return;
        }
        let seed = case_seed(options.seed, index);
        let outcome = options.oracle.case(seed).and_then(|(generated, expected)| {
            judge
                .run(&generated.input, expected)
                .map(|result| (generated.input, result))
        });
        let done = runs.fetch_add(1, Ordering::Relaxed) + 1;
        if done.is_multiple_of(500) {
            progress(Event::Searching {
                runs: done,
                elapsed: start.elapsed(),
            });
        }
        match outcome {
            Err(err) => {
                error.lock().unwrap().get_or_insert(err);
                stop.store(true, Ordering::Relaxed);
                return;
            }
            Ok((input, result)) if !result.verdict.passed() => {
                let mut slot = failure.lock().unwrap();
                if slot.as_ref().is_none_or(|(k, _, _)| index < *k) {
                    *slot = Some((index, input, result));
                    first_failure.fetch_min(index, Ordering::Relaxed);
                }
            }
            Ok(_) => {}
        }
    });
    if let Some(err) = error.into_inner().unwrap() {
        return Err(err);
    }
    Ok((failure.into_inner().unwrap(), runs.load(Ordering::Relaxed)))
}

/// What shrinking a failing input came to.
struct Shrunk {
    input: String,
    judgement: Judgement,
    steps: usize,
    runs: usize,
}

/// Shrinks `input` (judged `judgement`) while a smaller graded input fails the same way.
fn shrink(
    options: &Options,
    judge: &Judge,
    input: String,
    judgement: Judgement,
    deadline: Option<Instant>,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Shrunk, Error> {
    let oracle = &options.oracle;
    let verdict = judgement.verdict;
    let mut shrunk = Shrunk {
        input,
        judgement,
        steps: 0,
        runs: 0,
    };
    'shrinking: while shrunk.runs < options.max_shrink_runs {
        for candidate in oracle.candidates(&shrunk.input) {
            let Some(expected) = oracle.graded_output(&candidate)? else {
                continue;
            };
            let out_of_time = deadline.is_some_and(|deadline| Instant::now() >= deadline);
            if shrunk.runs >= options.max_shrink_runs || out_of_time {
                break 'shrinking;
            }
            shrunk.runs += 1;
            let result = judge.run(&candidate, expected)?;
            if result.verdict == verdict {
                shrunk.steps += 1;
                shrunk.input = candidate;
                shrunk.judgement = result;
                progress(Event::Shrunk {
                    steps: shrunk.steps,
                    runs: shrunk.runs,
                    size: shrunk.input.len(),
                    input: &shrunk.input,
                });
                continue 'shrinking;
            }
        }
        break;
    }
    Ok(shrunk)
}

/// Writes a found case as `NNN-fuzz-seed-S.in/.out` in `dir`, NNN one past the highest there.
/// Returns the stem.
pub(super) fn write_case(
    dir: &std::path::Path,
    seed: u64,
    input: &str,
    expected: &[u8],
) -> Result<String, Error> {
    std::fs::create_dir_all(dir).map_err(|err| Error::io(dir, err))?;
    let mut highest = 0;
    for entry in std::fs::read_dir(dir).map_err(|err| Error::io(dir, err))? {
        let name = entry.map_err(|err| Error::io(dir, err))?.file_name();
        let name = name.to_string_lossy();
        if let Some(number) = name.split('-').next().and_then(|n| n.parse::<u64>().ok()) {
            highest = highest.max(number);
        }
    }
    let stem = format!("{:03}-fuzz-seed-{seed}", highest + 1);
    crate::files::write_atomically(&dir.join(format!("{stem}.in")), input.as_bytes())?;
    crate::files::write_atomically(&dir.join(format!("{stem}.out")), expected)?;
    Ok(stem)
}

/// What `fuzz` prints when it is done; a found case is localised with the reference and
/// written into `options.out` first.
pub fn report(options: &Options, outcome: Outcome) -> Result<String, Error> {
    let seed = options.seed;
    let found = match outcome {
        Outcome::Clean { runs, elapsed } => {
            return Ok(format!(
                "no disagreement in {runs} inputs ({:.1} s, {:.0} runs/s), seed {seed}\n",
                elapsed.as_secs_f64(),
                runs as f64 / elapsed.as_secs_f64()
            ))
        }
        Outcome::Found(found) => found,
    };
    let mut judgement = found.judgement;
    let trace = crate::process::case_trace(
        &options.suite,
        &options.reference,
        &options.dir,
        found.shrunk.as_bytes(),
        std::path::Path::new(""),
    );
    judgement.place_difference(
        trace.as_deref().map(String::as_str),
        found.shrunk.as_bytes(),
        &[],
        super::grid_for(&options.suite),
    );
    let stem = write_case(&options.out, seed, &found.shrunk, &judgement.expected)?;
    let mut report = format!(
        "seed {seed}: {} after {} inputs in {:.1} s ({:.0} runs/s), on the input of generator seed {}\n",
        judgement.verdict,
        found.runs,
        found.time_to_find.as_secs_f64(),
        found.runs as f64 / found.time_to_find.as_secs_f64().max(1e-9),
        found.case_seed
    );
    report += &format!(
        "shrunk in {} steps ({} target runs, {:.1} s): {} lines, {} bytes -> {} lines, {} bytes\n\ninput:\n",
        found.shrink_steps,
        found.shrink_runs,
        found.shrink_time.as_secs_f64(),
        found.original.lines().count(),
        found.original.len(),
        found.shrunk.lines().count(),
        found.shrunk.len()
    );
    for line in found.shrunk.lines() {
        report += &format!("  | {line}\n");
    }
    report += "\n";
    let id = format!("{}/{}/{stem}", options.suite.name, file_name(&options.out));
    report += &crate::report::case_block(&id, true, &judgement);
    report += &format!(
        "\nwrote `{}.in` and `.out`: commit them to keep this case\n",
        options.out.join(stem).display()
    );
    Ok(report)
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}
