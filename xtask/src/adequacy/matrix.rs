//! `cargo xtask adequacy`: what the corpus proves, measured with wrong variants of the reference.
//!
//! Every variant of `gridjudge::mutant::MUTANTS` breaks one rule of a spec document. Each is
//! run, in this process, on every graded case of its spec; a case kills it when the variant's
//! output differs from the case's `.out` (as the suite compares), when it stops with an input
//! error where the suite grades the exit status, or when it panics. A rule whose variant no
//! hand-written case kills is a gap in the corpus: random `generated` cases may catch it today,
//! but a smaller or differently seeded corpus would not. Running in process (no spawning) makes
//! the whole matrix, some 20,000 runs, take seconds.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use gridjudge::driver::run_bytes;
use gridjudge::mutant::{self, Info, MUTANTS};
use gridjudge::spec::Spec;

use std::time::Duration;

use crate::corpus::{discover, Case};
use crate::corpus::{load_all, Rules};
use crate::error::Error;
use crate::judge::{group_unexplained, judge, unexplained_cause, Judgement, Kind, RuleAt};
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
    pub causes: Causes,
    /// The same with its own misreading and its twins' (the variants of its rule) left out of
    /// the traces: how a wrong program that no variant foresaw is told.
    pub held_out: Causes,
    /// Held out, how many of its failures would be told a misreading the whole run refutes,
    /// were misreadings not refuted.
    pub refuted_told: usize,
    /// Held out, how many failures are told a misreading the run refutes: none, where
    /// refutation works.
    pub refuted_named: usize,
}

/// Causes by id, with their words and how many failures they hold.
pub(super) type Causes = BTreeMap<String, (String, usize)>;

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
    /// The reference's trace of the input, made the first time a variant fails the case.
    trace: std::sync::OnceLock<String>,
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
                trace: std::sync::OnceLock::new(),
            });
        }
        let n_generated = loaded.iter().filter(|l| l.case.group == GENERATED).count();
        counts.insert(
            suite.name.clone(),
            (loaded.len() - n_generated, n_generated),
        );
        let variants: Vec<&'static Info> = MUTANTS.iter().filter(|m| m.spec == spec.name).collect();
        let pairs: Vec<(&'static Info, usize)> = variants
            .iter()
            .flat_map(|variant| (0..loaded.len()).map(move |case| (*variant, case)))
            .collect();
        let rules = suite.rules();
        let found = crate::process::map(jobs, &pairs, |(variant, case)| {
            kills_case(spec, rules, variant, &loaded[*case])
        })?;
        let matrix = Matrix {
            n_cases: loaded.len(),
            found: pairs
                .iter()
                .zip(found)
                .filter_map(|((variant, case), found)| Some(((variant.name, *case), found?)))
                .collect(),
        };
        for variant in variants {
            kills.push(matrix.kills(variant, &loaded));
        }
    }
    Ok(Report {
        kills,
        cases: counts,
    })
}

/// What every variant of one spec does on every case: its failures by variant name and case.
struct Matrix {
    n_cases: usize,
    found: std::collections::HashMap<(&'static str, usize), Found>,
}

impl Matrix {
    /// The cases that kill `variant` and the causes a check gives its failures, named and held
    /// out, each with the misreadings the variant's whole run refutes left out.
    fn kills(&self, variant: &'static Info, loaded: &[Loaded]) -> Kills {
        let mut kills = Kills {
            variant,
            hand_written: Vec::new(),
            generated: 0,
            causes: Causes::new(),
            held_out: Causes::new(),
            refuted_told: 0,
            refuted_named: 0,
        };
        let failing: Vec<(usize, &Found)> = (0..self.n_cases)
            .filter_map(|case| Some((case, self.found.get(&(variant.name, case))?)))
            .collect();
        for &(case, _) in &failing {
            match &loaded[case].case {
                case if case.group == GENERATED => kills.generated += 1,
                case => kills.hand_written.push(case.id()),
            }
        }
        for held_out in [false, true] {
            let offers: Vec<&Offer> = failing
                .iter()
                .map(|(_, found)| &found.offers[usize::from(held_out)])
                .collect();
            let refuted = self.refuted(variant, &failing, held_out);
            let told = tally(&offers, &BTreeSet::new());
            let named = tally(&offers, &refuted);
            let causes = if held_out {
                kills.refuted_told = told.1.iter().filter(|n| refuted.contains(*n)).count();
                kills.refuted_named = named.1.iter().filter(|n| refuted.contains(*n)).count();
                &mut kills.held_out
            } else {
                &mut kills.causes
            };
            *causes = named.0;
        }
        kills
    }

