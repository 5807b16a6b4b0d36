//! A package's test data: `data/sample`, `data/secret` and the groups nested in them, each
//! case an `.in` with its `.ans`, and the `testdata.yaml` settings each folder passes down to
//! the folders inside it (a key of a deeper file overrides the same key above).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use yaml_rust2::Yaml;

use super::metadata::{number, parse_yaml, words};

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
    let root = settings_of(data, &Yaml::Hash(Default::default()))?;
    for top in ["sample", "secret"] {
        let dir = data.join(top);
        if dir.is_dir() {
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
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(inherited.clone());
    };
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
    let settings = settings_of(dir, inherited)?;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|err| (dir.to_path_buf(), err.to_string()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let mut here = 0;
    for path in &entries {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if path.is_dir() {
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
}
