//! A regrade is an audit: when a grading writes where an earlier one did, every student whose
//! score moved is named with the old and new score and why (the submission changed, the corpus
//! or the grading settings changed, or the same submission and cases gave other verdicts:
//! nondeterminism or timing), the earlier gradebook is kept as a dated copy, and the list is
//! written to `regrade.json` for the class report. `grade --dry-run` says, per submission,
//! whether a grading would reuse its result or run it again, and why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::cache::{keys_of, previous_result, Keys, ResultFile};
use super::options::Options;
use crate::error::Error;
use crate::files::write_atomically;
use crate::report::{Change, Submission};

/// What changed since a result was graded.
enum Changed {
    Submission,
    /// The corpus or the settings (or, in an older result, whatever it was).
    Settings,
}

impl Changed {
    fn words(&self) -> &'static str {
        match self {
            Changed::Submission => "the submission changed",
            Changed::Settings => "the corpus or the grading settings changed",
        }
    }
}

/// What changed since `previous` was graded, under `keys`; `None`: nothing.
fn what_changed(previous: &ResultFile, keys: &Keys) -> Option<Changed> {
    if !previous.folder.is_empty() && previous.folder != keys.folder {
        Some(Changed::Submission)
    } else if previous.key != keys.combined {
        Some(Changed::Settings)
    } else {
        None
    }
}

/// Why a result of `previous` is not reused under `keys` (`None`: it is).
pub(super) fn rerun_reason(
    previous: Option<&ResultFile>,
    keys: &Keys,
    force: bool,
) -> Option<String> {
    let Some(previous) = previous else {
        return Some("not graded before".into());
    };
    match what_changed(previous, keys) {
        Some(what) => Some(what.words().into()),
        None => force.then(|| "--force".into()),
    }
}

/// The change of a student graded again, if the score moved.
pub(super) fn change(previous: &ResultFile, keys: &Keys, now: &Submission) -> Option<Change> {
    let old = &previous.submission;
    if old.score.to_bits() == now.score.to_bits() {
        return None;
    }
    let cases = case_changes(old, now);
    let why = match what_changed(previous, keys) {
        Some(what @ Changed::Submission) => what.words().to_string(),
        Some(what @ Changed::Settings) => format!("{}: {cases}", what.words()),
        None => format!(
            "the same submission and cases gave other verdicts (nondeterminism or timing): {cases}"
        ),
    };
    Some(Change {
        id: now.id.clone(),
        old_score: old.score,
        new_score: now.score,
        why,
    })
}

/// The cases added, removed, or with another verdict, in words (at most five named).
fn case_changes(old: &Submission, now: &Submission) -> String {
    let before: BTreeMap<&str, &str> = old
        .cases
        .iter()
        .map(|c| (c.id.as_str(), c.verdict.as_str()))
        .collect();
    let after: BTreeMap<&str, &str> = now
        .cases
        .iter()
        .map(|c| (c.id.as_str(), c.verdict.as_str()))
        .collect();
    let mut lines = Vec::new();
    for (id, verdict) in &after {
        match before.get(id) {
            None => lines.push(format!("{id} added ({verdict})")),
            Some(was) if was != verdict => lines.push(format!("{id}: {was} → {verdict}")),
            Some(_) => {}
        }
    }
    for id in before.keys().filter(|id| !after.contains_key(*id)) {
        lines.push(format!("{id} removed"));
    }
    if lines.is_empty() {
        return "no case's verdict changed".into();
    }
    let more = lines.len().saturating_sub(5);
    lines.truncate(5);
    if more > 0 {
        lines.push(format!("and {more} more"));
    }
    lines.join("; ")
}

/// Keeps the gradebook in `out`, before it is written again, as `grades-STAMP.json` and
/// `.csv`, STAMP the time it was written (UTC); the copy's path.
pub(super) fn keep_earlier(out: &Path) -> Result<Option<PathBuf>, Error> {
    let json = out.join("grades.json");
    let Ok(meta) = std::fs::metadata(&json) else {
        return Ok(None);
    };
    let stamp = meta
        .modified()
        .map(stamp)
        .unwrap_or_else(|_| "earlier".into());
    let mut kept = None;
    for ext in ["json", "csv"] {
        let from = out.join(format!("grades.{ext}"));
        let to = out.join(format!("grades-{stamp}.{ext}"));
        if from.is_file() && !to.exists() {
            let bytes = std::fs::read(&from).map_err(|err| Error::io(&from, err))?;
            write_atomically(&to, &bytes)?;
        }
        if ext == "json" {
            kept = Some(to);
        }
    }
    Ok(kept)
}

/// `2026-12-02T02-45-07Z` for `time`.
fn stamp(time: std::time::SystemTime) -> String {
    let seconds = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}-{:02}-{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Writes `regrade.json` into `out` (an empty list: no file).
pub(super) fn write(out: &Path, changes: &[Change]) -> Result<(), Error> {
    let path = out.join("regrade.json");
    if changes.is_empty() {
        let _ = std::fs::remove_file(&path);
        return Ok(());
    }
    let json =
        serde_json::to_string_pretty(changes).map_err(|err| Error::Write(err.to_string()))?;
    write_atomically(&path, (json + "\n").as_bytes())
}

/// The changes of the last regrade in `out`, for the class report.
pub(super) fn read(out: &Path) -> Vec<Change> {
    std::fs::read(out.join("regrade.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// `--dry-run`: per submission, what a grading would do (reuse, or run again and why).
pub(super) fn dry_run(
    options: &Options,
    suite: &crate::corpus::Suite,
    run_text: &str,
    run_key: u64,
    results_dir: &Path,
    found: &[super::folder::Found],
) -> Result<Vec<(String, String)>, Error> {
    found
        .iter()
        .map(|(id, entry)| {
            let dir = match entry {
                Ok(dir) => dir,
                Err(why) => return Ok((id.clone(), format!("a row of 0: {why}"))),
            };
            let keys = keys_of(run_key, dir)?;
            let previous = previous_result(results_dir, id, suite, run_text);
            let what = match rerun_reason(previous.as_ref(), &keys, options.force) {
                None => "reuse its result (nothing it depends on changed)".to_string(),
                Some(why) => format!("grade again: {why}"),
            };
            Ok((id.clone(), what))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_civil_times() {
        let at = |s: u64| stamp(std::time::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00-00-00Z");
        // 2026-12-02 02:45:07 UTC: 20,789 days and 9,907 seconds (as `date -u -d @…` says).
        assert_eq!(at(20_789 * 86_400 + 9_907), "2026-12-02T02-45-07Z");
        assert_eq!(at(951_782_400), "2000-02-29T00-00-00Z", "a leap day");
    }
}
