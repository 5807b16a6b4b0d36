//! `cargo xtask bless`: rewrite every expected output from the reference.
//!
//! Each input is run twice; a case whose two outputs differ is refused, and so is one the
//! target fails on (a timeout, a crash, a non-zero exit where the suite grades it). Writes go
//! through a temporary file and a rename, so an interrupted bless leaves each `.out` old or new,
//! never partial. With `check`, nothing is written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use walkdir::WalkDir;

use crate::confine::{Policy, Settings};
use crate::corpus::{load_all, Suite};
use crate::error::Error;
use crate::files::write_atomically;
use crate::judge::line_diff;
use crate::process::{execute, Bounds, Exit};
use crate::target::{Program, Target};

#[derive(Debug, Clone)]
pub struct Options {
    pub cases_root: PathBuf,
    pub spec: Option<String>,
    pub check: bool,
    /// What writes the expected outputs: the reference, or (`--from`) a command, confined.
    pub program: Program,
    pub reference: PathBuf,
    pub dir: PathBuf,
    pub jobs: usize,
    /// How a `--from` command is confined.
    pub confine: Settings,
}

/// What bless found (and, without `check`, did).
#[derive(Debug, Default)]
pub struct Summary {
    pub new: Vec<String>,
    /// Each changed case with its diff, old against new.
    pub changed: Vec<(String, String)>,
    pub unchanged: usize,
    /// `.out` files without their `.in`.
    pub stale: Vec<PathBuf>,
    /// Lines about the confinement of a `--from` command the user should see once.
    pub warnings: Vec<String>,
    /// The group folders of the suites' files that hold no input (`spec/group`).
    pub empty: Vec<String>,
}

impl Summary {
    pub fn is_clean(&self) -> bool {
        self.new.is_empty() && self.changed.is_empty() && self.stale.is_empty()
    }

    pub fn render(&self, check: bool) -> String {
        let mut out = String::new();
        for name in &self.new {
            out += &format!("new: {name}\n");
        }
        for (name, diff) in &self.changed {
            out += &format!("changed: {name}\n{diff}");
        }
        for group in &self.empty {
            out +=
                &format!("note: `{group}/` holds no input (`NAME.in`): nothing to bless there\n");
        }
        for path in &self.stale {
            out += &format!(
                "stale: `{}` has no `.in` (delete it or restore its input)\n",
                path.display()
            );
        }
        let verb = if check { "would bless" } else { "blessed" };
        out += &format!(
            "{verb}: {} new, {} changed, {} unchanged, {} stale\n",
            self.new.len(),
            self.changed.len(),
            self.unchanged,
            self.stale.len()
        );
        out
    }
}

enum Found {
    New(String),
    Changed(String, String),
    Unchanged,
}

