//! A package's test data: `data/sample`, `data/secret` and the groups nested in them, each
//! case an `.in` with its `.ans`, and the `testdata.yaml` settings each folder passes down to
//! the folders inside it (a key of a deeper file overrides the same key above).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use yaml_rust2::Yaml;

use super::metadata::{number, parse_yaml, read_yaml_file, words};

/// One case of a package.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageCase {
    /// The folder it is in, under `data/` (`sample`, `secret/subtask1`).
    pub group: String,
    /// The file stem (`02_extreme_cases`).
    pub name: String,
    pub input: PathBuf,
    pub answer: PathBuf,
}

/// The settings a group of cases has, its own `testdata.yaml` over those of the folders above.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GroupSettings {
    /// `output_validator_flags`.
    pub validator_flags: Vec<String>,
    /// The score of one accepted case (`accept_score`, 1 by default).
    pub accept_score: f64,
    /// The group's maximum score, where its own file says it (`range`'s upper end, `score`).
    pub max_score: Option<f64>,
}

/// A package's cases and the settings of each group that holds some.
pub(super) type Data = (Vec<PackageCase>, BTreeMap<String, GroupSettings>);

/// The cases of `data/` in the order the format judges them (sample first, then secret, each
/// sorted by name) and the settings of each group that holds cases; `Err` names the file. An
/// interactive problem's case may lack its `.ans` (its validator may need none): it is then
/// empty (`/dev/null`).
pub(super) fn read(data: &Path, interactive: bool) -> Result<Data, (PathBuf, String)> {
    let mut cases = Vec::new();
    let mut groups = BTreeMap::new();
    if std::fs::symlink_metadata(data).is_ok_and(|meta| !meta.is_dir()) {
        return Err((
            data.to_path_buf(),
            "a link or a file, not the package's folder".into(),
        ));
    }
    let root = settings_of(data, &Yaml::Hash(Default::default()))?;
    for top in ["sample", "secret"] {
        let dir = data.join(top);
        if std::fs::symlink_metadata(&dir).is_ok() {
            let mut found = Found {
                cases: &mut cases,
                groups: &mut groups,
                interactive,
            };
            walk(&dir, top, &root, &mut found, 0)?;
        }
    }
    Ok((cases, groups))
}

/// The settings in force in `dir`: `inherited` with its `testdata.yaml`'s keys over them.
fn settings_of(dir: &Path, inherited: &Yaml) -> Result<Yaml, (PathBuf, String)> {
    let path = dir.join("testdata.yaml");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(inherited.clone());
    }
    let text = read_yaml_file(&path).map_err(|why| (path.clone(), why))?;
    let own = parse_yaml(&text).map_err(|why| (path.clone(), why))?;
    let (Yaml::Hash(mut merged), Yaml::Hash(own)) = (inherited.clone(), own) else {
        return Err((path, "not a map of keys".into()));
    };
    for (key, value) in own {
        merged.insert(key, value);
    }
    Ok(Yaml::Hash(merged))
}

/// What a walk of `data/` has found so far, and what it may leave out.
struct Found<'a> {
    cases: &'a mut Vec<PackageCase>,
    groups: &'a mut BTreeMap<String, GroupSettings>,
    interactive: bool,
}

/// The most entries one folder of `data/` may hold.
const MOST_ENTRIES: usize = 100_000;

