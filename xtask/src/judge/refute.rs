//! Refuting misreadings: a misreading names a cause only if it agrees with the whole run.
//!
//! A case's trace offers the misreadings that print what the program printed where it parted
//! from the reference. Each explains the failing case it is offered on, but a misreading is a
//! claim about every case: the program behaves like that wrong variant of the reference. The
//! claim is refuted by one case where the variant would part from the reference and the program
//! does not (it passes), or parts from it before the program does (the program printed the
//! reference's bytes there), or parts where the program does but prints something else there;
//! and a misreading the program follows only for the line where they part, and to the end on
//! no case, is a coincidence of lines, not the program's reading.
//! A refuted misreading is named nowhere in the run; a failure left with none is keyed by its
//! kind of difference, each case saying its section of the handout ([`super::family`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::locate::RuleAt;
use super::outcome::{CaseResult, Judgement, Verdict};
use crate::corpus::{Rules, Suite};

/// Whether one case refutes a misreading. `variant`: the byte of the expected output where the
/// misreading's variant parts from the reference (`None`: it prints the same); `program`:
/// where the program's output does (`None`: it passes); `explains`: the misreading is one the
/// case's trace offers for what the program printed there.
pub fn contradicts(variant: Option<usize>, program: Option<usize>, explains: bool) -> bool {
    match (variant, program) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(variant), Some(program)) => variant < program || (variant == program && !explains),
    }
}

/// Where the program's output parts from the expected one, as far as the case tells: `Some(None)`
/// where its output is right (it passed, or only its exit status was wrong), `Some(Some(byte))`
/// at a difference, `None` where the case says nothing (not run, not judged, a hidden case's
/// bytes, no output compared).
pub(super) fn program_start(judgement: &Judgement) -> Option<Option<usize>> {
    if judgement.verdict.passed() {
        return Some(None);
    }
    match (&judgement.difference, judgement.verdict) {
        (Some(difference), _) => Some(Some(difference.expected_offset)),
        (None, Verdict::ExitStatus) => Some(None),
        _ => None,
    }
}

/// Where the output of the variant named `name` parts from `reference`, the expected output
/// (compared as the suite compares): `None` where it would pass.
pub fn variant_start(rules: Rules, reference: &[u8], output: Vec<u8>, ok: bool) -> Option<usize> {
    let exit = crate::process::Exit::Code(if ok { 0 } else { 1 });
    let execution =
        crate::process::Execution::finished(exit, output, b"the variant stopped\n".to_vec());
    let judgement = super::judge(
        rules,
        reference.to_vec(),
        execution,
        std::time::Duration::from_secs(1),
    );
    if judgement.verdict.passed() {
        return None;
    }
    Some(
        judgement
            .difference
            .map_or(reference.len(), |d| d.expected_offset),
    )
}

/// The misreadings a failure is offered: its rule and ties that are misreadings.
fn offered_rules(judgement: &Judgement) -> impl Iterator<Item = &RuleAt> {
    judgement
        .rule
        .iter()
        .chain(&judgement.tied)
        .filter(|rule| rule.misread)
}

/// The names of the misreadings a failure is offered.
fn offered(judgement: &Judgement) -> impl Iterator<Item = &str> {
    offered_rules(judgement).map(|rule| rule.slug.as_str())
}

/// Removes from every failure of one program's run the misreadings the run refutes, for the
/// suites of built-in specs among `suites`. Only the misreadings offered somewhere are tried,
/// each on the graded cases of its spec until one refutes it; a variant runs in this process
/// where the harness holds the reference, else its account is read from the trace beside the
/// case (the student kit's).
pub fn refute_run(suites: &[Suite], results: &mut [CaseResult]) {
    for suite in suites.iter().filter(|suite| suite.is_built_in()) {
        let of_suite = |r: &&CaseResult| r.case.spec == suite.name && r.case.graded;
        let names: BTreeSet<String> = results
            .iter()
            .filter(of_suite)
            .flat_map(|r| offered(&r.judgement).map(str::to_string))
            .collect();
        if names.is_empty() {
            continue;
        }
        let mut accounts = Accounts::new(suite);
        let mut refuted = BTreeSet::new();
        for name in &names {
            let refutes = |result: &CaseResult| {
                let Some(program) = program_start(&result.judgement) else {
                    return false;
                };
                let Some(variant) = accounts.start(&result.case.input, name) else {
                    return false;
                };
                let explains = offered(&result.judgement).any(|offer| offer == name);
                contradicts(variant, program, explains)
            };
            // A misreading the program follows to the end on no case is a coincidence of
            // lines, not the program's reading.
            let never_whole = !results
                .iter()
                .filter(of_suite)
                .any(|r| offered_rules(&r.judgement).any(|rule| rule.slug == *name && rule.whole));
            if never_whole || results.iter().filter(of_suite).any(refutes) {
                refuted.insert(name.clone());
            }
        }
        for result in results.iter_mut().filter(|r| r.case.spec == suite.name) {
            forget(&mut result.judgement, &refuted);
        }
    }
}

/// Drops the `refuted` misreadings from a failure: the first one left is named, else the rule
/// of the span that holds the difference.
pub fn forget(judgement: &mut Judgement, refuted: &BTreeSet<String>) {
    let kept = |rule: &RuleAt| !(rule.misread && refuted.contains(&rule.slug));
    if judgement.rule.as_ref().is_some_and(kept) {
        judgement.tied.retain(kept);
        return;
    }
    judgement.tied.retain(kept);
    judgement.rule = if judgement.tied.is_empty() {
        judgement.span.clone()
    } else {
        Some(judgement.tied.remove(0))
    };
}

