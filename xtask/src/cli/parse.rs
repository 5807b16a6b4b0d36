//! What both command lines (`cargo xtask` and the student kit) share in parsing: a short
//! option's attached value split off before the program, and what a line that did not parse
//! prints.

use std::ffi::OsString;
use std::process::ExitCode;

/// `args` (what follows a command's name) with a short option's attached value apart: `-j2` as
/// `-j 2`. clap reads an attached value only where no positional takes values that start with a
/// hyphen, and a program's command line does (`check ./prog -x` passes `-x` to the program), so
/// `check -j2 ./prog` was refused. Only the options before the program are looked at: from the
/// program (or `--`) on, everything is the program's.
pub fn split_attached_values(command: &clap::Command, args: &[OsString]) -> Vec<OsString> {
    let takes_value = |arg: &clap::Arg| arg.get_action().takes_values();
    let short_with_value = |short: char| {
        command
            .get_arguments()
            .any(|arg| arg.get_short() == Some(short) && takes_value(arg))
    };
    let long_with_value = |long: &str| {
        command
            .get_arguments()
            .any(|arg| arg.get_long() == Some(long) && takes_value(arg))
    };
    let mut split = Vec::with_capacity(args.len() + 1);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let text = arg.to_str().unwrap_or_default();
        if text == "--" || text == "-" || !text.starts_with('-') {
            split.push(arg.clone());
            split.extend(rest.cloned());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            split.push(arg.clone());
            if !long.contains('=') && long_with_value(long) {
                split.extend(rest.next().cloned());
            }
            continue;
        }
        let mut chars = text[1..].chars();
        match chars.next() {
            Some(short) if short_with_value(short) => {
                let value = chars.as_str();
                split.push(format!("-{short}").into());
                if value.is_empty() {
                    split.extend(rest.next().cloned());
                } else {
                    split.push(value.strip_prefix('=').unwrap_or(value).into());
                }
            }
            _ => split.push(arg.clone()),
        }
    }
    split
}

/// What a command line that did not parse prints, and its exit status: help and version on
/// stdout (0), a bad flag as one `error:` line naming it (2).
pub fn parse_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
    }
    // clap's first paragraph, on one line: its tips (like `-- -1`, which would make the value
    // a target) mislead more than they help.
    let text = err.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    eprintln!("{}", first.join(" "));
    ExitCode::from(2)
}
