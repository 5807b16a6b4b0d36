//! Where things are: the workspace root, the bundled corpus, the reference binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;

/// The gridjudge checkout this xtask was built from.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Every gridjudge checkout this process belongs to, to keep out of every target's sight: the
/// one it was built from, and the one it runs from, found at run time from the running
/// program's own path (a checkout moved or copied after the build is protected all the same).
pub fn checkouts() -> Vec<PathBuf> {
    let mut found = vec![root()];
    let running = std::env::current_exe().and_then(|exe| exe.canonicalize());
    if let Ok(exe) = running {
        let is_checkout = |dir: &Path| {
            dir.join("Cargo.toml").is_file()
                && dir.join("xtask").is_dir()
                && dir.join("cases").is_dir()
        };
        if let Some(checkout) = exe.ancestors().find(|dir| is_checkout(dir)) {
            if !found.iter().any(|known| known == checkout) {
                found.push(checkout.to_path_buf());
            }
        }
    }
    found
}

/// Where a report goes by default, `name` in the current folder, unless that folder is in a
/// gridjudge checkout: then `target/NAME` of the checkout, beside cargo's own output (ignored
/// by git), so that a report run from the checkout never lands among its sources.
pub fn default_out(name: &str) -> PathBuf {
    match std::env::current_dir().and_then(|dir| dir.canonicalize()) {
        Ok(here) => default_out_from(&here, name),
        Err(_) => PathBuf::from(name),
    }
}

/// [`default_out`] for a current folder `here` (canonical).
fn default_out_from(here: &Path, name: &str) -> PathBuf {
    let checkout = checkouts()
        .into_iter()
        .filter_map(|checkout| checkout.canonicalize().ok())
        .find(|checkout| here.starts_with(checkout));
    match checkout {
        Some(checkout) => checkout.join("target").join(name),
        None => PathBuf::from(name),
    }
}

/// The bundled corpus.
pub fn cases() -> PathBuf {
    root().join("cases")
}

/// What an assignment called `name` lacks of the files every assignment has under the project
/// `root`, as sentences naming each missing file: its spec document and the handout's examples
/// (`docs/specs/`), its suite file and handout cases (`cases/`), and its rule tests (`tests/`).
/// The two tables (the reference's `SPECS`, the harness's `tools::TOOLS`) are checked by
/// `tools::missing`.
pub fn missing_pieces(root: &Path, name: &str) -> Vec<String> {
    let has_example = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|ext| ext == "in"))
        })
    };
    let mut missing = Vec::new();
    let mut need = |present: bool, what: String| {
        if !present {
            missing.push(format!("spec `{name}` has no {what}"));
        }
    };
    let doc = root.join("docs/specs").join(format!("{name}.md"));
    need(doc.is_file(), format!("spec document `{}`", doc.display()));
    let examples = root.join("docs/specs").join(name);
    need(
        has_example(&examples),
        format!("handout examples in `{}`", examples.display()),
    );
    let suite = root.join("cases").join(name).join("suite.toml");
    need(suite.is_file(), format!("suite file `{}`", suite.display()));
    let handout = root.join("cases").join(name).join("handout");
    need(
        has_example(&handout),
        format!("handout cases in `{}`", handout.display()),
    );
    let rules = root.join("tests").join(format!("{name}.rs"));
    need(rules.is_file(), format!("rule tests `{}`", rules.display()));
    let listed = std::fs::read_to_string(root.join("tests/tests.rs")).is_ok_and(|text| {
        text.lines()
            .any(|line| line.trim() == format!("mod {name};"))
    });
    need(listed, "`mod` line in `tests/tests.rs`".to_string());
    missing
}

/// Builds the reference binary in release mode and returns its path. A binary newer than every
/// file its build read (cargo's dep-info beside it) and than the workspace's manifest, lock file
/// and cargo configuration is fresh, and cargo is not asked: its no-op build costs a check of the
/// bundled reference about a tenth of its time.
pub fn build_reference() -> Result<PathBuf, Error> {
    let binary = target_dir().join("release").join("gridjudge");
    let settings = ["Cargo.toml", "Cargo.lock", ".cargo/config.toml"].map(|file| root().join(file));
    // When cargo last said the binary was fresh (a no-op build leaves the binary's time alone).
    let stamp = binary.with_extension("fresh");
    if is_fresh(&binary, &stamp, &binary.with_extension("d"), &settings) {
        return Ok(binary);
    }
    let built = build_release("gridjudge", &["gridjudge"])?;
    // A stamp that cannot be written only costs the next run cargo's no-op build.
    let _ = std::fs::write(&stamp, b"");
    Ok(built.into_iter().next().unwrap_or_default())
}

