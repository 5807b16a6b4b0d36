//! `problem.yaml` and `testdata.yaml`: what the problem package format says about a problem,
//! in both versions in use (`legacy` and `2023-07-draft`), read into one shape.
//!
//! Defaults are the format's own (problemtools' `config/problem.yaml` and `testdata.yaml`):
//! memory 1024 MiB, output 8 MiB, no fixed time limit; `legacy` multiplies the slowest
//! accepted run by 5 (`time_multiplier`), `2023-07-draft` by 2 (`ac_to_time_limit`).

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

/// The format version a `problem.yaml` declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Legacy,
    /// `2023-07-draft` (and `2023-07`): the draft that Kattis and DOMjudge read today.
    Draft2023,
}

/// How outputs are validated.
#[derive(Debug, Clone, PartialEq)]
pub enum Validation {
    /// The format's default validator: tokens, with the flags it takes.
    Default,
    /// The package's own output validator (`output_validators/` or `output_validator/`).
    Custom,
}

/// What `problem.yaml` says, as this harness uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    pub version: Version,
    /// The problem's name (its English name where there are several).
    pub name: Option<String>,
    pub validation: Validation,
    pub interactive: bool,
    pub scoring: bool,
    /// A type this harness does not run (`multi-pass`, `submit-answer`), by its name.
    pub unsupported: Option<String>,
    /// `legacy`'s `validator_flags` (the draft puts them in `testdata.yaml`).
    pub validator_flags: Vec<String>,
    /// Seconds: the fixed time limit, when the package sets one.
    pub time_limit: Option<f64>,
    /// The slowest accepted run times this is the time limit.
    pub ac_to_time_limit: f64,
    /// The time limit times this is what a time-limit submission must exceed.
    pub time_limit_to_tle: f64,
    /// Time limits are rounded up to a multiple of this many seconds.
    pub time_resolution: f64,
    pub memory_mib: u64,
    pub output_mib: u64,
    pub uuid: Option<String>,
}

/// The largest YAML file of a package read, in bytes.
pub const MOST_YAML: u64 = 1 << 20;

