//! `cargo xtask check`: choose the suites and the target, run every case in parallel, judge.
//!
//! This module decides; it prints nothing but the spec-inference note. Reports are written by
//! `message` (the terminal) and the report-file modules from the [`Run`] it returns.

use super::{infer, select};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::confine::{Policy, Settings};
use crate::corpus::{discover, load_all, Case, Suite};
use crate::error::Error;
use crate::judge::{judge_case, CaseResult, Expected, Judgement, Run, Verdict};
use crate::process::Bounds;
use crate::submission::Outcome;
use crate::target::{Program, Target};

/// How long a case may be idle (no CPU used, none waited for, its input all written) before
/// it is stopped as hung. The handouts set no time limits: this is gridjudge's rule, and
/// `--idle` sets it. A program that computes uses CPU; one that waits for a CPU on a busy
/// machine is waiting, not idle; so only one that sleeps or blocks on something that never
/// comes is stopped by it.
pub(crate) const IDLE: Duration = Duration::from_secs(2);

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub cases_root: PathBuf,
    pub spec: Option<String>,
    pub filter: Option<String>,
    pub jobs: usize,
    /// CPU time a case may use (default: the suite's timeout).
    pub timeout: Option<Duration>,
    /// Wall time after which a case is stopped whatever its CPU time (default:
    /// [`crate::process::backstop`] of the timeout).
    pub wall: Option<Duration>,
    /// A confined case that for this long uses no CPU and waits for none, its input all
    /// written, is stopped as hung (default: [`IDLE`], or the timeout if that is shorter, and
    /// none when `wall` is given).
    pub idle: Option<Duration>,
    pub fail_fast: bool,
    pub include_unspecified: bool,
    /// What runs: the reference (with each suite's arguments) or the user's program.
    pub program: Program,
    /// The reference binary, for localising differences and for checking the reference.
    pub reference: PathBuf,
    /// Where targets run.
    pub dir: PathBuf,
    /// How targets other than the reference are confined.
    pub confine: Settings,
    /// Only this shard's cases (by case id).
    pub shard: Option<crate::corpus::Shard>,
    /// How sources are built and run instead of the language table's way (`--build`).
    pub custom_build: Option<crate::submission::Custom>,
    /// Arguments for the program built from `Program::Sources` (`check samegame.c 0 0`).
    pub program_args: Vec<std::ffi::OsString>,
    /// Wrong variants of the reference whose misreadings are left out of the traces: a failure
    /// is diagnosed as if nobody had listed them (how `adequacy` measures a bug nobody listed).
    pub hold_out: Vec<String>,
}

impl Options {
    /// Keeps `path` out of every target's sight (`confine::Settings::hide`).
    pub fn hide(&mut self, path: impl Into<std::path::PathBuf>) {
        self.confine.hide(path);
    }

    /// What each suite's run is planned from.
    pub fn planning(&self) -> crate::process::Planning<'_> {
        crate::process::Planning {
            program: &self.program,
            settings: &self.confine,
            corpus_root: &self.cases_root,
            reference: &self.reference,
            dir: &self.dir,
        }
    }

    /// Checking the reference against every suite of the corpus at `cases_root`, in `dir`,
    /// with every other setting at its default: the start of every other set of options.
    pub fn new(cases_root: PathBuf, reference: PathBuf, dir: PathBuf) -> Options {
        Options {
            cases_root,
            spec: None,
            filter: None,
            jobs: crate::process::cpus(),
            timeout: None,
            wall: None,
            idle: None,
            fail_fast: false,
            include_unspecified: false,
            program: Program::Reference,
            reference,
            dir,
            confine: Settings::default(),
            shard: None,
            custom_build: None,
            program_args: Vec::new(),
            hold_out: Vec::new(),
        }
    }
}

/// A suite with the target that runs its cases, and how that target is confined.
struct Plan {
    suite: Suite,
    target: Target,
    cases: Vec<Case>,
    policy: Policy,
    /// The compiler's message when the sources did not build: every case's verdict.
    failed_build: Option<String>,
    /// A problem package's own output validator, built.
    validator: Option<super::validator::Validator>,
}

