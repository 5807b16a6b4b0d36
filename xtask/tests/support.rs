//! A throw-away corpus of one case, and the fixture program that misbehaves on purpose.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use xtask::check::Options;
use xtask::target::Program;

pub const EXPECTED: &str = "The Stones\n   ABC\n 1 ..B\n--- the end ---\n";

/// A corpus folder with one suite `demo` and one case `basic/001-case`.
pub struct Corpus {
    pub dir: tempfile::TempDir,
}

impl Corpus {
    pub fn new(input: &[u8], grade_exit_status: bool) -> Corpus {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("demo");
        std::fs::create_dir_all(suite.join("basic")).unwrap();
        std::fs::write(
            suite.join("suite.toml"),
            format!(
                "args = [\"demo\"]\ncompare = \"exact\"\ngrade_exit_status = {grade_exit_status}\n\
                 timeout = 5.0\n[groups]\nbasic = 4\n"
            ),
        )
        .unwrap();
        std::fs::write(suite.join("basic/001-case.in"), input).unwrap();
        std::fs::write(suite.join("basic/001-case.out"), EXPECTED).unwrap();
        Corpus { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn expected_path(&self) -> PathBuf {
        self.root().join("demo/basic/001-case.out")
    }

    /// Adds a case to `demo/basic`.
    pub fn add(&self, name: &str, input: &[u8], expected: &[u8]) {
        let base = self.root().join("demo/basic").join(name);
        std::fs::write(base.with_extension("in"), input).unwrap();
        std::fs::write(base.with_extension("out"), expected).unwrap();
    }
}

/// The fixture program, copied out of the checkout (which no confined target may see).
pub fn fixture() -> OsString {
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| outside_checkout(Path::new(env!("CARGO_BIN_EXE_fixture"))))
        .clone()
        .into()
}

/// A check by `harness` of the fixture's `echo unused` on `corpus`, with `flags` before the
/// target (`--no-sandbox`, `--require-isolation`).
pub fn echo_check(harness: &Path, corpus: &Corpus, flags: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(harness);
    command
        .args(["check", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .args(flags)
        .arg("--")
        .arg(fixture())
        .args(["echo", "unused"]);
    command
}

/// A stand-in for `--reference` where no test needs the real one: the fixture where it was
/// built (the harness hides the reference from targets, so it must not be the target itself).
pub fn reference() -> OsString {
    env!("CARGO_BIN_EXE_fixture").into()
}

/// A copy of the program `source` in a folder of its own, outside the checkout and readable by
/// the sandbox's user. The copy is kept between runs, named after the build it copies; copies
/// of other builds are removed once they are a day old.
pub fn outside_checkout(source: &Path) -> PathBuf {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = std::fs::metadata(source).unwrap();
    let name = source.file_name().unwrap().to_string_lossy();
    let prefix = format!("gridjudge-{name}-");
    let dir = std::env::temp_dir().join(format!("{prefix}{}-{}", meta.len(), meta.mtime()));
    let path = dir.join(&*name);
    if !path.is_file() {
        // Copies of other builds go once a day old: another checkout's tests may be running.
        let day_old = |entry: &std::fs::DirEntry| {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 86_400)
        };
        for entry in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) && day_old(&entry) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let partial = dir.join(format!("{name}.{}", std::process::id()));
        std::fs::copy(source, &partial).unwrap();
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

/// Makes `dir` readable by the sandbox's user (temporary folders are private to their owner).
pub fn share(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Options that run the fixture in `mode` on the corpus, with no reference to localise with.
pub fn options(corpus: &Corpus, mode: &str, timeout: Duration) -> Options {
    let mut options = Options::new(
        corpus.root().to_path_buf(),
        PathBuf::from("/nonexistent/reference"),
        corpus.root().to_path_buf(),
    );
    options.spec = Some("demo".into());
    options.jobs = 2;
    options.timeout = Some(timeout);
    // A program that sleeps is stopped a second after its CPU limit would be: these tests are
    // about verdicts, and the default backstop (three times the limit and two seconds) would
    // only make them slow.
    options.wall = Some(timeout + Duration::from_secs(1));
    options.program = Program::Command(vec![fixture(), mode.into(), corpus.expected_path().into()]);
    // The fixture reads its expected output from the corpus, which the sandbox forbids.
    options.confine.sandbox = false;
    options
}

/// Options that fuzz `target` on `spec` against the bundled corpus's suite, confined, with
/// `reference` to localise a difference and a throw-away folder for the found case.
pub fn fuzz_options(
    spec: &str,
    target: Vec<OsString>,
    reference: &Path,
    budget: xtask::tools::Budget,
    seed: u64,
) -> xtask::tools::Options {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    xtask::tools::Options {
        oracle: xtask::tools::Oracle::BuiltIn(xtask::tools::find(spec).unwrap()),
        suite: xtask::corpus::find(&cases, spec).unwrap(),
        cases_root: cases,
        confine: xtask::confine::Settings::default(),
        seed,
        budget,
        jobs: 2,
        target,
        dir: std::env::temp_dir(),
        timeout: Duration::from_secs(10),
        max_shrink_runs: 5000,
        reference: reference.to_path_buf(),
        out: tempfile::tempdir().unwrap().keep(),
    }
}

/// Confined cases running now with a process whose command line mentions `marker`: each case
/// has a PID namespace of its own, so a case that starts its program through a wrapper (a
/// pyenv shim is a shell script that forks several shells before it runs Python) is counted
/// once, however many of its processes are alive.
pub fn cases_alive(marker: &str) -> usize {
    let namespaces: std::collections::BTreeSet<std::path::PathBuf> = marked(marker)
        .filter_map(|(dir, _)| std::fs::read_link(dir.join("ns/pid")).ok())
        .collect();
    namespaces.len()
}

/// Processes still running whose command line mentions `marker`.
pub fn survivors(marker: &str) -> Vec<String> {
    marked(marker).map(|(_, text)| text).collect()
}

/// The `/proc` folder and command line (spaces for its NULs) of each process not ended
/// (zombies aside) whose command line mentions `marker`.
fn marked(marker: &str) -> impl Iterator<Item = (std::path::PathBuf, String)> + '_ {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(move |entry| {
            let entry = entry.ok()?;
            entry.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let state = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let zombie = state.rsplit(") ").next()?.starts_with('Z');
            (text.contains(marker) && !zombie).then(|| (entry.path(), text))
        })
}

/// Under `root`: a corpus `cases/echo` whose cases expect their input back (groups `alpha`, 3
/// cases worth 6 points, and `beta`, 2 worth 4), and a class `class/sNN` of one submission
/// per mode in `modes`, whose behaviour the fixture reads from the folder's `mode` file.
pub fn echo_class(root: &Path, modes: &[&str]) {
    let suite = root.join("cases/echo");
    for (group, n) in [("alpha", 3), ("beta", 2)] {
        std::fs::create_dir_all(suite.join(group)).unwrap();
        for k in 1..=n {
            let text = format!("{group} case {k}\n");
            std::fs::write(suite.join(format!("{group}/00{k}-line.in")), &text).unwrap();
            std::fs::write(suite.join(format!("{group}/00{k}-line.out")), &text).unwrap();
        }
    }
    std::fs::write(
        suite.join("suite.toml"),
        "args = []\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 5.0\n[groups]\nalpha = 6\nbeta = 4\n",
    )
    .unwrap();
    for (k, mode) in modes.iter().enumerate() {
        let student = root.join(format!("class/s{k:02}"));
        std::fs::create_dir_all(&student).unwrap();
        std::fs::write(student.join("mode"), mode).unwrap();
    }
}

/// A check with no one watching its progress.
pub fn check(options: &Options) -> Result<xtask::judge::Run, xtask::error::Error> {
    xtask::check::check(options, &|_| {})
}

/// The program that plays a spec with one wrong variant switched on (`mutant NAME SPEC`), run
/// from a copy outside the checkout.
pub fn mutant() -> PathBuf {
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| outside_checkout(Path::new(env!("CARGO_BIN_EXE_mutant"))))
        .clone()
}

