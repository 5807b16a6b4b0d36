//! The class's similarity report, for the instructor only: every pair of students ranked, the
//! kind of evidence behind each, and for the pairs at the top the code they share side by side
//! (file names, line numbers, the shared lines marked) and the wrong outputs they share beside
//! the expected ones. HTML (a page of its own, or a section of `grade --html`'s class report),
//! CSV and JSON. Nothing here reaches a student: neither the kit, nor a check's reports, nor
//! the Gradescope results hold any of it.

use std::collections::BTreeMap;

use maud::{html, Markup, PreEscaped};
use serde::Serialize;
use similarity::{Analysis, Fragment, Pair};

use super::html::{page, shown};
use crate::error::Error;

/// A wrong output's first difference, as the report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct WrongLine {
    pub line: Option<usize>,
    pub expected: Option<String>,
    pub actual: Option<String>,
}

/// What the report shows: the analysis, and what its pairs point at.
#[derive(Debug, Clone, Serialize)]
pub struct Similarity {
    pub analysis: Analysis,
    /// The text of each file a shown fragment is in, by (student, path).
    #[serde(skip)]
    pub sources: BTreeMap<(String, String), String>,
    /// Each student's wrong output of each case a shown pair shares, by (student, case).
    #[serde(skip)]
    pub wrong: BTreeMap<(String, String), WrongLine>,
    /// What was not measured, and why (no grading given, a file no parser read).
    pub notes: Vec<String>,
}

/// The pairs drawn in full, from the top of the ranking.
pub const SHOWN_PAIRS: usize = 25;
/// Rows of the ranking's table in the HTML (the CSV and JSON hold every pair).
const RANKED_ROWS: usize = 100;
/// Fragments drawn per pair.
const FRAGMENTS_SHOWN: usize = 6;
/// Lines of context drawn around a fragment.
const CONTEXT: u32 = 1;

