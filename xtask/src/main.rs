//! `cargo xtask`: the command line. It parses the flags and runs the task (`cli`, one file per
//! task); every decision is in the library.
//!
//! Exit status: 0 success; 1 some graded case failed (or `bless --check` found changes, or
//! `fuzz` found a disagreement); 2 the harness could not do its job (bad arguments, a missing or
//! invalid corpus, a target that cannot be started); 3 nothing failed but some case could not
//! be judged (the machine too busy to measure it); 130 interrupted. A broken pipe on stdout
//! counts as success.

use std::process::ExitCode;

use xtask::cli::Cli;

fn main() -> ExitCode {
    // The sandbox helper and the benchmark's plain spawner are this program too.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match args.get(1) {
        Some(arg) if arg == xtask::sandbox::HELPER_ARG => return xtask::sandbox::helper_main(),
        Some(arg) if arg == xtask::bench::SPAWN_ARG => return xtask::bench::spawn_main(&args[2..]),
        _ => {}
    }
    // This program is its own sandbox helper under any name (a copy of it outside the
    // checkout too).
    xtask::sandbox::helper_is_self();
    // Ctrl-C: every running target is killed, the partial summary printed, exit status 130.
    xtask::cli::start();
    // A confined check starts its sandbox helper first, before the command line is parsed:
    // the helper sets itself up meanwhile (a one-case check about half a millisecond sooner
    // than with the helper started after the parse).
    if Cli::confines_a_program(&args) {
        xtask::sandbox::start_ahead();
    }
    match Cli::parse_args() {
        Ok(cli) => xtask::cli::conclude(cli.task.run()),
        // A helper started ahead goes with its cgroup here too.
        Err(code) => xtask::cli::conclude(Ok(code)),
    }
}
