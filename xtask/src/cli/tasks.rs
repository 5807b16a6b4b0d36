//! Each task's arguments, and their conversion into the task's options.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::shared::current_dir;
use super::shared::{
    cases_root, reference_binary, ConfineArgs, CorpusArgs, PaceArgs, ReportArgs, RunArgs,
};
use super::values::{class_size, command_line, duration, jobs, runs, seconds, seed, CommandLine};
use crate::corpus::Shard;
use crate::error::Error;
use crate::target::Program;
use crate::workspace;

#[derive(clap::Args)]
pub struct KitArgs {
    /// The spec whose cases the kit holds.
    #[arg(long)]
    pub spec: String,
    /// A folder of hidden cases: `GROUP/NAME.in` (with `NAME.out`, or the reference's output),
    /// GROUP a graded group of the spec. The kit holds their hashes, never their outputs.
    #[arg(long, value_name = "DIR")]
    pub hidden: Option<PathBuf>,
    /// Where to write the kit (default: `check-<spec>`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
}

impl KitArgs {
    pub fn plan(&self, default_out: PathBuf) -> Result<crate::kit::Plan, Error> {
        if let Some(hidden) = self.hidden.as_ref().filter(|dir| !dir.is_dir()) {
            return Err(Error::Usage(format!(
                "--hidden: `{}` is not a folder",
                hidden.display()
            )));
        }
        Ok(crate::kit::Plan {
            cases_root: self.corpus.root()?,
            reference: self.corpus.reference()?,
            spec: self.spec.clone(),
            hidden: self.hidden.clone(),
            out: self.out.clone().unwrap_or(default_out),
        })
    }
}

#[derive(clap::Args)]
pub struct AutograderArgs {
    #[command(flatten)]
    pub kit: KitArgs,
    /// The command that runs a submission, in its folder: `python3 project4.py`, `java Main`;
    /// without it, each submission's sources are built and run.
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub run: Option<CommandLine>,
    /// The languages submissions may be in (`java,cpp,csharp`): setup.sh installs their
    /// compilers and runtimes (Debian packages).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub languages: Vec<String>,
}

impl AutograderArgs {
    /// The submission's command line (empty: its sources, built) and the Debian packages of
    /// the languages named.
    pub fn plan(&self) -> Result<(Vec<String>, Vec<String>), Error> {
        let mut packages = Vec::new();
        for name in &self.languages {
            let table = crate::language::table();
            let Some(language) = table.iter().find(|l| &l.name == name) else {
                let known: Vec<&str> = table.iter().map(|l| l.name.as_str()).collect();
                return Err(Error::Usage(format!(
                    "--languages: no language `{name}` (known: {})",
                    known.join(", ")
                )));
            };
            packages.extend(language.debian.iter().cloned());
        }
        packages.dedup();
        let run = self.run.as_ref().map(|r| r.0.clone()).unwrap_or_default();
        Ok((run, packages))
    }
}

/// How untrusted targets are confined; limits default to the suite file's `[limits]`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The suite to use; without it, the one whose handout cases the target passes.
    #[arg(long)]
    pub spec: Option<String>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Only shard K of N of the cases (split by case id, the same on every machine).
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// List each suite's groups with their cases and points, and the total a perfect program
    /// scores (what Gradescope asks); run nothing.
    #[arg(long)]
    pub list: bool,
    /// The program to check and its arguments: `./a.out`, `project4.py` (run with python3),
    /// `java Main`; everything after it goes to the program. `--` before it works too.
    #[arg(
        value_name = "TARGET",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..
    )]
    pub target: Vec<OsString>,
}

impl CheckArgs {
    pub fn options(&self) -> Result<crate::check::Options, Error> {
        let dir = current_dir()?;
        let root = self.corpus.root()?;
        // An unknown spec is the user's mistake, said before anything about the program.
        if let Some(spec) = &self.spec {
            crate::corpus::find(&root, spec)?;
        }
        let target = self.run.program(&self.target, &dir)?;
        let program_args = self.run.program_args(&self.target, &target);
        let base = crate::check::Options::new(root, self.corpus.reference()?, dir);
        Ok(crate::check::Options {
            spec: self.spec.clone(),
            shard: self.shard,
            program_args,
            ..self.run.apply(base, target)
        })
    }
}