/// A check planned and not yet run: each chosen suite with its target and cases.
pub struct Prepared {
    plans: Vec<Plan>,
    n_filtered: usize,
    n_ungraded_left_out: usize,
    inferred: Option<String>,
    warnings: Vec<String>,
    start: Instant,
    /// What runs, as the user named it.
    program: Program,
    /// How the sources were built, for a check of sources.
    build: Option<Outcome>,
    /// The exclusive reruns of starved cases this submission has left.
    reruns: crate::process::Reruns,
}

impl Prepared {
    /// A check of `options`' program with no suite planned yet, started at `start`.
    fn new(options: &Options, inferred: Option<String>, start: Instant) -> Prepared {
        Prepared {
            plans: Vec::new(),
            n_filtered: 0,
            n_ungraded_left_out: 0,
            inferred,
            warnings: crate::process::jobs_warning(options.jobs)
                .into_iter()
                .collect(),
            start,
            program: options.program.clone(),
            build: None,
            reruns: crate::process::Reruns::default(),
        }
    }

    /// The cases to run, over every suite.
    pub fn len(&self) -> usize {
        self.plans.iter().map(|p| p.cases.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The plan and case at position `k` of all the cases to run.
    fn work(&self, mut k: usize) -> Option<(&Plan, &Case)> {
        for plan in &self.plans {
            match plan.cases.get(k) {
                Some(case) => return Some((plan, case)),
                None => k -= plan.cases.len(),
            }
        }
        None
    }
}

/// Plans a check: the suites, their targets and the cases to run (sources built first).
pub(super) fn prepare(options: &Options) -> Result<Prepared, Error> {
    // The first helper is started now, to set itself up while the cases are found; where none
    // is started ahead (a later check of a course server), the cgroup's first move is.
    if options.program != Program::Reference
        && options.confine.sandbox
        && !crate::sandbox::start_ahead()
    {
        crate::confine::prime_migrations();
    }
    let (built, mut prepared) = begin(options, Instant::now())?;
    let options = built.as_ref().unwrap_or(options);
    // Every suite is loaded only when the run needs more than the one named.
    let suites = match &options.spec {
        Some(_) => Vec::new(),
        None => load_all(&options.cases_root)?,
    };
    let chosen: Vec<Suite> = match (&options.spec, &options.program, &prepared.build) {
        (Some(spec), _, _) => vec![crate::corpus::find(&options.cases_root, spec)?],
        (None, Program::Reference, _) => suites.clone(),
        (None, _, Some(Outcome::Failed(failed))) if suites.len() > 1 => {
            return Err(Error::Build(format!(
                "{} (and with no --spec, no way to tell which assignment it is for)",
                failed.message.trim_end()
            )))
        }
        (None, _, Some(Outcome::Failed(_))) => suites.clone(),
        (None, _, _) => {
            let (suite, note) = infer_spec(options, &suites)?;
            prepared.inferred = Some(note);
            vec![suite]
        }
    };
    // The groups there are, named to a --filter that matches none.
    let mut groups = std::collections::BTreeSet::new();
    for suite in chosen {
        let (suite, note) = settle_time_limit(options, suite)?;
        prepared.warnings.extend(note);
        let cases = |suite: &Suite, prepared: &mut Prepared| {
            let discovered = discover(suite)?;
            if options.filter.is_some() {
                groups.extend(discovered.iter().map(|case| case.group.clone()));
            }
            let (cases, n_filtered, n_ungraded_left_out) = select::select(options, discovered);
            prepared.n_filtered += n_filtered;
            prepared.n_ungraded_left_out += n_ungraded_left_out;
            Ok(cases)
        };
        prepared = prepare_cases(options, suite, cases, prepared)?;
    }
    if prepared.is_empty() {
        // A gate that runs nothing must not pass.
        return Err(select::nothing_to_run(
            options,
            prepared.n_filtered,
            &groups,
        ));
    }
    Ok(prepared)
}

/// Plans a check of `cases` of `suite`, loaded once by the caller (`grade`, for a whole class).
pub fn prepare_suite(options: &Options, suite: &Suite, cases: &[Case]) -> Result<Prepared, Error> {
    let (built, mut prepared) = begin(options, Instant::now())?;
    let options = built.as_ref().unwrap_or(options);
    let (suite, note) = settle_time_limit(options, suite.clone())?;
    prepared.warnings.extend(note);
    prepare_cases(options, suite, |_, _| Ok(cases.to_vec()), prepared)
}

/// A check of `options`' program begun at `start`: its sources built, if it is sources; the
/// options it runs with when they are not `options` (the built program's command), and the
/// check with no suite planned yet.
fn begin(options: &Options, start: Instant) -> Result<(Option<Options>, Prepared), Error> {
    let mut warnings = Vec::new();
    let (built, build) = built(options, &mut warnings)?;
    let mut prepared = Prepared::new(built.as_ref().unwrap_or(options), None, start);
    // Reports name the program as the user did (`Main.java`), not as it was built.
    prepared.program = options.program.clone();
    prepared.warnings.extend(warnings);
    prepared.build = build;
    Ok((built, prepared))
}

/// Plans `suite`'s target, then finds its cases with `cases` (a confined target's first view
/// is made while they are found).
fn prepare_cases(
    options: &Options,
    mut suite: Suite,
    cases: impl FnOnce(&Suite, &mut Prepared) -> Result<Vec<Case>, Error>,
    mut prepared: Prepared,
) -> Result<Prepared, Error> {
    suite.grid = crate::tools::grid_for(&suite);
    let failed_build = match &prepared.build {
        Some(Outcome::Failed(failed)) => Some(failed.message.clone()),
        _ => None,
    };
    // Sources that did not build run nothing: there is no target to plan.
    let (target, policy) = match failed_build {
        Some(_) => (Target::command(&[], &options.dir), Policy::trusted()),
        None => options.planning().plan(&suite, &mut prepared.warnings)?,
    };
    let cases = cases(&suite, &mut prepared)?;
    let validator = match suite.package.as_ref().filter(|p| p.validator.is_some()) {
        Some(package) if failed_build.is_none() => Some(super::validator::build(
            package,
            &options.confine,
            &options.cases_root,
            &mut prepared.warnings,
        )?),
        _ => None,
    };
    prepared.plans.push(Plan {
        suite,
        target,
        cases,
        policy,
        failed_build,
        validator,
    });
    Ok(prepared)
}

/// `suite` with the time limit a package leaves to its accepted submissions, each checked
/// here (once per machine: the limit is remembered).
fn settle_time_limit(options: &Options, suite: Suite) -> Result<(Suite, Option<String>), Error> {
    let name = suite.name.clone();
    let probe = |source: PathBuf| {
        let probing = Options {
            spec: Some(name.clone()),
            program: Program::Sources(source),
            timeout: Some(super::time_limit::PROBING),
            fail_fast: true,
            ..options.clone()
        };
        check(&probing, &|_| {}).ok()
    };
    super::time_limit::settle(suite, options.timeout.is_some(), &probe)
}

/// Sources to check are built first, and the check runs what they built: `options` with that
/// command (`None` for a check of no sources), and how the build went.
fn built(
    options: &Options,
    warnings: &mut Vec<String>,
) -> Result<(Option<Options>, Option<Outcome>), Error> {
    let Program::Sources(sources) = &options.program else {
        return Ok((None, None));
    };
    let pin = match &options.spec {
        Some(spec) => crate::corpus::find(&options.cases_root, spec)?.file.build,
        None => Default::default(),
    };
    let (confine, root) = (&options.confine, &options.cases_root);
    let outcome = match &options.custom_build {
        Some(custom) => crate::submission::build_custom(sources, custom, confine, root, warnings)?,
        None => crate::submission::build(sources, &pin, confine, root, warnings)?,
    };
    let mut built = options.clone();
    if let Outcome::Ready(ready) = &outcome {
        let mut run = ready.run.clone();
        run.extend(options.program_args.iter().cloned());
        built.program = Program::Command(run);
        built.dir = ready.dir.clone();
        built.confine.cwd = Some(ready.dir.clone());
    }
    Ok((Some(built), Some(outcome)))
}

/// Runs case `k` of a prepared check and judges it.
pub fn run_one(options: &Options, prepared: &Prepared, k: usize) -> Result<CaseResult, Error> {
    let (plan, case) = prepared
        .work(k)
        .ok_or_else(|| Error::Internal(format!("no case {k} in this check")))?;
    run_case(
        options,
        plan,
        case,
        &AtomicBool::new(false),
        &prepared.reruns,
    )
}

/// The finished run of a prepared check, from the results of its cases in order.
pub fn finish(mut prepared: Prepared, mut results: Vec<CaseResult>) -> Result<Run, Error> {
    let suites: Vec<Suite> = prepared.plans.iter().map(|p| p.suite.clone()).collect();
    crate::judge::refute_run(&suites, &mut results);
    crate::judge::settle_run_ties(results.iter_mut().map(|result| &mut result.judgement));
    could_not_run(&prepared.plans, &results)?;
    // A conversation's output goes to the validator, never to the harness: silence says
    // nothing there.
    let conversational = prepared.plans.iter().any(|plan| {
        plan.suite
            .package
            .as_ref()
            .is_some_and(|package| package.meta.interactive)
    });
    if !conversational {
        super::never_ran::never_ran(&prepared.program, &results)?;
    }
    crate::confine::note_once(
        &mut prepared.warnings,
        crate::process::load_warning().into_iter().collect(),
    );
    Ok(Run {
        suites: prepared.plans.into_iter().map(|p| p.suite).collect(),
        summaries: crate::judge::Summaries::of(&results),
        results,
        n_filtered: prepared.n_filtered,
        n_ungraded_left_out: prepared.n_ungraded_left_out,
        target: prepared.program.display(),
        elapsed: prepared.start.elapsed(),
        inferred: prepared.inferred,
        warnings: prepared.warnings,
        interrupted: crate::sys::interrupted(),
        build: prepared.build.as_ref().map(build_summary),
    })
}

/// The result model's account of a build.
fn build_summary(outcome: &Outcome) -> crate::judge::Build {
    use crate::judge::{Build, BuildStatus};
    match outcome {
        Outcome::Ready(ready) => Build {
            language: ready.language.clone(),
            command: ready.build.clone(),
            status: match ready.reused {
                true => BuildStatus::Reused,
                false => BuildStatus::Built,
            },
            time: ready.build_time,
        },
        Outcome::Failed(failed) => Build {
            language: failed.language.clone(),
            command: None,
            status: BuildStatus::Failed(failed.message.clone()),
            time: failed.build_time,
        },
    }
}

/// How far a check is, as it runs: what a command line draws as a bar and a server shows as
/// it likes. The check itself prints nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The cases to run in all.
    Planned { cases: u64 },
    /// One more case has run.
    Ran,
}

/// Checks the target of `options` against its suites, telling `progress` how far it is.
pub fn check(options: &Options, progress: &(dyn Fn(Step) + Sync)) -> Result<Run, Error> {
    let prepared = prepare(options)?;
    let results = run_plans(options, &prepared.plans, progress, &prepared.reruns)?;
    finish(prepared, results)
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
            let (target, policy) = options.planning().plan(suite, &mut Vec::new())?;
            plans.push(Plan {
                suite: suite.clone(),
                target,
                cases,
                policy,
                failed_build: None,
                validator: None,
            });
        }
    }
    let quiet = Options {
        fail_fast: false,
        ..options.clone()
    };
    let results = run_plans(&quiet, &plans, &|_| {}, &crate::process::Reruns::default())?;
    could_not_run(&plans, &results)?;
    let tried: Vec<&Suite> = plans.iter().map(|plan| &plan.suite).collect();
    infer::choose(suites, &tried, &results)
}

