//! The reference's test suite: one binary, one module per concern.

mod cli;
mod collapse;
mod columns;
mod connect4;
mod go;
mod handout;
mod support;
mod trace;
