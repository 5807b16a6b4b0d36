//! Building a submission handed in as sources: recognised by the language table, built once
//! into a folder of its own, confined like a case, then run like any program.
//!
//! The build runs the table's command in the sources' folder (read-only) with only its output
//! folder writable, no network, and limits suited to compilers ([`LIMITS`]). Its folder is
//! named by a hash of the language and the sources, under the user's cache, so an unchanged
//! submission is built once however many times it is checked or graded; a failed build is
//! remembered the same way. A failure is a verdict (`could not build`, with the compiler's
//! first lines), never the harness's error.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::confine::ResourceLimits;
use crate::confine::{Policy, Settings, Warnings};
use crate::error::Error;
use crate::language::{Pin, Recipe};
use crate::process::{execute, Bounds, Exit};
use crate::target::{Program, Target};

/// What a build may use: room for a JVM compiler and g++ on a large file, none for a bomb.
pub(super) const LIMITS: ResourceLimits = ResourceLimits {
    cpu: Some(Duration::from_secs(60)),
    memory: Some(2048 << 20),
    processes: Some(256),
    file_size: Some(256 << 20),
    open_files: Some(1024),
};

/// Files a build reads besides the sources, by extension.
const HEADERS: &[&str] = &["h", "hh", "hpp", "hxx", "inc"];
const MAX_HEADERS: usize = 500;

/// How many lines of the compiler's messages a failure keeps.
const MESSAGE_LINES: usize = 20;

/// What building a submission came to.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Built (or nothing to build): how to run it.
    Ready(Ready),
    /// The sources did not build: the verdict of every case.
    Failed(Failed),
}

#[derive(Debug, Clone)]
pub struct Ready {
    /// The language's title: `C++`.
    pub language: String,
    /// The command that runs the program.
    pub run: Vec<OsString>,
    /// Where it runs: the build's folder, or the sources' folder for a script.
    pub dir: PathBuf,
    /// The build command, as shown to the user; `None` for a script.
    pub build: Option<String>,
    /// Wall time of the build; zero when an earlier build was reused.
    pub build_time: Duration,
    pub reused: bool,
}

#[derive(Debug, Clone)]
pub struct Failed {
    pub language: String,
    /// A first line saying what failed, then the compiler's first lines.
    pub message: String,
    pub build_time: Duration,
}

/// Whether `argv` names sources to build rather than a program to run: one word naming a
/// folder, a source file of a compiled language (a script keeps its interpreter's line), or an
/// archive of sources (unpacked: its folder). `Err` says why an archive cannot be unpacked.
pub fn names_sources(argv: &[OsString], dir: &Path) -> Result<Option<PathBuf>, String> {
    let [word] = argv else {
        return Ok(None);
    };
    let path = dir.join(word);
    if let (true, Some(extension)) = (path.is_file(), super::archive::extension(&path)) {
        return super::archive::unpack(&path, extension)
            .map(Some)
            .map_err(|why| format!("`{}`: {why}", path.display()));
    }
    let compiled = crate::language::of_file(&path).is_some_and(|l| l.build.is_some());
    Ok((path.is_dir() || (path.is_file() && compiled)).then_some(path))
}

/// Builds the sources at `sources` (a folder, or one file) as `pin` allows, confined as
/// `settings` says with `corpus_root` out of sight. `Err` for what is no verdict: sources that
/// are not recognised, a compiler that is not installed, a harness failure.
pub fn build(
    sources: &Path,
    pin: &Pin,
    settings: &Settings,
    corpus_root: &Path,
    warnings: &mut Warnings,
) -> Result<Outcome, Error> {
    let recipe = crate::language::recognise(sources, pin).map_err(Error::Usage)?;
    let language = recipe.language.title.clone();
    let folder = if sources.is_file() {
        sources.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        sources.to_path_buf()
    };
    let folder = folder
        .canonicalize()
        .map_err(|err| Error::io(&folder, err))?;
    if !crate::target::on_path(&OsString::from(&recipe.language.tool)) {
        return Err(Error::Usage(format!(
            "`{}` is {language}, but its {} `{}` is not installed here",
            sources.display(),
            if recipe.language.build.is_some() {
                "compiler"
            } else {
                "interpreter"
            },
            recipe.language.tool
        )));
    }
    let Some(template) = recipe.build_line(Path::new("{build}")) else {
        return Ok(Outcome::Ready(Ready {
            language,
            run: recipe.run_line(Path::new("")),
            dir: folder,
            build: None,
            build_time: Duration::ZERO,
            reused: false,
        }));
    };
    let shown = crate::target::display_argv(&template);
    let key = key(&recipe, &folder)?;
    let job = Job {
        key,
        language,
        shown,
        fill: &|_| Ok(()),
        command: &|work| (recipe.build_line(work).unwrap_or_default(), folder.clone()),
        run: &|done| recipe.run_line(done),
    };
    cached(&job, settings, corpus_root, warnings)
}