    /// The misreadings offered to `variant`'s failures that its whole run refutes: each is a
    /// variant that would fail a case `variant` passes, or part from the reference before it on
    /// a case it fails, or where it does without explaining what it prints there.
    fn refuted(
        &self,
        variant: &Info,
        failing: &[(usize, &Found)],
        held_out: bool,
    ) -> BTreeSet<String> {
        let offered_at = |case: usize| {
            failing
                .iter()
                .find(|(at, _)| *at == case)
                .map(|(_, found)| &found.offers[usize::from(held_out)].misread)
        };
        let names: BTreeSet<&str> = failing
            .iter()
            .flat_map(|(_, found)| found.offers[usize::from(held_out)].misread.iter())
            .map(|(name, _)| name.as_str())
            .collect();
        let seen_whole = |name: &str| {
            failing
                .iter()
                .any(|(_, found)| found.offers[usize::from(held_out)].whole.contains(name))
        };
        names
            .into_iter()
            .filter(|name| {
                !seen_whole(name)
                    || (0..self.n_cases).any(|case| {
                        let start = |of: &str| self.found.get(&(of, case)).map(|f| f.start);
                        let Some(other) = MUTANTS.iter().find(|m| m.name == *name) else {
                            return false;
                        };
                        let explains = offered_at(case)
                            .is_some_and(|offers| offers.iter().any(|(n, _)| n == name));
                        crate::judge::contradicts(start(other.name), start(variant.name), explains)
                    })
            })
            .map(str::to_string)
            .collect()
    }
}

/// Counts one variant's failures by the cause a check names, the `refuted` misreadings left
/// out and ties settled as a check settles them; with the name chosen for each failure.
fn tally(offers: &[&Offer], refuted: &BTreeSet<String>) -> (Causes, Vec<String>) {
    let kept: Vec<Vec<&(String, Cause)>> = offers
        .iter()
        .map(|offer| {
            let misread: Vec<&(String, Cause)> = offer
                .misread
                .iter()
                .filter(|(name, _)| !refuted.contains(name))
                .collect();
            if misread.is_empty() {
                vec![&offer.fallback]
            } else {
                misread
            }
        })
        .collect();
    let names: Vec<Vec<&str>> = kept
        .iter()
        .map(|kept| kept.iter().map(|(name, _)| name.as_str()).collect())
        .collect();
    let chosen: Vec<&(String, Cause)> = kept
        .iter()
        .zip(crate::judge::settle_ties(&names))
        .map(|(kept, chosen)| kept[chosen])
        .collect();
    // The failures left to no misreading are grouped over the run, as a check groups them.
    let kinds: Vec<Option<Kind>> = offers
        .iter()
        .zip(&chosen)
        .map(
            |(offer, chosen)| match std::ptr::eq(*chosen, &offer.fallback) {
                true => offer.kind.clone(),
                false => None,
            },
        )
        .collect();
    let mut causes = Causes::new();
    let mut chosen_names = Vec::new();
    let groups = group_unexplained(&kinds);
    for (((name, cause), group), kind) in chosen.into_iter().zip(groups).zip(&kinds) {
        let (id, text) = match (group, kind) {
            (Some(group), Some(kind)) => unexplained_cause(kind.verdict, &group),
            _ => (cause.id.clone(), cause.text.clone()),
        };
        causes.entry(id).or_insert_with(|| (text, 0)).1 += 1;
        chosen_names.push(name.clone());
    }
    (causes, chosen_names)
}

/// A case that tells a variant apart from the reference.
struct Found {
    /// The byte of the expected output where the variant's output parts from it.
    start: usize,
    /// The causes a check could give the failure: with every misreading in the trace, and
    /// with the variant's own and its twins' left out.
    offers: [Offer; 2],
}

/// The causes a failure could be given: one per misreading that explains it equally well (a
/// check names the one most of the program's failures share), by the misreading's name; and
/// the cause where none holds, by the rule of the span at the difference.
struct Offer {
    misread: Vec<(String, Cause)>,
    /// The misreadings among them the failure follows to the end ([`RuleAt::whole`]).
    whole: BTreeSet<String>,
    fallback: (String, Cause),
    /// What the fallback is grouped by over the run, where no misreading fits.
    kind: Option<Kind>,
}

/// The names of the variant `name` and of the other variants of its rule: what is held out
/// to diagnose it as a bug nobody listed. Empty for a name no variant has.
pub fn twins(name: &str) -> Vec<String> {
    let Some(variant) = MUTANTS.iter().find(|m| m.name == name) else {
        return Vec::new();
    };
    MUTANTS
        .iter()
        .filter(|m| m.spec == variant.spec && m.rule == variant.rule)
        .map(|m| m.name.to_string())
        .collect()
}

/// Whether `case` tells `variant` apart from the reference: where, and the causes a check
/// could give the failure (see [`Found`]); `None` when the case passes.
fn kills_case(spec: &Spec, rules: Rules, variant: &Info, case: &Loaded) -> Option<Found> {
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
    judgement.grid = crate::tools::grid_of(spec.name);
    let start = judgement
        .difference
        .as_ref()
        .map_or(case.expected.len(), |d| d.expected_offset);
    let trace = case.trace.get_or_init(|| {
        crate::process::built_in_trace(&[spec.name.to_string()], &case.input)
            .map(|trace| trace.to_string())
            .unwrap_or_default()
    });
    // The trace without the misreadings of the variant's rule: as for a bug no variant
    // foresaw.
    let held_out = crate::judge::without(trace, &twins(variant.name));
    let offers =
        [trace.as_str(), held_out.as_str()].map(|trace| offer(&mut judgement, case, trace));
    Some(Found { start, offers })
}

/// The causes a check could give `judgement`, the failure of `case`, from `trace`.
fn offer(judgement: &mut Judgement, case: &Loaded, trace: &str) -> Offer {
    let found = match (&judgement.difference, &judgement.execution) {
        (Some(difference), Some(execution)) => crate::judge::from_trace_text(
            trace,
            &case.input,
            difference.telling_offset(),
            &execution.stdout,
        ),
        _ => None,
    };
    judgement.answers = found.as_ref().and_then(|l| l.command.clone());
    judgement.line_command = found.as_ref().and_then(|l| l.named.clone());
    let mut cause_of = |rule: Option<RuleAt>| {
        let name = rule.as_ref().map(|r| r.slug.clone()).unwrap_or_default();
        judgement.rule = rule;
        let cause = Cause {
            id: judgement.cause_id(),
            text: judgement.cause_text(),
        };
        (name, cause)
    };
    let Some(found) = found else {
        return Offer {
            misread: Vec::new(),
            whole: BTreeSet::new(),
            fallback: cause_of(None),
            kind: None,
        };
    };
    let whole = found
        .rule
        .iter()
        .chain(&found.tied)
        .filter(|rule| rule.misread && rule.whole)
        .map(|rule| rule.slug.clone())
        .collect();
    let misread = found
        .rule
        .into_iter()
        .chain(found.tied)
        .filter(|rule| rule.misread)
        .map(|rule| cause_of(Some(rule)))
        .collect();
    let fallback = cause_of(found.span);
    Offer {
        misread,
        whole,
        fallback,
        kind: judgement.unexplained_kind(),
    }
}

impl Report {
    pub fn survivors(&self) -> impl Iterator<Item = &Kills> {
        self.kills.iter().filter(|k| !k.killed())
    }

    /// The per-variant report, survivors last, ending with the tally line; `verbose`: each
    /// variant's causes too (`h`: held out, its own misreading and its twins' left out of the traces).
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
                    "  {:<40} {:>4} hand-written, {:>3} generated, {} causes, {} held out{first}",
                    kills.variant.name,
                    kills.hand_written.len(),
                    kills.generated,
                    kills.causes.len(),
                    kills.held_out.len()
                );
                if verbose {
                    for (id, (text, n)) in &kills.causes {
                        let _ = writeln!(out, "      {id} {n:>4}  {text}");
                    }
                    for (id, (text, n)) in &kills.held_out {
                        let _ = writeln!(out, "    h {id} {n:>4}  {text}");
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
