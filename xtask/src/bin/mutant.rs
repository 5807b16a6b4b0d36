//! A wrong variant of the reference as a program, for testing the harness against known bugs:
//! `mutant NAME SPEC < INPUT` plays SPEC like `gridjudge SPEC` does, with the variant NAME of
//! `gridjudge::mutant::MUTANTS` switched on (`none`: the reference itself). `mutant by-folder`
//! reads `NAME SPEC` from the file `mutant` of the folder it runs in (one per submission of
//! `cargo xtask bench --class`). Exit status: 0 after the last output, 2 for bad input or
//! arguments.

use std::io::Write;
use std::process::ExitCode;

use gridjudge::driver::{run, RunError};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 1 && args[0] == "by-folder" {
        let text = std::fs::read_to_string("mutant").unwrap_or_default();
        args = text.split_whitespace().map(String::from).collect();
    }
    let [name, spec] = &args[..] else {
        eprintln!("usage: mutant NAME SPEC < INPUT (NAME: a variant of src/mutant.rs, or none)");
        return ExitCode::from(2);
    };
    let Some(spec) = gridjudge::spec::find(spec) else {
        eprintln!("mutant: unknown spec `{spec}`");
        return ExitCode::from(2);
    };
    let play = || {
        let stdin = std::io::stdin().lock();
        let mut stdout = std::io::stdout().lock();
        let result = run(spec, stdin, &mut stdout, None);
        let _ = stdout.flush();
        result
    };
    let result = match name.as_str() {
        "none" => play(),
        name => match gridjudge::mutant::find(name) {
            Some(info) => gridjudge::mutant::with(info.mutant, play),
            None => {
                eprintln!("mutant: unknown variant `{name}`");
                return ExitCode::from(2);
            }
        },
    };
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(RunError::Input(err)) => {
            eprintln!("mutant: {err}");
            ExitCode::from(2)
        }
        Err(RunError::Io(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(RunError::Io(err)) => {
            eprintln!("mutant: {err}");
            ExitCode::from(1)
        }
    }
}
