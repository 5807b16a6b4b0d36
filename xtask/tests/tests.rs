//! The harness's test suite: one binary, one module per concern.

mod cli;
mod harness;
mod reports;
mod support;
mod tidy;
