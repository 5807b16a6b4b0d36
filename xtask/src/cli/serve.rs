//! `cargo xtask serve`: the course server, a crate of its own that cargo builds and runs with the flags given.

use std::process::ExitCode;

use crate::error::Error;

/// The course server's flags, passed to it whole: `--course DIR`, `--listen ADDR`,
/// `--links`, `--init`, ...
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct ServeArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<std::ffi::OsString>,
}

/// `serve`: cargo builds the course server and it runs in this process's place, with the
/// flags given.
pub(super) fn run(args: ServeArgs) -> Result<ExitCode, Error> {
    Err(crate::workspace::exec_server_program(
        "gridjudge-server",
        &args.args,
    ))
}
