//! `cargo xtask bench --class N`: a synthetic class of N submissions, graded as a real one is.
//!
//! The submissions are a fixed mix of right, wrong, crashing, hanging and flooding programs,
//! in Python and native, each run as `./solution by-folder` in its own folder. The report
//! gives the grading's wall time and runs per second against the raw spawn floor for the same
//! runs, measured in the same process afterwards: each kind of program spawned over every case
//! with the same parallelism, per-case timeout and output cap, and nothing else, times the
//! number of submissions of that kind. It also gives the harness's peak memory (its own
//! resident set, not the targets') and the time from the start to the first result file.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::check::Options as CheckOptions;
use crate::error::Error;

/// What a synthetic submission is made of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Made {
    /// The go solution in Python, with `edit` applied to its source.
    Python(PythonEdit),
    /// The reference, or one of its wrong variants, as a native program.
    Mutant(&'static str),
    /// The misbehaving fixture program in one of its modes.
    Fixture(&'static str),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PythonEdit {
    None,
    /// One title capitalised differently: wrong on every board it prints.
    Wrong,
    /// Echoes its first input line and divides by zero.
    Crash,
    /// Sleeps on one input in 40.
    Hang,
}

/// A kind of submission and its share of the class, in percent.
struct Kind {
    label: &'static str,
    made: Made,
    share: usize,
}

static KINDS: &[Kind] = &[
    Kind {
        label: "python, right",
        made: Made::Python(PythonEdit::None),
        share: 8,
    },
    Kind {
        label: "python, wrong",
        made: Made::Python(PythonEdit::Wrong),
        share: 4,
    },
    Kind {
        label: "python, crashing",
        made: Made::Python(PythonEdit::Crash),
        share: 2,
    },
    Kind {
        label: "python, hanging on some inputs",
        made: Made::Python(PythonEdit::Hang),
        share: 1,
    },
    Kind {
        label: "native, right",
        made: Made::Mutant("none"),
        share: 40,
    },
    Kind {
        label: "native, wrong",
        made: Made::Mutant("go-diagonal-liberties"),
        share: 25,
    },
    Kind {
        label: "native, crashing",
        made: Made::Fixture("signal"),
        share: 10,
    },
    Kind {
        label: "native, flooding 100 MiB",
        made: Made::Fixture("flood"),
        share: 8,
    },
    Kind {
        label: "native, hanging on some inputs",
        made: Made::Fixture("hang-sometimes"),
        share: 2,
    },
];

/// The kind of submission `index`, as a place in `KINDS`: the shares, spread over the class
/// rather than in blocks.
fn kind_of(index: usize) -> usize {
    let mut slot = (index * 37) % 100;
    for (at, kind) in KINDS.iter().enumerate() {
        if slot < kind.share {
            return at;
        }
        slot -= kind.share;
    }
    KINDS.len() - 1
}

/// The programs the submissions are copied from.
struct Sources {
    mutant: PathBuf,
    fixture: PathBuf,
    /// The go solution in Python, and the interpreter its `#!` line names (none: no Python
    /// submissions).
    python: Option<(String, PathBuf)>,
}

/// The class's settings.
pub struct Settings {
    pub size: usize,
    pub jobs: usize,
    pub timeout: Duration,
    pub spec: String,
}

fn other(err: impl std::fmt::Display) -> Error {
    Error::Measure(err.to_string())
}

/// Makes submission `id` of kind `kind` in `dir`.
fn make(dir: &Path, kind: &Kind, sources: &Sources, spec: &str) -> Result<(), Error> {
    std::fs::create_dir(dir).map_err(|err| Error::io(dir, err))?;
    let solution = dir.join("solution");
    let write =
        |path: &Path, text: &str| std::fs::write(path, text).map_err(|e| Error::io(path, e));
    match kind.made {
        Made::Mutant(name) => {
            std::fs::hard_link(&sources.mutant, &solution)
                .or_else(|_| std::fs::copy(&sources.mutant, &solution).map(drop))
                .map_err(|err| Error::io(&solution, err))?;
            write(&dir.join("mutant"), &format!("{name} {spec}\n"))?;
        }
        Made::Fixture(mode) => {
            std::fs::hard_link(&sources.fixture, &solution)
                .or_else(|_| std::fs::copy(&sources.fixture, &solution).map(drop))
                .map_err(|err| Error::io(&solution, err))?;
            write(&dir.join("mode"), &format!("{mode}\n"))?;
        }
        Made::Python(edit) => {
            let Some((source, interpreter)) = &sources.python else {
                return Err(Error::Measure("no Python interpreter".into()));
            };
            let body = match edit {
                PythonEdit::None => source.clone(),
                PythonEdit::Wrong => source.replace("\"The Stones\"", "\"The stones\""),
                PythonEdit::Crash => {
                    "import sys\nprint(sys.stdin.readline().strip())\n1 / 0\n".to_string()
                }
                PythonEdit::Hang => format!(
                    "import io, sys, time, zlib\n_data = sys.stdin.read()\n\
                     if zlib.crc32(_data.encode()) % 40 == 0:\n    time.sleep(3600)\n\
                     sys.stdin = io.StringIO(_data)\n{source}"
                ),
            };
            write(&solution, &format!("#!{}\n{body}", interpreter.display()))?;
            std::fs::set_permissions(&solution, std::fs::Permissions::from_mode(0o755))
                .map_err(|err| Error::io(&solution, err))?;
        }
    }
    Ok(())
}

/// The system's own Python 3 (a version manager's shim would add a process per run), if any.
fn system_python() -> Option<PathBuf> {
    ["/usr/bin/python3", "/usr/local/bin/python3"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
}

/// The harness's peak resident set so far, in MiB.
fn peak_rss_mib() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given and has no other effect.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    usage.ru_maxrss as f64 / 1024.0
}

/// Runs `argv` in `dir` on `input` with nothing around it but the timeout and the output cap
/// the harness also applies, keeping its output; waits for it.
fn raw_run(argv: &[OsString], dir: &Path, input: &[u8], timeout: Duration, cap: usize) {
    let Ok(mut child) = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return;
    };
    let pid = child.id() as libc::pid_t;
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let input = input.to_vec();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if let Some(stdin) = stdin.as_mut() {
                let _ = stdin.write_all(&input);
            }
        });
        // The output is kept, as a grader must to compare it.
        scope.spawn(move || {
            let mut buffer = vec![0u8; 1 << 16];
            let mut kept = Vec::new();
            while let Some(Ok(n @ 1..)) = stdout.as_mut().map(|s| s.read(&mut buffer)) {
                kept.extend_from_slice(&buffer[..n]);
                if kept.len() > cap {
                    // A child this function started and has not reaped.
                    crate::sys::kill(pid, libc::SIGKILL);
                    break;
                }
            }
            std::hint::black_box(kept.len());
        });
        // A child not yet reaped; the descriptor closes when it is dropped.
        if let Some(pidfd) = crate::sys::pidfd_open(pid) {
            let mut poll = libc::pollfd {
                fd: std::os::fd::AsRawFd::as_raw_fd(&pidfd),
                events: libc::POLLIN,
                revents: 0,
            };
            let millis = timeout.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd; the pidfd is ours.
            let ready = unsafe { libc::poll(&mut poll, 1, millis) };
            if ready == 0 {
                crate::sys::kill(pid, libc::SIGKILL);
            }
        }
        let _ = child.wait();
    });
}

