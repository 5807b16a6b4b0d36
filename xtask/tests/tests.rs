//! The harness's test suite: one binary, one module per concern.

mod bless;
mod class_attacks;
mod cli;
mod diagnosis;
mod flags;
mod floods;
mod fuzz;
mod grade;
mod harness;
mod hostile;
mod house;
mod html;
mod inference;
mod interrupts;
mod isolation;
mod kit;
mod languages;
mod load;
mod own;
mod regrade;
mod reports;
mod similar;
mod support;
mod tidy;
mod toy;
mod workflow;