#[derive(clap::Args)]
pub struct BlessArgs {
    /// Only this spec's suite.
    #[arg(long)]
    pub spec: Option<String>,
    /// Change nothing; exit 1 if anything would change.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Bless from this command line (after `--`) instead of the reference.
    #[arg(long)]
    pub from: bool,
    #[command(flatten)]
    pub confine: ConfineArgs,
    /// The command line for `--from`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

impl BlessArgs {
    pub fn options(&self) -> Result<crate::bless::Options, Error> {
        let program = match (self.from, self.command.is_empty()) {
            (true, false) => Program::Command(self.command.clone()),
            (false, true) => Program::Reference,
            (true, true) => {
                return Err(Error::Usage(
                    "--from needs a command line after `--`".into(),
                ))
            }
            (false, false) => return Err(Error::Usage(
                "bless only takes a command line with --from: it blesses from the reference otherwise"
                    .into(),
            )),
        };
        Ok(crate::bless::Options {
            cases_root: self.corpus.root()?,
            spec: self.spec.clone(),
            check: self.check,
            program,
            confine: self.confine.settings(),
            reference: self.corpus.reference()?,
            dir: current_dir()?,
            jobs: crate::process::cpus(),
        })
    }
}

#[derive(clap::Args)]
pub struct GenArgs {
    /// The spec to generate for.
    #[arg(long)]
    pub spec: String,
    /// The first seed; case k gets seed + k, and its file name starts with that seed.
    #[arg(long, default_value_t = 1, value_parser = seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// How many cases.
    #[arg(long, default_value_t = 1, value_parser = runs, allow_hyphen_values = true)]
    pub count: u64,
    /// Where to write (default: `<corpus>/<spec>/generated/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Another corpus root (a folder of `<spec>/suite.toml` and `<spec>/<group>/` cases).
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
}

#[cfg(feature = "reference")]
impl GenArgs {
    /// The spec's source of cases and the folder to write into.
    pub fn options(&self) -> Result<(crate::tools::Oracle, PathBuf), Error> {
        let root = cases_root(&self.cases)?;
        let suite = crate::corpus::find(&root, &self.spec)?;
        let dir = self
            .out
            .clone()
            .unwrap_or_else(|| suite.dir.join("generated"));
        Ok((crate::tools::Oracle::of(&suite)?, dir))
    }
}

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
            None => Measure::Overhead {
                reference_only: self.reference_only,
                jobs,
                repeats: self.repeats as usize,
            },
        };
        Ok((base, measure))
    }
}

#[derive(clap::Args)]
pub struct FuzzArgs {
    /// The spec whose generator makes the inputs.
    #[arg(long)]
    pub spec: String,
    /// The seed (default: from the clock; printed either way).
    #[arg(long, value_parser = seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// How long to look, like `60s`, `2m` or `90` (seconds); the default is 60s.
    #[arg(long, value_name = "DURATION", conflicts_with = "runs", value_parser = duration,
          allow_hyphen_values = true)]
    pub time: Option<Duration>,
    /// How many inputs to try, instead of a time limit.
    #[arg(long, value_name = "K", value_parser = runs, allow_hyphen_values = true)]
    pub runs: Option<u64>,
    /// Inputs run at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Seconds one run may take (default: the suite's).
    #[arg(long, value_name = "SECS", value_parser = seconds, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Where to write the found case (default: `cases/<spec>/found/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Target runs the shrinker may spend.
    #[arg(long, default_value_t = 5000, value_parser = runs, allow_hyphen_values = true)]
    pub max_shrink_runs: u64,
    #[command(flatten)]
    pub confine: ConfineArgs,
    /// The program to fuzz, as a command line (after `--`).
    #[arg(last = true, required = true, value_name = "TARGET")]
    pub target: Vec<OsString>,
}

#[cfg(feature = "reference")]
impl FuzzArgs {
    /// The fuzzer's options; the seed is the one given or one from the clock.
    pub fn options(&self) -> Result<crate::tools::Options, Error> {
        use crate::tools::Budget;
        let cases_root = self.corpus.root()?;
        let suite = crate::corpus::find(&cases_root, &self.spec)?;
        let oracle = crate::tools::Oracle::of(&suite)?;
        let reference = self.corpus.reference()?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs() % 1_000_000)
        });
        Ok(crate::tools::Options {
            oracle,
            seed,
            budget: match self.runs {
                Some(runs) => Budget::Runs(runs),
                None => Budget::Time(self.time.unwrap_or(Duration::from_secs(60))),
            },
            jobs: self.jobs.unwrap_or_else(crate::process::cpus),
            target: self.target.clone(),
            dir: current_dir()?,
            timeout: self.timeout.unwrap_or_else(|| suite.timeout()),
            max_shrink_runs: self.max_shrink_runs as usize,
            suite,
            out: self
                .out
                .clone()
                .unwrap_or_else(|| cases_root.join(&self.spec).join("found")),
            cases_root,
            confine: self.confine.settings(),
            reference,
        })
    }
}

