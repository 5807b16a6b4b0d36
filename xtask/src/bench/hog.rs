//! `cargo xtask bench --hog`: what a submission of 64 busy processes costs its class. Two
//! students of a small echo suite are graded with `--jobs 2` and a 2 s CPU limit, as the
//! reproduction of the attack has it: an honest one who needs 1.2 s of CPU a case beside a
//! second honest one, then beside the hog (it forks 64 children that spin, and spins itself).
//! The two gradings alternate, three times each; the report gives their medians, the ratio
//! (the bar is 1.5x) and what the hog's and the honest student's cases ended as.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::figures::median;
use crate::check::Options as CheckOptions;
use crate::error::Error;

/// Cases of the echo suite, each student runs them all.
const CASES: usize = 5;
const REPEATS: usize = 3;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |err| Error::io(path, err)
}

/// The echo suite: `CASES` one-line cases whose expected output is their input.
fn suite(root: &Path) -> Result<PathBuf, Error> {
    let cases = root.join("cases");
    let group = cases.join("echo/alpha");
    std::fs::create_dir_all(&group).map_err(io(&group))?;
    for k in 1..=CASES {
        for ext in ["in", "out"] {
            let path = group.join(format!("00{k}-line.{ext}"));
            std::fs::write(&path, format!("case {k}\n")).map_err(io(&path))?;
        }
    }
    let toml = cases.join("echo/suite.toml");
    std::fs::write(
        &toml,
        "args = []\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 2.0\n\
         [groups]\nalpha = 10\n",
    )
    .map_err(io(&toml))?;
    Ok(cases)
}

/// A class folder of students `modes` (the fixture in each mode), linked to `fixture`.
fn class(root: &Path, name: &str, fixture: &Path, modes: &[&str]) -> Result<PathBuf, Error> {
    let dir = root.join(name);
    for (k, mode) in modes.iter().enumerate() {
        let student = dir.join(format!("s{k:02}"));
        std::fs::create_dir_all(&student).map_err(io(&student))?;
        let solution = student.join("solution");
        std::fs::hard_link(fixture, &solution)
            .or_else(|_| std::fs::copy(fixture, &solution).map(drop))
            .map_err(io(&solution))?;
        let path = student.join("mode");
        std::fs::write(&path, mode).map_err(io(&path))?;
    }
    Ok(dir)
}

/// Grades both classes in turn; the report.
pub(super) fn hog(base: &CheckOptions) -> Result<String, Error> {
    let built = crate::workspace::build_release("xtask", &["fixture"])?;
    let root = tempfile::Builder::new()
        .prefix("gridjudge-hog-")
        .tempdir()
        .map_err(|err| Error::Measure(err.to_string()))?;
    let root = root.path();
    // The targets run as another user, who must be able to read their folders.
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).map_err(io(root))?;
    let fixture = root.join("fixture");
    std::fs::copy(&built[0], &fixture).map_err(io(&fixture))?;
    let cases = suite(root)?;
    let quiet = class(root, "quiet", &fixture, &["burn-long", "burn-long"])?;
    let hogged = class(root, "hogged", &fixture, &["hog", "burn-long"])?;
    let grade = |submissions: &Path,
                 out: &str|
     -> Result<(Duration, crate::report::Grades), Error> {
        let check = CheckOptions {
            cases_root: cases.clone(),
            jobs: 2,
            timeout: Some(Duration::from_secs(2)),
            ..base.clone()
        };
        let mut options = crate::grade::Options::new(check, "echo", submissions, root.join(out))?;
        options.run = vec!["./solution".into(), "by-folder".into()];
        options.force = true;
        let start = Instant::now();
        let summary = crate::grade::grade(&options, &|_| {})?;
        Ok((start.elapsed(), summary.grades))
    };
    let (mut without, mut with) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..REPEATS {
        without.push(grade(&quiet, "out-quiet")?.0);
        let (time, grades) = grade(&hogged, "out-hogged")?;
        with.push(time);
        last = Some(grades);
    }
    let (without, with) = (median(without), median(with));
    let verdicts = |id: &str| {
        last.as_ref()
            .and_then(|grades| grades.submissions.iter().find(|row| row.id == id))
            .map(|row| {
                let mut counts: Vec<String> = row
                    .verdicts
                    .iter()
                    .filter(|(_, n)| **n > 0)
                    .map(|(verdict, n)| format!("{n} {verdict}"))
                    .collect();
                counts.sort();
                counts.join(", ")
            })
            .unwrap_or_default()
    };
    Ok(format!(
        "a submission of 64 busy processes beside a classmate who needs 1.2 s of CPU a case \
         ({CASES} cases each, --jobs 2, a 2 s CPU limit; medians of {REPEATS}):\n\
         the class with the hog {with:.2} s, with a second honest student instead {without:.2} s: \
         {ratio:.2}x (bar: 1.5x)\n\
         the hog's cases: {hog}; the classmate's: {honest}\n",
        with = with.as_secs_f64(),
        without = without.as_secs_f64(),
        ratio = with.as_secs_f64() / without.as_secs_f64(),
        hog = verdicts("s00"),
        honest = verdicts("s01"),
    ))
}