/// `check` of the wrong variant `name` against `spec`'s whole suite, with the misreadings of
/// the variants `hold_out` left out of the traces.
pub fn check_variant(spec: &str, name: &str, hold_out: Vec<String>) -> xtask::judge::Run {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut options =
        xtask::check::Options::new(cases, "/nonexistent/reference".into(), std::env::temp_dir());
    options.spec = Some(spec.into());
    options.program =
        xtask::target::Program::Command(vec![mutant().into(), name.into(), spec.into()]);
    options.hold_out = hold_out;
    xtask::check::check(&options, &|_| {}).unwrap()
}

/// CPU-bound processes started by the test (`sh` busy loops), ended by pid when dropped.
pub struct Busy(Vec<std::process::Child>);

impl Busy {
    /// `per_core` busy loops per core.
    pub fn start(per_core: usize) -> Busy {
        Busy::spawn(per_core, false)
    }

    /// `per_core` busy loops per core; with `sessions`, each in a session of its own, as
    /// other users' jobs are: where the kernel groups its scheduling by session (autogroup),
    /// each then weighs as much as the harness's case does, not all of them together as one.
    pub fn spawn(per_core: usize, sessions: bool) -> Busy {
        use std::os::unix::process::CommandExt;
        let n = per_core * xtask::process::cpus();
        let children = (0..n)
            .map(|_| {
                let mut command = std::process::Command::new("sh");
                command.args(["-c", "while :; do :; done"]);
                if sessions {
                    // SAFETY: setsid is async-signal-safe and touches only the new child.
                    unsafe {
                        command.pre_exec(|| {
                            libc::setsid();
                            Ok(())
                        });
                    }
                }
                command.spawn().unwrap()
            })
            .collect();
        // Let the scheduler see them.
        std::thread::sleep(Duration::from_millis(300));
        Busy(children)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The case's options, sandboxed where this machine has the sandbox (its CPU time is then the
/// worker cgroup's), directly otherwise (the target's own `/proc` accounting).
pub fn both_ways(corpus: &Corpus, mode: &str, timeout: Duration) -> Vec<Options> {
    let direct = options(corpus, mode, timeout);
    let mut all = vec![direct.clone()];
    if xtask::sandbox::available().is_ok() {
        let mut sandboxed = direct;
        sandboxed.confine.sandbox = true;
        let copy = tempfile::tempdir().unwrap().keep();
        share(&copy);
        let expected = copy.join("expected.out");
        std::fs::copy(corpus.expected_path(), &expected).unwrap();
        share(&copy);
        std::fs::set_permissions(
            &expected,
            std::os::unix::fs::PermissionsExt::from_mode(0o644),
        )
        .unwrap();
        sandboxed.program = Program::Command(vec![fixture(), mode.into(), expected.into()]);
        all.push(sandboxed);
    }
    all
}
