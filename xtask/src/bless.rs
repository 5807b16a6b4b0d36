//! `cargo xtask bless`: rewrite every expected output from the reference.
//!
//! Each input is run twice; a case whose two outputs differ is refused, and so is one the
//! target fails on (a timeout, a crash, a non-zero exit where the suite grades it). Writes go
//! through a temporary file and a rename, so an interrupted bless leaves each `.out` old or new,
//! never partial. With `check`, nothing is written.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rayon::prelude::*;
use walkdir::WalkDir;

use crate::diff;
use crate::error::{write_atomically, Error};
use crate::process::{execute, Exit, Limits, Target};
use crate::suite::{load_all, Suite};

#[derive(Debug, Clone)]
pub struct Options {
    pub cases_root: PathBuf,
    pub spec: Option<String>,
    pub check: bool,
    /// Bless from this command line instead of the reference.
    pub from: Option<Vec<OsString>>,
    pub reference: PathBuf,
    pub dir: PathBuf,
    pub jobs: usize,
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
    let suites: Vec<&Suite> = match &options.spec {
        Some(spec) => {
            let suite = suites
                .iter()
                .find(|s| &s.name == spec)
                .ok_or_else(|| Error::Usage(format!("unknown spec `{spec}`")))?;
            vec![suite]
        }
        None => suites.iter().collect(),
    };
    let mut summary = Summary::default();
    let mut work = Vec::new();
    for suite in suites {
        for entry in WalkDir::new(&suite.dir)
            .min_depth(2)
            .max_depth(2)
            .sort_by_file_name()
        {
            let entry = entry.map_err(|err| Error::io(&suite.dir, err.into()))?;
            let path = entry.path().to_path_buf();
            match path.extension().and_then(|e| e.to_str()) {
                Some("in") => work.push((suite, path)),
                Some("out") if !path.with_extension("in").exists() => summary.stale.push(path),
                _ => {}
            }
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|err| Error::Command(format!("failed to start worker threads: {err}")))?;
    let found: Vec<Result<Found, Error>> = pool.install(|| {
        work.par_iter()
            .map(|(suite, input)| bless_case(options, suite, input))
            .collect()
    });
    for found in found {
        match found? {
            Found::New(name) => summary.new.push(name),
            Found::Changed(name, diff) => summary.changed.push((name, diff)),
            Found::Unchanged => summary.unchanged += 1,
        }
    }
    Ok(summary)
}

fn bless_case(options: &Options, suite: &Suite, input_path: &Path) -> Result<Found, Error> {
    let input = std::fs::read(input_path).map_err(|err| Error::io(input_path, err))?;
    let target = match &options.from {
        Some(argv) => Target::from_argv(argv, &options.dir)
            .ok_or_else(|| Error::Usage("--from needs a command line".into()))?,
        None => Target::reference(&options.reference, &suite.file.args, &options.dir),
    };
    let limits = Limits {
        timeout: suite.timeout().max(Duration::from_secs(10)),
        stdout_cap: 1 << 30,
        stderr_cap: 4096,
    };
    let mut outputs = Vec::with_capacity(2);
    for _ in 0..2 {
        let execution = execute(&target, &input, &limits).map_err(|err| Error::CouldNotRun {
            command: target.display(),
            message: err.to_string(),
        })?;
        let failed = execution.timed_out
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
        Ok(old) => Found::Changed(name, diff::render(&old, output, "  ")),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Found::New(name),
        Err(err) => return Err(Error::io(&expected_path, err)),
    };
    if !options.check {
        write_atomically(&expected_path, output)?;
    }
    Ok(found)
}