/// Builds the class, grades it and measures the floor; the report.
pub(super) fn class(base: &CheckOptions, settings: &Settings) -> Result<String, Error> {
    let root = tempfile::Builder::new()
        .prefix("gridjudge-class-")
        .tempdir()
        .map_err(other)?;
    let class = make_class(root.path(), settings)?;
    let made = class.kinds.len();
    let out = root.path().join("out");
    let run: Vec<OsString> = vec!["./solution".into(), "by-folder".into()];
    let options = crate::grade::Options {
        check: CheckOptions {
            jobs: settings.jobs,
            timeout: Some(settings.timeout),
            ..base.clone()
        },
        spec: settings.spec.clone(),
        submissions: class.submissions.clone(),
        run: run.clone(),
        build: Vec::new(),
        out: out.clone(),
        shard: None,
        force: false,
        dry_run: false,
        gradescope: None,
        html: false,
    };
    let memory_before = peak_rss_mib();
    // When each result came: submissions finish nearly in order, so the time between one
    // result and the one before is about what that submission cost.
    let finished: Mutex<Vec<(Duration, String)>> = Mutex::new(Vec::new());
    let start = Instant::now();
    let summary = crate::grade::grade(&options, &|step| {
        if let crate::grade::Step::Graded { id, .. } = step {
            let mut finished = finished.lock().unwrap_or_else(|p| p.into_inner());
            finished.push((start.elapsed(), id.to_string()));
        }
    })?;
    let wall = start.elapsed();
    if summary.interrupted {
        return Err(Error::Measure("interrupted: nothing measured".into()));
    }
    let memory_after = peak_rss_mib();
    let mut finished = finished.into_inner().unwrap_or_else(|p| p.into_inner());
    finished.sort();
    let first_result = finished.first().map_or(wall, |(at, _)| *at);
    let mut spent = vec![Duration::ZERO; KINDS.len()];
    let mut before = Duration::ZERO;
    for (at, id) in &finished {
        let index: usize = id.trim_start_matches('s').parse().unwrap_or(0);
        let kind = class.kinds.get(index).copied().unwrap_or(0);
        spent[kind] += at.saturating_sub(before);
        before = *at;
    }

    // The class report, as `grade --html` writes it.
    let html_start = Instant::now();
    let html_bytes = crate::grade::write_html(&summary.grades, &out, None)?;
    let html_time = html_start.elapsed();

    let (n_cases, floor, kinds_report) =
        spawn_floor(base, settings, &options.check, &run, &class.counts, &spent)?;
    let runs = made * n_cases;
    let (verdicts, errors) = tally(&summary.grades);
    Ok(format!(
        "class of {made} submissions of {spec}, {n_cases} cases each, --jobs {jobs}, timeout {timeout:.1} s:\n\
         {kinds_report}\
         graded {runs} runs in {wall:.1} s ({rate:.0} runs/s); raw spawn floor {floor:.1} s \
         ({floor_rate:.0} runs/s): {ratio:.3}x\n\
         first result after {first:.2} s\n\
         harness peak memory {memory_after:.1} MiB ({memory_before:.1} MiB before grading)\n\
         report.html: {html_mb:.1} MB, written in {html_s:.2} s\n\
         verdicts: {verdicts}\n{errors}",
        spec = settings.spec,
        jobs = settings.jobs,
        timeout = settings.timeout.as_secs_f64(),
        wall = wall.as_secs_f64(),
        rate = runs as f64 / wall.as_secs_f64(),
        floor = floor.as_secs_f64(),
        floor_rate = runs as f64 / floor.as_secs_f64(),
        ratio = wall.as_secs_f64() / floor.as_secs_f64(),
        first = first_result.as_secs_f64(),
        html_mb = html_bytes as f64 / 1e6,
        html_s = html_time.as_secs_f64(),
        verdicts = verdicts.join(", "),
    ))
}

