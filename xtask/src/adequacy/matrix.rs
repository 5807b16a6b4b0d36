//! `cargo xtask adequacy`: what the corpus proves, measured with wrong variants of the reference.
//!
//! Every variant of `gridjudge::mutant::MUTANTS` breaks one rule of a spec document. Each is
//! run, in this process, on every graded case of its spec; a case kills it when the variant's
//! output differs from the case's `.out` (as the suite compares), when it stops with an input
//! error where the suite grades the exit status, or when it panics. A rule whose variant no
//! hand-written case kills is a gap in the corpus: random `generated` cases may catch it today,
//! but a smaller or differently seeded corpus would not. Running in process (no spawning) makes
//! the whole matrix, some 20,000 runs, take seconds.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use gridjudge::driver::run_bytes;
use gridjudge::mutant::{self, Info, MUTANTS};
use gridjudge::spec::Spec;

use std::time::Duration;

use crate::corpus::{discover, Case};
use crate::corpus::{load_all, Rules};
use crate::error::Error;
use crate::judge::judge;
use crate::process::{Execution, Exit};

/// The group of random cases, which does not count as hand-written.
const GENERATED: &str = "generated";

/// One variant and the cases that kill it.
#[derive(Debug)]
pub struct Kills {
    pub variant: &'static Info,
    /// Ids of the hand-written cases that kill it, in path order.
    pub hand_written: Vec<String>,
    /// How many `generated` cases kill it.
    pub generated: usize,
    /// The causes a check gives its failures, by id: the words and how many cases.
    pub causes: BTreeMap<String, (String, usize)>,
    /// The same from the traces' rule spans alone, without misreadings: how a wrong program
    /// that no variant foresaw is told, by the rule whose output went wrong first.
    pub unaided: BTreeMap<String, (String, usize)>,
}

/// The cause of one failure, as `check` names it.
#[derive(Debug, Clone)]
pub(super) struct Cause {
    pub id: String,
    pub text: String,
}

impl Kills {
    /// Whether the hand-written groups alone tell this variant from the reference.
    pub fn killed(&self) -> bool {
        !self.hand_written.is_empty()
    }
}

/// The kill matrix of the corpus.
#[derive(Debug)]
pub struct Report {
    pub kills: Vec<Kills>,
    /// Graded cases per spec: (hand-written, generated).
    pub cases: BTreeMap<String, (usize, usize)>,
}

/// A graded case with its bytes, ready to run many times.
struct Loaded {
    case: Case,
    input: Vec<u8>,
    expected: Vec<u8>,
    /// The reference's trace of the input, and the same without misreadings, made the first
    /// time a variant fails the case.
    traces: std::sync::OnceLock<[String; 2]>,
}

/// Runs every variant on every graded case of its spec under the corpus `root`.
pub fn measure(root: &Path, jobs: usize) -> Result<Report, Error> {
    // A variant that panics is killed, and says so in the report: no backtrace on the terminal.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let report = measure_quietly(root, jobs);
    std::panic::set_hook(hook);
    report
}