#[derive(clap::Args)]
pub struct GradeArgs {
    #[arg(long)]
    pub spec: String,
    /// The folder of submissions: one folder per student, its name the student's id.
    #[arg(long, value_name = "DIR")]
    pub submissions: PathBuf,
    /// The command to run inside each submission folder, e.g. 'python3 project4.py' (split on
    /// spaces); without it, each submission's sources are built (as `check src/` does) and
    /// run.
    #[arg(long, value_name = "CMD", value_parser = command_line)]
    pub run: Option<CommandLine>,
    /// Build each submission first with CMD (`make`), confined, in a copy of its folder where
    /// --run then runs (instead of the language table's build).
    #[arg(long, value_name = "CMD", value_parser = command_line, requires = "run")]
    pub build: Option<CommandLine>,
    /// Where grades.csv, grades.json and results/ go (default: grades-<spec>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only shard K of N of the submissions (split by id, the same on every machine).
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// Also write `report.html` beside `grades.csv`: the class at a glance (one file, offline).
    #[arg(long)]
    pub html: bool,
    /// Also write gradescope/<id>/results.json for each submission.
    #[arg(long)]
    pub gradescope: bool,
    /// Grade every submission again instead of reusing results that are still valid.
    #[arg(long)]
    pub force: bool,
    /// Say, per submission, whether a grading would reuse its result or grade it again and
    /// why; grade nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only cases whose group or `spec/group/name` contains PATTERN (to try one group first).
    #[arg(long, value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Stop at the first failing graded case: the submissions not finished are graded by the
    /// next run of the same command.
    #[arg(long)]
    pub fail_fast: bool,
    /// Write a Markdown summary of the grading (on GitHub Actions it also goes into the job
    /// summary).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub pace: PaceArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

impl GradeArgs {
    pub fn options(&self) -> Result<crate::grade::Options, Error> {
        if !self.submissions.is_dir() {
            return Err(Error::Usage(format!(
                "--submissions: `{}` is not a folder",
                self.submissions.display()
            )));
        }
        let base = crate::check::Options::new(
            self.corpus.root()?,
            self.corpus.reference()?,
            PathBuf::new(),
        );
        Ok(crate::grade::Options {
            check: crate::check::Options {
                jobs: self.pace.jobs.unwrap_or(base.jobs),
                timeout: self.pace.timeout,
                wall: self.pace.wall,
                idle: self.pace.idle,
                filter: self.filter.clone(),
                fail_fast: self.fail_fast,
                confine: self.confine.settings(),
                ..base
            },
            spec: self.spec.clone(),
            submissions: self
                .submissions
                .canonicalize()
                .map_err(|err| Error::io(&self.submissions, err))?,
            run: self
                .run
                .as_ref()
                .map(CommandLine::words)
                .unwrap_or_default(),
            build: self
                .build
                .as_ref()
                .map(CommandLine::words)
                .unwrap_or_default(),
            out: self
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("grades-{}", self.spec))),
            shard: self.shard,
            force: self.force,
            dry_run: self.dry_run,
            gradescope: self.gradescope.then(|| self.report.gradescope()),
            html: self.html,
        })
    }
}

#[derive(clap::Args)]
pub struct AdequacyArgs {
    /// Another corpus root.
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Runs at once (default: the number of CPUs).
    #[arg(long, short = 'j', value_name = "N", value_parser = jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Print the coverage table (Markdown: each rule, its variants, the cases that kill them).
    #[arg(long)]
    pub table: bool,
    /// List each variant's causes: what `check` tells a program that behaves like it.
    #[arg(long)]
    pub causes: bool,
}

impl AdequacyArgs {
    /// The corpus and the number of jobs.
    pub fn options(&self) -> Result<(PathBuf, usize), Error> {
        Ok((
            cases_root(&self.cases)?,
            self.jobs.unwrap_or_else(crate::process::cpus),
        ))
    }
}

/// The course server's flags, passed to it whole: `--course DIR`, `--listen ADDR`,
/// `--links`, `--init`, ...
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct ServeArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<std::ffi::OsString>,
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Where the merged grades.csv and grades.json go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The shards' grades.json files.
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Merge even when some shards are missing.
    #[arg(long)]
    pub allow_partial: bool,
}

#[derive(clap::Args)]
pub struct NewArgs {
    /// The assignment's name: the suite's folder and its `--spec`.
    pub name: String,
    /// Your solution's command line, as you would type it here (`python3 solution.py`): it
    /// writes the expected outputs.
    #[arg(long, value_name = "CMD")]
    pub reference: String,
    /// A generator's command line, `{seed}` among its words (`python3 gen.py {seed}`): it
    /// prints one random input per seed, for `gen` and `fuzz`.
    #[arg(long, value_name = "CMD")]
    pub generate: Option<String>,
    /// The corpus folder the assignment goes into (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
}

impl NewArgs {
    pub fn request(&self) -> Result<crate::scaffold::Request, Error> {
        let dir = current_dir()?;
        Ok(crate::scaffold::Request {
            name: self.name.clone(),
            corpus: self.cases.clone().unwrap_or_else(|| dir.clone()),
            reference: self.reference.clone(),
            generate: self.generate.clone(),
            dir,
        })
    }
}
