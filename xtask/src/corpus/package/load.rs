//! Reading a package folder: its metadata, cases, groups' points and compare rules, and
//! where its output validator is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::data::{self, PackageCase};
use super::metadata::{self, Metadata, Validation};

use crate::corpus::rules::CompareMode;
use crate::corpus::tokens::Tokens;
use crate::error::Error;

/// A problem package, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    pub dir: PathBuf,
    pub meta: Metadata,
    /// Its cases, in the order the format judges them.
    pub cases: Vec<PackageCase>,
    /// How each group's outputs are compared, by group.
    pub compare: BTreeMap<String, CompareMode>,
    /// Each group's `output_validator_flags` (a custom validator's arguments), by group.
    pub flags: BTreeMap<String, Vec<String>>,
    /// Each group's points.
    pub points: BTreeMap<String, f64>,
    /// The custom output validator's program (a source file or a folder).
    pub validator: Option<PathBuf>,
}

impl Package {
    /// The submissions the package ships for `verdict` (`accepted`, `wrong_answer`, ...): each
    /// a file or a folder of `submissions/<verdict>/`, sorted, in any language.
    pub fn submissions(&self, verdict: &str) -> Vec<PathBuf> {
        let dir = self.dir.join("submissions").join(verdict);
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| {
                path.file_name()
                    .is_none_or(|n| n.as_encoded_bytes().first() != Some(&b'.'))
            })
            .collect();
        found.sort();
        found
    }
}

/// Whether `dir` is a problem package.
pub fn is_package(dir: &Path) -> bool {
    dir.join("problem.yaml").is_file()
}

/// The package in `dir`, read and checked ([`crate::corpus::Suite::of_package`] makes it a
/// suite).
pub fn load(dir: PathBuf) -> Result<Package, Error> {
    let yaml = dir.join("problem.yaml");
    let meta = Metadata::read(&dir).map_err(|why| Error::corpus(&yaml, why))?;
    if let Some(kind) = &meta.unsupported {
        return Err(Error::corpus(
            &yaml,
            format!("type `{kind}`: this harness judges pass-fail and scoring problems only"),
        ));
    }
    let shipped = find_validator(&dir);
    if meta.interactive && shipped.is_none() {
        return Err(Error::corpus(
            &yaml,
            "an interactive problem without its validator (`output_validator/` or \
             `output_validators/`), which the program talks to",
        ));
    }
    let (cases, groups) = data::read(&dir.join("data"), meta.interactive)
        .map_err(|(path, why)| Error::corpus(&path, why))?;
    if cases.is_empty() {
        return Err(Error::corpus(
            &dir.join("data"),
            "no `.in`/`.ans` pair under `data/sample` or `data/secret`",
        ));
    }
    // The draft has no `validation` key: a package that ships a validator uses it.
    let custom = meta.validation == Validation::Custom
        || (meta.version == metadata::Version::Draft2023 && shipped.is_some());
    let validator = match custom {
        false => None,
        true => Some(shipped.ok_or_else(|| {
            Error::corpus(
                &yaml,
                "`validation: custom`, but no program in `output_validators/` (or \
                 `output_validator/`)",
            )
        })?),
    };
    let mut compare = BTreeMap::new();
    let mut flags = BTreeMap::new();
    for (group, settings) in &groups {
        let mut words = meta.validator_flags.clone();
        words.extend(settings.validator_flags.iter().cloned());
        let mode = match validator {
            Some(_) => CompareMode::Validator,
            None => CompareMode::Tokens(Tokens::parse(&words).map_err(|why| {
                Error::corpus(&yaml, format!("group `{group}`'s validator flags: {why}"))
            })?),
        };
        compare.insert(group.clone(), mode);
        flags.insert(group.clone(), words);
    }
    let points = points(&meta, &cases, &groups);
    Ok(Package {
        dir,
        meta,
        cases,
        compare,
        flags,
        points,
        validator,
    })
}

/// The time limit of a package that fixes none, until its accepted submissions set one.
pub const DEFAULT_SECONDS: f64 = 10.0;

/// The CPU rlimit under a time limit of `seconds`: a second above it, so that the harness's
/// own measure ends a looping program, as a time limit, before the kernel's whole-second
/// rlimit does.
pub fn cpu_backstop(seconds: f64) -> f64 {
    seconds + 1.0
}

/// Each group's points: a scoring problem's from its `testdata.yaml` (its `range` or `score`,
/// else `accept_score` per case), samples none; a pass-fail problem's one per case.
fn points(
    meta: &Metadata,
    cases: &[PackageCase],
    groups: &BTreeMap<String, data::GroupSettings>,
) -> BTreeMap<String, f64> {
    let count = |group: &str| cases.iter().filter(|c| c.group == group).count() as f64;
    groups
        .iter()
        .map(|(group, settings)| {
            let points = match (meta.scoring, group.starts_with("sample")) {
                (false, _) => count(group),
                (true, true) => 0.0,
                (true, false) => settings
                    .max_score
                    .unwrap_or(settings.accept_score * count(group)),
            };
            (group.clone(), points.clamp(0.0, 1e6))
        })
        .collect()
}

/// The package's output validator: the program in `output_validator/` (the draft) or the one
/// program in `output_validators/` (legacy), a source file or a folder.
fn find_validator(dir: &Path) -> Option<PathBuf> {
    for name in ["output_validator", "output_validators"] {
        let folder = dir.join(name);
        if !folder.is_dir() {
            continue;
        }
        let entries: Vec<PathBuf> = std::fs::read_dir(&folder)
            .ok()?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .collect();
        let programs: Vec<&PathBuf> = entries
            .iter()
            .filter(|path| path.is_dir() || crate::language::of_file(path).is_some())
            .collect();
        let sources = entries
            .iter()
            .any(|p| p.is_file() && crate::language::of_file(p).is_some());
        let scripts = folder.join("build").is_file() || folder.join("run").is_file();
        return match programs.as_slice() {
            [one] if one.is_dir() && !scripts => Some((*one).clone()),
            _ if sources || scripts => Some(folder),
            _ => None,
        };
    }
    None
}
