//! The harness's test suite: one binary, one module per concern.

mod cli;
mod flags;
mod fuzz;
mod grade;
mod harness;
mod hostile;
mod house;
mod html;
mod kit;
mod languages;
mod load;
mod own;
mod reports;
mod support;
mod tidy;
mod toy;
mod workflow;
