//! Helpers shared by the rule tests: run a spec on an input and compare with a hand-written
//! expectation, showing both texts on failure.

use gridjudge::driver::{run_bytes, Finished};
use gridjudge::spec;

/// Runs `spec_name` on `input`; the output and how the run ended.
pub fn run(spec_name: &str, input: &str) -> (String, Finished) {
    let spec = spec::find(spec_name).expect("known spec");
    let (output, result) = run_bytes(spec, input.as_bytes());
    let finished = result.unwrap_or_else(|err| panic!("input rejected: {err}\n{input}"));
    (String::from_utf8(output).expect("UTF-8 output"), finished)
}

/// The output must be `expected` and the input must stay within the graded domain.
#[track_caller]
pub fn check(spec_name: &str, input: &str, expected: &str) {
    let (output, finished) = run(spec_name, input);
    assert_eq!(
        output, expected,
        "\n--- input ---\n{input}\n--- got ---\n{output}\n--- expected ---\n{expected}"
    );
    assert_eq!(
        finished.unspecified, None,
        "graded input touched unspecified behaviour"
    );
}

/// The output must be `expected`, and the input must touch unspecified behaviour whose
/// description contains `what`.
#[track_caller]
pub fn check_unspecified(spec_name: &str, input: &str, expected: &str, what: &str) {
    let (output, finished) = run(spec_name, input);
    assert_eq!(
        output, expected,
        "\n--- input ---\n{input}\n--- got ---\n{output}\n--- expected ---\n{expected}"
    );
    let (_, description) = finished
        .unspecified
        .unwrap_or_else(|| panic!("expected unspecified behaviour `{what}`"));
    assert!(description.contains(what), "{description:?} lacks {what:?}");
}