fn measure_quietly(root: &Path, jobs: usize) -> Result<Report, Error> {
    let mut kills = Vec::new();
    let mut counts = BTreeMap::new();
    for suite in load_all(root)? {
        let Some(spec) = gridjudge::spec::find(&suite.name) else {
            continue;
        };
        let mut loaded = Vec::new();
        for case in discover(&suite)?.into_iter().filter(|case| case.graded) {
            let input = std::fs::read(&case.input).map_err(|err| Error::io(&case.input, err))?;
            let expected =
                std::fs::read(&case.expected).map_err(|err| Error::io(&case.expected, err))?;
            loaded.push(Loaded {
                case,
                input,
                expected,
                traces: std::sync::OnceLock::new(),
            });
        }
        let n_generated = loaded.iter().filter(|l| l.case.group == GENERATED).count();
        counts.insert(
            suite.name.clone(),
            (loaded.len() - n_generated, n_generated),
        );
        let variants: Vec<&'static Info> = MUTANTS.iter().filter(|m| m.spec == spec.name).collect();
        let pairs: Vec<(&'static Info, &Loaded)> = variants
            .iter()
            .flat_map(|variant| loaded.iter().map(move |case| (*variant, case)))
            .collect();
        let rules = suite.rules();
        let killed = crate::process::map(jobs, &pairs, |(variant, case)| {
            kills_case(spec, rules, variant, case)
        })?;
        for variant in variants {
            let mut found = Kills {
                variant,
                hand_written: Vec::new(),
                generated: 0,
                causes: BTreeMap::new(),
                unaided: BTreeMap::new(),
            };
            let mut candidates: [Vec<&Candidates>; 2] = [Vec::new(), Vec::new()];
            for ((of, case), killed) in pairs.iter().zip(&killed) {
                if let (true, Some([cause, unaided])) = (std::ptr::eq(*of, variant), killed) {
                    candidates[0].push(cause);
                    candidates[1].push(unaided);
                    if case.case.group == GENERATED {
                        found.generated += 1;
                    } else {
                        found.hand_written.push(case.case.id());
                    }
                }
            }
            for (causes, candidates) in [&mut found.causes, &mut found.unaided]
                .into_iter()
                .zip(candidates)
            {
                tally(causes, &candidates);
            }
            kills.push(found);
        }
    }
    Ok(Report {
        kills,
        cases: counts,
    })
}

/// Counts one variant's failures by the cause a check names, ties settled as a check settles
/// them.
fn tally(causes: &mut BTreeMap<String, (String, usize)>, candidates: &[&Candidates]) {
    let names: Vec<Vec<&str>> = candidates
        .iter()
        .map(|candidates| candidates.iter().map(|(name, _)| name.as_str()).collect())
        .collect();
    for (candidates, chosen) in candidates.iter().zip(crate::judge::settle_ties(&names)) {
        let (_, cause) = &candidates[chosen];
        let entry = causes
            .entry(cause.id.clone())
            .or_insert_with(|| (cause.text.clone(), 0));
        entry.1 += 1;
    }
}

/// The causes a failure could be given: one per rule that explains it equally well (a check
/// names the one most of the program's failures share), with the rule's name.
type Candidates = Vec<(String, Cause)>;

/// Whether `case` tells `variant` apart from the reference: the causes a check would give the
/// failure, with and without misreadings in the trace (see [`Kills::causes`]), or `None`
/// when the case passes.
fn kills_case(spec: &Spec, rules: Rules, variant: &Info, case: &Loaded) -> Option<[Candidates; 2]> {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        mutant::with(variant.mutant, || run_bytes(spec, &case.input))
    }));
    let (output, result) = match run {
        // A variant that crashes is told apart as surely as one that prints wrong output.
        Err(_) => (Vec::new(), Err(())),
        Ok((output, result)) => (output, result.map(|_| ()).map_err(|_| ())),
    };
    let exit = Exit::Code(if result.is_ok() { 0 } else { 1 });
    let execution = Execution::finished(exit, output, b"the variant stopped\n".to_vec());
    let mut judgement = judge(
        rules,
        case.expected.clone(),
        execution,
        Duration::from_secs(1),
    );
    if judgement.verdict.passed() {
        return None;
    }
    let traces = case.traces.get_or_init(|| {
        let trace = crate::judge::built_in_trace(&[spec.name.to_string()], &case.input)
            .map(|trace| trace.to_string())
            .unwrap_or_default();
        // The same trace without misreadings: what the rules alone make of the failure, as
        // for a bug no variant foresaw.
        let unaided = trace
            .lines()
            .filter(|line| !line.starts_with("? "))
            .map(|line| format!("{line}\n"))
            .collect();
        [trace, unaided]
    });
    Some([&traces[0], &traces[1]].map(|trace| {
        let mut rules = Vec::new();
        if let (Some(difference), Some(execution)) = (&judgement.difference, &judgement.execution) {
            let found = crate::judge::from_trace_text(
                trace,
                &case.input,
                difference.telling_offset(),
                &execution.stdout,
            );
            judgement.answers = found.as_ref().and_then(|l| l.command.clone());
            if let Some(found) = found {
                rules.extend(found.rule.into_iter().chain(found.tied).map(Some));
            }
        }
        if rules.is_empty() {
            rules.push(None);
        }
        rules
            .into_iter()
            .map(|rule| {
                let name = rule.as_ref().map(|r| r.slug.clone()).unwrap_or_default();
                judgement.rule = rule;
                let cause = Cause {
                    id: judgement.cause_id(),
                    text: judgement.cause_text(),
                };
                (name, cause)
            })
            .collect()
    }))
}