fn walk(
    dir: &Path,
    group: &str,
    inherited: &Yaml,
    found: &mut Found,
    depth: usize,
) -> Result<(), (PathBuf, String)> {
    if depth > 16 {
        return Err((dir.to_path_buf(), "groups nested more than 16 deep".into()));
    }
    let kind = std::fs::symlink_metadata(dir)
        .map_err(|err| (dir.to_path_buf(), err.to_string()))?
        .file_type();
    if !kind.is_dir() {
        let why = "a link or a file where a folder of the package's own is expected";
        return Err((dir.to_path_buf(), why.into()));
    }
    let settings = settings_of(dir, inherited)?;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|err| (dir.to_path_buf(), err.to_string()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    if entries.len() > MOST_ENTRIES {
        let why = format!("more than {MOST_ENTRIES} entries in one folder");
        return Err((dir.to_path_buf(), why));
    }
    let mut here = 0;
    for path in &entries {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        // The package's data are its own files: a link (to a file outside it, a device, a
        // folder above it) or anything but a file or a folder is refused, naming it.
        let kind = std::fs::symlink_metadata(path)
            .map_err(|err| (path.clone(), err.to_string()))?
            .file_type();
        if kind.is_symlink() {
            return Err((
                path.clone(),
                "a link: a package's data are files of its own".into(),
            ));
        }
        if !kind.is_dir() && !kind.is_file() {
            return Err((path.clone(), "neither a file nor a folder".into()));
        }
        if kind.is_dir() {
            walk(
                path,
                &format!("{group}/{name}"),
                &settings,
                found,
                depth + 1,
            )?;
        } else if path.extension().is_some_and(|ext| ext == "in") {
            let mut answer = path.with_extension("ans");
            if !answer.is_file() && found.interactive {
                answer = PathBuf::from("/dev/null");
            } else if !answer.is_file() {
                return Err((path.clone(), "has no `.ans` beside it".into()));
            }
            here += 1;
            found.cases.push(PackageCase {
                group: group.to_string(),
                name: path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into(),
                input: path.clone(),
                answer,
            });
        }
    }
    if here > 0 {
        let own_file = dir.join("testdata.yaml").is_file();
        found
            .groups
            .insert(group.to_string(), group_settings(&settings, own_file));
    }
    Ok(())
}

/// What the settings in force say of a group; its maximum score only where its own file says.
fn group_settings(settings: &Yaml, own_file: bool) -> GroupSettings {
    let range_top = words(&settings["range"])
        .get(1)
        .and_then(|top| top.parse::<f64>().ok())
        .filter(|top| top.is_finite());
    let score = number(&settings["score"])
        .or_else(|| number(&settings["max_score"]))
        .or_else(|| number(&settings["scoring"]["score"]))
        .or_else(|| number(&settings["grading"]["score"]));
    GroupSettings {
        validator_flags: words(&settings["output_validator_flags"]),
        accept_score: number(&settings["accept_score"]).unwrap_or(1.0),
        max_score: own_file.then_some(score.or(range_top)).flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn cases_come_sample_first_with_the_settings_each_group_inherits() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path();
        write(
            data,
            "testdata.yaml",
            "output_validator_flags: float_tolerance 1e-6\n",
        );
        write(data, "sample/1.in", "1\n");
        write(data, "sample/1.ans", "1\n");
        write(data, "secret/testdata.yaml", "accept_score: 5\n");
        write(data, "secret/b/02.in", "2\n");
        write(data, "secret/b/02.ans", "2\n");
        write(
            data,
            "secret/b/testdata.yaml",
            "range: 0 50\noutput_validator_flags: ''\n",
        );
        write(data, "secret/a.in", "3\n");
        write(data, "secret/a.ans", "3\n");
        write(data, "secret/a.desc", "not a case\n");
        let (cases, groups) = read(data, false).unwrap();
        let ids: Vec<String> = cases
            .iter()
            .map(|c| format!("{}/{}", c.group, c.name))
            .collect();
        assert_eq!(ids, ["sample/1", "secret/a", "secret/b/02"]);
        assert_eq!(
            groups["sample"].validator_flags,
            ["float_tolerance", "1e-6"]
        );
        assert_eq!(groups["secret"].accept_score, 5.0);
        assert_eq!(groups["secret"].max_score, None);
        assert_eq!(groups["secret/b"].max_score, Some(50.0));
        assert!(groups["secret/b"].validator_flags.is_empty());
    }

    #[test]
    fn an_input_without_its_answer_is_named() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "secret/x.in", "1\n");
        let (path, why) = read(dir.path(), false).unwrap_err();
        assert!(path.ends_with("secret/x.in") && why.contains(".ans"));
        // An interactive problem's validator may need no answer.
        let (cases, _) = read(dir.path(), true).unwrap();
        assert_eq!(cases[0].answer, Path::new("/dev/null"));
    }

    /// A package's data are read as a stranger's: a linked answer (to a file outside the
    /// package, to a device), a FIFO, a linked folder, a linked `testdata.yaml` and a YAML
    /// bomb are each refused, naming the file, before anything is read from them.
    #[test]
    fn links_devices_fifos_and_yaml_aliases_in_a_package_are_refused_naming_them() {
        let secret = tempfile::tempdir().unwrap();
        std::fs::write(secret.path().join("key"), "the grader's secret\n").unwrap();
        type Make<'a> = &'a dyn Fn(&Path);
        let cases: [(&str, Make); 6] = [
            ("sample/1.ans", &|at| {
                std::os::unix::fs::symlink(secret.path().join("key"), at).unwrap()
            }),
            ("sample/1.in", &|at| {
                std::os::unix::fs::symlink("/dev/zero", at).unwrap()
            }),
            ("sample/1.in", &|at| {
                let path = std::ffi::CString::new(at.as_os_str().as_encoded_bytes()).unwrap();
                // SAFETY: a valid NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
            }),
            ("secret/loop", &|at| {
                std::os::unix::fs::symlink("..", at).unwrap()
            }),
            ("secret/testdata.yaml", &|at| {
                std::os::unix::fs::symlink(secret.path().join("key"), at).unwrap()
            }),
            ("secret/testdata.yaml", &|at| {
                let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
                for (k, name) in "bcdefghij".chars().enumerate() {
                    let before = "abcdefghij".chars().nth(k).unwrap();
                    let refs = vec![format!("*{before}"); 9].join(", ");
                    bomb += &format!("{name}: &{name} [{refs}]\n");
                }
                std::fs::write(at, bomb).unwrap()
            }),
        ];
        for (path, make) in cases {
            let dir = tempfile::tempdir().unwrap();
            let data = dir.path();
            for file in ["sample/1.in", "sample/1.ans", "secret/2.in", "secret/2.ans"] {
                if file != path {
                    write(data, file, "1\n");
                }
            }
            std::fs::create_dir_all(data.join(path).parent().unwrap()).unwrap();
            make(&data.join(path));
            let (at, why) = read(data, false).expect_err(path);
            assert_eq!(at, data.join(path), "{why}");
            assert!(
                ["a link", "neither a file", "an alias"]
                    .iter()
                    .any(|said| why.contains(said)),
                "{path}: {why}"
            );
        }
    }
}
