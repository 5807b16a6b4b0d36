//! Finding cases: `<suite>/<group>/<NNN-what>.in` with its `.out` beside it, or, for a hidden
//! case of the student kit, its `.hidden` (salted hashes of the expected output, see
//! [`crate::hidden`]).
//!
//! Cases come back sorted by path, the order every report uses.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::suite::Suite;
use crate::error::Error;

/// One stdin / expected-stdout pair.
#[derive(Debug, Clone)]
pub struct Case {
    /// The suite's name (its spec).
    pub spec: String,
    pub group: String,
    /// The file stem, e.g. `003-long-run`.
    pub name: String,
    pub input: PathBuf,
    /// The `.out` file, or the `.hidden` file of a hidden case.
    pub expected: PathBuf,
    pub graded: bool,
    /// The expected output is known only by its hashes: reports show nothing derived from the
    /// input or the output.
    pub hidden: bool,
}

impl Case {
    /// `spec/group/name`: how reports name a case.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.spec, self.group, self.name)
    }
}

/// The cases of `suite`, sorted. Fails on a group the suite file does not know or an `.in`
/// without its `.out`.
pub fn discover(suite: &Suite) -> Result<Vec<Case>, Error> {
    if let Some(package) = &suite.package {
        return Ok(package
            .cases
            .iter()
            .map(|case| Case {
                spec: suite.name.clone(),
                group: case.group.clone(),
                name: case.name.clone(),
                input: case.input.clone(),
                expected: case.answer.clone(),
                graded: true,
                hidden: false,
            })
            .collect());
    }
    let mut cases = Vec::new();
    for (group, is_dir) in listing(&suite.dir)? {
        let dir = suite.dir.join(&group);
        if !is_dir {
            continue;
        }
        let group = group.to_string_lossy().into_owned();
        let Some(graded) = suite.is_graded(&group) else {
            return Err(Error::corpus(
                &dir,
                format!(
                    "group `{group}` is not listed in `{}`",
                    suite.dir.join("suite.toml").display()
                ),
            ));
        };
        // Whether an `.out` is beside an `.in` is read from the listing, not asked of the file
        // system once per case.
        let files = listing(&dir)?;
        let listed: std::collections::HashSet<&[u8]> = files
            .iter()
            .filter(|(_, is_dir)| !is_dir)
            .map(|(name, _)| name.as_bytes())
            .collect();
        for (file, _) in files.iter().filter(|(_, is_dir)| !is_dir) {
            let Some(stem) = file.as_bytes().strip_suffix(b".in") else {
                continue;
            };
            // The `.out` when there is one, else the `.hidden`; neither is asked of the file
            // system (a case costs no system call).
            let beside = [(&b".out"[..], false), (&b".hidden"[..], true)]
                .into_iter()
                .find_map(|(ext, hidden)| {
                    let name = [stem, ext].concat();
                    listed
                        .contains(name.as_slice())
                        .then(|| (dir.join(std::ffi::OsStr::from_bytes(&name)), hidden))
                });
            let Some((expected, hidden)) = beside else {
                return Err(Error::corpus(&dir.join(file), "has no `.out` beside it"));
            };
            cases.push(Case {
                spec: suite.name.clone(),
                group: group.clone(),
                name: String::from_utf8_lossy(stem).into_owned(),
                input: dir.join(file),
                expected,
                graded,
                hidden,
            });
        }
    }
    Ok(cases)
}

/// The entries of `dir` sorted by name, each with whether it is a folder (a link is not).
fn listing(dir: &Path) -> Result<Vec<(std::ffi::OsString, bool)>, Error> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|err| Error::io(dir, err))? {
        let entry = entry.map_err(|err| Error::io(dir, err))?;
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        entries.push((entry.file_name(), is_dir));
    }
    entries.sort_unstable();
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A corpus with one suite `demo` (groups `a`, graded, and `z`, ungraded) holding `files`.
    fn corpus(files: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let suite = root.path().join("demo");
        std::fs::create_dir_all(&suite).unwrap();
        std::fs::write(
            suite.join("suite.toml"),
            "args = []\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 2.0\n\
             [groups]\na = 1\n[ungraded]\nz = \"not graded\"\n",
        )
        .unwrap();
        for file in files {
            let path = suite.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x\n").unwrap();
        }
        root
    }

    fn found(root: &tempfile::TempDir) -> Result<Vec<Case>, Error> {
        discover(&crate::corpus::find(root.path(), "demo").unwrap())
    }

    #[test]
    fn cases_come_sorted_with_their_group_s_grading_and_hidden_ones_by_their_hashes() {
        let root = corpus(&[
            "z/001-odd.in",
            "z/001-odd.out",
            "a/010-b.in",
            "a/010-b.out",
            "a/002-a.in",
            "a/002-a.hidden",
            "a/notes.txt",
        ]);
        let cases = found(&root).unwrap();
        let ids: Vec<String> = cases.iter().map(Case::id).collect();
        assert_eq!(ids, ["demo/a/002-a", "demo/a/010-b", "demo/z/001-odd"]);
        assert_eq!(
            cases
                .iter()
                .map(|c| (c.graded, c.hidden))
                .collect::<Vec<_>>(),
            [(true, true), (true, false), (false, false)]
        );
        assert_eq!(cases[0].expected, root.path().join("demo/a/002-a.hidden"));
        assert_eq!(cases[1].input, root.path().join("demo/a/010-b.in"));
        assert_eq!(cases[1].expected, root.path().join("demo/a/010-b.out"));
    }

    #[test]
    fn an_input_without_its_output_or_a_group_the_suite_file_lacks_is_named() {
        let root = corpus(&["a/001-x.in"]);
        let err = found(&root).unwrap_err().to_string();
        assert!(
            err.contains("001-x.in") && err.contains("has no `.out`"),
            "{err}"
        );
        let root = corpus(&["b/001-x.in", "b/001-x.out"]);
        let err = found(&root).unwrap_err().to_string();
        assert!(err.contains("group `b` is not listed"), "{err}");
    }
}