impl Report {
    pub fn survivors(&self) -> impl Iterator<Item = &Kills> {
        self.kills.iter().filter(|k| !k.killed())
    }

    /// The per-variant report, survivors last, ending with the tally line; `verbose`: each
    /// variant's causes too (`u`: by the rule spans alone, without misreadings).
    pub fn render(&self, verbose: bool) -> String {
        let mut out = String::new();
        for (spec, (hand_written, generated)) in &self.cases {
            let of_spec: Vec<&Kills> = self
                .kills
                .iter()
                .filter(|k| k.variant.spec == spec)
                .collect();
            let n_killed = of_spec.iter().filter(|k| k.killed()).count();
            let _ = writeln!(
                out,
                "{spec}: {} variants, {n_killed} killed by the {hand_written} hand-written cases \
                 ({generated} generated cases not counted)",
                of_spec.len()
            );
            for kills in of_spec {
                let first = kills
                    .hand_written
                    .first()
                    .map(|id| format!(", first {id}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  {:<40} {:>4} hand-written, {:>3} generated, {} causes, {} unaided{first}",
                    kills.variant.name,
                    kills.hand_written.len(),
                    kills.generated,
                    kills.causes.len(),
                    kills.unaided.len()
                );
                if verbose {
                    for (id, (text, n)) in &kills.causes {
                        let _ = writeln!(out, "      {id} {n:>4}  {text}");
                    }
                    for (id, (text, n)) in &kills.unaided {
                        let _ = writeln!(out, "    u {id} {n:>4}  {text}");
                    }
                }
            }
        }
        let survivors: Vec<&Kills> = self.survivors().collect();
        if !survivors.is_empty() {
            let _ = writeln!(out, "\ncorpus gaps (no hand-written case kills these):");
            for kills in &survivors {
                let _ = writeln!(
                    out,
                    "  {}: {} (rule: {}){}",
                    kills.variant.name,
                    kills.variant.what,
                    kills.variant.rule,
                    if kills.generated > 0 {
                        format!("; {} generated cases do", kills.generated)
                    } else {
                        String::new()
                    }
                );
            }
        }
        let _ = writeln!(
            out,
            "\n{} killed, {} survived",
            self.kills.len() - survivors.len(),
            survivors.len()
        );
        out
    }

    /// The coverage table, as Markdown: per spec, each rule of its document with the variants
    /// that break it and the hand-written cases that kill them.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "# What the corpus proves\n\n\
             Each rule of the spec documents has one or more wrong variants of the reference \
             (`src/mutant.rs`) that break it. A hand-written case (any graded group but \
             `generated`) that tells a variant apart from the reference exercises its rule. \
             Made by `cargo xtask adequacy --table`; a test keeps it current.\n",
        );
        for (spec, (hand_written, generated)) in &self.cases {
            let _ = write!(
                out,
                "\n## {spec}\n\n{hand_written} hand-written and {generated} generated graded \
                 cases.\n\n| rule | variants | hand-written cases that kill them |\n|---|---|---|\n"
            );
            let mut rules: Vec<&str> = Vec::new();
            for kills in self.kills.iter().filter(|k| k.variant.spec == spec) {
                if !rules.contains(&kills.variant.rule) {
                    rules.push(kills.variant.rule);
                }
            }
            for rule in rules {
                let of_rule: Vec<&Kills> = self
                    .kills
                    .iter()
                    .filter(|k| k.variant.spec == spec && k.variant.rule == rule)
                    .collect();
                let variants: Vec<String> = of_rule
                    .iter()
                    .map(|k| format!("`{}` ({})", k.variant.name, k.hand_written.len()))
                    .collect();
                let mut cases: Vec<&str> = of_rule
                    .iter()
                    .flat_map(|k| k.hand_written.iter().map(String::as_str))
                    .collect();
                cases.sort();
                cases.dedup();
                let shown: Vec<String> = cases
                    .iter()
                    .take(4)
                    .map(|id| format!("`{}`", id.split_once('/').map_or(*id, |(_, rest)| rest)))
                    .collect();
                let more = match cases.len() {
                    0 => "none: a gap".to_string(),
                    n if n > 4 => format!("{}, and {} more", shown.join(", "), n - 4),
                    _ => shown.join(", "),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {more} |",
                    rule.replace('|', "\\|"),
                    variants.join(", ")
                );
            }
        }
        out.push_str(&self.causes_table());
        out
    }
}
