//! `--junit FILE`: JUnit XML for CI dashboards, one testcase per case, classname `spec.group`.
//! A failure's body is the case's block as the terminal shows it: diff, first difference and
//! stderr, bounded and escaped.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::judge::Run;
use crate::judge::Verdict;

/// The JUnit XML report of `run`.
pub fn junit_report(run: &Run) -> String {
    let mut report = Report::new("gridjudge");
    for suite in &run.suites {
        let mut test_suite = TestSuite::new(suite.name.as_str());
        for result in run.results.iter().filter(|r| r.case.spec == suite.name) {
            let status = match result.judgement.verdict {
                Verdict::Pass => TestCaseStatus::success(),
                Verdict::Skipped => TestCaseStatus::skipped(),
                _ => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status.set_message(format!(
                        "[{}] {}",
                        result.judgement.cause_id(),
                        result.judgement.cause_text()
                    ));
                    status.set_type(result.judgement.verdict.to_string());
                    // The case's whole block, as the terminal shows it (without colour): the
                    // diff, the first difference and the stderr, each bounded.
                    let block = super::message::case_block(
                        &result.case.id(),
                        result.case.graded,
                        &result.judgement,
                    );
                    let description = anstream::adapter::strip_str(&block).to_string();
                    status.set_description(description);
                    status
                }
            };
            let mut test_case = TestCase::new(result.case.name.as_str(), status);
            test_case.set_classname(format!("{}.{}", result.case.spec, result.case.group));
            test_case.set_time(result.judgement.elapsed);
            test_suite.add_test_case(test_case);
        }
        report.add_test_suite(test_suite);
    }
    report.to_string().unwrap_or_default()
}