/// What the variants do on the cases of one suite. Each case's input (and, in process, the
/// reference's output on it) is read once, whichever misreadings are tried on it.
struct Accounts<'a> {
    suite: &'a Suite,
    /// By input file: its bytes and the reference's output in this process (none in the
    /// student kit), or nothing where the input cannot be read.
    cases: BTreeMap<std::path::PathBuf, Option<Read>>,
}

/// A case's input, and the reference's output on it where this process can make it.
type Read = (Vec<u8>, Option<Vec<u8>>);

impl<'a> Accounts<'a> {
    fn new(suite: &'a Suite) -> Accounts<'a> {
        Accounts {
            suite,
            cases: BTreeMap::new(),
        }
    }

    /// Where the variant `name` parts from the reference on the case whose input is `input`:
    /// run in this process against the reference's output, else read from the trace beside the
    /// case; `None` where nothing says.
    fn start(&mut self, input: &Path, name: &str) -> Option<Option<usize>> {
        let suite = self.suite;
        let case = self
            .cases
            .entry(input.to_path_buf())
            .or_insert_with(|| {
                let bytes = std::fs::read(input).ok()?;
                let reference = reference_output(suite, &bytes);
                Some((bytes, reference))
            })
            .as_ref()?;
        match case {
            (bytes, Some(reference)) => in_process(suite, name, bytes, reference),
            (_, None) => {
                let trace = std::fs::read_to_string(input.with_extension("trace")).ok()?;
                Some(from_trace(&trace, name))
            }
        }
    }
}

/// Where a trace says the variant `name` parts from the reference (its `? START END NAME ...`
/// line), `None` where it lists no such line: the variant prints what the reference prints.
pub(super) fn from_trace(trace: &str, name: &str) -> Option<usize> {
    trace.lines().find_map(|line| {
        let mut words = line.strip_prefix("? ")?.split(' ');
        let start = words.next()?.parse().ok()?;
        (words.nth(1)? == name).then_some(start)
    })
}

/// The reference's output on `input`, made in this process; none without the reference (the
/// student kit).
#[cfg(feature = "reference")]
fn reference_output(suite: &Suite, input: &[u8]) -> Option<Vec<u8>> {
    let spec = spec_of(suite)?;
    Some(gridjudge::driver::run_bytes(spec, input).0)
}

#[cfg(feature = "reference")]
fn spec_of(suite: &Suite) -> Option<&'static gridjudge::spec::Spec> {
    let args = suite.file.args.as_deref().unwrap_or_default();
    args.iter().find_map(|arg| gridjudge::spec::find(arg))
}

/// The variant run in this process, against the reference's output.
#[cfg(feature = "reference")]
fn in_process(suite: &Suite, name: &str, input: &[u8], reference: &[u8]) -> Option<Option<usize>> {
    let (output, ok) = gridjudge::misread::run_variant(spec_of(suite)?, name, input)?;
    Some(variant_start(suite.rules(), reference, output, ok))
}

#[cfg(not(feature = "reference"))]
fn reference_output(_: &Suite, _: &[u8]) -> Option<Vec<u8>> {
    None
}

#[cfg(not(feature = "reference"))]
fn in_process(_: &Suite, _: &str, _: &[u8], _: &[u8]) -> Option<Option<usize>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misreading_is_refuted_by_a_pass_an_earlier_part_or_another_print() {
        // The variant prints what the reference prints: nothing to refute.
        assert!(!contradicts(None, None, false));
        assert!(!contradicts(None, Some(3), false));
        // The program passes where the variant would fail.
        assert!(contradicts(Some(10), None, false));
        // The variant would part before the program does.
        assert!(contradicts(Some(4), Some(10), false));
        // Both part at one byte: it holds only where it explains what the program printed.
        assert!(!contradicts(Some(10), Some(10), true));
        assert!(contradicts(Some(10), Some(10), false));
        // The program parts first: the case does not test the misreading.
        assert!(!contradicts(Some(12), Some(10), false));
    }

    #[test]
    fn a_trace_says_where_each_listed_variant_parts() {
        let trace = "0 0\n? 10 13 go-stone-liberties 2032 0 each stone\n\
                     ? 7 9 go-diagonal-liberties 20 0 diagonals\n1 30\n";
        assert_eq!(from_trace(trace, "go-stone-liberties"), Some(10));
        assert_eq!(from_trace(trace, "go-diagonal-liberties"), Some(7));
        assert_eq!(from_trace(trace, "go-skips-i"), None);
    }

    fn rule(slug: &str, misread: bool) -> RuleAt {
        RuleAt {
            slug: slug.into(),
            words: String::new(),
            section: String::new(),
            misread,
            whole: false,
        }
    }

    #[test]
    fn a_failure_left_with_no_misreading_is_named_by_its_span() {
        let mut judgement = Judgement::skipped(Vec::new());
        judgement.rule = Some(rule("a", true));
        judgement.tied = vec![rule("b", true), rule("c", true)];
        judgement.span = Some(rule("13-horizontal", false));
        let refuted: BTreeSet<String> = ["a".to_string(), "b".into()].into();
        forget(&mut judgement, &refuted);
        assert_eq!(judgement.rule, Some(rule("c", true)));
        assert!(judgement.tied.is_empty());
        forget(&mut judgement, &["c".to_string()].into());
        assert_eq!(judgement.rule, Some(rule("13-horizontal", false)));
        // A misreading not refuted stays, with its ties that hold.
        let mut judgement = Judgement::skipped(Vec::new());
        judgement.rule = Some(rule("a", true));
        judgement.tied = vec![rule("b", true)];
        forget(&mut judgement, &["b".to_string()].into());
        assert_eq!(judgement.rule, Some(rule("a", true)));
        assert!(judgement.tied.is_empty());
    }
}
