//! Inferring the spec of a program run without `--spec`: once each suite's handout cases have
//! run, the suite whose handout output the program's comes closest to is chosen.

use crate::corpus::Suite;
use crate::error::Error;
use crate::judge::CaseResult;

/// Below this closeness to every handout output, with no handout case passed, a program is for
/// none of the specs (a wrong prompt, CRLF line endings or a crash after a right start stay
/// far above it).
const UNLIKE: f64 = 0.5;

/// The suite whose handout output the program's came closest to, from `results` of each of
/// `tried` suites' handout cases (`suites`: every suite of the corpus, for the messages), and
/// the note that says so; an error when no suite has handout cases, none is close or two are
/// as close.
pub(super) fn choose(
    suites: &[Suite],
    tried: &[&Suite],
    results: &[CaseResult],
) -> Result<(Suite, String), Error> {
    let all_names = || {
        suites
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if tried.is_empty() {
        return Err(Error::Usage(format!(
            "no suite has `handout` cases to tell which spec the program is for: pass --spec \
             with one of: {}",
            all_names()
        )));
    }
    // How close the program came to each spec's handout output: passing cases count whole,
    // others by how much of the expected output they got right (a crash, by how far it got).
    let mut ranking: Vec<(&Suite, f64, usize, usize)> = tried
        .iter()
        .map(|suite| {
            let of_suite: Vec<&CaseResult> = results
                .iter()
                .filter(|r| r.case.spec == suite.name)
                .collect();
            let passed = of_suite
                .iter()
                .filter(|r| r.judgement.verdict.passed())
                .count();
            let closeness =
                of_suite.iter().map(|r| closeness(r)).sum::<f64>() / of_suite.len().max(1) as f64;
            (*suite, closeness, passed, of_suite.len())
        })
        .collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    // Passing nothing and far from every handout: a program for another assignment.
    if let Some((suite, closeness, 0, total)) = ranking.first() {
        if *closeness < UNLIKE {
            return Err(Error::Usage(format!(
                "no spec matches the program: its output is closest to {}'s handout output, \
                 and only {:.0}% alike (0/{total} handout cases pass); pass --spec to check it \
                 against one anyway (one of: {})",
                suite.name,
                closeness * 100.0,
                all_names()
            )));
        }
    }
    let clearly_ahead = match &ranking[..] {
        [_] => true,
        [best, second, ..] => best.1 > second.1 + 0.02,
        [] => false,
    };
    if let (true, Some((suite, _, passed, total))) = (clearly_ahead, ranking.first()) {
        let note = format!(
            "spec: {}, closest to its handout output ({passed}/{total} handout cases pass); \
             --spec to choose",
            suite.name
        );
        return Ok(((*suite).clone(), note));
    }
    let choices: Vec<String> = ranking
        .iter()
        .map(|(suite, closeness, _, _)| format!("{} ({:.0}% alike)", suite.name, closeness * 100.0))
        .collect();
    Err(Error::Usage(format!(
        "the program's output is as close to more than one spec's handout output ({}): pass \
         --spec with one of: {}",
        choices.join(", "),
        all_names()
    )))
}

/// How close a case's output came to the expected one, from 0 to 1: 1 for a pass, else the
/// mean of the share of the output that matches the expected text (a program that crashed after
/// a right beginning scores high there) and the share of the expected text it matched, over a
/// bounded part of each side.
fn closeness(result: &CaseResult) -> f64 {
    if result.judgement.verdict.passed() {
        return 1.0;
    }
    let Some(execution) = &result.judgement.execution else {
        return 0.0;
    };
    let bound =
        |bytes: &[u8]| String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]).into_owned();
    let (expected, actual) = (bound(&result.judgement.expected), bound(&execution.stdout));
    if actual.is_empty() || expected.is_empty() {
        return 0.0;
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_chars(expected.as_str(), actual.as_str());
    let matched: usize = diff
        .ops()
        .iter()
        .filter(|op| op.tag() == similar::DiffTag::Equal)
        .map(|op| op.old_range().len())
        .sum();
    let (actual_len, expected_len) = (actual.chars().count(), expected.chars().count());
    let precision = matched as f64 / actual_len as f64;
    let recall = matched as f64 / expected_len as f64;
    (precision + recall) / 2.0 * 0.99
}