/// Whether `binary` (built, or found fresh by cargo at the time of `stamp`, whichever is
/// later) is newer than every source its dep-info file names and every one of `settings` that
/// exists. Anything unreadable (no binary, no dep-info, a source gone) is not fresh: cargo then
/// decides.
fn is_fresh(binary: &Path, stamp: &Path, dep_info: &Path, settings: &[PathBuf]) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let (Some(built), Ok(text)) = (modified(binary), std::fs::read_to_string(dep_info)) else {
        return false;
    };
    let built = modified(stamp).map_or(built, |stamped| stamped.max(built));
    let Some(sources) = dep_info_sources(&text, binary) else {
        return false;
    };
    let newer_than_binary = |path: &Path| modified(path).is_none_or(|time| time > built);
    !sources.is_empty()
        && !sources.iter().any(|source| newer_than_binary(source))
        && !settings
            .iter()
            .filter(|path| path.exists())
            .any(|path| newer_than_binary(path))
}

/// The sources a Makefile-style dep-info line gives for `binary` (`BINARY: SRC SRC...`, spaces
/// in a path escaped with a backslash); `None` when it names something else.
fn dep_info_sources(text: &str, binary: &Path) -> Option<Vec<PathBuf>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = text.lines().next()?.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            ' ' => words.push(std::mem::take(&mut word)),
            _ => word.push(c),
        }
    }
    words.push(word);
    words.retain(|w| !w.is_empty());
    let (head, sources) = words.split_first()?;
    (head.strip_suffix(':')? == binary.to_str()?)
        .then(|| sources.iter().map(PathBuf::from).collect())
}

/// Builds binaries `bins` of `package` in release mode; their paths, in the same order.
pub fn build_release(package: &str, bins: &[&str]) -> Result<Vec<PathBuf>, Error> {
    let mut command = cargo();
    command.args(["build", "--release", "--package", package]);
    for bin in bins {
        command.args(["--bin", bin]);
    }
    build(command, &bins.join(", "))?;
    Ok(bins
        .iter()
        .map(|bin| target_dir().join("release").join(bin))
        .collect())
}

/// The cargo that runs this harness (`CARGO`), or the one on PATH, in the checkout.
pub fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(root());
    command
}

/// Runs a cargo build of `what`, showing itself: nothing when everything is fresh, else cargo's
/// own lines (what it compiles, a wait for another cargo's lock) after one line saying what is
/// built. Ctrl-C and SIGTERM end the build too, and the run (`Error::Interrupted`).
pub fn build(mut command: Command, what: &str) -> Result<(), Error> {
    use std::io::BufRead;
    let mut child = command
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|err| Error::Build(format!("failed to run cargo to build {what}: {err}")))?;
    let stderr = child.stderr.take();
    let what_line = format!("building {what} with cargo (a first build takes minutes)");
    let shown = std::thread::spawn(move || {
        let mut busy = false;
        let mut held = Vec::new();
        for line in stderr
            .map(std::io::BufReader::new)
            .into_iter()
            .flat_map(|reader| reader.lines().map_while(Result::ok))
        {
            let work = [
                "Compiling",
                "Blocking",
                "error",
                "warning",
                "Updating",
                "Downloading",
            ]
            .iter()
            .any(|word| line.contains(word));
            if work && !busy {
                busy = true;
                eprintln!("{what_line}");
                for earlier in held.drain(..) {
                    eprintln!("{earlier}");
                }
            }
            if busy {
                eprintln!("{line}");
            } else {
                held.push(line);
            }
        }
    });
    let status = loop {
        if crate::sys::interrupted() {
            // Our child, not yet reaped.
            crate::sys::kill(child.id() as libc::pid_t, libc::SIGTERM);
            let _ = child.wait();
            let _ = shown.join();
            return Err(Error::Interrupted);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(err) => return Err(Error::Build(format!("waiting for cargo: {err}"))),
        }
    };
    let _ = shown.join();
    if !status.success() {
        return Err(Error::Build(format!("building {what} failed ({status})")));
    }
    Ok(())
}

/// Cargo's target folder: `CARGO_TARGET_DIR`, or `target/` of the checkout.
pub fn target_dir() -> PathBuf {
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    if target_dir.is_relative() {
        root().join(target_dir)
    } else {
        target_dir
    }
}