/// A synthetic class made under `root`.
struct Class {
    submissions: PathBuf,
    /// Each submission's kind (an index into [`KINDS`]), in id order.
    kinds: Vec<usize>,
    /// Per kind, the number of submissions and one of their folders (where the floor runs).
    counts: Vec<(usize, PathBuf)>,
}

/// Makes `settings.size` submissions under `root`, of every kind in turn.
fn make_class(root: &Path, settings: &Settings) -> Result<Class, Error> {
    let built = crate::workspace::build_release("xtask", &["mutant", "fixture"])?;
    let python = match system_python() {
        Some(interpreter) => {
            let source = crate::workspace::root().join("xtask/bench/go.py");
            let text = std::fs::read_to_string(&source).map_err(|err| Error::io(&source, err))?;
            Some((text, interpreter))
        }
        None => None,
    };
    let submissions = root.join("submissions");
    // The targets run as another user, who must be able to read their folders.
    for dir in [root, &submissions] {
        std::fs::create_dir_all(dir).map_err(|err| Error::io(dir, err))?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
            .map_err(|err| Error::io(dir, err))?;
    }
    // Shared binaries, linked into each folder: one master copy beside the submissions.
    let masters = root.join("bin");
    std::fs::create_dir_all(&masters).map_err(|err| Error::io(&masters, err))?;
    let master = |from: &Path, name: &str| -> Result<PathBuf, Error> {
        let to = masters.join(name);
        std::fs::copy(from, &to).map_err(|err| Error::io(&to, err))?;
        Ok(to)
    };
    let sources = Sources {
        mutant: master(&built[0], "mutant")?,
        fixture: master(&built[1], "fixture")?,
        python,
    };
    // Without a Python, its share goes to the right native program.
    let native_right = KINDS
        .iter()
        .position(|k| k.made == Made::Mutant("none"))
        .unwrap_or(0);
    // Per kind, the number of submissions and one of their folders (where the floor runs).
    let mut counts: Vec<(usize, PathBuf)> = KINDS.iter().map(|_| (0, PathBuf::new())).collect();
    let mut made_kinds = Vec::new();
    for index in 0..settings.size {
        let mut at = kind_of(index);
        if matches!(KINDS[at].made, Made::Python(_)) && sources.python.is_none() {
            at = native_right;
        }
        let dir = submissions.join(format!("s{index:04}"));
        make(&dir, &KINDS[at], &sources, &settings.spec)?;
        counts[at].0 += 1;
        counts[at].1 = dir;
        made_kinds.push(at);
    }
    Ok(Class {
        submissions,
        kinds: made_kinds,
        counts,
    })
}

