//! The course server's test suite: one binary, one module per concern (ARCHITECTURE.md,
//! "Codemap"), sharing `support` (a course folder, the server on a loopback port, its client).

mod access;
mod attacks;
mod browser;
mod everyday;
mod lti;
mod postgres;
mod server;
mod stall;
mod support;
mod term;