/// Builds the course server's programs (a crate of its own: the web stack stays out of the
/// harness's build) and runs `program` of them in this process's place with `args`. Returns
/// only what stopped it: the build failed, or the program could not be started.
pub fn exec_server_program(program: &str, args: &[std::ffi::OsString]) -> Error {
    use std::os::unix::process::CommandExt;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = format!(
        "{} build --package gridjudge-server",
        cargo.to_string_lossy()
    );
    let path = target_dir().join("debug").join(program);
    if !path.exists() {
        eprintln!(
            "building the course server first (its web stack is a crate of its own: a few \
             minutes, the first time only)"
        );
    }
    let built = std::process::Command::new(&cargo)
        .args(["build", "--package", "gridjudge-server", "--bins"])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .status();
    match built {
        Ok(status) if status.success() => {}
        Ok(status) => {
            return Error::CouldNotRun {
                command: build,
                message: status.to_string(),
            }
        }
        Err(err) => {
            return Error::CouldNotRun {
                command: build,
                message: err.to_string(),
            }
        }
    }
    let err = std::process::Command::new(&path).args(args).exec();
    Error::CouldNotRun {
        command: path.display().to_string(),
        message: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report run from anywhere in the checkout goes to its `target/`, never among its
    /// sources; run from elsewhere, into the current folder.
    #[test]
    fn a_report_run_from_the_checkout_goes_to_its_target_folder() {
        let checkout = root().canonicalize().unwrap();
        assert_eq!(
            default_out_from(&checkout, "similarity-report"),
            checkout.join("target/similarity-report")
        );
        assert_eq!(
            default_out_from(&checkout.join("docs"), "similarity-report"),
            checkout.join("target/similarity-report")
        );
        let elsewhere = tempfile::tempdir().unwrap();
        let elsewhere = elsewhere.path().canonicalize().unwrap();
        assert_eq!(
            default_out_from(&elsewhere, "similarity-report"),
            PathBuf::from("similarity-report")
        );
    }

    /// A reference binary is fresh only while it (or the stamp of cargo's last word on it) is
    /// newer than every source its dep-info names and every settings file; a source with a
    /// space in its path is read whole.
    #[test]
    fn a_binary_older_than_a_source_or_a_setting_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        let set_age = |path: &Path, seconds_ago: u64| {
            let time = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds_ago);
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(time).unwrap();
        };
        for name in ["bin", "a.rs", "my b.rs", "Cargo.toml"] {
            std::fs::write(at(name), "").unwrap();
        }
        let line = format!(
            "{}: {} {}\n",
            at("bin").display(),
            at("a.rs").display(),
            at("my b.rs").display().to_string().replace(' ', "\\ ")
        );
        std::fs::write(at("bin.d"), line).unwrap();
        let settings = [at("Cargo.toml"), at("absent.toml")];
        let fresh = || is_fresh(&at("bin"), &at("stamp"), &at("bin.d"), &settings);
        for name in ["a.rs", "my b.rs", "Cargo.toml"] {
            set_age(&at(name), 100);
        }
        set_age(&at("bin"), 50);
        assert!(fresh());
        for name in ["my b.rs", "Cargo.toml", "a.rs"] {
            set_age(&at(name), 10);
            assert!(!fresh(), "{name} is newer than the binary");
            set_age(&at(name), 100);
        }
        // Cargo found the binary fresh after a setting changed: the stamp vouches for it.
        set_age(&at("Cargo.toml"), 10);
        assert!(!fresh());
        std::fs::write(at("stamp"), "").unwrap();
        set_age(&at("stamp"), 5);
        assert!(fresh(), "the stamp is newer than the setting");
        set_age(&at("a.rs"), 1);
        assert!(!fresh(), "a source changed after the stamp");
        set_age(&at("a.rs"), 100);
        std::fs::remove_file(at("a.rs")).unwrap();
        assert!(!fresh(), "a source is gone");
        std::fs::write(at("bin.d"), format!("{}: \n", at("other").display())).unwrap();
        assert!(!fresh(), "the dep-info is another binary's");
    }

    /// The running program's checkout is found from its own path, not from where it was built:
    /// the test program lives in this checkout's `target/`, so the checkout found is an
    /// ancestor of it, with the checkout's files.
    #[test]
    fn the_running_checkout_is_found_from_the_running_program() {
        let exe = std::env::current_exe().unwrap().canonicalize().unwrap();
        if !exe
            .ancestors()
            .any(|dir| dir.join("xtask").is_dir() && dir.join("cases").is_dir())
        {
            eprintln!(
                "skipped: this test program is built outside the checkout (CARGO_TARGET_DIR)"
            );
            return;
        }
        let found = checkouts();
        let running = found
            .iter()
            .find(|dir| exe.starts_with(dir))
            .unwrap_or_else(|| panic!("no checkout above `{}` in {found:?}", exe.display()));
        assert!(running.join("cases").is_dir() && running.join("xtask").is_dir());
    }
}
