//! The class checked before it is graded: a mistake that would give every student the same
//! zero is said once, up front, as a usage error with the fix (exit status 2), before any case
//! runs. A `--run` program that is not there, a submissions folder with no submission in it,
//! one that looks like a single student's folder or an export wrapped in one more folder, and
//! an `--out` folder inside `--submissions` (the next grading would grade it as a student).

use std::ffi::OsString;
use std::path::Path;

use super::folder::Scan;
use super::options::Options;
use crate::error::Error;

/// Commands a `--run` usually starts with: what a mistyped first word is compared to.
const USUAL: &[&str] = &[
    "python3", "python", "pypy3", "java", "node", "bash", "sh", "mono", "dotnet", "ruby", "perl",
    "make",
];

/// Refuses a class that would be graded to a row of zeros by one mistake of the command line.
pub(super) fn check(options: &Options, scan: &Scan) -> Result<(), Error> {
    run_program(&options.run)?;
    out_folder(&options.out, &options.submissions)?;
    let root = &options.submissions;
    if scan.total == 0 {
        let why = match scan.skipped.first() {
            None => "it is empty".to_string(),
            Some((name, why)) => format!(
                "of its {} entries none is one (`{name}`: {why})",
                scan.skipped.len()
            ),
        };
        return Err(Error::Usage(format!(
            "--submissions `{}` holds no submission: {why}; give the folder that holds one \
             folder, archive (.zip, .tar.gz) or source file per student",
            root.display()
        )));
    }
    if scan.total == 1 {
        if let Some(source) = &scan.lone_source {
            return Err(Error::Usage(format!(
                "--submissions `{}` looks like one student's folder: its only submission is \
                 the file `{source}`; give the folder that holds one folder, archive or source \
                 file per student",
                root.display()
            )));
        }
        if let Some((inner, entries)) = wrapped(root, scan) {
            return Err(Error::Usage(format!(
                "--submissions `{}` holds one folder, `{inner}`, and {entries} entries in it \
                 look like submissions: an export wrapped in one more folder? Give \
                 `{}` instead",
                root.display(),
                root.join(&inner).display()
            )));
        }
    }
    Ok(())
}

/// A `--run` whose first word is a bare name (not a path into the submission) must be a
/// program on PATH; else no submission could run.
fn run_program(run: &[OsString]) -> Result<(), Error> {
    let Some(first) = run.first() else {
        return Ok(());
    };
    if Path::new(first).components().count() > 1 || crate::target::on_path(first) {
        return Ok(());
    }
    let typed = first.to_string_lossy();
    let near = USUAL
        .iter()
        .filter(|usual| crate::target::on_path(&OsString::from(usual)))
        .map(|usual| (strsim::damerau_levenshtein(&typed, usual), usual))
        .filter(|(distance, _)| *distance <= 2)
        .min();
    let hint = match near {
        Some((_, usual)) => format!(" (did you mean `{usual}`?)"),
        None => String::new(),
    };
    Err(Error::Usage(format!(
        "--run: `{typed}` is no program on PATH, so no submission could run{hint}; a program \
         in each submission's folder is named with a path (`./run.sh`)"
    )))
}

/// The results folder must not be one of the submissions (a grading's, or a similarity
/// report's).
pub fn out_folder(out: &Path, submissions: &Path) -> Result<(), Error> {
    // `--out` may not exist yet.
    let out_abs = crate::files::canonical_even_if_absent(out);
    match submissions.canonicalize() {
        Ok(root) if out_abs.starts_with(&root) => Err(Error::Usage(format!(
            "--out `{}` is inside --submissions `{}`: the next grading would take it for a \
             student; write the results elsewhere",
            out.display(),
            submissions.display()
        ))),
        _ => Ok(()),
    }
}

/// The one folder of `root`, and how many of its entries look like submissions (folders and
/// archives), where that is two or more and it holds no source or build file of its own.
fn wrapped(root: &Path, scan: &Scan) -> Option<(String, usize)> {
    let (id, Ok(folder)) = scan.found.first()? else {
        return None;
    };
    if !folder.starts_with(root) || !folder.is_dir() {
        return None;
    }
    let mut like_submissions = 0;
    for entry in std::fs::read_dir(folder).ok()?.flatten().take(10_000) {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() || crate::submission::archive_extension(&path).is_some() {
            like_submissions += 1;
        } else if crate::language::of_file(&path).is_some() || builds(&name) {
            return None;
        }
    }
    (like_submissions >= 2).then(|| (id.clone(), like_submissions))
}

/// Whether a file of this name builds a project (a student's folder, not a class's).
fn builds(name: &std::ffi::OsStr) -> bool {
    matches!(
        name.to_str(),
        Some("Makefile" | "makefile" | "CMakeLists.txt" | "pom.xml" | "build.gradle" | "build.sh")
    ) || name.to_string_lossy().ends_with(".csproj")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_interpreter_is_refused_with_the_one_meant() {
        if !crate::target::on_path(&OsString::from("python3")) {
            eprintln!("skipped: no python3 on PATH to be meant");
            return;
        }
        let err = run_program(&["pyhton3".into(), "connect.py".into()]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`pyhton3` is no program on PATH"), "{text}");
        assert!(text.contains("did you mean `python3`?"), "{text}");
        assert!(run_program(&["python3".into()]).is_ok());
        assert!(run_program(&["./run.sh".into()]).is_ok());
        assert!(run_program(&[]).is_ok());
    }

    #[test]
    fn results_inside_the_submissions_are_refused_even_before_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        assert!(out_folder(&class.join("results/round1"), &class).is_err());
        assert!(out_folder(&class, &class).is_err());
        assert!(out_folder(&dir.path().join("grades"), &class).is_ok());
    }
}