fn run_plans(
    options: &Options,
    plans: &[Plan],
    progress: &(dyn Fn(Step) + Sync),
    reruns: &crate::process::Reruns,
) -> Result<Vec<CaseResult>, Error> {
    let work: Vec<(&Plan, &Case)> = plans
        .iter()
        .flat_map(|plan| plan.cases.iter().map(move |case| (plan, case)))
        .collect();
    progress(Step::Planned {
        cases: work.len() as u64,
    });
    let stop = AtomicBool::new(false);
    let results = crate::process::seated_map(options.jobs, &work, |(plan, case)| {
        let result = run_case(options, plan, case, &stop, reruns);
        progress(Step::Ran);
        result
    });
    results.into_iter().collect()
}

fn run_case(
    options: &Options,
    plan: &Plan,
    case: &Case,
    stop: &AtomicBool,
    reruns: &crate::process::Reruns,
) -> Result<CaseResult, Error> {
    let input = std::fs::read(&case.input).map_err(|err| Error::io(&case.input, err))?;
    let expected = std::fs::read(&case.expected).map_err(|err| Error::io(&case.expected, err))?;
    // A hidden case's expected output is known by its hashes only.
    let (expected, hashes) = if case.hidden {
        let text = String::from_utf8_lossy(&expected);
        let hashes = crate::judge::Hashes::parse(&text, &case.expected)?;
        (Vec::new(), Some(hashes))
    } else {
        (expected, None)
    };
    let timeout = options.timeout.unwrap_or_else(|| plan.suite.timeout());
    let input_lines = memchr::memchr_iter(b'\n', &input).count();
    let result = |judgement| CaseResult {
        case: case.clone(),
        judgement,
        input_lines,
    };
    if let Some(message) = &plan.failed_build {
        return Ok(result(Judgement::could_not_build(
            message.clone(),
            expected,
        )));
    }
    if stop.load(Ordering::Relaxed) || crate::sys::interrupted() {
        return Ok(result(Judgement::skipped(expected)));
    }
    let bounds = Bounds {
        timeout,
        wall: options
            .wall
            .unwrap_or_else(|| crate::process::backstop(timeout)),
        asleep_after: options
            .idle
            .or_else(|| options.wall.is_none().then_some(IDLE.min(timeout))),
        stdout_cap: plan.suite.package.as_ref().map_or(
            (16 << 20).max(expected.len().saturating_mul(10)),
            |package| (package.meta.output_mib as usize).saturating_mul(1 << 20),
        ),
        stderr_cap: 64 << 10,
    };
    let (execution, busy, expected) = match &plan.validator {
        Some(validator) => validator.run(
            (&options.confine, &options.cases_root),
            (&plan.suite, case, &input),
            (&plan.target, &plan.policy, &bounds),
            reruns,
            expected,
        )?,
        None => {
            let (execution, busy) =
                crate::process::execute_fairly(&plan.target, &plan.policy, &input, &bounds, reruns);
            let expected = match &hashes {
                Some(hashes) => Expected::Hidden(hashes),
                None => Expected::Output(expected),
            };
            (execution.map_err(|err| err.to_string()), busy, expected)
        }
    };
    let rules = plan.suite.rules_of(&case.group);
    let mut judgement = judge_case(rules, expected, execution, timeout, busy)
        .with_limits(plan.policy.limits.cpu, timeout);
    if !judgement.verdict.passed() && case.graded && options.fail_fast {
        stop.store(true, Ordering::Relaxed);
    }
    if !judgement.verdict.passed() && judgement.difference.is_some() {
        let trace = crate::process::case_trace(
            &plan.suite,
            &options.reference,
            &options.dir,
            &input,
            &case.input.with_extension("trace"),
        );
        judgement.place_difference(
            trace.as_deref().map(String::as_str),
            &input,
            &options.hold_out,
            plan.suite.grid,
        );
    }
    judgement.bound();
    Ok(result(judgement))
}
