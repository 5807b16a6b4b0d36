//! Suite files: `cases/<spec>/suite.toml`, one per spec, saying how its cases are run, compared
//! and scored.
//!
//! Invariant: every group folder of a suite is named in its file, either with points (graded)
//! or under `ungraded` with the reason; discovery refuses any other folder.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::rules::{CompareMode, Rules};
use crate::confine::{limits, ResourceLimits};
use crate::error::Error;
use crate::target::Target;

/// The contents of a `suite.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// The bundled reference binary's arguments for this spec (a built-in spec).
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// An instructor's own reference, as a command line run in the suite's folder
    /// (`python3 solution.py`): it writes the expected outputs in place of the bundled binary.
    #[serde(default)]
    pub reference: Option<String>,
    /// A generator of random inputs, as a command line run in the suite's folder, `{seed}`
    /// replaced by a number (`python3 gen.py {seed}`): it prints one input, the same for the
    /// same seed. `gen` and `fuzz` use it for a suite with its own `reference`.
    #[serde(default)]
    pub generate: Option<String>,
    pub compare: CompareMode,
    /// Whether a non-zero exit status fails a case whose output is right.
    pub grade_exit_status: bool,
    /// Seconds a case may run.
    pub timeout: f64,
    /// The fewest graded cases the corpus promises for this suite (a tidy test holds it).
    #[serde(default)]
    pub min_graded_cases: usize,
    /// Graded groups and the points each is worth in scored reports.
    pub groups: BTreeMap<String, f64>,
    /// Groups that are run and reported but never graded, with the reason.
    #[serde(default)]
    pub ungraded: BTreeMap<String, String>,
    /// Resource limits for untrusted targets.
    #[serde(default)]
    pub limits: SuiteLimits,
    /// What a submission handed in as sources may be, of the language table.
    #[serde(default)]
    pub build: crate::language::Pin,
}

/// The `[limits]` table: per-case resource limits for untrusted targets, in the units a person
/// writes; [`Suite::limits`] gives them as [`ResourceLimits`].
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SuiteLimits {
    /// Seconds of CPU time.
    pub cpu: f64,
    pub memory_mib: u64,
    /// Processes and threads at once.
    pub processes: u64,
    pub file_size_mib: u64,
    pub open_files: u64,
}

impl Default for SuiteLimits {
    fn default() -> Self {
        // Room for a JVM (tens of threads, a few hundred MiB), none for a fork bomb.
        SuiteLimits {
            cpu: 10.0,
            memory_mib: 1024,
            processes: 256,
            file_size_mib: 64,
            open_files: 256,
        }
    }
}

/// One spec's suite: its name (the folder's), its folder and its settings.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub dir: PathBuf,
    /// Its settings: read from `suite.toml`, or made from a package's `problem.yaml`.
    pub file: SuiteFile,
    /// The problem package it was read from, for a folder holding `problem.yaml`.
    pub package: Option<std::sync::Arc<super::package::Package>>,
    /// How its outputs read as a grid, for a built-in spec: set from the spec's row of the
    /// tools table when a check plans the suite (`None` when loaded).
    pub grid: Option<&'static dyn super::Grid>,
}

impl Suite {
    /// Seconds a case may run (checked when the suite was loaded).
    pub fn timeout(&self) -> Duration {
        limits::seconds(self.file.timeout).unwrap_or(Duration::from_secs(10))
    }

    /// The suite's resource limits (checked when the suite was loaded).
    pub fn limits(&self) -> ResourceLimits {
        let table = &self.file.limits;
        ResourceLimits {
            cpu: limits::seconds(table.cpu).ok(),
            memory: limits::mebibytes(table.memory_mib).ok(),
            processes: limits::count(table.processes).ok(),
            file_size: limits::mebibytes(table.file_size_mib).ok(),
            open_files: limits::count(table.open_files).ok(),
        }
    }

