//! Which cases of a suite a check runs: its shard, whether unspecified cases count, its
//! `--filter`; and what a check that selects none says.

use std::collections::BTreeSet;

use super::Options;
use crate::corpus::Case;
use crate::error::Error;

/// The cases of a suite (as `discover` found them) that `options` select; the counts left out
/// by the filter and for being ungraded.
pub fn select(options: &Options, mut cases: Vec<Case>) -> (Vec<Case>, usize, usize) {
    cases.retain(|case| options.shard.is_none_or(|shard| shard.contains(&case.id())));
    let before = cases.len();
    cases.retain(|case| case.graded || options.include_unspecified);
    let n_ungraded_left_out = before - cases.len();
    let before = cases.len();
    cases.retain(|case| {
        options.filter.as_ref().is_none_or(|pattern| {
            case.group.contains(pattern.as_str()) || case.id().contains(pattern.as_str())
        })
    });
    let n_filtered = before - cases.len();
    (cases, n_filtered, n_ungraded_left_out)
}

/// A check that selects no case (a gate that runs nothing must not pass): a `--filter` that
/// matched none is told the group it may have meant, among `groups`.
pub(super) fn nothing_to_run(
    options: &Options,
    n_filtered: usize,
    groups: &BTreeSet<String>,
) -> Error {
    Error::Usage(match (&options.filter, n_filtered) {
        (Some(pattern), 1..) => format!(
            "--filter `{pattern}` matches no case{}",
            crate::error::did_you_mean(pattern, groups.iter().map(String::as_str))
        ),
        _ => format!(
            "no case to run in `{}` (an empty corpus, or every case left out)",
            options.cases_root.display()
        ),
    })
}