/// The YAML file at `path`, read as a package's (untrusted) file: a regular file of its own, at
/// most [`MOST_YAML`] bytes.
pub fn read_yaml_file(path: &Path) -> Result<String, String> {
    let bytes = crate::files::read_untrusted(path, MOST_YAML + 1).map_err(|err| err.to_string())?;
    if bytes.len() as u64 > MOST_YAML {
        return Err(format!("larger than {} KiB", MOST_YAML >> 10));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".into())
}

/// The one YAML document in `text`, or what is wrong with it; an empty file is an empty map.
/// An alias (`*name`) is refused: no package needs one, and expanded, a few of them nested make
/// gigabytes of a file of a few hundred bytes.
pub fn parse_yaml(text: &str) -> Result<Yaml, String> {
    let mut parser = yaml_rust2::parser::Parser::new_from_str(text);
    loop {
        match parser.next_token().map_err(|err| err.to_string())? {
            (yaml_rust2::parser::Event::StreamEnd, _) => break,
            (yaml_rust2::parser::Event::Alias(_), mark) => {
                return Err(format!(
                    "line {}: an alias (`*name`); write the value out instead",
                    mark.line()
                ))
            }
            _ => {}
        }
    }
    let mut docs = YamlLoader::load_from_str(text).map_err(|err| err.to_string())?;
    match docs.len() {
        0 => Ok(Yaml::Hash(Default::default())),
        1 => Ok(docs.remove(0)),
        n => Err(format!("{n} YAML documents where one is expected")),
    }
}

/// A number, written as an integer or not (`5`, `2.5`, `"1e-6"` in a flag string).
pub fn number(value: &Yaml) -> Option<f64> {
    match value {
        Yaml::Integer(n) => Some(*n as f64),
        Yaml::Real(_) => value.as_f64(),
        Yaml::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

/// A list of words: a YAML list, or one string of words separated by spaces.
pub fn words(value: &Yaml) -> Vec<String> {
    match value {
        Yaml::String(text) => text.split_whitespace().map(String::from).collect(),
        Yaml::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Yaml::String(s) => Some(s.clone()),
                other => number(other).map(|n| n.to_string()),
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl Metadata {
    /// Reads `dir/problem.yaml`; `Err` says what is wrong, for the caller to name the file.
    pub fn read(dir: &Path) -> Result<Metadata, String> {
        let path = dir.join("problem.yaml");
        let text = read_yaml_file(&path)?;
        let yaml = parse_yaml(&text)?;
        if !matches!(yaml, Yaml::Hash(_)) {
            return Err("not a map of keys".into());
        }
        Metadata::of(&yaml)
    }

    fn of(yaml: &Yaml) -> Result<Metadata, String> {
        let version = match yaml["problem_format_version"].as_str() {
            None | Some("legacy") | Some("legacy-icpc") => Version::Legacy,
            Some(v) if v.starts_with("2023-07") => Version::Draft2023,
            Some(other) => {
                return Err(format!(
                    "`problem_format_version: {other}` is not one this harness reads \
                     (`legacy` or `2023-07-draft`)"
                ))
            }
        };
        let name = match &yaml["name"] {
            Yaml::String(name) => Some(name.clone()),
            Yaml::Hash(names) => names
                .get(&Yaml::String("en".into()))
                .or_else(|| names.values().next())
                .and_then(|n| n.as_str().map(String::from)),
            _ => None,
        };
        let mut kinds = words(&yaml["type"]);
        let validation_words = words(&yaml["validation"]);
        let validation = match validation_words.first().map(String::as_str) {
            None | Some("default") => Validation::Default,
            Some("custom") => Validation::Custom,
            Some(other) => return Err(format!("`validation: {other}` is not a validation")),
        };
        kinds.extend(
            validation_words
                .iter()
                .skip(1)
                .map(|word| match word.as_str() {
                    "score" => "scoring".to_string(),
                    other => other.to_string(),
                }),
        );
        let unsupported = kinds
            .iter()
            .find(|kind| !matches!(kind.as_str(), "pass-fail" | "scoring" | "interactive"))
            .cloned();
        let interactive = kinds.iter().any(|k| k == "interactive");
        // The draft's validator is the package's own wherever one is shipped.
        let validation = match version {
            Version::Draft2023 if interactive => Validation::Custom,
            _ => validation,
        };
        let limits = &yaml["limits"];
        let field = |key: &str| number(&limits[key]);
        let (ac_to_time_limit, time_limit_to_tle) = match version {
            Version::Legacy => (
                field("time_multiplier").unwrap_or(5.0),
                field("time_safety_margin").unwrap_or(2.0),
            ),
            Version::Draft2023 => (
                number(&limits["time_multipliers"]["ac_to_time_limit"]).unwrap_or(2.0),
                number(&limits["time_multipliers"]["time_limit_to_tle"]).unwrap_or(1.5),
            ),
        };
        let positive = |what: &str, value: f64| {
            if value.is_finite() && value > 0.0 && value <= 1e6 {
                Ok(value)
            } else {
                Err(format!("`limits.{what}: {value}` is not a positive number"))
            }
        };
        let mebibytes = |what: &str, default: u64| -> Result<u64, String> {
            match field(what) {
                None => Ok(default),
                Some(value) => positive(what, value).map(|v| v.ceil() as u64),
            }
        };
        let time_limit = match field("time_limit") {
            Some(seconds) => Some(positive("time_limit", seconds)?),
            None => None,
        };
        Ok(Metadata {
            version,
            name,
            validation,
            interactive,
            scoring: kinds.iter().any(|k| k == "scoring"),
            unsupported,
            validator_flags: words(&yaml["validator_flags"]),
            time_limit,
            ac_to_time_limit: positive("time_multiplier", ac_to_time_limit)?,
            time_limit_to_tle: positive("time_safety_margin", time_limit_to_tle)?,
            time_resolution: positive("time_resolution", field("time_resolution").unwrap_or(1.0))?,
            memory_mib: mebibytes("memory", 1024)?,
            output_mib: mebibytes("output", 8)?,
            uuid: yaml["uuid"].as_str().map(String::from),
        })
    }

    /// The time limit verifyproblem sets from the slowest accepted run: that run times the
    /// multiplier, rounded up to the resolution, at least one resolution step.
    pub fn time_limit_from(&self, slowest_accepted: f64) -> f64 {
        let steps = (slowest_accepted * self.ac_to_time_limit / self.time_resolution).ceil();
        steps.max(1.0) * self.time_resolution
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Metadata, String> {
        Metadata::of(&parse_yaml(text).unwrap())
    }

    #[test]
    fn a_legacy_file_with_custom_validation_and_its_limits() {
        let meta = read(
            "name: A Different Problem\nvalidation: custom\nlimits:\n  time_safety_margin: 4\n  \
             memory: 512\n",
        )
        .unwrap();
        assert_eq!(meta.version, Version::Legacy);
        assert_eq!(meta.name.as_deref(), Some("A Different Problem"));
        assert_eq!(meta.validation, Validation::Custom);
        assert_eq!((meta.ac_to_time_limit, meta.time_limit_to_tle), (5.0, 4.0));
        assert_eq!((meta.memory_mib, meta.output_mib), (512, 8));
        assert!(!meta.interactive && !meta.scoring && meta.unsupported.is_none());
    }

    #[test]
    fn the_draft_names_its_type_and_multipliers_and_a_fixed_limit() {
        let meta = read(
            "problem_format_version: 2023-07-draft\ntype: interactive\nname:\n  sv: Gissa\n  en: \
             Guess\nlimits:\n  time_limit: 2.5\n  time_multipliers:\n    time_limit_to_tle: 4\n",
        )
        .unwrap();
        assert_eq!(meta.version, Version::Draft2023);
        assert_eq!(meta.name.as_deref(), Some("Guess"));
        assert!(meta.interactive);
        assert_eq!(meta.validation, Validation::Custom);
        assert_eq!(meta.time_limit, Some(2.5));
        assert_eq!((meta.ac_to_time_limit, meta.time_limit_to_tle), (2.0, 4.0));
    }

    #[test]
    fn legacy_validation_words_make_types_and_unknown_types_are_named() {
        let meta = read("validation: custom interactive score\n").unwrap();
        assert!(meta.interactive && meta.scoring);
        let meta =
            read("problem_format_version: 2023-07-draft\ntype: [pass-fail, multi-pass]\n").unwrap();
        assert_eq!(meta.unsupported.as_deref(), Some("multi-pass"));
        assert!(read("problem_format_version: 2031-01\n")
            .unwrap_err()
            .contains("2031-01"));
        assert!(read("limits:\n  memory: -3\n")
            .unwrap_err()
            .contains("memory"));
    }

    #[test]
    fn the_computed_time_limit_is_verifyproblems() {
        // hello (legacy): its slowest accepted run took 1.003 s, and verifyproblem set 6 s.
        let legacy = read("name: x\n").unwrap();
        assert_eq!(legacy.time_limit_from(1.003), 6.0);
        assert_eq!(legacy.time_limit_from(0.01), 1.0);
        let draft = read("problem_format_version: 2023-07-draft\n").unwrap();
        assert_eq!(draft.time_limit_from(1.2), 3.0);
    }
}
