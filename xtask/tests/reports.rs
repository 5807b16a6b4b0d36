//! The report files: JSON (schema fields), JUnit (parsed back), Gradescope (fields and scores).

use std::time::Duration;

use crate::support::check;
use quick_junit::Report;

use crate::support::{options, Corpus, EXPECTED};

/// A corpus of two groups: `basic` (4 points, 1 of 2 cases passes) and `extra` (6 points, 1 of
/// 1 passes), checked with the fixture that prints the expected output of case 001.
fn run() -> (Corpus, xtask::judge::Run) {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-fails", b"x\n", b"different\n");
    let suite = corpus.root().join("demo");
    std::fs::create_dir(suite.join("extra")).unwrap();
    std::fs::write(suite.join("extra/001-passes.in"), "x\n").unwrap();
    std::fs::write(suite.join("extra/001-passes.out"), EXPECTED).unwrap();
    let toml = std::fs::read_to_string(suite.join("suite.toml")).unwrap() + "extra = 6\n";
    std::fs::write(suite.join("suite.toml"), toml).unwrap();
    let run = check(&options(&corpus, "right", Duration::from_secs(5))).unwrap();
    (corpus, run)
}

#[test]
fn json_lists_every_case_with_its_verdict_and_first_difference() {
    let (_corpus, run) = run();
    let json: serde_json::Value = serde_json::from_str(&xtask::report::json_report(&run)).unwrap();
    assert_eq!(json["schema"], 1);
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(2), Some(1))
    );
    let cases = json["cases"].as_array().unwrap();
    let ids: Vec<&str> = cases.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "demo/basic/001-case",
            "demo/basic/002-fails",
            "demo/extra/001-passes"
        ]
    );
    let failing = &cases[1];
    assert_eq!(failing["verdict"], "wrong-output");
    assert_eq!(failing["group"], "basic");
    assert_eq!(failing["graded"], true);
    assert_eq!(failing["first_difference"]["line"], 1);
    assert_eq!(failing["first_difference"]["column"], 1);
    assert!(failing["elapsed_ms"].as_f64().unwrap() >= 0.0);
    assert_eq!(cases[0]["first_difference"], serde_json::Value::Null);
}

#[test]
fn junit_parses_back_with_one_testcase_per_case() {
    let (_corpus, run) = run();
    let report = Report::deserialize_from_str(&xtask::report::junit_report(&run)).unwrap();
    assert_eq!((report.tests, report.failures), (3, 1));
    let suite = &report.test_suites[0];
    assert_eq!(suite.name.as_str(), "demo");
    let classnames: Vec<_> = suite
        .test_cases
        .iter()
        .map(|c| {
            (
                c.classname.as_ref().unwrap().to_string(),
                c.name.to_string(),
            )
        })
        .collect();
    assert_eq!(
        classnames,
        [
            ("demo.basic".to_string(), "001-case".to_string()),
            ("demo.basic".to_string(), "002-fails".to_string()),
            ("demo.extra".to_string(), "001-passes".to_string()),
        ]
    );
}

#[test]
fn gradescope_has_one_test_per_case_with_what_a_student_needs() {
    let (_corpus, run) = run();
    let settings = xtask::report::Settings {
        hidden: false,
        visibility: Some("after_published".into()),
    };
    let json: serde_json::Value =
        serde_json::from_str(&xtask::report::gradescope_report(&run, &settings)).unwrap();
    let tests = json["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["basic/001-case", "basic/002-fails", "extra/001-passes"]
    );
    let scores: Vec<(f64, f64)> = tests
        .iter()
        .map(|t| {
            (
                t["score"].as_f64().unwrap(),
                t["max_score"].as_f64().unwrap(),
            )
        })
        .collect();
    // basic's 4 points over its 2 cases, extra's 6 on its one.
    assert_eq!(scores, [(2.0, 2.0), (0.0, 2.0), (6.0, 6.0)]);
    assert_eq!(tests[1]["status"], "failed");
    assert_eq!(tests[1]["visibility"], "after_published");
    let output = tests[1]["output"].as_str().unwrap();
    for part in [
        "wrong output",
        "first difference: line 1, column 1",
        "expected: `different`",
        "got: `The Stones`",
    ] {
        assert!(output.contains(part), "{part} in {output}");
    }
    assert_eq!(json["score"].as_f64(), Some(8.0));
    // A hidden corpus shows no expected text.
    let hidden = xtask::report::Settings {
        hidden: true,
        visibility: None,
    };
    let json: serde_json::Value =
        serde_json::from_str(&xtask::report::gradescope_report(&run, &hidden)).unwrap();
    let output = json["tests"][1]["output"].as_str().unwrap();
    assert!(
        !output.contains("expected:") && output.contains("got:"),
        "{output}"
    );
    assert!(json["tests"][1].get("visibility").is_none());
}

