//! The report files: JSON (schema fields), JUnit (parsed back), Gradescope (fields and scores).

use std::time::Duration;

use quick_junit::Report;
use xtask::check::check;

use crate::support::{options, Corpus, EXPECTED};

/// A corpus of two groups: `basic` (4 points, 1 of 2 cases passes) and `extra` (6 points, 1 of
/// 1 passes), checked with the fixture that prints the expected output of case 001.
fn run() -> (Corpus, xtask::run::Run) {
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
    let json: serde_json::Value = serde_json::from_str(&xtask::json::render(&run)).unwrap();
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
    let report = Report::deserialize_from_str(&xtask::junit::render(&run)).unwrap();
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
    let settings = xtask::gradescope::Settings {
        hidden: false,
        visibility: Some("after_published".into()),
    };
    let json: serde_json::Value =
        serde_json::from_str(&xtask::gradescope::render(&run, &settings)).unwrap();
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
    let hidden = xtask::gradescope::Settings {
        hidden: true,
        visibility: None,
    };
    let json: serde_json::Value =
        serde_json::from_str(&xtask::gradescope::render(&run, &hidden)).unwrap();
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
    let xml = xtask::junit::render(&run);
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
