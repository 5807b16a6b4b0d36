//! `cargo xtask check`: choose the suites and the target, run every case in parallel, judge.
//!
//! This module decides; it prints nothing but the spec-inference note. Reports are written by
//! `message` (the terminal) and the report-file modules from the [`Run`] it returns.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::confine::{Policy, ResourceLimits};
use crate::discover::{discover, Case};
use crate::error::Error;
use crate::locate::locate;
use crate::outcome::{judge, CaseResult, Verdict};
use crate::process::{display_argv, execute_confined, Limits, Target};
use crate::suite::{load_all, Suite};

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub cases_root: PathBuf,
    pub spec: Option<String>,
    pub filter: Option<String>,
    pub jobs: usize,
    pub timeout: Option<Duration>,
    pub fail_fast: bool,
    pub include_unspecified: bool,
    /// `None`: the reference binary with each suite's arguments.
    pub target: Option<Vec<OsString>>,
    /// The reference binary, for localising differences and for checking the reference.
    pub reference: PathBuf,
    /// Where targets run.
    pub dir: PathBuf,
    pub progress: bool,
    /// Confine targets other than the reference in a Landlock sandbox.
    pub sandbox: bool,
    /// Limits given on the command line, over the suite's.
    pub limits: LimitOverrides,
    /// Environment variables passed through to targets besides PATH and LANG.
    pub pass_env: Vec<String>,
    /// Only this shard's cases (by case id).
    pub shard: Option<crate::shard::Shard>,
}

/// Per-case resource limits from the command line; `None` keeps the suite's.
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitOverrides {
    pub cpu: Option<f64>,
    pub memory_mib: Option<u64>,
    pub processes: Option<u64>,
    pub file_size_mib: Option<u64>,
    pub open_files: Option<u64>,
}

impl LimitOverrides {
    /// The limits for `suite`: these overrides over the suite file's values.
    pub fn resolve(&self, suite: &Suite) -> ResourceLimits {
        let base = suite.file.limits;
        ResourceLimits {
            cpu: Some(Duration::from_secs_f64(self.cpu.unwrap_or(base.cpu))),
            memory: Some(self.memory_mib.unwrap_or(base.memory_mib) << 20),
            processes: Some(self.processes.unwrap_or(base.processes)),
            file_size: Some(self.file_size_mib.unwrap_or(base.file_size_mib) << 20),
            open_files: Some(self.open_files.unwrap_or(base.open_files)),
        }
    }
}

/// A finished run: every selected case's result, in path order.
#[derive(Debug)]
pub struct Run {
    pub suites: Vec<Suite>,
    pub results: Vec<CaseResult>,
    /// Cases left out by `--filter`.
    pub n_filtered: usize,
    /// Ungraded cases left out because `--include-unspecified` was not given.
    pub n_ungraded_left_out: usize,
    pub target: String,
    pub elapsed: Duration,
    /// The note printed when the spec was inferred.
    pub inferred: Option<String>,
    /// Lines about the confinement the user should see once.
    pub warnings: Vec<String>,
    /// Ctrl-C stopped the run: the results are partial.
    pub interrupted: bool,
}

/// One graded group of a run, scored: its points times the fraction of its cases that pass.
pub struct GroupScore<'a> {
    pub suite: &'a Suite,
    pub group: &'a str,
    pub points: f64,
    pub cases: Vec<&'a CaseResult>,
    pub passed: usize,
}

impl GroupScore<'_> {
    pub fn score(&self) -> f64 {
        self.points * self.passed as f64 / self.cases.len() as f64
    }
}

/// The graded cases of a run, counted as the verdict line reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    /// Not run: left out by `--filter`, or stopped by `--fail-fast` or Ctrl-C.
    pub skipped: usize,
}

impl Run {
    /// The counts of the verdict line `N passed, N failed, N skipped`.
    pub fn totals(&self) -> Totals {
        let graded = || self.results.iter().filter(|r| r.case.graded);
        let passed = graded().filter(|r| r.verdict.passed()).count();
        let not_run = graded().filter(|r| r.verdict == Verdict::Skipped).count();
        Totals {
            passed,
            failed: graded().count() - passed - not_run,
            skipped: not_run + self.n_filtered,
        }
    }

