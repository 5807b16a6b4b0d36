//! `cargo xtask bench`: the harness's overhead against raw spawning, the similarity report against Dolos (`--similar`), the course server under a class (`--server N`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::output::{done, failed_if, print_report};
use super::shared::reference_binary;
use super::values::{class_size, jobs, runs, seconds};
use crate::error::Error;
use crate::workspace;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Job counts to measure, `--jobs 1,2` or `--jobs 1 --jobs 2` (default: 1 and the number
    /// of CPUs).
    #[arg(
        long,
        value_name = "N",
        value_delimiter = ',',
        value_parser = jobs,
        allow_hyphen_values = true
    )]
    pub jobs: Vec<usize>,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 3, value_parser = runs, allow_hyphen_values = true)]
    pub repeats: u64,
    /// Measure only the reference, not the Python target.
    #[arg(long)]
    pub reference_only: bool,
    /// Measure instead what each confinement layer costs a case.
    #[arg(long)]
    pub layers: bool,
    /// Measure instead a check of one handout case as a whole process, against one plain run
    /// of the same program on the same input.
    #[arg(long)]
    pub one_case: bool,
    /// Measure instead what a submission of 64 busy processes costs its class: an honest
    /// classmate who needs 1.2 s a case graded beside it and beside another honest one.
    #[arg(long, conflicts_with_all = ["server", "class", "layers", "one_case"])]
    pub hog: bool,
    /// Grade instead a synthetic class of N submissions (right, wrong, crashing, hanging and
    /// flooding; Python and native) against the raw spawn floor for the same runs.
    #[arg(long, value_name = "N", value_parser = class_size, allow_hyphen_values = true)]
    pub class: Option<usize>,
    /// The spec of the synthetic class.
    #[arg(long, default_value = "go", requires = "class")]
    pub spec: String,
    /// Seconds per case for the synthetic class (its hanging submissions cost this).
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = seconds, allow_hyphen_values = true, requires = "class")]
    pub timeout: Duration,
    /// Use this reference binary instead of building it.
    #[arg(long, value_name = "PATH")]
    pub reference: Option<PathBuf>,
    /// Also write the figures as JSON, to compare a change with the last one.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Measure instead the course server: N students handing in at once over loopback,
    /// against `grade` of the same submissions (its own crate's program).
    #[arg(long, value_name = "N", value_parser = class_size, allow_hyphen_values = true)]
    pub server: Option<usize>,
    /// With --server: what the load is and where it goes, for the server's bench
    /// (`--per-student M`, `--within SECS`, `--readers R`, `--database URL`, `--workers W`).
    #[arg(last = true, requires = "server", value_name = "ARGS")]
    pub server_args: Vec<String>,
    /// Measure instead how well the similarity report tells disguised copies from
    /// independent solutions, one disguise at a time, against Dolos (installed with npm).
    #[arg(long, conflicts_with_all = ["server", "class", "layers"])]
    pub similar: bool,
}

impl BenchArgs {
    /// The settings every measured run starts from, and what to measure.
    pub fn options(&self) -> Result<(crate::check::Options, crate::bench::Measure), Error> {
        use crate::bench::Measure;
        let base = crate::check::Options::new(
            workspace::cases(),
            reference_binary(&self.reference)?,
            workspace::root(),
        );
        let jobs = if self.jobs.is_empty() {
            vec![1, base.jobs]
        } else {
            self.jobs.clone()
        };
        let measure = match self.class {
            Some(size) => Measure::Class(crate::bench::Settings {
                size,
                jobs: *jobs.last().unwrap_or(&base.jobs),
                timeout: self.timeout,
                spec: self.spec.clone(),
            }),
            None if self.layers => Measure::Layers,
            None if self.one_case => Measure::OneCase,
            None if self.hog => Measure::Hog,
            None => Measure::Overhead {
                reference_only: self.reference_only,
                jobs,
                repeats: self.repeats as usize,
            },
        };
        Ok((base, measure))
    }
}

pub(super) fn run(args: BenchArgs) -> Result<ExitCode, Error> {
    if let Some(students) = args.server {
        return run_server_bench(students, args.jobs.first().copied(), &args.server_args);
    }
    if args.similar {
        let figures = crate::bench::similar_bench()?;
        print_report(&figures.text)?;
        return Ok(failed_if(figures.worse_than_dolos));
    }
    let (base, measure) = args.options()?;
    let figures = crate::bench::measure(&base, &measure)?;
    if let Some(path) = &args.json {
        crate::bench::write_json(&figures, path)?;
    }
    done(&figures.text)
}

/// `bench --server N`: the server's crate builds its programs, and its bench runs in this
/// process's place.
fn run_server_bench(
    students: usize,
    jobs: Option<usize>,
    more: &[String],
) -> Result<ExitCode, Error> {
    let mut args: Vec<std::ffi::OsString> = vec![students.to_string().into()];
    if let Some(jobs) = jobs {
        args.extend(["--jobs".into(), jobs.to_string().into()]);
    }
    args.extend(more.iter().map(Into::into));
    Err(crate::workspace::exec_server_program(
        "gridjudge-server-bench",
        &args,
    ))
}
