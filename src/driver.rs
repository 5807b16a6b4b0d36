//! Runs one [`Program`] over an input, line by line.
//!
//! The driver owns the line discipline shared by every assignment: it splits input on `\n`,
//! drops one `\r` before it (recording that as unspecified behaviour), numbers lines from 1, and
//! hands each line to the program. Interactive programs get their output flushed after every
//! line, so a person or a harness sees each display before the next line is read.
//!
//! With a trace writer, the driver also records after every line how many output bytes exist,
//! as `LINE OFFSET` lines (`0 OFFSET` for output written before any input). A harness uses
//! that map to say which input line an output difference answers. A program that records rule
//! spans adds, before each such line, `@ GAP LENGTH SLUG` lines: the output bytes from `GAP`
//! after the previous span's start (from 0 for the first; `GAP` may be negative), `LENGTH` of
//! them, were decided by the rule `SLUG` of the spec (spans may nest; the innermost one holding
//! a byte is its rule), and each rule's words once, as `= SLUG WORDS`, before its first span.
//! Spans are written relative to each other so that a trace compresses well. Each rule's
//! handout section follows its words once, as `: SLUG SECTION`. For a spec whose input lines
//! are commands, the command of each line comes before its `LINE OFFSET` line, as `> KEY`, and
//! each command's words once, as `! KEY WORDS`, before its first use.

use std::io::{self, BufRead, Write};

use crate::program::{Flow, InputError, Program, Unspecified};
use crate::spec::Spec;

/// How a run ended when the input was acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The earliest unspecified behaviour the input touched: `(input line, what)`.
    pub unspecified: Option<(usize, String)>,
}

/// Why a run could not finish.
#[derive(Debug)]
pub enum RunError {
    /// The input broke the format the handout promises.
    Input(InputError),
    /// Reading the input or writing the output failed.
    Io(io::Error),
}

impl From<io::Error> for RunError {
    fn from(err: io::Error) -> Self {
        RunError::Io(err)
    }
}

/// Feeds `input` to a fresh program of `spec`, writing its output to `output`.
pub fn run(
    spec: &Spec,
    mut input: impl BufRead,
    mut output: impl Write,
    mut trace: Option<&mut dyn Write>,
) -> Result<Finished, RunError> {
    let mut program = (spec.program)();
    let mut crlf = Unspecified::default();
    let mut out = Vec::new();
    let mut written = 0usize;
    let mut line = Vec::new();
    let mut line_no = 0usize;

    let mut written_spans = WrittenSpans::default();
    if trace.is_some() {
        if let Some(spans) = program.spans() {
            spans.record();
        }
    }
    program.start(&mut out);
    let mut before = written;
    emit(&mut output, &mut out, &mut written, spec.interactive)?;
    if let Some(trace) = trace.as_deref_mut() {
        written_spans.write(trace, program.as_mut(), before)?;
        writeln!(trace, "0 {written}")?;
    }
    let mut stopped = false;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        line_no += 1;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
            crlf.note(line_no, "a line ends in \\r\\n");
        }
        let flow = program.feed(line_no, &line, &mut out);
        // Whatever was displayed before a bad line stays displayed.
        before = written;
        emit(&mut output, &mut out, &mut written, spec.interactive)?;
        if let Some(trace) = trace.as_deref_mut() {
            written_spans.write(trace, program.as_mut(), before)?;
            if let Some(command) = program.command(&line) {
                if written_spans.commands.insert(command.key) {
                    writeln!(trace, "! {} {}", command.key, command.words)?;
                }
                writeln!(trace, "> {}", command.key)?;
            }
            writeln!(trace, "{line_no} {written}")?;
        }
        if flow.map_err(RunError::Input)? == Flow::Stop {
            stopped = true;
            break;
        }
    }
    if !stopped {
        let result = program.finish(line_no, &mut out);
        before = written;
        emit(&mut output, &mut out, &mut written, spec.interactive)?;
        if let Some(trace) = trace {
            written_spans.write(trace, program.as_mut(), before)?;
        }
        result.map_err(RunError::Input)?;
    }
    output.flush()?;
    let unspecified = [crlf.get(), program.unspecified()]
        .into_iter()
        .flatten()
        .min_by_key(|(line, _)| *line)
        .cloned();
    Ok(Finished { unspecified })
}

/// What a trace has said of spans so far: the rules and commands named, and the last span's
/// start.
#[derive(Default)]
struct WrittenSpans {
    named: std::collections::HashSet<&'static str>,
    commands: std::collections::HashSet<&'static str>,
    last_start: usize,
}

impl WrittenSpans {
    /// Writes the rule spans the program recorded for output that starts at byte `base`, and
    /// the words of each rule not named before.
    fn write(
        &mut self,
        trace: &mut dyn Write,
        program: &mut dyn Program,
        base: usize,
    ) -> io::Result<()> {
        let Some(spans) = program.spans() else {
            return Ok(());
        };
        for span in spans.take() {
            let (start, rule) = (base + span.start, span.rule);
            if self.named.insert(rule.slug) {
                writeln!(trace, "= {} {}", rule.slug, rule.words)?;
                writeln!(trace, ": {} {}", rule.slug, rule.section)?;
            }
            let gap = start as i128 - self.last_start as i128;
            writeln!(trace, "@ {gap} {} {}", span.end - span.start, rule.slug)?;
            self.last_start = start;
        }
        Ok(())
    }
}

fn emit(
    output: &mut impl Write,
    out: &mut Vec<u8>,
    written: &mut usize,
    flush: bool,
) -> io::Result<()> {
    if !out.is_empty() {
        output.write_all(out)?;
        *written += out.len();
        out.clear();
    }
    if flush {
        output.flush()?;
    }
    Ok(())
}

/// The output of `spec` for `input` when the input is well formed and touches only determined
/// and ruled behaviour: the graded domain, which every generator, shrinker and corpus check
/// asks about through this one function. `None` otherwise.
pub fn graded_output(spec: &Spec, input: &[u8]) -> Option<Vec<u8>> {
    let (output, result) = run_bytes(spec, input);
    matches!(result, Ok(finished) if finished.unspecified.is_none()).then_some(output)
}

/// Runs `spec` over an in-memory input: the output, and how the run ended.
pub fn run_bytes(spec: &Spec, input: &[u8]) -> (Vec<u8>, Result<Finished, InputError>) {
    let mut output = Vec::new();
    let result = match run(spec, input, &mut output, None) {
        Ok(finished) => Ok(finished),
        Err(RunError::Input(err)) => Err(err),
        // Reading from a slice and writing to a Vec cannot fail.
        Err(RunError::Io(err)) => unreachable!("in-memory I/O failed: {err}"),
    };
    (output, result)
}