    /// What writes this suite's expected outputs, run in `dir`: the suite's own `reference`
    /// command (in the suite's folder), or the bundled `binary` with the suite's `args`.
    pub fn reference_target(&self, binary: &Path, dir: &Path) -> Target {
        match self.reference_command() {
            Some(words) => Target::command(&words, &self.dir),
            None => Target::reference(binary, self.file.args.as_deref().unwrap_or_default(), dir),
        }
    }

    /// The words of the suite's own `reference` command, if it names one.
    pub fn reference_command(&self) -> Option<Vec<OsString>> {
        self.file
            .reference
            .as_ref()
            .map(|line| line.split_whitespace().map(OsString::from).collect())
    }

    /// Whether the bundled reference writes the expected outputs: it alone can say, with its
    /// trace, which input line a difference answers.
    pub fn is_built_in(&self) -> bool {
        self.file.reference.is_none() && self.package.is_none()
    }

    pub fn rules(&self) -> Rules {
        Rules {
            compare: self.file.compare,
            grade_exit_status: self.file.grade_exit_status,
        }
    }

    /// The suite of a problem package: its settings are the package's (its limits, its
    /// groups' points, the verdict of a non-zero exit), and its name its folder's.
    pub fn of_package(package: super::package::Package) -> Suite {
        let seconds = package
            .meta
            .time_limit
            .unwrap_or(super::package::DEFAULT_SECONDS);
        let file = SuiteFile {
            args: None,
            reference: None,
            generate: None,
            compare: package
                .compare
                .values()
                .next()
                .copied()
                .unwrap_or(CompareMode::Exact),
            grade_exit_status: true,
            timeout: seconds,
            min_graded_cases: 0,
            groups: package.points.clone(),
            ungraded: BTreeMap::new(),
            limits: SuiteLimits {
                cpu: super::package::cpu_backstop(seconds),
                memory_mib: package.meta.memory_mib,
                ..SuiteLimits::default()
            },
            build: Default::default(),
        };
        let dir = package.dir.clone();
        Suite {
            name: dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            dir,
            file,
            package: Some(std::sync::Arc::new(package)),
            grid: None,
        }
    }

    /// The rules of `group`: a package's groups may compare under flags of their own.
    pub fn rules_of(&self, group: &str) -> Rules {
        let compare = self
            .package
            .as_ref()
            .and_then(|package| package.compare.get(group).copied());
        Rules {
            compare: compare.unwrap_or(self.file.compare),
            ..self.rules()
        }
    }

    /// Whether `group` is graded; `None` for a group the suite file does not know.
    pub fn is_graded(&self, group: &str) -> Option<bool> {
        if self.file.groups.contains_key(group) {
            Some(true)
        } else if self.file.ungraded.contains_key(group) {
            Some(false)
        } else {
            None
        }
    }
}

