//! HTML reports: `check --html FILE` (one card per cause of failure, the expected and the actual
//! board drawn side by side where they part) and `grade --html` (the class at a glance).
//!
//! Each is one self-contained file: inline CSS and SVG, no script, nothing from the network, so
//! it reads offline and travels as an email attachment. Every value goes through maud, which
//! escapes it; what a target printed is also shown with its control characters as their
//! Unicode pictures and invalid UTF-8 as U+FFFD. The numbers a test checks are in `data-`
//! attributes.

use std::collections::BTreeMap;
use std::ops::Range;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::gradebook::{Change, Grades, Submission};
use crate::judge::Run;
use crate::judge::{CaseResult, Verdict};

const STYLE: &str = r#"
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #1d232a; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 1.8em; }
.muted { color: #5c6670; } code, pre, .grid { font-family: ui-monospace, Menlo, Consolas, monospace; }
.card, .cluster, details.submission { border: 1px solid #d3d9df; border-radius: 6px; padding: .8em 1em; margin: 1em 0; background: #fff; }
.card h3, .cluster h3 { margin: 0 0 .3em; font-size: 1.05em; }
.verdict { font-weight: 600; color: #b42318; } .pass { color: #067647; }
.boards { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; margin: .6em 0; }
.board figcaption { font-size: .85em; color: #5c6670; margin-bottom: .2em; }
table.grid { border-collapse: collapse; font-size: 13px; }
table.grid td { width: 1ch; min-width: .75em; height: 1.25em; padding: 0 1px; text-align: center; border: 1px solid #eef1f4; white-space: pre; }
table.grid td.space { color: #c3cad1; } table.grid td.none { background: #f4f5f7; }
table.grid td.eol { color: #9aa4ae; border: none; }
table.grid td.d { background: #fde2e1; color: #b42318; font-weight: 700; outline: 1px solid #f04438; }
table.grid tr.at td:first-child { box-shadow: inset 3px 0 #f04438; }
pre { background: #f6f8fa; padding: .6em .8em; overflow-x: auto; font-size: 13px; border-radius: 4px; }
summary { cursor: pointer; } .ids { font-size: .85em; color: #5c6670; word-break: break-word; }
table.groups td, table.groups th { padding: .1em .8em .1em 0; text-align: left; }
svg text { font: 12px system-ui, sans-serif; fill: #1d232a; }
"#;

/// A whole page around `body`.
pub(super) fn page(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    }
    .into_string()
}

/// Text as shown: control characters (but newline and tab) as their Unicode pictures, so that
/// nothing a target printed acts on the page.
pub(super) fn shown(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
            '\u{7f}' => '\u{2421}',
            c => c,
        })
        .collect()
}

/// Text that may carry the terminal report's colours, without them, shown.
fn plain(text: &str) -> String {
    shown(&anstream::adapter::strip_str(text).to_string())
}

/// A line that only rules off a display (`----`).
fn is_rule(line: &str) -> bool {
    let line = line.trim();
    line.len() >= 3 && line.chars().all(|c| c == '-' || c == '=')
}

/// Lines drawn before and after the first difference when its display is longer than both
/// together: a board and a half of Connect Four above it, the rest of its board below.
const WINDOW: (usize, usize) = (12, 6);

/// The displays of an output, as ranges of its lines: runs of lines ended by a blank line (not
/// in the display) or by a rule line (in it).
pub(super) fn displays(lines: &[&str]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut start = None;
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            if let Some(s) = start.take() {
                found.push(s..k);
            }
            continue;
        }
        let s = *start.get_or_insert(k);
        if is_rule(line) {
            found.push(s..k + 1);
            start = None;
        }
    }
    if let Some(s) = start {
        found.push(s..lines.len());
    }
    found
}

/// A board drawn as a grid of characters; cells that differ from `other` are marked, spaces
/// and line ends made visible, and row `at` (if in it) flagged.
fn grid(lines: &[&str], other: &[&str], at: Option<usize>) -> Markup {
    let rows = lines.len().max(other.len());
    html! {
        table.grid {
            @for r in 0..rows {
                @let mine: Vec<char> = lines.get(r).map(|l| l.chars().collect()).unwrap_or_default();
                @let theirs: Vec<char> = other.get(r).map(|l| l.chars().collect()).unwrap_or_default();
                tr class=[(at == Some(r)).then_some("at")] {
                    @for c in 0..mine.len().max(theirs.len()) {
                        @let cell = mine.get(c).copied();
                        @let differs = cell != theirs.get(c).copied();
                        @let class = match (cell, differs) {
                            (None, true) => "none d",
                            (None, false) => "none",
                            (Some(' '), true) => "space d",
                            (Some(' '), false) => "space",
                            (Some(_), true) => "d",
                            (Some(_), false) => "",
                        };
                        td class=(class) {
                            @match cell {
                                Some(' ') => "·",
                                Some('\r') => "␍",
                                Some(c) => (shown(&c.to_string())),
                                None => "",
                            }
                        }
                    }
                    @if lines.get(r).is_some() { td.eol { "↵" } }
                }
            }
        }
    }
}

/// The lines of an output, as text (a final newline ends the last line, it starts none).
fn lines_of(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// The boards of a failing case: the display where the outputs part, expected and actual side
/// by side, with the displays before it to step through. `None` when the output is no board
/// (a message, a prompt) or was cut too far to draw.
fn boards(result: &CaseResult) -> Option<Markup> {
    let judgement = &result.judgement;
    let (difference, execution) = (
        judgement.difference.as_ref()?,
        judgement.execution.as_ref()?,
    );
    let expected_text = String::from_utf8_lossy(&judgement.expected);
    let actual_text = String::from_utf8_lossy(&execution.stdout);
    let (expected, actual) = (lines_of(&expected_text), lines_of(&actual_text));
    let at = difference.line.checked_sub(1)?;
    // The actual output is kept whole only up to 64 KiB: draw only where the kept text is the
    // text the difference was found in.
    let starts = |line: Option<&&str>, shown: &Option<String>| match (line, shown) {
        (Some(line), Some(shown)) => {
            let kept = shown.split(" … ").next().unwrap_or(shown);
            line.trim_end_matches('\r')
                .starts_with(kept.trim_end_matches('\r'))
        }
        (None, None) => true,
        _ => false,
    };
    if !starts(actual.get(at), &difference.actual_line)
        || !starts(expected.get(at), &difference.expected_line)
    {
        return None;
    }
    let all = displays(&expected);
    let index = all
        .iter()
        .position(|range| range.contains(&at) || range.start > at)
        .unwrap_or(all.len().checked_sub(1)?);
    let mut range = all[index].clone();
    // One line is no board: the text diff says it better.
    if range.len() < 2 {
        return None;
    }
    // A display that is a whole transcript (Connect Four prints its boards without a blank
    // line between them): the lines around the difference.
    if range.len() > WINDOW.0 + WINDOW.1 {
        range = range.start.max(at.saturating_sub(WINDOW.0))..range.end.min(at + WINDOW.1);
    }
    let actual_range = range.start.min(actual.len())..range.end.min(actual.len());
    let (mine, theirs) = (&expected[range.clone()], &actual[actual_range]);
    let row = at.checked_sub(range.start);
    let before = &all[..index];
    Some(html! {
        @if let Some(previous) = before.last() {
            details.before open {
                summary { "the display before, the same on both sides" }
                div.boards { figure.board { (grid(&expected[previous.clone()], &expected[previous.clone()], None)) } }
            }
        }
        div.boards {
            figure.board {
                figcaption { "expected (lines " (range.start + 1) "–" (range.end) ")" }
                (grid(mine, theirs, row))
            }
            figure.board {
                figcaption { "got" }
                (grid(theirs, mine, row))
            }
        }
        @if before.len() > 1 {
            details.steps {
                summary { "step through the " (before.len()) " displays before the difference" }
                @for (k, shown_range) in before.iter().enumerate() {
                    figure.board {
                        figcaption { "display " (k + 1) }
                        (grid(&expected[shown_range.clone()], &expected[shown_range.clone()], None))
                    }
                }
            }
        }
    })
}

/// The card of one failing case: what, where, the boards, the diff and the end of stderr.
fn card(result: &CaseResult, also: &[String]) -> Markup {
    let judgement = &result.judgement;
    let stderr_tail = crate::judge::stderr_tail(judgement).map_or_else(Vec::new, |t| t.lines);
    let drawn = boards(result);
    html! {
        section.card data-case=(result.case.id()) {
            h3 { code { (result.case.id()) } " " span.verdict { (judgement.verdict.to_string()) } }
            p data-cause=(judgement.cause_id()) { code { "[" (judgement.cause_id()) "]" } " " (shown(&judgement.cause_text())) }
            @if let Some(detail) = &judgement.detail { p.muted { (shown(detail)) } }
            @if let (Some(difference), Some(location)) = (&judgement.difference, &judgement.location) {
                p { "The outputs part at line " (difference.line) ", column " (difference.column) ", " (shown(location)) "." }
            }
            @if result.case.hidden { p.muted { "A hidden case: only its verdict is shown." } }
            @if let Some(boards) = &drawn { (boards) }
            @if let Some(diff) = &judgement.diff {
                details open[drawn.is_none()] {
                    summary { "the text diff" }
                    pre.diff { (plain(diff)) }
                }
            }
            @if !stderr_tail.is_empty() {
                details open[judgement.verdict == Verdict::RuntimeError] {
                    summary { "stderr (last lines)" }
                    pre { (shown(&stderr_tail.join("\n"))) }
                }
            }
            @if !also.is_empty() {
                p.ids { "The same cause in " (also.len()) " more: " (also.join(", ")) }
            }
        }
    }
}

/// `check --html`: the run's totals, then the cards of each cause of failure (its examples),
/// with the other cases of that cause named under them.
pub fn check_report(run: &Run) -> String {
    let totals = run.totals();
    let causes = &run.summaries.causes;
    let body = html! {
        h1 { "gridjudge: " (shown(&run.target)) }
        p.muted data-passed=(totals.passed) data-failed=(totals.failed) {
            (totals.passed) " passed, " (totals.failed) " failed"
            @if totals.skipped > 0 { ", " (totals.skipped) " skipped" }
            " · " (run.results.len()) " cases in " (format!("{:.1}", run.elapsed.as_secs_f64())) " s"
        }
        table.groups {
            tr { th { "group" } th { "passed" } th { "score" } }
            @for group in run.group_scores() {
                tr { td { (group.group) } td { (group.passed) " / " (group.cases.len()) } td { (format!("{:.2}", group.score())) " / " (group.points) } }
            }
        }
        @if causes.is_empty() { p.pass { "Every case passes." } }
        @for cause in causes {
            @let results: Vec<&CaseResult> = run.cases_of(cause).collect();
            @let also: Vec<String> = results[cause.examples..].iter().map(|r| r.case.id()).collect();
            @for (k, result) in results[..cause.examples].iter().enumerate() {
                (card(result, if k + 1 == cause.examples { &also } else { &[] }))
            }
        }
    };
    page(&format!("gridjudge: {}", run.target), body)
}

/// The causes a submission fails by, as (id, words), sorted by id: its cluster's key is the
/// ids. A submission that could not be graded is its reason's.
fn failing_causes(submission: &Submission) -> Vec<(String, String)> {
    if let Some(error) = &submission.error {
        return vec![("-".into(), format!("not graded: {error}"))];
    }
    let mut causes: Vec<(String, String)> = submission
        .cases
        .iter()
        .filter(|c| c.verdict != "pass" && c.verdict != "skipped")
        .map(|c| {
            let words = c.cause.clone().unwrap_or_else(|| c.verdict.clone());
            (c.cause_id.clone().unwrap_or_else(|| words.clone()), words)
        })
        .collect();
    causes.sort();
    causes.dedup_by(|a, b| a.0 == b.0);
    causes
}

/// A cluster's heading: its causes' ids and words, cut to fit under 120 characters (the
/// causes are listed whole below it).
pub(super) fn cluster_heading(size: usize, causes: &[(String, String)]) -> String {
    let members = if size == 1 {
        "submission"
    } else {
        "submissions"
    };
    let head = format!("{size} {members}: ");
    if causes.is_empty() {
        return format!("{head}every case passes");
    }
    let text = causes
        .iter()
        .map(|(id, words)| format!("[{id}] {words}"))
        .collect::<Vec<_>>()
        .join("; ");
    let room = 118 - head.chars().count();
    match text.chars().count() > room {
        true => format!("{head}{}…", text.chars().take(room - 1).collect::<String>()),
        false => format!("{head}{text}"),
    }
}

/// The histogram of scores: ten bins of a tenth of the maximum each, the last one closed.
pub(super) fn histogram(grades: &Grades) -> [usize; 10] {
    let mut bins = [0; 10];
    for submission in &grades.submissions {
        let share = if grades.max_score > 0.0 {
            submission.score / grades.max_score
        } else {
            0.0
        };
        bins[((share * 10.0).floor() as usize).min(9)] += 1;
    }
    bins
}

/// Each group's pass rate across the class: the mean share of its points a submission got.
pub(super) fn pass_rates(grades: &Grades) -> Vec<(String, f64)> {
    let n = grades.submissions.len().max(1) as f64;
    grades
        .groups
        .iter()
        .map(|(group, points)| {
            let got: f64 = grades
                .submissions
                .iter()
                .map(|s| {
                    s.groups.get(group).copied().unwrap_or(0.0) / points.max(f64::MIN_POSITIVE)
                })
                .sum();
            (group.clone(), got / n)
        })
        .collect()
}

/// A cluster of the class: its causes (id, words) and its submissions.
pub(super) type Cluster<'a> = (Vec<(String, String)>, Vec<&'a Submission>);

/// Submissions grouped by the set of cause ids they fail by, largest group first (ties by
/// key), each with its causes (id, words).
pub(super) fn clusters(grades: &Grades) -> Vec<Cluster<'_>> {
    let mut by_key: BTreeMap<Vec<String>, Cluster> = BTreeMap::new();
    for submission in &grades.submissions {
        let causes = failing_causes(submission);
        let ids: Vec<String> = causes.iter().map(|(id, _)| id.clone()).collect();
        by_key
            .entry(ids)
            .or_insert_with(|| (causes, Vec::new()))
            .1
            .push(submission);
    }
    let mut clusters: Vec<_> = by_key.into_values().collect();
    clusters.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    clusters
}

/// `grade --html`: the score distribution, each group's pass rate, the clusters of submissions
/// by what they fail, and one collapsed section per submission. `blocks(id)` gives a
/// submission's failing case blocks (case id to text), as its result file keeps them;
/// `similarity`, the instructor's similarity section, comes last.
pub fn class_report(
    grades: &Grades,
    changes: &[Change],
    blocks: &dyn Fn(&str) -> BTreeMap<String, String>,
    similarity: Option<Markup>,
) -> String {
    let bins = histogram(grades);
    let tallest = bins.iter().copied().max().unwrap_or(0).max(1);
    let rates = pass_rates(grades);
    let clusters = clusters(grades);
    let (width, height) = (560.0, 160.0);
    let bar = width / 10.0;
    let body = html! {
        h1 { "gridjudge: " (grades.spec) ", " (grades.submissions.len()) " submissions" }
        p.muted { "run as " code { (shown(&grades.run)) } " · out of " (format!("{:.2}", grades.max_score)) " points" }
        @if !changes.is_empty() {
            h2 { "Scores this regrade moved" }
            table.changes {
                tr { th { "student" } th { "before" } th { "now" } th { "why" } }
                @for change in changes {
                    tr data-student=(change.id) {
                        td { code { (change.id) } }
                        td { (format!("{:.2}", change.old_score)) }
                        td { (format!("{:.2}", change.new_score)) }
                        td { (shown(&change.why)) }
                    }
                }
            }
        }
        h2 { "Scores" }
        // 18 px above the bars for the tallest one's count.
        svg width=(width) height=(height + 48.0) role="img" aria-label="histogram of scores" {
            @for (k, count) in bins.iter().enumerate() {
                @let h = height * *count as f64 / tallest as f64;
                rect data-bin=(k) data-count=(count) x=(k as f64 * bar + 2.0) y=(18.0 + height - h) width=(bar - 4.0) height=(h) fill="#4e79a7" {}
                text x=(k as f64 * bar + bar / 2.0) y=(18.0 + height - h - 4.0) text-anchor="middle" { (count) }
                text x=(k as f64 * bar + bar / 2.0) y=(18.0 + height + 16.0) text-anchor="middle" { (k * 10) "–" (if k == 9 { 100 } else { k * 10 + 9 }) "%" }
            }
        }
        h2 { "Pass rate per group" }
        svg width=(width) height=(rates.len() as f64 * 22.0 + 4.0) role="img" aria-label="pass rate per group" {
            @for (k, (group, rate)) in rates.iter().enumerate() {
                @let y = k as f64 * 22.0;
                text x="0" y=(y + 15.0) { (group) }
                rect data-group=(group) data-pass-rate=(format!("{rate:.6}")) x="190" y=(y + 3.0) width=(300.0 * rate) height="15" fill=(if *rate < 0.5 { "#e15759" } else { "#59a14f" }) {}
                rect x="190" y=(y + 3.0) width="300" height="15" fill="none" stroke="#d3d9df" {}
                text x="498" y=(y + 15.0) { (format!("{:.0}%", rate * 100.0)) }
            }
        }
        h2 { "What the class fails by" }
        @for (causes, members) in &clusters {
            @let first = members[0];
            @let first_blocks = blocks(&first.id);
            @let representative = first.cases.iter().find(|c| first_blocks.contains_key(&c.id));
            section.cluster data-cluster-size=(members.len()) {
                h3 { (shown(&cluster_heading(members.len(), causes))) }
                @if causes.len() > 1 {
                    ul { @for (id, words) in causes { li { code { "[" (id) "]" } " " (shown(words)) } } }
                }
                @if let Some(case) = representative {
                    p.muted { "for example " code { (first.id) } ", " code { (case.id) } ":" }
                    pre { (plain(&first_blocks[&case.id])) }
                }
                p.ids { @for (k, member) in members.iter().enumerate() { @if k > 0 { ", " } (member.id) } }
            }
        }
        h2 { "Submissions" }
        @for submission in &grades.submissions {
            details.submission data-id=(submission.id) data-score=(format!("{:.6}", submission.score)) {
                summary { code { (submission.id) } " — " (format!("{:.2}", submission.score)) " / " (format!("{:.2}", grades.max_score)) }
                @if let Some(error) = &submission.error { p.verdict { "could not run: " (shown(error)) } }
                table.groups {
                    @for (group, points) in &grades.groups {
                        tr { td { (group) } td { (format!("{:.2}", submission.groups.get(group).copied().unwrap_or(0.0))) " / " (points) } }
                    }
                }
                @let own = blocks(&submission.id);
                @for case in submission.cases.iter().filter(|c| c.verdict != "pass" && c.verdict != "skipped") {
                    p { code { (case.id) } " " span.verdict { (case.verdict) } " " (shown(case.cause.as_deref().unwrap_or(""))) }
                    @if let Some(block) = own.get(&case.id) { pre { (plain(block)) } }
                }
            }
        }
        @if let Some(similarity) = similarity { (similarity) }
    };
    page(&format!("gridjudge: {} class report", grades.spec), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_end_at_blank_and_rule_lines() {
        let lines = [
            "|   |", "|XYZ|", " --- ", "|   |", " --- ", "", "Title", " 1 ..", "", "",
        ];
        assert_eq!(displays(&lines), vec![0..3, 3..5, 6..8]);
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(
            shown("a\u{1b}[31mb\u{7}\tc\n"),
            "a\u{241b}[31mb\u{2407}\tc\n"
        );
    }
}
