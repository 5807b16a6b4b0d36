//! `cargo xtask check`: choose the suites and the target, run every case in parallel, judge.
//!
//! This module decides; it prints nothing but the spec-inference note. Reports are written by
//! `message` (the terminal) and the report-file modules from the [`Run`] it returns.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::confine::{Policy, Settings};
use crate::discover::{discover, Case};
use crate::error::Error;
use crate::locate::locate;
use crate::outcome::{judge, CaseResult, Judgement, Verdict};
use crate::process::{execute, Bounds};
use crate::run::Run;
use crate::suite::{load_all, Suite};
use crate::target::{Program, Target};

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
    /// What runs: the reference (with each suite's arguments) or the user's program.
    pub program: Program,
    /// The reference binary, for localising differences and for checking the reference.
    pub reference: PathBuf,
    /// Where targets run.
    pub dir: PathBuf,
    pub progress: bool,
    /// How targets other than the reference are confined.
    pub confine: Settings,
    /// Only this shard's cases (by case id).
    pub shard: Option<crate::shard::Shard>,
}

impl Options {
    /// Checking the reference against every suite of the corpus at `cases_root`, in `dir`,
    /// with every other setting at its default: the start of every other set of options.
    pub fn new(cases_root: PathBuf, reference: PathBuf, dir: PathBuf) -> Options {
        Options {
            cases_root,
            spec: None,
            filter: None,
            jobs: crate::pool::cpus(),
            timeout: None,
            fail_fast: false,
            include_unspecified: false,
            program: Program::Reference,
            reference,
            dir,
            progress: false,
            confine: Settings::default(),
            shard: None,
        }
    }
}

/// A suite with the target that runs its cases, and how that target is confined.
struct Plan {
    suite: Suite,
    target: Target,
    cases: Vec<Case>,
    policy: Policy,
}

/// The target to run for `suite` and its confinement: none for the reference alone.
fn plan_target(
    options: &Options,
    suite: &Suite,
    warnings: &mut Vec<String>,
) -> Result<(Target, Policy), Error> {
    crate::process::plan(
        &options.program,
        &options.confine,
        suite,
        &options.cases_root,
        &options.reference,
        &options.dir,
        warnings,
    )
}

pub fn check(options: &Options) -> Result<Run, Error> {
    let start = Instant::now();
    let suites = load_all(&options.cases_root)?;
    let mut inferred = None;
    let chosen: Vec<Suite> = match (&options.spec, &options.program) {
        (Some(spec), _) => vec![crate::suite::find(&options.cases_root, spec)?],
        (None, Program::Reference) => suites.clone(),
        (None, Program::Command(_)) => {
            let (suite, note) = infer_spec(options, &suites)?;
            inferred = Some(note);
            vec![suite]
        }
    };
    let mut plans = Vec::new();
    let (mut n_filtered, mut n_ungraded_left_out) = (0, 0);
    let mut warnings = Vec::new();
    for suite in chosen {
        let (target, policy) = plan_target(options, &suite, &mut warnings)?;
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
    could_not_run(&plans, &results)?;
    Ok(Run {
        suites: plans.into_iter().map(|p| p.suite).collect(),
        results,
        n_filtered,
        n_ungraded_left_out,
        target: options.program.display(),
        elapsed: start.elapsed(),
        inferred,
        warnings,
        interrupted: crate::process::interrupted(),
    })
}

/// A target that could not be started is the harness's error, said once, not a verdict per case.
fn could_not_run(plans: &[Plan], results: &[CaseResult]) -> Result<(), Error> {
    match results
        .iter()
        .find(|r| r.judgement.verdict == Verdict::CouldNotRun)
    {
        Some(failed) => Err(Error::CouldNotRun {
            command: plans
                .iter()
                .find(|p| p.suite.name == failed.case.spec)
                .map(|p| p.target.display())
                .unwrap_or_default(),
            message: failed.judgement.detail.clone().unwrap_or_default(),
        }),
        None => Ok(()),
    }
}

/// Runs each suite's `handout` group and picks the one suite the target passes.
fn infer_spec(options: &Options, suites: &[Suite]) -> Result<(Suite, String), Error> {
    let mut plans = Vec::new();
    for suite in suites {
        let mut cases = discover(suite)?;
        cases.retain(|case| case.group == "handout");
        if !cases.is_empty() {
            let (target, policy) = plan_target(options, suite, &mut Vec::new())?;
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
    could_not_run(&plans, &results)?;
    let tally: Vec<(&Suite, usize, usize)> = plans
        .iter()
        .map(|plan| {
            let of_suite = results.iter().filter(|r| r.case.spec == plan.suite.name);
            let passed = of_suite
                .clone()
                .filter(|r| r.judgement.verdict.passed())
                .count();
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
    let stop = AtomicBool::new(false);
    let results = crate::pool::map(options.jobs, &work, |(plan, case)| {
        let result = run_case(options, plan, case, &stop);
        progress.inc(1);
        result
    })?;
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
    let result = |judgement| CaseResult {
        case: case.clone(),
        judgement,
    };
    if stop.load(Ordering::Relaxed) || crate::process::interrupted() {
        return Ok(result(Judgement::skipped(expected)));
    }
    let bounds = Bounds {
        timeout,
        stdout_cap: (16 << 20).max(expected.len().saturating_mul(10)),
        stderr_cap: 64 << 10,
    };
    let mut judgement = match execute(&plan.target, &input, &bounds, &plan.policy) {
        Ok(execution) => judge(plan.suite.rules(), expected, execution, timeout),
        Err(err) => Judgement::could_not_run(err.to_string(), expected),
    };
    if !judgement.verdict.passed() && case.graded && options.fail_fast {
        stop.store(true, Ordering::Relaxed);
    }
    if let (false, Some(difference)) = (judgement.verdict.passed(), &judgement.difference) {
        if options.reference.is_file() {
            judgement.location = locate(
                &Program::Reference.target(&options.reference, &plan.suite.file.args, &options.dir),
                &input,
                difference.expected_offset,
            );
        }
    }
    judgement.bound();
    Ok(result(judgement))
}
