//! A program that misbehaves on purpose, for testing the harness: `fixture MODE EXPECTED`, where
//! EXPECTED is the case's `.out` file. Every mode but `exit-early` and `no-read` reads all of
//! stdin first, like a normal program.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let by_folder = std::fs::read_to_string("mode").unwrap_or_default();
    let mode = match args.first().map(String::as_str).unwrap_or("") {
        // `by-folder`: the mode is in the file `mode` of the folder it runs in (one per student).
        "by-folder" => by_folder.trim(),
        mode => mode,
    };
    let expected = || std::fs::read(&args[1]).expect("the expected output file");
    let mut input = Vec::new();
    if !matches!(mode, "exit-early" | "no-read") {
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
        "echo" => print(&input),
        // Different output on every run.
        "nondeterministic" => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            print(format!("{nanos} {}\n", std::process::id()).as_bytes());
        }
        "abort" => std::process::abort(),
        "shout" => print(&input.to_ascii_uppercase()),
        "missing" => {
            eprintln!(
                "python3: can't open file 'project4.py': [Errno 2] No such file or directory"
            );
            return ExitCode::from(2);
        }
        // Hostile programs, for the sandbox and the limits.
        "read-corpus" => print(&expected()),
        "write-corpus" => {
            let target = std::path::Path::new(&args[1]);
            let result = std::fs::write(target, "overwritten\n")
                .and_then(|()| std::fs::write(target.with_file_name("999-planted.in"), "x\n"));
            if let Err(err) = result {
                eprintln!("fixture: {err}");
                return ExitCode::from(1);
            }
        }
        "fork-bomb" => loop {
            // SAFETY: fork has no memory-safety preconditions; the child only loops and forks.
            unsafe {
                libc::fork();
            }
        },
        "allocate" => {
            // 10 GiB, touched page by page so that it is really used.
            let mut blocks = Vec::new();
            for _ in 0..10 * 1024 {
                let mut block = vec![0u8; 1 << 20];
                for page in block.chunks_mut(4096) {
                    page[0] = 1;
                }
                blocks.push(block);
            }
            print(&[blocks.len() as u8]);
        }
        "spin" => {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        "daemon" => {
            // Double fork: the grandchild leaves the process group and holds stdout open.
            // SAFETY: fork, setsid and sleep have no memory-safety preconditions.
            unsafe {
                if libc::fork() == 0 {
                    libc::setsid();
                    if libc::fork() == 0 {
                        libc::sleep(3600);
                    }
                    libc::_exit(0);
                }
            }
            print(&expected());
        }
        "ignore-term" => {
            // SAFETY: ignoring a signal has no memory-safety preconditions.
            unsafe {
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
            }
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
        "big-file" => {
            let path = std::env::temp_dir().join("big");
            let mut file = std::fs::File::create(path).unwrap();
            let block = vec![b'x'; 1 << 20];
            for _ in 0..10 * 1024 {
                if let Err(err) = file.write_all(&block) {
                    eprintln!("fixture: {err}");
                    return ExitCode::from(1);
                }
            }
        }
        "many-files" => {
            let mut files = Vec::new();
            for _ in 0..10_000 {
                match std::fs::File::open("/dev/null") {
                    Ok(file) => files.push(file),
                    Err(err) => {
                        eprintln!("fixture: {err}");
                        return ExitCode::from(1);
                    }
                }
            }
        }
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
