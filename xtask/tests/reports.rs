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
fn gradescope_scores_each_group_by_the_fraction_that_passes() {
    let (_corpus, run) = run();
    let json: serde_json::Value = serde_json::from_str(&xtask::gradescope::render(&run)).unwrap();
    let tests = json["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2);
    assert_eq!(tests[0]["name"], "demo/basic");
    assert_eq!(
        (tests[0]["score"].as_f64(), tests[0]["max_score"].as_f64()),
        (Some(2.0), Some(4.0))
    );
    assert_eq!(tests[0]["status"], "failed");
    assert!(tests[0]["output"]
        .as_str()
        .unwrap()
        .contains("002-fails: wrong output"));
    assert_eq!(
        (tests[1]["score"].as_f64(), tests[1]["max_score"].as_f64()),
        (Some(6.0), Some(6.0))
    );
    let sum: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    assert_eq!(json["score"].as_f64(), Some(sum));
    assert_eq!(sum, 8.0);
}