pub fn bless(options: &Options) -> Result<Summary, Error> {
    let suites = load_all(&options.cases_root)?;
    let suites: Vec<Suite> = match &options.spec {
        Some(spec) => vec![crate::corpus::find(&options.cases_root, spec)?],
        // A problem package's answers are its own: no reference writes them.
        None => suites.into_iter().filter(|s| s.package.is_none()).collect(),
    };
    if let Some(package) = suites.iter().find(|suite| suite.package.is_some()) {
        return Err(Error::Usage(format!(
            "`{}` is a problem package: its answers (`.ans`) are its own, and bless writes \
             the expected outputs of `suite.toml` suites only",
            package.name
        )));
    }
    let mut summary = Summary::default();
    let mut work = Vec::new();
    let mut warnings = Vec::new();
    let mut plans: Vec<(&Suite, Target, Policy)> = Vec::new();
    let planning = crate::process::Planning {
        program: &options.program,
        settings: &options.confine,
        corpus_root: &options.cases_root,
        reference: &options.reference,
        dir: &options.dir,
    };
    for suite in &suites {
        let (target, policy) = planning.plan(suite, &mut warnings)?;
        plans.push((suite, target, policy));
    }
    summary.warnings = warnings;
    for plan in &plans {
        let suite = plan.0;
        for entry in WalkDir::new(&suite.dir)
            .min_depth(2)
            .max_depth(2)
            .sort_by_file_name()
        {
            let entry = entry.map_err(|err| Error::io(&suite.dir, err.into()))?;
            let path = entry.path().to_path_buf();
            match path.extension().and_then(|e| e.to_str()) {
                Some("in") => work.push((plan, path)),
                Some("out") if !path.with_extension("in").exists() => summary.stale.push(path),
                _ => {}
            }
        }
    }
    for suite in &suites {
        let groups = suite.file.groups.keys().chain(suite.file.ungraded.keys());
        for group in groups {
            let has_input = std::fs::read_dir(suite.dir.join(group)).is_ok_and(|entries| {
                entries
                    .flatten()
                    .any(|e| e.path().extension().is_some_and(|x| x == "in"))
            });
            if !has_input {
                summary.empty.push(format!("{}/{group}", suite.name));
            }
        }
    }
    if work.is_empty() {
        let dirs: Vec<String> = suites
            .iter()
            .map(|suite| format!("`{}`", suite.dir.display()))
            .collect();
        return Err(Error::Usage(format!(
            "nothing to bless: no input (`NAME.in`) in any group folder of {}; a case is an \
             input in a group folder of its suite (`<suite>/handout/001-example.in`), and bless \
             writes its `.out` beside it",
            dirs.join(", ")
        )));
    }
    let found = crate::process::map(options.jobs, &work, |((suite, target, policy), input)| {
        bless_case(options, suite, target, policy, input)
    })?;
    for found in found {
        match found? {
            Found::New(name) => summary.new.push(name),
            Found::Changed(name, diff) => summary.changed.push((name, diff)),
            Found::Unchanged => summary.unchanged += 1,
        }
    }
    Ok(summary)
}

fn bless_case(
    options: &Options,
    suite: &Suite,
    target: &Target,
    policy: &Policy,
    input_path: &Path,
) -> Result<Found, Error> {
    let input = std::fs::read(input_path).map_err(|err| Error::io(input_path, err))?;
    let bounds = Bounds {
        timeout: suite.timeout().max(Duration::from_secs(10)),
        wall: crate::process::backstop(suite.timeout().max(Duration::from_secs(10))),
        asleep_after: None,
        stdout_cap: 1 << 30,
        stderr_cap: 4096,
    };
    let mut outputs = Vec::with_capacity(2);
    for _ in 0..2 {
        let execution =
            execute(target, &input, &bounds, policy).map_err(|err| Error::CouldNotRun {
                command: target.display(),
                message: err.to_string(),
            })?;
        let failed = execution.timed_out
            || execution.wall_stopped
            || execution.output_limited
            || match execution.exit {
                Exit::Signal(_) => true,
                Exit::Code(code) => code != 0 && suite.file.grade_exit_status,
            };
        if failed {
            return Err(Error::corpus(
                input_path,
                format!(
                    "refusing to bless: `{}` failed on it ({:?}): {}",
                    target.display(),
                    execution.exit,
                    String::from_utf8_lossy(&execution.stderr).trim()
                ),
            ));
        }
        outputs.push(execution.stdout);
    }
    if outputs[0] != outputs[1] {
        return Err(Error::corpus(
            input_path,
            format!(
                "refusing to bless: two runs of `{}` gave different outputs",
                target.display()
            ),
        ));
    }
    let output = &outputs[0];
    let expected_path = input_path.with_extension("out");
    let name = input_path
        .strip_prefix(&options.cases_root)
        .unwrap_or(input_path)
        .with_extension("");
    let name = name.display().to_string();
    let found = match std::fs::read(&expected_path) {
        Ok(old) if &old == output => return Ok(Found::Unchanged),
        Ok(old) => Found::Changed(name, line_diff(&old, output, "  ")),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Found::New(name),
        Err(err) => return Err(Error::io(&expected_path, err)),
    };
    if !options.check {
        write_atomically(&expected_path, output)?;
    }
    Ok(found)
}
