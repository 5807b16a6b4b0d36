//! `cargo xtask bench`: what the harness costs on top of running the targets.
//!
//! For a target and a suite, it times `check` over every case and a raw baseline in the same
//! process that only spawns the target on every input with the same parallelism, feeds stdin
//! and collects stdout (no comparison, no limits, no reports), and reports the ratio. Each
//! figure is the median of a few alternating runs, since these machines are shared and noisy.
//! It also reports throughput for each `--jobs` value.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::check::{self, Options};
use crate::discover::discover;
use crate::error::Error;
use crate::suite::load_all;
use crate::target::Program;

/// One measured target.
pub struct Subject {
    pub label: String,
    /// The reference runs over every suite, a command over `spec`'s.
    pub program: Program,
    pub spec: Option<String>,
}

/// What `cargo xtask bench` measures: the reference over every suite and, unless
/// `reference_only`, the bundled Python solution of go over the go suite.
pub fn subjects(reference_only: bool) -> Vec<Subject> {
    let mut subjects = vec![Subject {
        label: "reference, every suite".into(),
        program: Program::Reference,
        spec: None,
    }];
    if !reference_only {
        subjects.push(Subject {
            label: "python3 go.py, go suite".into(),
            program: Program::Command(vec!["python3".into(), python_go().into()]),
            spec: Some("go".into()),
        });
    }
    subjects
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Spawns the command on every input, `jobs` at a time, and waits for all of them.
fn raw_baseline(jobs: usize, runs: &[(Vec<OsString>, Vec<u8>)]) -> Result<Duration, Error> {
    let start = Instant::now();
    let spawned = crate::pool::map(jobs, runs, |(argv, input)| -> Result<(), Error> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| Error::Command(format!("baseline spawn failed: {err}")))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let input = input.clone();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let output = child
            .wait_with_output()
            .map_err(|err| Error::Command(format!("baseline wait failed: {err}")))?;
        let _ = feeder.join();
        std::hint::black_box(output.stdout.len());
        Ok(())
    })?;
    let elapsed = start.elapsed();
    spawned.into_iter().collect::<Result<(), Error>>()?;
    Ok(elapsed)
}

/// Measures each subject at each job count; returns the report.
pub fn bench(
    base: &Options,
    subjects: &[Subject],
    jobs: &[usize],
    repeats: usize,
) -> Result<String, Error> {
    let suites = load_all(&base.cases_root)?;
    let mut report = String::new();
    for subject in subjects {
        let mut runs = Vec::new();
        for suite in suites
            .iter()
            .filter(|s| subject.spec.as_ref().is_none_or(|spec| &s.name == spec))
        {
            let target = subject
                .program
                .target(&base.reference, &suite.file.args, &base.dir);
            let argv: Vec<OsString> = std::iter::once(target.program).chain(target.args).collect();
            for case in discover(suite)?.into_iter().filter(|c| c.graded) {
                let input =
                    std::fs::read(&case.input).map_err(|err| Error::io(&case.input, err))?;
                runs.push((argv.clone(), input));
            }
        }
        let mut per_jobs = Vec::new();
        for &n_jobs in jobs {
            let options = Options {
                spec: subject.spec.clone(),
                program: subject.program.clone(),
                jobs: n_jobs,
                progress: false,
                ..base.clone()
            };
            let (mut harness, mut raw) = (Vec::new(), Vec::new());
            for _ in 0..repeats {
                let start = Instant::now();
                let run = check::check(&options)?;
                harness.push(start.elapsed());
                if !run.all_graded_passed() {
                    return Err(Error::Command(format!(
                        "{} fails some cases: bench needs a passing target",
                        subject.label
                    )));
                }
                raw.push(raw_baseline(n_jobs, &runs)?);
            }
            let (harness, raw) = (median(harness), median(raw));
            report += &format!(
                "{}: {} cases, --jobs {n_jobs}: harness {:.2} s, raw spawn {:.2} s: {:.2}x the baseline, {:.0} cases/s\n",
                subject.label,
                runs.len(),
                harness.as_secs_f64(),
                raw.as_secs_f64(),
                harness.as_secs_f64() / raw.as_secs_f64(),
                runs.len() as f64 / harness.as_secs_f64()
            );
            per_jobs.push((n_jobs, runs.len() as f64 / harness.as_secs_f64()));
        }
        if let [(first_jobs, first), .., (last_jobs, last)] = per_jobs[..] {
            report += &format!(
                "{}: throughput at --jobs {last_jobs} is {:.2}x that at --jobs {first_jobs}\n",
                subject.label,
                last / first
            );
        }
    }
    Ok(report)
}

/// The bundled Python solution of the go assignment.
pub fn python_go() -> PathBuf {
    crate::workspace::root().join("xtask/bench/go.py")
}
