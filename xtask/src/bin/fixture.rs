//! A program that misbehaves on purpose, for testing the harness: `fixture MODE EXPECTED`, where
//! EXPECTED is the case's `.out` file. Every mode but `exit-early`, `no-read` and `by-path` reads all of
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
    if !matches!(mode, "exit-early" | "no-read" | "by-path") {
        let _ = std::io::stdin().read_to_end(&mut input);
    }
    match plain(mode, &input, &expected) {
        Some(code) => code,
        None => hostile(mode, &args, &expected),
    }
}

/// Writes `bytes` to stdout and flushes them.
fn print(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes);
    let _ = stdout.flush();
}

/// Half its input (the echo spec's expected output), then a crash.
fn echo_crash(input: &[u8]) -> ExitCode {
    print(&input[..input.len() / 2]);
    ExitCode::from(1)
}

/// The modes of ordinary programs, right and wrong; `None` for a mode that is none of them.
fn plain(mode: &str, input: &[u8], expected: &dyn Fn() -> Vec<u8>) -> Option<ExitCode> {
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
            return Some(ExitCode::from(1));
        }
        // Half the output, then a Python-like traceback and exit 1.
        "traceback" => {
            let output = expected();
            print(&output[..output.len() / 2]);
            eprintln!("Traceback (most recent call last):\n  File \"project4.py\", line 12, in <module>\n    main()\nZeroDivisionError: division by zero");
            return Some(ExitCode::from(1));
        }
        "crash" => {
            let output = expected();
            print(&output[..output.len() / 2]);
            std::process::abort();
        }
        "signal" | "segfault" => {
            // `segfault`: at once, printing nothing (a C program that crashes on every case).
            if mode == "signal" {
                print(b"partial output\n");
            }
            // SAFETY: resetting a disposition and raising a signal have no memory-safety
            // preconditions. The Rust runtime's own SIGSEGV handler would swallow the signal.
            unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
        }
        "sleep" => std::thread::sleep(std::time::Duration::from_secs(3600)),
        // `burn`: 200 ms of its own CPU time, then its input back (as `echo`): fast on a quiet
        // machine, slow in wall time on a busy one, well within a CPU limit of half a second.
        "burn" => {
            burn_cpu(0.2);
            print(input);
        }
        "orphan" => {
            // A child inherits stdout and outlives this process.
            let _child = Command::new("sleep")
                .arg("3600")
                .stdin(Stdio::null())
                .spawn();
            print(&expected());
        }
        // Hangs on one input in 40 (by a hash of the input), echoes the others.
        "hang-sometimes" => hang_sometimes(input),
        "flood" => {
            let block = vec![b'x'; 1 << 20];
            for _ in 0..100 {
                print(&block);
            }
        }
        "exit-early" => {}
        "echo-crash" => return Some(echo_crash(input)),
        "echo" => print(input),
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
        // SAFETY: getuid cannot fail.
        "whoami" => print(format!("{}\n", unsafe { libc::getuid() }).as_bytes()),
        "missing" => {
            eprintln!(
                "python3: can't open file 'project4.py': [Errno 2] No such file or directory"
            );
            return Some(ExitCode::from(2));
        }
        _ => return None,
    }
    Some(ExitCode::SUCCESS)
}