/// The floor: each kind's program spawned over every case, as the harness runs it, times the
/// number of submissions of that kind. The number of cases, the floor, and a line per kind
/// against what its submissions cost in the grading (`spent`).
fn spawn_floor(
    base: &CheckOptions,
    settings: &Settings,
    check: &CheckOptions,
    run: &[OsString],
    counts: &[(usize, PathBuf)],
    spent: &[Duration],
) -> Result<(usize, Duration, String), Error> {
    let suite = crate::corpus::find(&base.cases_root, &settings.spec)?;
    let (cases, _, _) = crate::check::select(check, crate::corpus::discover(&suite)?);
    let inputs: Vec<Vec<u8>> = cases
        .iter()
        .map(|case| std::fs::read(&case.input).map_err(|err| Error::io(&case.input, err)))
        .collect::<Result<_, _>>()?;
    let cap = 16 << 20;
    let mut floor = Duration::ZERO;
    let mut kinds_report = String::new();
    for ((kind, (count, dir)), spent) in KINDS.iter().zip(counts).zip(spent) {
        if *count == 0 {
            continue;
        }
        let started = Instant::now();
        crate::process::map(settings.jobs, &inputs, |input| {
            raw_run(run, dir, input, settings.timeout, cap);
        })?;
        let each = started.elapsed();
        let of_kind = each * (*count as u32);
        floor += of_kind;
        kinds_report += &format!(
            "  {:<32} {count:>5} submissions: graded in about {:>6.1} s, floor {:>6.1} s ({:.3} s each): {:.2}x\n",
            kind.label,
            spent.as_secs_f64(),
            of_kind.as_secs_f64(),
            each.as_secs_f64(),
            spent.as_secs_f64() / of_kind.as_secs_f64(),
        );
    }
    Ok((cases.len(), floor, kinds_report))
}

/// The class's verdicts, counted, and the distinct reasons submissions could not run.
fn tally(grades: &crate::report::Grades) -> (Vec<String>, String) {
    let verdicts = grades.submissions.iter().fold(
        std::collections::BTreeMap::<String, usize>::new(),
        |mut all, s| {
            for (verdict, n) in &s.verdicts {
                *all.entry(verdict.clone()).or_default() += n;
            }
            all
        },
    );
    let verdicts: Vec<String> = verdicts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(v, n)| format!("{v} {n}"))
        .collect();
    let mut errors: Vec<String> = grades
        .submissions
        .iter()
        .filter_map(|s| s.error.clone())
        .collect();
    errors.sort();
    errors.dedup();
    let errors: String = errors
        .iter()
        .map(|e| format!("could not run: {e}\n"))
        .collect();
    (verdicts, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shares_make_a_whole_class() {
        assert_eq!(KINDS.iter().map(|k| k.share).sum::<usize>(), 100);
        // 37 is prime to 100: every hundred submissions hold each kind exactly its share.
        for (at, kind) in KINDS.iter().enumerate() {
            let n = (0..100).filter(|i| kind_of(*i) == at).count();
            assert_eq!(n, kind.share, "{}", kind.label);
        }
    }
}
