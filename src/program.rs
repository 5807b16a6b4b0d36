//! The interface every assignment implements, and the error it reports for bad input.
//!
//! A program sees its input one line at a time, without the line terminator (the driver strips
//! `\n` and one `\r` before it), and appends its output to a buffer. It never fails on input the
//! handout promises; input outside that promise is an [`InputError`] naming the line.

use std::fmt;

use crate::rule::{Command, Spans};

/// Whether a program wants more input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep feeding lines.
    Continue,
    /// The program has ended (quit, game over, answer printed): read nothing more.
    Stop,
}

/// Input that breaks the format the handout promises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// 1-based input line at fault (one past the last line when input ended too early).
    pub line: usize,
    pub message: String,
}

impl InputError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        InputError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "input line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for InputError {}

/// One assignment's behaviour, driven line by line.
pub trait Program {
    /// Output written before any input is read (connect4's first board).
    fn start(&mut self, _out: &mut Vec<u8>) {}

    /// Take input line `line_no` (1-based) and append the output it causes.
    fn feed(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, InputError>;

    /// Input ended after `last_line` lines without the program stopping by itself.
    fn finish(&mut self, last_line: usize, out: &mut Vec<u8>) -> Result<(), InputError>;

    /// The first behaviour the handout leaves unspecified that this input touched, if any,
    /// as `(input line, what)`. Cases that touch one are never graded.
    fn unspecified(&self) -> Option<&(usize, String)>;

    /// The spans that say which rule decided each part of the output, for a program that
    /// records them (see [`crate::rule`]); the driver switches recording on when tracing.
    fn spans(&mut self) -> Option<&mut Spans> {
        None
    }

    /// The spec's command that input line `line` is (without its line ending), for a spec
    /// whose input is commands; the driver names it in a trace. `None` for a spec that
    /// answers its whole input at once.
    fn command(&self, _line: &[u8]) -> Option<&'static Command> {
        None
    }
}

/// Records the first unspecified behaviour an input touches; later ones add nothing.
#[derive(Debug, Default, Clone)]
pub struct Unspecified(Option<(usize, String)>);

impl Unspecified {
    pub fn note(&mut self, line: usize, what: impl Into<String>) {
        if self.0.is_none() {
            self.0 = Some((line, what.into()));
        }
    }

    pub fn get(&self) -> Option<&(usize, String)> {
        self.0.as_ref()
    }
}
