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
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::discover::Case;
use crate::error::Error;
use crate::generate;
use crate::outcome::{judge, CaseResult, Verdict};
use crate::process::{execute, Limits, Target};
use crate::shrink;
use crate::suite::Suite;

/// When to stop looking.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    Time(Duration),
    Runs(u64),
}

#[derive(Debug, Clone)]
pub struct Options {
    pub suite: Suite,
    pub seed: u64,
    pub budget: Budget,
    pub jobs: usize,
    pub target: Vec<OsString>,
    pub dir: PathBuf,
    pub timeout: Duration,
    /// Target runs the shrinker may spend.
    pub max_shrink_runs: usize,
}

/// A failure found and shrunk.
#[derive(Debug)]
pub struct Found {
    /// The generator seed of the failing input.
    pub case_seed: u64,
    pub original: String,
    pub shrunk: String,
    /// The judgement of the shrunk input.
    pub result: CaseResult,
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

/// The seed of input `index` of a run with `seed`.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(index)
}

struct Judge<'a> {
    options: &'a Options,
    target: Target,
    limits: Limits,
}

impl Judge<'_> {
    /// Runs the target on `input` and judges it against `expected`, the reference's output.
    fn run(&self, input: &str, expected: Vec<u8>) -> Result<CaseResult, Error> {
        let case = Case {
            spec: self.options.suite.name.clone(),
            group: "fuzz".into(),
            name: "input".into(),
            input: PathBuf::new(),
            expected: PathBuf::new(),
            graded: true,
        };
        let execution = execute(&self.target, input.as_bytes(), &self.limits);
        if let Err(err) = &execution {
            return Err(Error::CouldNotRun {
                command: self.target.display(),
                message: err.to_string(),
            });
        }
        Ok(judge(
            &self.options.suite,
            &case,
            expected,
            execution,
            self.limits.timeout,
        ))
    }
}

pub fn fuzz(options: &Options, progress: &(dyn Fn(Event) + Sync)) -> Result<Outcome, Error> {
    let target = Target::from_argv(&options.target, &options.dir)
        .ok_or_else(|| Error::Usage("fuzz needs a target command line after `--`".into()))?;
    let judge = Judge {
        options,
        target,
        limits: Limits {
            timeout: options.timeout,
            stdout_cap: 16 << 20,
            stderr_cap: 64 << 10,
        },
    };
    let start = Instant::now();
    // Catch a target that cannot run, or never finishes, before spending the budget on it.
    let mut n_timeouts = 0;
    for index in 0..3 {
        let (generated, expected) =
            generate::case(&options.suite.name, case_seed(options.seed, index))?;
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

    let next = AtomicU64::new(0);
    let runs = AtomicU64::new(0);
    let first_failure = AtomicU64::new(u64::MAX);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<(u64, String, CaseResult)>> = Mutex::new(None);
    let error: Mutex<Option<Error>> = Mutex::new(None);
    let out_of_budget = |runs: u64| match options.budget {
        Budget::Time(limit) => start.elapsed() >= limit,
        Budget::Runs(limit) => runs >= limit,
    };
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= first_failure.load(Ordering::Relaxed) || out_of_budget(index) {
                    return;
                }
                let seed = case_seed(options.seed, index);
                let outcome =
                    generate::case(&options.suite.name, seed).and_then(|(generated, expected)| {
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
        }
    });
    if let Some(err) = error.into_inner().unwrap() {
        return Err(err);
    }
    let n_runs = runs.load(Ordering::Relaxed);
    let Some((index, original, result)) = failure.into_inner().unwrap() else {
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
    let verdict = result.verdict;
    let (mut current, mut current_result) = (original.clone(), result);
    let (mut steps, mut shrink_runs) = (0, 0);
    'shrinking: while shrink_runs < options.max_shrink_runs {
        for candidate in shrink::candidates(&options.suite.name, &current) {
            let Some(expected) = shrink::graded_output(&options.suite.name, &candidate) else {
                continue;
            };
            if shrink_runs >= options.max_shrink_runs {
                break 'shrinking;
            }
            shrink_runs += 1;
            let result = judge.run(&candidate, expected)?;
            if result.verdict == verdict {
                steps += 1;
                current = candidate;
                current_result = result;
                progress(Event::Shrunk {
                    steps,
                    runs: shrink_runs,
                    size: current.len(),
                    input: &current,
                });
                continue 'shrinking;
            }
        }
        break;
    }
    Ok(Outcome::Found(Box::new(Found {
        case_seed,
        original,
        shrunk: current,
        result: current_result,
        runs: n_runs,
        time_to_find,
        shrink_steps: steps,
        shrink_runs,
        shrink_time: shrink_start.elapsed(),
    })))
}

/// Writes a found case as `NNN-fuzz-seed-S.in/.out` in `dir`, NNN one past the highest there.
/// Returns the stem.
pub fn write_case(
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
    crate::error::write_atomically(&dir.join(format!("{stem}.in")), input.as_bytes())?;
    crate::error::write_atomically(&dir.join(format!("{stem}.out")), expected)?;
    Ok(stem)
}