/// The modes of hostile programs, for the sandbox and the limits.
fn hostile(mode: &str, args: &[String], expected: &dyn Fn() -> Vec<u8>) -> ExitCode {
    match mode {
        // Hostile programs, for the sandbox and the limits.
        "read-corpus" => print(&expected()),
        // `read-rooted opt/x`: reads `/opt/x`, a path its command line does not name (a file
        // named there is shown to it).
        "read-rooted" => print(&std::fs::read(format!("/{}", args[1])).unwrap_or_default()),
        "write-corpus" => {
            let target = std::path::Path::new(&args[1]);
            let result = std::fs::write(target, "overwritten\n")
                .and_then(|()| std::fs::write(target.with_file_name("999-planted.in"), "x\n"));
            if let Err(err) = result {
                eprintln!("fixture: {err}");
                return ExitCode::from(1);
            }
        }
        "fork-bomb" | "allocate" | "spin" | "hog" | "daemon" | "ignore-term" | "big-file"
        | "many-files" => return limits(mode, expected),
        "non-utf8" => print(b"\xff\xfe not text\n"),
        // `attacks CHECKOUT_FILE CHECKOUT_BINARY CORPUS_FILE HARNESS_PID PORT`: tries what a hostile student
        // would, prints one line per attempt, `blocked` or `ESCAPED`.
        "attacks" => print(attacks(&args[1..]).as_bytes()),
        // `escape-group`: the main process moves into its child's process group, both sleep.
        "escape-group" => escape_group(),
        // `by-path`: reads its input from `/dev/stdin` and writes it back to `/proc/self/fd/1`,
        // by path, as C programs do with `fopen("/dev/stdin")`; says what failed.
        "by-path" => {
            let copied = std::fs::read("/dev/stdin").and_then(|input| {
                let mut out = std::fs::OpenOptions::new()
                    .write(true)
                    .open("/proc/self/fd/1")?;
                out.write_all(&input)
            });
            if let Err(err) = copied {
                eprintln!("by path: {err}");
                return ExitCode::from(1);
            }
        }
        // `shm-write` / `shm-read`: SysV shared memory left for a later case to find.
        "shm-write" => print(shm(true).as_bytes()),
        "shm-read" => print(shm(false).as_bytes()),
        // `fill-home`: writes into $HOME until something stops it; prints how much.
        "fill-home" => print(fill_home().as_bytes()),
        // `huge-line`: one 8 MiB line.
        "huge-line" => print(&vec![b'x'; 8 << 20]),
        // `escapes`: terminal control sequences on stderr, then the right output.
        "escapes" => {
            eprintln!("\x1b[2J\x1b[31mred\x07 alert");
            print(&expected());
        }
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

/// The modes that run into a resource limit.
fn limits(mode: &str, expected: &dyn Fn() -> Vec<u8>) -> ExitCode {
    match mode {
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
        // `hog`: 64 busy children and a busy self: its processes wait for each other, not for
        // the machine.
        "hog" => {
            for _ in 0..64 {
                // SAFETY: fork has no memory-safety preconditions; the child only loops.
                if unsafe { libc::fork() } == 0 {
                    burn_cpu(f64::INFINITY);
                }
            }
            burn_cpu(f64::INFINITY);
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
        _ => {}
    }
    ExitCode::SUCCESS
}

/// One line per attack: `NAME: blocked` when the system refused it, `NAME: ESCAPED ...` when it
/// worked.
fn attacks(args: &[String]) -> String {
    let (checkout_file, checkout_binary, corpus_file, harness_pid, port) =
        (&args[0], &args[1], &args[2], &args[3], &args[4]);
    let mut out = String::new();
    let mut line = |name: &str, escaped: Option<String>| {
        out += &match escaped {
            Some(how) => format!("{name}: ESCAPED {how}\n"),
            None => format!("{name}: blocked\n"),
        };
    };
    file_attacks(&mut line, checkout_file, checkout_binary, corpus_file);
    system_attacks(&mut line, corpus_file, harness_pid);
    reach_attacks(&mut line, harness_pid, port);
    out
}

/// How an attack reports: its name, and how it got through (`None`: blocked).
type Line<'a> = dyn FnMut(&str, Option<String>) + 'a;

/// Reading and changing the checkout, its binary and the corpus.
fn file_attacks(line: &mut Line, checkout_file: &str, checkout_binary: &str, corpus_file: &str) {
    line(
        "read-checkout",
        std::fs::read(checkout_file)
            .ok()
            .map(|b| format!("{} bytes", b.len())),
    );
    line(
        "exec-from-checkout",
        Command::new(checkout_binary)
            .output()
            .ok()
            .map(|_| "ran".into()),
    );
    line(
        "chmod-binary",
        std::fs::set_permissions(
            checkout_binary,
            std::os::unix::fs::PermissionsExt::from_mode(0o000),
        )
        .ok()
        .map(|()| "mode 000".into()),
    );
    line(
        "read-corpus",
        std::fs::read(corpus_file)
            .ok()
            .map(|b| format!("{} bytes", b.len())),
    );
    line(
        "chmod-corpus",
        std::fs::set_permissions(
            corpus_file,
            std::os::unix::fs::PermissionsExt::from_mode(0o000),
        )
        .ok()
        .map(|()| "mode 000".into()),
    );
}

/// System calls the sandbox must refuse.
fn system_attacks(line: &mut Line, corpus_file: &str, harness_pid: &str) {
    // SAFETY: plain system calls on integers and NUL-terminated strings.
    unsafe {
        let path = std::ffi::CString::new(corpus_file).unwrap();
        line(
            "chown-corpus",
            (libc::chown(path.as_ptr(), 0, 0) == 0).then(|| "owner changed".into()),
        );
        let limit = libc::rlimit {
            rlim_cur: 1,
            rlim_max: 1,
        };
        let pid: libc::pid_t = harness_pid.parse().unwrap_or(1);
        let mut hits = Vec::new();
        for target in [pid, 1] {
            if libc::prlimit(target, libc::RLIMIT_NOFILE, &limit, std::ptr::null_mut()) == 0 {
                hits.push(target);
            }
        }
        line(
            "prlimit-others",
            (!hits.is_empty()).then(|| format!("{hits:?}")),
        );
        line(
            "signal-harness",
            (libc::kill(pid, 0) == 0).then(|| format!("pid {pid} is reachable")),
        );
        let raw = libc::socket(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_ICMP);
        line("raw-socket", (raw >= 0).then(|| "opened".into()));
        let key = libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            c"gridjudge-test".as_ptr(),
            c"secret".as_ptr(),
            6usize,
            -4i32, // KEY_SPEC_USER_KEYRING
        );
        line("keyring", (key >= 0).then(|| "key added".into()));
        let tty = libc::open(c"/dev/tty".as_ptr(), libc::O_RDONLY);
        line("dev-tty", (tty >= 0).then(|| "opened".into()));
        let mount = libc::mount(
            c"none".as_ptr(),
            c"/tmp".as_ptr(),
            c"tmpfs".as_ptr(),
            0,
            std::ptr::null(),
        );
        line("mount", (mount == 0).then(|| "mounted".into()));
        let ptrace = libc::ptrace(libc::PTRACE_ATTACH, 1, 0, 0);
        line("ptrace", (ptrace == 0).then(|| "attached".into()));
    }
    namespace_attacks(line);
}

/// New namespaces (a new user namespace gives its first process every capability in it), and
/// the system calls a filter could miss: `clone3`, `io_uring`, the x32 ABI.
fn namespace_attacks(line: &mut Line) {
    let new = (libc::CLONE_NEWUSER | libc::CLONE_NEWNET) as u64;
    // A child that is made ends at once; its parent reports it.
    let made = |pid: libc::c_long| -> Option<String> {
        match pid {
            0 => unsafe { libc::_exit(0) },
            pid if pid > 0 => {
                // SAFETY: waitpid writes an integer we own.
                unsafe { libc::waitpid(pid as libc::pid_t, &mut 0, 0) };
                Some("a child in new namespaces".into())
            }
            _ => None,
        }
    };
    // SAFETY: clone without a new stack behaves as fork; the child only exits.
    let pid = unsafe { libc::syscall(libc::SYS_clone, new | libc::SIGCHLD as u64, 0, 0, 0, 0) };
    line("clone-new-namespaces", made(pid));
    // struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size,
    // tls (64 bytes, the first version).
    let mut args = [0u64; 8];
    args[0] = new;
    args[4] = libc::SIGCHLD as u64;
    // SAFETY: clone3 reads `args`, which lives for the call; the child only exits.
    let pid = unsafe { libc::syscall(libc::SYS_clone3, args.as_mut_ptr(), 64usize) };
    line("clone3", made(pid));
    let mut params = [0u8; 120];
    // SAFETY: io_uring_setup writes at most the 120 bytes of `params`.
    let ring = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
    line("io-uring", (ring >= 0).then(|| "a ring".into()));
    // SAFETY: a zeroed cpu_set_t we own, every CPU set in it, passed with its size.
    let widened = unsafe {
        let mut every: libc::cpu_set_t = std::mem::zeroed();
        for cpu in 0..libc::CPU_SETSIZE as usize {
            libc::CPU_SET(cpu, &mut every);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &every)
    };
    line(
        "widen-affinity",
        (widened == 0).then(|| "sched_setaffinity to every CPU".into()),
    );
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: getpid in the x32 ABI takes no argument.
        let x32 = unsafe { libc::syscall(libc::SYS_getpid | 0x4000_0000) };
        line("x32-syscall", (x32 >= 0).then(|| format!("getpid = {x32}")));
    }
}

/// Reaching the harness and the host: its environment, the network, the system folders.
fn reach_attacks(line: &mut Line, harness_pid: &str, port: &str) {
    let cmdline = std::fs::read("/proc/1/cmdline").unwrap_or_default();
    line(
        "pid1-cmdline",
        cmdline
            .contains(&b'/')
            .then(|| String::from_utf8_lossy(&cmdline).replace('\0', " ")),
    );
    line(
        "harness-environ",
        std::fs::read(format!("/proc/{harness_pid}/environ"))
            .ok()
            .map(|b| format!("{} bytes", b.len())),
    );
    line(
        "tcp-to-host",
        std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap_or(1)))
            .ok()
            .map(|_| "connected".into()),
    );
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").and_then(|socket| {
        socket.send_to(b"hello", ("127.0.0.1", port.parse::<u16>().unwrap_or(1)))
    });
    // Sending UDP to its own loopback succeeds; the test checks that nothing reached the host.
    let _ = udp;
    line(
        "write-outside-temp",
        std::fs::write("/etc/gridjudge-planted", "x")
            .ok()
            .map(|()| "wrote /etc".into()),
    );
}

