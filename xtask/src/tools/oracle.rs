//! Where `gen` and `fuzz` get inputs and expected outputs: a built-in spec's generator,
//! shrinker and reference engine in process, or an instructor's own assignment's `generate` and
//! `reference` commands (from its `suite.toml`), run in the suite's folder.
//!
//! An instructor's commands are trusted like the bundled reference: they run unconfined, as
//! the instructor. The graded domain of their assignment is what their generator prints and
//! what their reference answers with exit status 0; shrinking drops chunks of input lines.

use std::ffi::OsString;
use std::fmt;
use std::time::Duration;

use super::random::{Generated, Rng};
use super::table::Assignment;
use crate::confine::Policy;
use crate::corpus::Suite;
use crate::error::Error;
use crate::process::{execute, Bounds, Exit};
use crate::target::Target;

/// How many fresh draws one seed may take before giving up on staying in the graded domain.
const ATTEMPTS: usize = 1000;

/// The source of random graded cases for one suite.
#[derive(Clone)]
pub enum Oracle {
    /// A built-in spec.
    BuiltIn(Assignment<'static>),
    /// An instructor's assignment, by its commands.
    Commands(Commands),
}

/// An instructor's assignment's generator and reference, as command lines.
#[derive(Debug, Clone)]
pub struct Commands {
    name: String,
    /// The generator's words, `{seed}` among them.
    generate: Vec<String>,
    reference: Target,
    timeout: Duration,
}

impl fmt::Debug for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Oracle::BuiltIn(assignment) => assignment.fmt(f),
            Oracle::Commands(commands) => commands.fmt(f),
        }
    }
}

impl Oracle {
    /// The oracle of `suite`: its own commands when it names a `reference`, else the built-in
    /// spec of its name.
    pub fn of(suite: &Suite) -> Result<Oracle, Error> {
        if suite.package.is_some() {
            return Err(Error::Usage(format!(
                "`{}` is a problem package, which names no reference and no generator: `gen` \
                 and `fuzz` take the bundled specs and `suite.toml` suites with `reference` \
                 and `generate`",
                suite.name
            )));
        }
        let Some(reference) = suite.reference_command() else {
            return super::table::find(&suite.name).map(Oracle::BuiltIn);
        };
        let Some(generate) = &suite.file.generate else {
            return Err(Error::corpus(
                &suite.dir.join("suite.toml"),
                "names no `generate` command: add one that prints a random input for a seed, \
                 like `generate = \"python3 gen.py {seed}\"`",
            ));
        };
        Ok(Oracle::Commands(Commands {
            name: suite.name.clone(),
            generate: generate.split_whitespace().map(String::from).collect(),
            reference: Target::command(&reference, &suite.dir),
            timeout: suite.timeout(),
        }))
    }

    pub fn name(&self) -> &str {
        match self {
            Oracle::BuiltIn(assignment) => assignment.name(),
            Oracle::Commands(commands) => &commands.name,
        }
    }

    /// A graded input from `seed`, with the reference's output.
    pub fn case(&self, seed: u64) -> Result<(Generated, Vec<u8>), Error> {
        match self {
            Oracle::BuiltIn(assignment) => built_in_case(*assignment, seed),
            Oracle::Commands(commands) => {
                let input = commands.generated(seed)?;
                match commands.answer(&input)? {
                    Some(output) => Ok((
                        Generated {
                            input,
                            shape: "random".into(),
                        },
                        output,
                    )),
                    None => Err(Error::Reference(format!(
                        "the reference `{}` failed on the input of seed {seed} (run `{}`)",
                        commands.reference.display(),
                        commands.generator(seed).display()
                    ))),
                }
            }
        }
    }

    /// The reference's output for `input` when it is graded; `None` otherwise.
    pub fn graded_output(&self, input: &str) -> Result<Option<Vec<u8>>, Error> {
        match self {
            Oracle::BuiltIn(assignment) => Ok(assignment.graded_output(input)),
            Oracle::Commands(commands) => commands.answer(input),
        }
    }

    /// Inputs a little simpler than `input`, most promising first, never `input` itself.
    pub fn candidates(&self, input: &str) -> Vec<String> {
        match self {
            Oracle::BuiltIn(assignment) => assignment.tools.candidates(input),
            Oracle::Commands(_) => {
                let lines: Vec<&str> = input.lines().collect();
                let mut out = super::shrink::drop_chunks(&lines, 0, lines.len());
                out.retain(|candidate| candidate != input);
                out
            }
        }
    }
}

fn built_in_case(assignment: Assignment, seed: u64) -> Result<(Generated, Vec<u8>), Error> {
    let mut rng = Rng::new(seed);
    for _ in 0..ATTEMPTS {
        let generated = (assignment.tools.generate)(&mut rng);
        if let Some(output) = assignment.graded_output(&generated.input) {
            return Ok((generated, output));
        }
    }
    Err(Error::Reference(format!(
        "seed {seed} found no graded {} input in {ATTEMPTS} draws",
        assignment.name()
    )))
}

impl Commands {
    fn bounds(&self) -> Bounds {
        Bounds {
            timeout: self.timeout,
            wall: crate::process::backstop(self.timeout),
            asleep_after: None,
            stdout_cap: 64 << 20,
            stderr_cap: 4 << 10,
        }
    }

    /// The generator's command for `seed`, in the suite's folder.
    fn generator(&self, seed: u64) -> Target {
        let words: Vec<OsString> = self
            .generate
            .iter()
            .map(|word| OsString::from(word.replace("{seed}", &seed.to_string())))
            .collect();
        Target::command(&words, &self.reference.dir)
    }

    /// The generator's input for `seed`.
    fn generated(&self, seed: u64) -> Result<String, Error> {
        let target = self.generator(seed);
        let failed = |why: String| {
            Error::Reference(format!(
                "the generator `{}` (in `{}`) {why}",
                target.display(),
                target.dir.display()
            ))
        };
        let execution = execute(&target, b"", &self.bounds(), &Policy::trusted())
            .map_err(|err| failed(format!("could not start: {err}")))?;
        if execution.timed_out || execution.exit != Exit::Code(0) {
            let how = match execution.exit {
                _ if execution.timed_out => "ran out of time".to_string(),
                Exit::Code(code) => format!("exited with status {code}"),
                Exit::Signal(signal) => format!("was killed by signal {signal}"),
            };
            return Err(failed(format!("{how}{}", stderr_line(&execution.stderr))));
        }
        String::from_utf8(execution.stdout)
            .map_err(|_| failed("printed bytes that are not UTF-8 text".into()))
    }

    /// The reference's output for `input`, or `None` when it does not answer it (a non-zero
    /// exit: an input outside the assignment's graded domain).
    fn answer(&self, input: &str) -> Result<Option<Vec<u8>>, Error> {
        let execution = execute(
            &self.reference,
            input.as_bytes(),
            &self.bounds(),
            &Policy::trusted(),
        )
        .map_err(|err| {
            Error::Reference(format!(
                "the reference `{}` (in `{}`) could not start: {err}",
                self.reference.display(),
                self.reference.dir.display()
            ))
        })?;
        if execution.timed_out {
            return Err(Error::Reference(format!(
                "the reference `{}` ran out of time ({:.1} s)",
                self.reference.display(),
                self.timeout.as_secs_f64()
            )));
        }
        Ok((execution.exit == Exit::Code(0)).then_some(execution.stdout))
    }
}

fn stderr_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().rev().find(|line| !line.trim().is_empty()) {
        Some(line) => format!(" ({})", line.trim()),
        None => String::new(),
    }
}