#[test]
fn a_junit_failure_carries_the_case_block() {
    let (_corpus, run) = run();
    let xml = xtask::report::junit_report(&run);
    let report = Report::deserialize_from_str(&xml).unwrap();
    let failing = &report.test_suites[0].test_cases[1];
    let description = match &failing.status {
        quick_junit::TestCaseStatus::NonSuccess { description, .. } => {
            description.as_ref().unwrap().to_string()
        }
        other => panic!("{other:?}"),
    };
    for part in [
        "FAIL demo/basic/002-fails: wrong output",
        "first difference",
        "--- expected",
        "+++ got",
    ] {
        assert!(description.contains(part), "{part} in {description}");
    }
}

/// The Markdown job summary, parsed back with a CommonMark parser (tables on, as GitHub
/// renders them): a heading, the totals, a table of groups with their counts, and an ordered
/// list with one item per cause naming its first case and its first difference.
#[test]
fn the_markdown_summary_reads_as_a_heading_a_table_and_a_list_of_causes() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let (_corpus, run) = run();
    let markdown = xtask::report::markdown(&run);
    let mut headings = Vec::new();
    let mut table_cells: Vec<String> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    let (mut in_heading, mut in_cell, mut in_item) = (false, false, false);
    for event in Parser::new_ext(&markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                headings.push(String::new());
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                table_cells.push(String::new());
            }
            Event::End(TagEnd::TableCell) => in_cell = false,
            Event::Start(Tag::Item) => {
                in_item = true;
                items.push(String::new());
            }
            Event::End(TagEnd::Item) => in_item = false,
            Event::Text(text) | Event::Code(text) => {
                let target = if in_heading {
                    headings.last_mut()
                } else if in_cell {
                    table_cells.last_mut()
                } else if in_item {
                    items.last_mut()
                } else {
                    None
                };
                if let Some(target) = target {
                    target.push_str(&text);
                }
            }
            _ => {}
        }
    }
    assert_eq!(headings.len(), 2, "{markdown}");
    assert!(headings[0].starts_with("gridjudge: "), "{headings:?}");
    assert_eq!(headings[1], "Causes");
    assert!(markdown.contains("**2 passed, 1 failed**"), "{markdown}");
    assert_eq!(
        table_cells,
        [
            "group",
            "passed",
            "failed",
            "demo/basic",
            "1",
            "1",
            "demo/extra",
            "1",
            "0"
        ],
        "{markdown}"
    );
    assert_eq!(items.len(), 1, "{markdown}");
    assert!(
        items[0].contains("demo/basic/002-fails") && items[0].contains("line 1, column 1"),
        "{items:?}"
    );
}

/// On GitHub Actions a check appends its summary to the job summary and prints one `::error`
/// annotation per cause, at the first case's input file, named relative to the workspace
/// (GitHub attaches no other).
#[test]
fn on_github_actions_a_check_writes_the_job_summary_and_annotations() {
    let corpus = Corpus::new(b"x\n", true);
    corpus.add("002-fails", b"x\n", b"different\n");
    let summary = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(summary.path(), "earlier step\n").unwrap();
    let output = assert_cmd::Command::cargo_bin("xtask")
        .unwrap()
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary.path())
        .env("GITHUB_WORKSPACE", corpus.root())
        .args(["check", "--spec", "demo", "--no-sandbox", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(crate::support::reference())
        .arg("--")
        .arg(crate::support::fixture())
        .arg("right")
        .arg(corpus.expected_path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    // The title carries the cause's id and words, which quote no case's input.
    let title = errors[0].split("title=").nth(1).unwrap_or_default();
    let id = title
        .strip_prefix("gridjudge [")
        .and_then(|rest| rest.split_once(']'))
        .map(|(id, _)| id)
        .unwrap_or_default();
    assert!(
        errors[0].starts_with("::error file=demo/basic/002-fails.in,title=")
            && id.len() == 6
            && title.contains("%3A wrong output")
            && !title.contains("`x`"),
        "{}",
        errors[0]
    );
    let written = std::fs::read_to_string(summary.path()).unwrap();
    assert!(
        written.starts_with("earlier step\n## gridjudge: "),
        "{written}"
    );
}
