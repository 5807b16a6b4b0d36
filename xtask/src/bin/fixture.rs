//! A program that misbehaves on purpose, for testing the harness: `fixture MODE EXPECTED`, where
//! EXPECTED is the case's `.out` file. Every mode but `exit-early` and `no-read` reads all of
//! stdin first, like a normal program.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or("");
    let expected = || std::fs::read(&args[1]).expect("the expected output file");
    if !matches!(mode, "exit-early" | "no-read") {
        let mut input = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut input);
    }
    let mut stdout = std::io::stdout().lock();
    let mut print = |bytes: &[u8]| {
        let _ = stdout.write_all(bytes);
        let _ = stdout.flush();
    };
    match mode {
        "right" | "no-read" => print(&expected()),
        "wrong" => {
            let mut output = expected();
            let last = output.len().saturating_sub(2);
            output[last] = if output[last] == b'#' { b'%' } else { b'#' };
            print(&output);
        }
        "trailing-space" => {
            let text = String::from_utf8(expected()).unwrap();
            print(text.replacen('\n', " \n", 1).as_bytes());
        }
        "crlf" => print(
            String::from_utf8(expected())
                .unwrap()
                .replace('\n', "\r\n")
                .as_bytes(),
        ),
        "no-final-newline" => {
            let output = expected();
            print(&output[..output.len() - 1]);
        }
        "exit-1" => {
            print(&expected());
            eprintln!("fixture: failing on purpose");
            return ExitCode::from(1);
        }
        "crash" => {
            let output = expected();
            print(&output[..output.len() / 2]);
            std::process::abort();
        }
        "signal" => {
            print(b"partial output\n");
            // SAFETY: resetting a disposition and raising a signal have no memory-safety
            // preconditions. The Rust runtime's own SIGSEGV handler would swallow the signal.
            unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
        }
        "sleep" => std::thread::sleep(std::time::Duration::from_secs(3600)),
        "orphan" => {
            // A child inherits stdout and outlives this process.
            let _child = Command::new("sleep")
                .arg("3600")
                .stdin(Stdio::null())
                .spawn();
            print(&expected());
        }
        "flood" => {
            let block = vec![b'x'; 1 << 20];
            for _ in 0..100 {
                print(&block);
            }
        }
        "exit-early" => {}
        "non-utf8" => print(b"\xff\xfe not text\n"),
        "reference" => {
            // Answers like the reference with `--trace FILE`: output line k answers input line k.
            let output = expected();
            print(&output);
            if let Some(path) = args
                .iter()
                .position(|a| a == "--trace")
                .map(|i| &args[i + 1])
            {
                let mut trace = String::from("0 0\n");
                let mut offset = 0;
                for (line_no, line) in output.split_inclusive(|&b| b == b'\n').enumerate() {
                    offset += line.len();
                    trace += &format!("{} {offset}\n", line_no + 1);
                }
                std::fs::write(path, trace).unwrap();
            }
        }
        _ => {
            eprintln!("fixture: unknown mode `{mode}`");
            return ExitCode::from(64);
        }
    }
    ExitCode::SUCCESS
}