/// A build command of the user's (`--build 'make'`) and the command that runs what it built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Custom {
    pub build: Vec<OsString>,
    pub run: Vec<OsString>,
}

/// Builds the submission in `folder` with `custom.build`, run in a copy of the folder (its
/// regular files, within the caps of [`crate::archive`]), where `custom.run` then runs.
pub fn build_custom(
    folder: &Path,
    custom: &Custom,
    settings: &Settings,
    corpus_root: &Path,
    warnings: &mut Warnings,
) -> Result<Outcome, Error> {
    let folder = folder
        .canonicalize()
        .map_err(|err| Error::io(folder, err))?;
    let shown = crate::target::display_argv(&custom.build);
    let salt = format!("{shown}\0{}", crate::target::display_argv(&custom.run));
    let (files, key) = super::archive::listing(&folder, salt.as_bytes()).map_err(Error::Build)?;
    let job = Job {
        key,
        language: "a build of its own".into(),
        shown,
        fill: &|work| {
            super::archive::copy_files(&folder, &files, work)
                .map_err(|why| Error::Build(format!("`{}`: {why}", folder.display())))
        },
        command: &|work| (custom.build.clone(), work.to_path_buf()),
        run: &|_| custom.run.clone(),
    };
    cached(&job, settings, corpus_root, warnings)
}

/// One build, run or reused: its key (the name of its folder under the cache), how it is
/// shown, and how it runs.
struct Job<'a> {
    key: String,
    language: String,
    /// The build command as shown to the user (its output folder as `{build}`).
    shown: String,
    /// Fills the fresh work folder before the build runs.
    fill: &'a dyn Fn(&Path) -> Result<(), Error>,
    /// The build's command line and the folder it runs in, for a work folder.
    command: &'a dyn Fn(&Path) -> (Vec<OsString>, PathBuf),
    /// The command that runs the finished build, kept in `done`.
    run: &'a dyn Fn(&Path) -> Vec<OsString>,
}

