//! `cargo xtask serve --course DIR`: the course server's program. It parses the flags and
//! starts the server (the library, `gridjudge_server`); every decision is there.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Each grading worker's sandbox helper is this program too, as it is the harness's.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == xtask::sandbox::HELPER_ARG)
    {
        return xtask::sandbox::helper_main();
    }
    let args = gridjudge_server::Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot start: {err}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(gridjudge_server::run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(fault) => {
            eprintln!("error: {fault}");
            ExitCode::from(fault.status())
        }
    }
}