/// Every number of a suite file is in range, so that nothing downstream can panic or wrap.
fn check_numbers(file: &SuiteFile) -> Result<(), String> {
    let field = |name: &'static str| move |err: String| format!("`{name}`: {err}");
    limits::seconds(file.timeout).map_err(field("timeout"))?;
    let blank = |line: &Option<String>| line.as_ref().is_some_and(|l| l.trim().is_empty());
    match (&file.reference, file.args.is_none()) {
        (None, true) => {
            return Err(
                "names no reference: add `reference = \"CMD\"`, the command line of \
                        your solution, run in this folder (`python3 solution.py`)"
                    .into(),
            )
        }
        (Some(_), false) => {
            return Err(
                "names both `args` (the bundled reference's) and its own `reference`: \
                        keep one"
                    .into(),
            )
        }
        _ if blank(&file.reference) => return Err("`reference`: an empty command line".into()),
        _ => {}
    }
    if let Some(name) = file.build.unknown_languages().first() {
        let known: Vec<&str> = crate::language::table()
            .iter()
            .map(|l| l.name.as_str())
            .collect();
        return Err(format!(
            "`build.languages`: no language `{name}` (known: {})",
            known.join(", ")
        ));
    }
    if blank(&file.generate) {
        return Err("`generate`: an empty command line".into());
    }
    if file
        .generate
        .as_ref()
        .is_some_and(|line| !line.contains("{seed}"))
    {
        return Err(
            "`generate`: the command line has no `{seed}`, so every input would be the same".into(),
        );
    }
    let table = &file.limits;
    limits::seconds(table.cpu).map_err(field("limits.cpu"))?;
    limits::mebibytes(table.memory_mib).map_err(field("limits.memory_mib"))?;
    limits::count(table.processes).map_err(field("limits.processes"))?;
    limits::mebibytes(table.file_size_mib).map_err(field("limits.file_size_mib"))?;
    limits::count(table.open_files).map_err(field("limits.open_files"))?;
    if let Some((group, points)) = file
        .groups
        .iter()
        .find(|(_, points)| !(points.is_finite() && **points >= 0.0 && **points <= 1e6))
    {
        return Err(format!(
            "group `{group}`: `{points}` is not a number of points from 0 to 1000000"
        ));
    }
    Ok(())
}

/// The suite called `name` under the corpus `root`.
pub fn find(root: &Path, name: &str) -> Result<Suite, Error> {
    // A plain name is looked up directly: the other suites are neither read nor parsed.
    let mut parts = Path::new(name).components();
    if let (Some(std::path::Component::Normal(_)), None) = (parts.next(), parts.next()) {
        if let Some(suite) = load_dir(root.join(name))? {
            return Ok(suite);
        }
    }
    let suites = load_all(root)?;
    let names: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
    let listed = names.join(", ");
    suites
        .iter()
        .find(|s| s.name == name)
        .cloned()
        .ok_or_else(|| {
            Error::Usage(format!(
                "unknown spec `{name}` in `{}` (expected one of: {listed})",
                root.display()
            ))
        })
}

/// The suite in `dir` (its `suite.toml`), or `None` when `dir` holds none.
fn load_dir(dir: PathBuf) -> Result<Option<Suite>, Error> {
    if super::package::is_package(&dir) {
        return super::package::load(dir.clone()).map(|package| Some(Suite::of_package(package)));
    }
    let path = dir.join("suite.toml");
    if !dir.is_dir() || !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|err| Error::io(&path, err))?;
    let file: SuiteFile = toml::from_str(&text).map_err(|err| {
        // One line: toml's own rendering quotes the source over several.
        let line = err
            .span()
            .map(|span| text[..span.start.min(text.len())].lines().count().max(1));
        let at = line.map(|n| format!("line {n}: ")).unwrap_or_default();
        Error::corpus(&path, format!("{at}{}", err.message().trim()))
    })?;
    check_numbers(&file).map_err(|message| Error::corpus(&path, message))?;
    if let Some(both) = file.groups.keys().find(|g| file.ungraded.contains_key(*g)) {
        return Err(Error::corpus(
            &path,
            format!("group `{both}` is both graded and ungraded"),
        ));
    }
    let name = dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    Ok(Some(Suite {
        name,
        dir,
        file,
        package: None,
        grid: None,
    }))
}

/// Loads every suite under the corpus `root`, sorted by name.
pub fn load_all(root: &Path) -> Result<Vec<Suite>, Error> {
    let entries = std::fs::read_dir(root).map_err(|err| Error::io(root, err))?;
    let mut suites = Vec::new();
    for entry in entries {
        let dir = entry.map_err(|err| Error::io(root, err))?.path();
        suites.extend(load_dir(dir)?);
    }
    if suites.is_empty() {
        return Err(Error::corpus(
            root,
            "no `*/suite.toml` or `*/problem.yaml` found: not a corpus folder",
        ));
    }
    suites.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(suites)
}
