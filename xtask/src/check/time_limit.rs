//! The time limit of a problem package that fixes none, set as verifyproblem sets it: the
//! slowest run of the package's accepted submissions, times `ac_to_time_limit` (legacy's
//! `time_multiplier`), rounded up to the time resolution.
//!
//! The accepted submissions run once per machine and package: the limit is remembered in the
//! harness's cache under a hash of the package's metadata, submissions and data listing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::Digest;

use crate::corpus::package::Package;
use crate::corpus::Suite;
use crate::error::Error;
use crate::judge::Run;

/// How long one case of an accepted submission may run while the limit is being found (the
/// format's own bound while the limit is unknown is five minutes).
pub(super) const PROBING: Duration = Duration::from_secs(60);

/// Checks the sources at a path (a copy of an accepted submission) with [`PROBING`] as the
/// time limit: the run, or `None` where it could not run.
pub(super) type Probe<'a> = &'a dyn Fn(PathBuf) -> Option<Run>;

/// `suite` with its time limit set, where it is a package with no fixed limit and the user
/// set none (`user_set`); a line for the user on how the limit was found. `probe` runs an
/// accepted submission.
pub(super) fn settle(
    suite: Suite,
    user_set: bool,
    probe: Probe,
) -> Result<(Suite, Option<String>), Error> {
    let Some(package) = suite.package.clone() else {
        return Ok((suite, None));
    };
    if package.meta.time_limit.is_some() || user_set {
        return Ok((suite, None));
    }
    let key = key(&package)?;
    let remembered = crate::files::cache_root().join("package-limits").join(&key);
    let (seconds, note) = match std::fs::read_to_string(&remembered)
        .ok()
        .and_then(|text| parse(&text))
    {
        Some(found) => found,
        None => {
            let found = slowest(&package, probe);
            let text = format!("{}\n{}\n", found.0, found.1);
            // A limit that could not be remembered is found again next time: no error.
            let _ = std::fs::create_dir_all(remembered.parent().unwrap_or(Path::new(".")));
            let _ = crate::files::write_atomically(&remembered, text.as_bytes());
            found
        }
    };
    let mut suite = suite;
    suite.file.timeout = seconds;
    suite.file.limits.cpu = crate::corpus::package::cpu_backstop(seconds);
    let note = format!("{}: time limit {seconds} s, {note}", suite.name);
    Ok((suite, Some(note)))
}

fn parse(text: &str) -> Option<(f64, String)> {
    let (seconds, note) = text.split_once('\n')?;
    Some((seconds.trim().parse().ok()?, note.trim().to_string()))
}

/// The limit from the accepted submissions' runs, and how it was found.
fn slowest(package: &Package, probe: Probe) -> (f64, String) {
    let mut slowest: Option<(Duration, String)> = None;
    let mut tried = Vec::new();
    for source in package.submissions("accepted") {
        let name = source
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Ok(copy) = crate::submission::copy_out(&source, "accepted submission") else {
            continue;
        };
        let Ok(language) = crate::language::recognise(&copy, &Default::default()) else {
            continue;
        };
        if !crate::target::on_path(&language.language.tool.clone().into()) {
            continue;
        }
        let Some(run) = probe(copy) else {
            continue;
        };
        if run.results.iter().any(|r| !r.judgement.verdict.passed()) {
            tried.push(format!("{name} failed a case"));
            continue;
        }
        let time = run
            .results
            .iter()
            .filter_map(|r| r.judgement.execution.as_ref().map(|e| e.cpu_time))
            .max()
            .unwrap_or_default();
        if slowest.as_ref().is_none_or(|(t, _)| time > *t) {
            slowest = Some((time, name));
        }
    }
    match slowest {
        Some((time, name)) => (
            package.meta.time_limit_from(time.as_secs_f64()),
            format!(
                "the slowest accepted submission ({name}: {:.2} s) times {}, as verifyproblem \
                 sets it (--timeout sets another)",
                time.as_secs_f64(),
                package.meta.ac_to_time_limit
            ),
        ),
        None => (
            crate::corpus::package::DEFAULT_SECONDS,
            format!(
                "since no accepted submission of the package ran here{} (--timeout sets \
                 another)",
                match tried.is_empty() {
                    true => String::new(),
                    false => format!(": {}", tried.join(", ")),
                }
            ),
        ),
    }
}

/// What the limit depends on: the metadata, the accepted submissions and the data's listing.
fn key(package: &Package) -> Result<String, Error> {
    let mut digest = sha2::Sha256::new();
    let yaml = package.dir.join("problem.yaml");
    digest.update(std::fs::read(&yaml).map_err(|err| Error::io(&yaml, err))?);
    for source in package.submissions("accepted") {
        for entry in walkdir::WalkDir::new(&source).sort_by_file_name() {
            let Ok(entry) = entry else { continue };
            digest.update(entry.path().as_os_str().as_encoded_bytes());
            if entry.file_type().is_file() {
                digest.update(std::fs::read(entry.path()).unwrap_or_default());
            }
        }
    }
    for case in &package.cases {
        for path in [&case.input, &case.answer] {
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            digest.update(path.as_os_str().as_encoded_bytes());
            digest.update(size.to_le_bytes());
        }
    }
    Ok(crate::files::to_hex(&digest.finalize()[..16]))
}
