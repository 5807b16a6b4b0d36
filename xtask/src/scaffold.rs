//! `cargo xtask new NAME --reference CMD`: an instructor's own assignment, set up as a corpus
//! suite (`<corpus>/NAME/suite.toml` and its `handout/` group) that every task then takes with
//! `--cases <corpus>`.
//!
//! The suite's commands run in the suite's folder; files the user names relative to where they
//! typed the command are rewritten relative to that folder, so that the command keeps naming
//! the same file.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use crate::error::Error;
use crate::files::write_atomically;

/// What `new` is asked to make.
#[derive(Debug, Clone)]
pub struct Request {
    pub name: String,
    /// The corpus root the suite goes into.
    pub corpus: PathBuf,
    /// The instructor's solution, as typed in `dir`.
    pub reference: String,
    /// The generator, as typed in `dir`, `{seed}` among its words.
    pub generate: Option<String>,
    /// Where the user typed the commands.
    pub dir: PathBuf,
}

/// Creates the suite; returns its folder.
pub fn create(request: &Request) -> Result<PathBuf, Error> {
    let name = &request.name;
    let simple = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || !name.chars().all(simple) || name.starts_with('-') {
        return Err(Error::Usage(format!(
            "`{name}` is no assignment name: use letters, digits, `-` and `_`"
        )));
    }
    if let Some(generate) = &request.generate {
        if !generate.contains("{seed}") {
            return Err(Error::Usage(format!(
                "--generate `{generate}`: the command line has no `{{seed}}`, so every input \
                 would be the same"
            )));
        }
    }
    let folder = request.corpus.join(name);
    let suite_file = folder.join("suite.toml");
    if suite_file.exists() {
        return Err(Error::Usage(format!(
            "`{}` exists already: nothing was changed",
            suite_file.display()
        )));
    }
    let handout = folder.join("handout");
    std::fs::create_dir_all(&handout).map_err(|err| Error::io(&handout, err))?;
    let folder = folder
        .canonicalize()
        .map_err(|err| Error::io(&folder, err))?;
    let reference = rebase(&request.reference, &request.dir, &folder);
    let generate = request
        .generate
        .as_ref()
        .map(|line| rebase(line, &request.dir, &folder));
    write_atomically(
        &suite_file,
        suite_text(name, &reference, generate.as_deref()).as_bytes(),
    )?;
    Ok(folder)
}

/// The words of `line`, each one naming a file in `typed_in` rewritten to name it from `dir`.
fn rebase(line: &str, typed_in: &Path, dir: &Path) -> String {
    line.split_whitespace()
        .map(|word| {
            let path = Path::new(word);
            let in_dir = dir.join(path);
            match typed_in.join(path).canonicalize() {
                Ok(file) if path.is_relative() && !in_dir.exists() => relative(&file, dir)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_else(|| file.to_string_lossy().into_owned()),
                _ => word.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The files the suite's commands name that lie outside its `folder` (a graded program run in
/// a folder that holds one could read it; the corpus is hidden from every graded program).
pub fn outside(request: &Request, folder: &Path) -> Vec<String> {
    let lines = std::iter::once(&request.reference).chain(request.generate.as_ref());
    let folder = folder
        .canonicalize()
        .unwrap_or_else(|_| folder.to_path_buf());
    lines
        .flat_map(|line| line.split_whitespace())
        .filter(|word| {
            let path = Path::new(word);
            !folder.join(path).exists()
                && request
                    .dir
                    .join(path)
                    .canonicalize()
                    .is_ok_and(|file| file.is_file() && !file.starts_with(&folder))
        })
        .map(String::from)
        .collect()
}

/// `path` seen from `base` (both absolute, without `..`): `../solution.py`.
fn relative(path: &Path, base: &Path) -> Option<PathBuf> {
    let path: Vec<Component> = path.components().collect();
    let base: Vec<Component> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for part in &path[common..] {
        out.push(AsRef::<OsStr>::as_ref(part));
    }
    Some(out)
}

fn suite_text(name: &str, reference: &str, generate: Option<&str>) -> String {
    let quote = |text: &str| toml::Value::String(text.to_string()).to_string();
    let generate = match generate {
        Some(line) => format!("generate = {}", quote(line)),
        None => "# generate = \"python3 gen.py {seed}\"".to_string(),
    };
    format!(
        r#"# How gridjudge runs, compares and scores the cases of `{name}`.
# Your solution, as a command line run in this folder: it writes the expected outputs
# (`bless`) and judges random inputs (`gen`, `fuzz`). Students never see this folder.
reference = {reference}
# A generator of random inputs for `gen` and `fuzz`: it prints one input, the same one for the
# same seed, with `{{seed}}` replaced by a number.
{generate}
compare = "exact"          # or "ignore-trailing-spaces"
grade_exit_status = false  # whether a non-zero exit status fails a case whose output is right
timeout = 10.0             # seconds of CPU time per case

# Graded groups (folders beside this file, of NNN-name.in / .out pairs) and their points.
[groups]
handout = 10
generated = 10
found = 5

# Groups that are run and reported but never graded, with the reason.
[ungraded]
"#,
        reference = quote(reference),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_seen_from_another_folder() {
        let path = |p: &str| PathBuf::from(p);
        assert_eq!(
            relative(&path("/course/solution.py"), &path("/course/cases/wc")),
            Some(path("../../solution.py"))
        );
        assert_eq!(
            relative(&path("/course/cases/wc/gen.py"), &path("/course/cases/wc")),
            Some(path("gen.py"))
        );
    }

    #[test]
    fn a_new_suite_names_the_files_the_user_typed_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let course = dir.path().canonicalize().unwrap();
        std::fs::write(course.join("solution.py"), "").unwrap();
        let request = Request {
            name: "wc".into(),
            corpus: course.join("cases"),
            reference: "python3 solution.py".into(),
            generate: Some("python3 solution.py --gen {seed}".into()),
            dir: course.clone(),
        };
        let folder = create(&request).unwrap();
        assert!(folder.join("handout").is_dir());
        let text = std::fs::read_to_string(folder.join("suite.toml")).unwrap();
        assert!(
            text.contains("reference = \"python3 ../../solution.py\""),
            "{text}"
        );
        assert!(text.contains("generate = \"python3 ../../solution.py --gen {seed}\""));
        let suite = crate::corpus::find(&course.join("cases"), "wc").unwrap();
        assert!(!suite.is_built_in());
        let again = create(&request).unwrap_err().to_string();
        assert!(again.contains("exists already"), "{again}");
        let bad = Request {
            name: "../x".into(),
            ..request
        };
        assert!(create(&bad)
            .unwrap_err()
            .to_string()
            .contains("no assignment name"));
    }
}