const STYLE: &str = r#"
table.rank td, table.rank th { padding: .1em .7em .1em 0; text-align: left; }
section.pair { border: 1px solid #d3d9df; border-radius: 6px; padding: .8em 1em; margin: 1em 0; }
section.pair h3 { margin: 0 0 .3em; font-size: 1.05em; }
.side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.side > * { min-width: 0; } .side pre { overflow-x: auto; }
.side pre { margin: .3em 0; } .side .at { font-size: .85em; color: #5c6670; }
pre .shared { background: #fff1c2; } pre .no { color: #9aa4ae; user-select: none; }
table.mistakes td, table.mistakes th { padding: .1em .7em .1em 0; text-align: left; vertical-align: top; }
"#;

/// The report as a page of its own (`similar`'s `similarity.html`).
pub fn similarity_page(report: &Similarity) -> String {
    page(
        "gridjudge: similarity across the class",
        similarity_section(report),
    )
}

/// The report as a section, for the class report.
pub fn similarity_section(report: &Similarity) -> Markup {
    let analysis = &report.analysis;
    let flagged = analysis.flagged();
    html! {
        style { (PreEscaped(STYLE)) }
        h2 id="similarity" { "Similarity across the class (for the instructor only)" }
        p.muted {
            (analysis.students.len()) " submissions, " (analysis.pairs.len()) " pairs with anything in common, "
            span data-flagged=(flagged) { (flagged) " flagged" } ". Code: fingerprints of each file's tokens, names and literals set aside; "
            (analysis.left_out.base) " fingerprints of the starter code and " (analysis.left_out.common)
            " held by more than " (analysis.left_out.most_holders) " submissions who share little else left out ("
            (analysis.left_out.kept_for_a_group) " held by more kept: their holders are a group). Mistakes: the same wrong output on the same case, weighed by how few print it."
        }
        @for note in &report.notes { p.muted { (shown(note)) } }
        @for (n, ring) in analysis.clusters.iter().enumerate() {
            (ring_section(n + 1, ring))
        }
        table.rank {
            tr { th { "#" } th { "pair" } th { "score" } th { "code" } th { "mistakes" } th { "evidence" } }
            @for (rank, pair) in analysis.pairs.iter().take(RANKED_ROWS).enumerate() {
                tr data-left=(pair.left) data-right=(pair.right) data-evidence=(pair.evidence.words()) {
                    td { (rank + 1) }
                    td { @if rank < SHOWN_PAIRS { a href=(format!("#pair-{}", rank + 1)) { code { (pair.left) } " and " code { (pair.right) } } } @else { code { (pair.left) } " and " code { (pair.right) } } }
                    td { (format!("{:.2}", pair.score)) }
                    td { (format!("{:.2}", pair.code.as_ref().map_or(0.0, |c| c.score))) }
                    td { (format!("{:.2}", pair.behaviour.as_ref().map_or(0.0, |b| b.score))) }
                    td { (pair.evidence.words()) }
                }
            }
        }
        @for (rank, pair) in analysis.pairs.iter().take(SHOWN_PAIRS).enumerate() {
            (pair_section(report, rank + 1, pair))
        }
    }
}

/// A ring: its members, the source most of them share, and the lines of it most of them hold.
fn ring_section(n: usize, ring: &similarity::Cluster) -> Markup {
    let size = ring.members.len();
    html! {
        section.ring id=(format!("ring-{n}")) data-ring=(ring.members.join(" ")) data-source=(ring.source) {
            h3 { "Ring " (n) ": " (size) " students whose code is alike pair by pair" }
            p { "Members: " @for (i, member) in ring.members.iter().enumerate() { @if i > 0 { ", " } code { (member) } }
                ". The source most of them share: " code { (ring.source) } " (its code is the most alike to the others')." }
            p.muted { (ring.flagged_pairs) " of its " (size * (size - 1) / 2) " pairs flagged for their code; mean code score "
                (format!("{:.2}", ring.mean_score)) "." }
            @if !ring.core.is_empty() {
                p.muted { "Lines of " code { (ring.source) } " that at least half of the ring holds: "
                    @for (i, span) in ring.core.iter().enumerate() { @if i > 0 { ", " } (span.file) " " (span.first_line) "–" (span.last_line) } }
            }
        }
    }
}

fn pair_section(report: &Similarity, rank: usize, pair: &Pair) -> Markup {
    html! {
        section.pair id=(format!("pair-{rank}")) data-pair=(format!("{} {}", pair.left, pair.right)) {
            h3 { (rank) ". " code { (pair.left) } " and " code { (pair.right) } ": " (format!("{:.2}", pair.score)) " (" (pair.evidence.words()) ")" }
            @if let Some(code) = &pair.code {
                p.muted { "code " (format!("{:.2}", code.score)) ": " (format!("{:.0}%", code.left_covered * 100.0)) " of " (pair.left) "'s tokens and " (format!("{:.0}%", code.right_covered * 100.0)) " of " (pair.right) "'s are in runs both share" }
                @for fragment in code.fragments.iter().take(FRAGMENTS_SHOWN) {
                    div.side data-fragment-tokens=(fragment.tokens) {
                        (side(report, &pair.left, fragment, true))
                        (side(report, &pair.right, fragment, false))
                    }
                }
            }
            @if let Some(mistakes) = &pair.behaviour {
                p.muted { "mistakes " (format!("{:.2}", mistakes.score)) ": the same wrong output on " (mistakes.cases.len()) " case" (if mistakes.cases.len() == 1 { "" } else { "s" }) }
                table.mistakes {
                    tr { th { "case" } th { "printed by" } th { "line" } th { "expected" } th { "both printed" } }
                    @for case in &mistakes.cases {
                        @let wrong = report.wrong.get(&(pair.left.clone(), case.case.clone()));
                        tr data-case=(case.case) data-holders=(case.holders) {
                            td { code { (case.case) } }
                            td { (case.holders) " of " (report.analysis.students.len()) }
                            td { (wrong.and_then(|w| w.line).map(|l| l.to_string()).unwrap_or_default()) }
                            td { pre { (shown(wrong.and_then(|w| w.expected.as_deref()).unwrap_or("(nothing: past the end)"))) } }
                            td { pre { (shown(wrong.and_then(|w| w.actual.as_deref()).unwrap_or("(nothing: past the end)"))) } }
                        }
                    }
                }
            }
        }
    }
}

/// One side of a fragment: its file and lines, with a line of context each way.
fn side(report: &Similarity, student: &str, fragment: &Fragment, left: bool) -> Markup {
    let span = if left {
        &fragment.left
    } else {
        &fragment.right
    };
    let text = report
        .sources
        .get(&(student.to_string(), span.file.clone()))
        .map_or("", String::as_str);
    let first = span.first_line.saturating_sub(CONTEXT).max(1);
    let last = span.last_line + CONTEXT;
    html! {
        div {
            div.at { code { (student) "/" (span.file) } " lines " (span.first_line) "–" (span.last_line) }
            pre {
                @for (number, line) in text.lines().enumerate().map(|(k, l)| (k as u32 + 1, l)).filter(|(n, _)| (first..=last).contains(n)) {
                    @let inside = (span.first_line..=span.last_line).contains(&number);
                    span class=(if inside { "shared" } else { "" }) { span.no { (format!("{number:>4} ")) } (shown(line)) }
                    "\n"
                }
            }
        }
    }
}

/// Every pair as a CSV row, in the ranking's order.
pub fn similarity_csv(report: &Similarity) -> Result<Vec<u8>, Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let fail = |err: csv::Error| Error::Write(err.to_string());
    writer
        .write_record([
            "rank",
            "left",
            "right",
            "score",
            "evidence",
            "code",
            "left_covered",
            "right_covered",
            "mistakes",
            "shared_wrong_cases",
            "fewest_printing",
        ])
        .map_err(fail)?;
    for (rank, pair) in report.analysis.pairs.iter().enumerate() {
        let code = pair.code.as_ref();
        let mistakes = pair.behaviour.as_ref();
        writer
            .write_record([
                (rank + 1).to_string(),
                super::csv_text(&pair.left),
                super::csv_text(&pair.right),
                format!("{:.4}", pair.score),
                pair.evidence.words().to_string(),
                format!("{:.4}", code.map_or(0.0, |c| c.score)),
                format!("{:.4}", code.map_or(0.0, |c| c.left_covered)),
                format!("{:.4}", code.map_or(0.0, |c| c.right_covered)),
                format!("{:.4}", mistakes.map_or(0.0, |m| m.score)),
                mistakes.map_or(0, |m| m.cases.len()).to_string(),
                mistakes
                    .and_then(|m| m.cases.first())
                    .map(|c| c.holders.to_string())
                    .unwrap_or_default(),
            ])
            .map_err(fail)?;
    }
    writer
        .into_inner()
        .map_err(|err| Error::Write(err.to_string()))
}

/// The analysis as JSON: every pair with its scores, the fragments of the pairs at the top,
/// and what was not measured.
pub fn similarity_json(report: &Similarity) -> Result<String, Error> {
    serde_json::to_string_pretty(report).map_err(|err| Error::Write(err.to_string()))
}
