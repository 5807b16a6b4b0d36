//! The `gridjudge` reference binary: the only place that touches stdin, stdout and the exit
//! status. Everything it runs lives in the library.
//!
//! Exit status: 0 the input was handled (also when stdout was closed early: a broken pipe ends
//! the program quietly); 1 an I/O error; 2 bad usage or input outside the handout's format;
//! 3 with `--strict`, the input touched behaviour the handout leaves unspecified.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gridjudge::driver::{self, RunError};
use gridjudge::spec::{self, Spec};

const USAGE: &str = "usage: gridjudge [--strict] [--trace FILE] SPEC < INPUT";

struct Args {
    spec: &'static Spec,
    strict: bool,
    trace: Option<PathBuf>,
}

fn help() -> String {
    let mut text = format!(
        "gridjudge: reference implementations of four stdin/stdout assignments\n\n{USAGE}\n\nSPEC:\n"
    );
    for spec in spec::SPECS {
        text.push_str(&format!("  {:<10}{}\n", spec.name, spec.summary));
    }
    text.push_str(
        "\nOPTIONS:\n  --strict      exit 3 if the input touches behaviour the handout leaves unspecified\n  --trace FILE  write `INPUT_LINE OUTPUT_OFFSET` after each input line to FILE, and\n                `@ GAP LENGTH RULE`: the rule of the spec behind output bytes\n  -h, --help    print this help\n",
    );
    text
}

/// Parses the command line; `Err` carries the message and exit status.
fn parse_args() -> Result<Args, (String, u8)> {
    let mut args = std::env::args_os().skip(1);
    let (mut spec, mut strict, mut trace) = (None, false, None);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Err((help(), 0)),
            Some("--strict") => strict = true,
            Some("--trace") => match args.next() {
                Some(path) => trace = Some(PathBuf::from(path)),
                None => return Err((format!("error: --trace needs a file\n{USAGE}"), 2)),
            },
            Some(name) if spec.is_none() && !name.starts_with('-') => {
                let Some(found) = spec::find(name) else {
                    let names: Vec<&str> = spec::SPECS.iter().map(|spec| spec.name).collect();
                    return Err((
                        format!(
                            "error: unknown spec `{name}` (expected one of: {})\n{USAGE}",
                            names.join(", ")
                        ),
                        2,
                    ));
                };
                spec = Some(found);
            }
            _ => {
                return Err((
                    format!(
                        "error: unexpected argument `{}`\n{USAGE}",
                        arg.to_string_lossy()
                    ),
                    2,
                ))
            }
        }
    }
    match spec {
        Some(spec) => Ok(Args {
            spec,
            strict,
            trace,
        }),
        None => Err((format!("error: no spec given\n{USAGE}"), 2)),
    }
}

/// Writes `bytes` to `path` through a temporary file, so `path` is never left partial.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, path)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err((message, 0)) => {
            print!("{message}");
            return ExitCode::SUCCESS;
        }
        Err((message, status)) => {
            eprintln!("{message}");
            return ExitCode::from(status);
        }
    };
    let stdin = io::stdin().lock();
    let stdout = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut trace = Vec::new();
    let trace_writer = args.trace.as_ref().map(|_| &mut trace as &mut dyn Write);
    let result = driver::run(args.spec, stdin, stdout, trace_writer);
    if let Some(path) = &args.trace {
        if let Err(err) = write_atomically(path, &trace) {
            eprintln!("gridjudge: failed to write `{}`: {err}", path.display());
            return ExitCode::from(1);
        }
    }
    match result {
        Ok(finished) => match finished.unspecified {
            Some((line, what)) if args.strict => {
                eprintln!("gridjudge: input line {line}: unspecified behaviour: {what}");
                ExitCode::from(3)
            }
            _ => ExitCode::SUCCESS,
        },
        Err(RunError::Io(err)) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(RunError::Io(err)) => {
            eprintln!("gridjudge: {err}");
            ExitCode::from(1)
        }
        Err(RunError::Input(err)) => {
            eprintln!("gridjudge {}: {err}", args.spec.name);
            ExitCode::from(2)
        }
    }
}