    /// Each graded group that has cases in this run, scored, in suite then group order.
    pub fn group_scores(&self) -> Vec<GroupScore<'_>> {
        let mut scores = Vec::new();
        for suite in &self.suites {
            for (group, points) in &suite.file.groups {
                let cases: Vec<&CaseResult> = self
                    .results
                    .iter()
                    .filter(|r| r.case.spec == suite.name && &r.case.group == group)
                    .collect();
                if !cases.is_empty() {
                    let passed = cases.iter().filter(|r| r.verdict.passed()).count();
                    scores.push(GroupScore {
                        suite,
                        group,
                        points: *points,
                        cases,
                        passed,
                    });
                }
            }
        }
        scores
    }

    /// Whether every graded case that ran passed.
    pub fn all_graded_passed(&self) -> bool {
        self.results
            .iter()
            .filter(|r| r.case.graded)
            .all(|r| r.verdict.passed())
    }
}

/// A suite with the target that runs its cases, and how that target is confined.
struct Plan {
    suite: Suite,
    target: Target,
    cases: Vec<Case>,
    /// `None` for the reference, which is trusted.
    policy: Option<Policy>,
}

/// The confinement of `target` for `suite`: none for the reference.
fn policy_for(
    options: &Options,
    suite: &Suite,
    target: &Target,
    warnings: &mut Vec<String>,
) -> Option<Policy> {
    options.target.as_ref()?;
    let (policy, found) = Policy::new(
        options.limits.resolve(suite),
        options.sandbox,
        &options.cases_root,
        target,
        &options.pass_env,
    );
    for warning in found {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    Some(policy)
}

pub fn check(options: &Options) -> Result<Run, Error> {
    let start = Instant::now();
    let suites = load_all(&options.cases_root)?;
    let mut inferred = None;
    let chosen: Vec<Suite> = match (&options.spec, &options.target) {
        (Some(spec), _) => match suites.iter().find(|s| &s.name == spec) {
            Some(suite) => vec![suite.clone()],
            None => {
                let names: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
                return Err(Error::Usage(format!(
                    "unknown spec `{spec}` in `{}` (expected one of: {})",
                    options.cases_root.display(),
                    names.join(", ")
                )));
            }
        },
        (None, None) => suites.clone(),
        (None, Some(argv)) => {
            let (suite, note) = infer_spec(options, &suites, argv)?;
            inferred = Some(note);
            vec![suite]
        }
    };
    let mut plans = Vec::new();
    let (mut n_filtered, mut n_ungraded_left_out) = (0, 0);
    let mut warnings = Vec::new();
    for suite in chosen {
        let target = target_for(options, &suite)?;
        let policy = policy_for(options, &suite, &target, &mut warnings);
        let mut cases = discover(&suite)?;
        cases.retain(|case| options.shard.is_none_or(|shard| shard.contains(&case.id())));
        let before = cases.len();
        cases.retain(|case| case.graded || options.include_unspecified);
        n_ungraded_left_out += before - cases.len();
        let before = cases.len();
        cases.retain(|case| {
            options.filter.as_ref().is_none_or(|pattern| {
                case.group.contains(pattern.as_str()) || case.id().contains(pattern.as_str())
            })
        });
        n_filtered += before - cases.len();
        plans.push(Plan {
            suite,
            target,
            cases,
            policy,
        });
    }
    let results = run_plans(options, &plans)?;
    if let Some(failed) = results.iter().find(|r| r.verdict == Verdict::CouldNotRun) {
        let plan = plans.iter().find(|p| p.suite.name == failed.case.spec);
        return Err(Error::CouldNotRun {
            command: plan.map(|p| p.target.display()).unwrap_or_default(),
            message: failed.detail.clone().unwrap_or_default(),
        });
    }
    Ok(Run {
        suites: plans.into_iter().map(|p| p.suite).collect(),
        results,
        n_filtered,
        n_ungraded_left_out,
        target: options
            .target
            .as_ref()
            .map_or_else(|| "the reference".into(), |argv| display_argv(argv)),
        elapsed: start.elapsed(),
        inferred,
        warnings,
        interrupted: crate::process::interrupted(),
    })
}

fn reference_target(options: &Options, suite: &Suite) -> Target {
    Target::reference(&options.reference, &suite.file.args, &options.dir)
}

fn target_for(options: &Options, suite: &Suite) -> Result<Target, Error> {
    match &options.target {
        None => Ok(reference_target(options, suite)),
        Some(argv) => Target::from_argv(argv, &options.dir)
            .ok_or_else(|| Error::Usage("the target command line is empty".into())),
    }
}

/// Runs each suite's `handout` group and picks the one suite the target passes.
fn infer_spec(
    options: &Options,
    suites: &[Suite],
    argv: &[OsString],
) -> Result<(Suite, String), Error> {
    let mut plans = Vec::new();
    for suite in suites {
        let mut cases = discover(suite)?;
        cases.retain(|case| case.group == "handout");
        if !cases.is_empty() {
            let target = target_for(options, suite)?;
            let policy = policy_for(options, suite, &target, &mut Vec::new());
            plans.push(Plan {
                suite: suite.clone(),
                target,
                cases,
                policy,
            });
        }
    }
    let quiet = Options {
        progress: false,
        fail_fast: false,
        ..options.clone()
    };
    let results = run_plans(&quiet, &plans)?;
    if let Some(failed) = results.iter().find(|r| r.verdict == Verdict::CouldNotRun) {
        return Err(Error::CouldNotRun {
            command: display_argv(argv),
            message: failed.detail.clone().unwrap_or_default(),
        });
    }
    let tally: Vec<(&Suite, usize, usize)> = plans
        .iter()
        .map(|plan| {
            let of_suite = results.iter().filter(|r| r.case.spec == plan.suite.name);
            let passed = of_suite.clone().filter(|r| r.verdict.passed()).count();
            (&plan.suite, passed, of_suite.count())
        })
        .collect();
    let fitting: Vec<_> = tally
        .iter()
        .filter(|(_, passed, total)| passed == total)
        .collect();
    if let [(suite, passed, total)] = fitting[..] {
        let note = format!(
            "looks like {}: {passed}/{total} handout cases pass; pass --spec to choose",
            suite.name
        );
        return Ok(((*suite).clone(), note));
    }
    let choices: Vec<String> = tally
        .iter()
        .map(|(suite, passed, total)| {
            format!("{} ({passed}/{total} handout cases pass)", suite.name)
        })
        .collect();
    let why = if fitting.is_empty() {
        "no spec's"
    } else {
        "more than one spec's"
    };
    Err(Error::Usage(format!(
        "the target passes {why} handout cases, so the spec is unclear: pass --spec with one of: {}",
        choices.join(", ")
    )))
}

fn run_plans(options: &Options, plans: &[Plan]) -> Result<Vec<CaseResult>, Error> {
    let work: Vec<(&Plan, &Case)> = plans
        .iter()
        .flat_map(|plan| plan.cases.iter().map(move |case| (plan, case)))
        .collect();
    let progress = if options.progress {
        let bar =
            ProgressBar::with_draw_target(Some(work.len() as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} cases {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|err| {
            Error::Command(format!(
                "failed to start {} worker threads: {err}",
                options.jobs
            ))
        })?;
    let stop = AtomicBool::new(false);
    let results: Vec<Result<CaseResult, Error>> = pool.install(|| {
        work.par_iter()
            .map(|(plan, case)| {
                let result = run_case(options, plan, case, &stop);
                progress.inc(1);
                result
            })
            .collect()
    });
    progress.finish_and_clear();
    results.into_iter().collect()
}

fn run_case(
    options: &Options,
    plan: &Plan,
    case: &Case,
    stop: &AtomicBool,
) -> Result<CaseResult, Error> {
    let input = std::fs::read(&case.input).map_err(|err| Error::io(&case.input, err))?;
    let expected = std::fs::read(&case.expected).map_err(|err| Error::io(&case.expected, err))?;
    let timeout = options.timeout.unwrap_or_else(|| plan.suite.timeout());
    if stop.load(Ordering::Relaxed) || crate::process::interrupted() {
        let mut result = judge(
            &plan.suite,
            case,
            expected,
            Err(std::io::Error::other("skipped")),
            timeout,
        );
        result.verdict = Verdict::Skipped;
        result.detail = None;
        return Ok(result);
    }
    let limits = Limits {
        timeout,
        stdout_cap: (16 << 20).max(expected.len().saturating_mul(10)),
        stderr_cap: 64 << 10,
    };
    let execution = execute_confined(&plan.target, &input, &limits, plan.policy.as_ref());
    let mut result = judge(&plan.suite, case, expected, execution, timeout);
    if !result.verdict.passed() && case.graded && options.fail_fast {
        stop.store(true, Ordering::Relaxed);
    }
    if let (false, Some(difference)) = (result.verdict.passed(), &result.difference) {
        if options.reference.is_file() {
            result.location = locate(
                &reference_target(options, &plan.suite),
                &input,
                difference.expected_offset,
            );
        }
    }
    Ok(result)
}