fn escape_group() {
    // SAFETY: fork in a single-threaded program; the child only sleeps.
    unsafe {
        let child = libc::fork();
        if child == 0 {
            libc::setpgid(0, 0);
            loop {
                libc::pause();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        libc::setpgid(0, child);
        loop {
            libc::pause();
        }
    }
}

fn shm(write: bool) -> String {
    // SAFETY: SysV calls on integers; the segment is 4 KiB and only read or written within.
    unsafe {
        let flags = if write {
            libc::IPC_CREAT | 0o666
        } else {
            0o666
        };
        let id = libc::shmget(0x6a75_6467, 4096, flags);
        if id < 0 {
            return "no segment\n".into();
        }
        let memory = libc::shmat(id, std::ptr::null(), 0).cast::<u8>();
        if memory as isize == -1 {
            return "no segment\n".into();
        }
        if write {
            std::ptr::copy_nonoverlapping(b"left behind".as_ptr(), memory, 11);
            "written\n".into()
        } else {
            let found = std::slice::from_raw_parts(memory, 11);
            format!("found `{}`\n", String::from_utf8_lossy(found))
        }
    }
}

fn fill_home() -> String {
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let chunk = vec![0u8; 1 << 20];
    let mut written = 0u64;
    // Files of 1 MiB, below any file-size limit: only the space of the folder can stop it.
    'files: for k in 0.. {
        let Ok(mut file) = std::fs::File::create(home.join(format!("filler-{k}"))) else {
            break;
        };
        match file.write(&chunk) {
            Ok(n) if n > 0 => written += n as u64,
            _ => break 'files,
        }
        if written >= 8 << 30 {
            break;
        }
    }
    format!("wrote {} MiB\n", written >> 20)
}

/// Spins until this process has used `seconds` of CPU time.
fn burn_cpu(seconds: f64) {
    let cpu = || {
        // SAFETY: getrusage writes into a struct we own.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
        usage.ru_utime.tv_sec as f64 + usage.ru_utime.tv_usec as f64 / 1e6
    };
    let start = cpu();
    let mut x = 0u64;
    while cpu() - start < seconds {
        for _ in 0..10_000 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }
}

/// Hangs on one input in 40 (by a hash of the input), echoes the others.
fn hang_sometimes(input: &[u8]) {
    let hash = input.iter().fold(2166136261u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(16777619)
    });
    if hash % 40 == 0 {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
    print(input);
}