/// Runs `job` once: reuses its finished folder or its remembered failure, or builds it into a
/// work folder of its own and keeps the result under its key.
fn cached(
    job: &Job,
    settings: &Settings,
    corpus_root: &Path,
    warnings: &mut Warnings,
) -> Result<Outcome, Error> {
    let builds = crate::files::cache_root().join("builds");
    std::fs::create_dir_all(&builds).map_err(|err| Error::io(&builds, err))?;
    let done = builds.join(&job.key);
    let failed = builds.join(format!("{}.failed", job.key));
    let ready = |build_time, reused| Ready {
        language: job.language.clone(),
        run: (job.run)(&done),
        dir: done.clone(),
        build: Some(job.shown.clone()),
        build_time,
        reused,
    };
    if done.is_dir() {
        return Ok(Outcome::Ready(ready(Duration::ZERO, true)));
    }
    if let Ok(message) = std::fs::read_to_string(&failed) {
        return Ok(Outcome::Failed(Failed {
            language: job.language.clone(),
            message,
            build_time: Duration::ZERO,
        }));
    }
    let start = Instant::now();
    let work = builds.join(format!("{}.building-{}", job.key, std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let result = (job.fill)(&work).and_then(|()| {
        let (argv, cwd) = (job.command)(&work);
        run_build(&argv, &cwd, &work, settings, corpus_root, warnings)
    });
    let build_time = start.elapsed();
    match result {
        Ok(None) => {
            // Another build of the same sources may have finished first: either is the same.
            if std::fs::rename(&work, &done).is_err() && done.is_dir() {
                let _ = std::fs::remove_dir_all(&work);
            }
            Ok(Outcome::Ready(ready(build_time, false)))
        }
        Ok(Some(compiler)) => {
            let _ = std::fs::remove_dir_all(&work);
            let message = format!("`{}` failed:\n{compiler}", job.shown);
            crate::files::write_atomically(&failed, message.as_bytes())?;
            Ok(Outcome::Failed(Failed {
                language: job.language.clone(),
                message,
                build_time,
            }))
        }
        Err(err) => {
            let _ = std::fs::remove_dir_all(&work);
            Err(err)
        }
    }
}

/// Runs the build `argv` in `folder`, confined, with `work` its one writable folder: `None`
/// when it succeeded, else the compiler's first lines.
fn run_build(
    argv: &[OsString],
    folder: &Path,
    work: &Path,
    settings: &Settings,
    corpus_root: &Path,
    warnings: &mut Warnings,
) -> Result<Option<String>, Error> {
    std::fs::create_dir_all(work).map_err(|err| Error::io(work, err))?;
    give_to_sandbox(work)?;
    let mut argv = argv.to_vec();
    if let Some(program) = argv.first_mut() {
        *program = real_program(program);
    }
    let settings = Settings {
        cwd: Some(folder.to_path_buf()),
        writable: vec![work.to_path_buf()],
        limits: LIMITS,
        ..settings.clone()
    };
    let target = Target::command(&argv, folder);
    let (target, policy, found) = Policy::for_program(
        &Program::Command(argv.clone()),
        &settings,
        LIMITS,
        corpus_root,
        &target,
        crate::sandbox::available(),
    )?;
    crate::confine::note_once(warnings, found);
    let bounds = Bounds {
        timeout: LIMITS.cpu.unwrap_or(Duration::from_secs(60)),
        wall: crate::process::backstop(LIMITS.cpu.unwrap_or(Duration::from_secs(60))),
        asleep_after: None,
        stdout_cap: 64 << 10,
        stderr_cap: 64 << 10,
    };
    let execution = execute(&target, b"", &bounds, &policy).map_err(|err| Error::CouldNotRun {
        command: target.display(),
        message: err.to_string(),
    })?;
    if execution.exit == Exit::Code(0) && !execution.timed_out {
        return Ok(None);
    }
    let mut text = String::from_utf8_lossy(&execution.stderr).into_owned();
    text += &String::from_utf8_lossy(&execution.stdout);
    // The compiler names files by the paths it was given: the submission's own, relative.
    let text = text
        .replace(&format!("{}/", folder.display()), "")
        .replace(&work.display().to_string(), "{build}");
    let how = match execution.exit {
        _ if execution.timed_out => "it ran out of time".to_string(),
        Exit::Code(code) => format!("exit status {code}"),
        Exit::Signal(signal) => crate::process::killed_by(signal),
    };
    let mut lines: Vec<&str> = text.lines().take(MESSAGE_LINES).collect();
    if lines.is_empty() {
        lines.push("(the compiler printed nothing)");
    }
    Ok(Some(format!("({how})\n{}", lines.join("\n"))))
}

/// The compiler itself where `program` is a rustup proxy, which finds its toolchain through
/// the user's home folder (which a confined build does not have): `<sysroot>/bin/rustc`.
fn real_program(program: &OsString) -> OsString {
    if program != "rustc" {
        return program.clone();
    }
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string());
    match sysroot.map(|root| PathBuf::from(root).join("bin/rustc")) {
        Some(rustc) if rustc.is_file() => rustc.into_os_string(),
        _ => program.clone(),
    }
}

/// Makes the build's folder writable by the confined build: owned by the sandbox's user when
/// the harness is root (a build without root runs as the harness's own user).
fn give_to_sandbox(work: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(work, std::fs::Permissions::from_mode(0o755))
        .map_err(|err| Error::io(work, err))?;
    if crate::sys::effective_uid() == 0 {
        let id = crate::confine::SANDBOX_ID;
        std::os::unix::fs::chown(work, Some(id), Some(id)).map_err(|err| Error::io(work, err))?;
    }
    Ok(())
}

/// The build's name: a hash of the language's row and every source file's path and bytes.
fn key(recipe: &Recipe, folder: &Path) -> Result<String, Error> {
    let mut hash = Sha256::new();
    let language = recipe.language;
    for part in [&language.name, &language.run] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.update(language.build.as_deref().unwrap_or_default().as_bytes());
    hash.update(recipe.main_class.as_deref().unwrap_or_default().as_bytes());
    // The headers beside the sources count too: a changed header is a changed program.
    let depth = if recipe.sources.len() == 1 { 1 } else { 4 };
    let headers = walkdir::WalkDir::new(folder)
        .max_depth(depth)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| {
            entry
                .path()
                .strip_prefix(folder)
                .ok()
                .map(Path::to_path_buf)
        })
        .filter(|path| {
            path.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| HEADERS.contains(&e))
        })
        .take(MAX_HEADERS);
    let inputs: Vec<PathBuf> = recipe.sources.iter().cloned().chain(headers).collect();
    for source in &inputs {
        let path = folder.join(source);
        let bytes = std::fs::read(&path).map_err(|err| Error::io(&path, err))?;
        hash.update(source.as_os_str().as_encoded_bytes());
        hash.update([0]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    let digest: [u8; 32] = hash.finalize().into();
    Ok(crate::files::to_hex(&digest[..12]))
}
