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

use super::digest::Digest;

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
    // A language without a build may check its sources (Python's byte-compile): it runs from
    // them once they pass.
    let checks_only = recipe.language.build.is_none();
    let line = |work: &Path| recipe.build_line(work).or_else(|| recipe.check_line(work));
    let Some(template) = line(Path::new(BUILD)) else {
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
    // What no program may see (the reports this run writes, among them) is no part of it.
    let hidden: Vec<PathBuf> = settings
        .hidden()
        .iter()
        .map(|path| crate::files::canonical_even_if_absent(path))
        .collect();
    let key = match key(&recipe, &folder, sources.is_file(), &hidden) {
        Ok(key) => key,
        Err(why) => return Ok(unread(language, &shown, &why)),
    };
    let job = Job {
        key,
        language,
        shown,
        fill: &|_| Ok(()),
        command: &|work| (line(work).unwrap_or_default(), folder.clone()),
        run: &|done| match checks_only {
            true => recipe.run_line(Path::new("")),
            false => recipe.run_line(done),
        },
        runs_in: checks_only.then(|| folder.clone()),
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
    // The folder names the student: no two submissions share a build.
    let salt = format!(
        "{shown}\0{}\0{}",
        crate::target::display_argv(&custom.run),
        folder.display()
    );
    let language = "a build of its own";
    let (files, key) = match super::archive::listing(&folder, salt.as_bytes()) {
        Ok(listed) => listed,
        Err(why) => return Ok(unread(language.into(), &shown, &why)),
    };
    let job = Job {
        key,
        language: language.into(),
        shown,
        fill: &|work| {
            super::archive::copy_files(&folder, &files, work)
                .map_err(|why| Error::Build(format!("`{}`: {why}", folder.display())))
        },
        command: &|work| (custom.build.clone(), work.to_path_buf()),
        run: &|_| custom.run.clone(),
        runs_in: None,
    };
    cached(&job, settings, corpus_root, warnings)
}

/// A submission the harness would not read whole to name its build (over the caps): its
/// verdict, in the form of a failed build's message (what failed, how, then the reason).
fn unread(language: String, shown: &str, why: &str) -> Outcome {
    Outcome::Failed(Failed {
        language,
        message: format!("`{shown}` was not run:\n(the submission was not read)\n{why}"),
        build_time: Duration::ZERO,
    })
}

/// The build's output folder in a command or a compiler's message before the folder is known:
/// filled with the folder in the command a check shows, and said as `<build folder>` in a
/// failed build's message (which the grades hold, the same on every machine).
const BUILD: &str = "{build}";

/// One build, run or reused: its key (the name of its folder under the cache), how it is
/// shown, and how it runs.
struct Job<'a> {
    key: String,
    language: String,
    /// The build command as shown to the user (its output folder as [`BUILD`]).
    shown: String,
    /// Fills the fresh work folder before the build runs.
    fill: &'a dyn Fn(&Path) -> Result<(), Error>,
    /// The build's command line and the folder it runs in, for a work folder.
    command: &'a dyn Fn(&Path) -> (Vec<OsString>, PathBuf),
    /// The command that runs the finished build, kept in `done`.
    run: &'a dyn Fn(&Path) -> Vec<OsString>,
    /// Where the program runs, where not in `done` (a language whose sources are only checked
    /// runs from them).
    runs_in: Option<PathBuf>,
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
    // The command as it ran: its output folder the build's own.
    let shown = job.shown.replace(BUILD, &done.display().to_string());
    let ready = |build_time, reused| Ready {
        language: job.language.clone(),
        run: (job.run)(&done),
        dir: job.runs_in.clone().unwrap_or_else(|| done.clone()),
        build: Some(shown.clone()),
        build_time,
        reused,
    };
    if done.is_dir() {
        if sealed(&done) {
            return Ok(Outcome::Ready(ready(Duration::ZERO, true)));
        }
        // Changed since it was sealed (or sealed by another user): built again.
        remove_build(&done);
    }
    if let Ok(message) = std::fs::read_to_string(&failed) {
        return Ok(Outcome::Failed(Failed {
            language: job.language.clone(),
            message,
            build_time: Duration::ZERO,
        }));
    }
    let start = Instant::now();
    // A folder of this build's own: two builds of the same sources at once, in two processes
    // or two threads of one (a test binary, the course server's two gradings), never share
    // one (one's start removed the other's half-made folder, and its compiler failed).
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let nth = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = builds.join(format!("{}.building-{}-{nth}", job.key, std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let result = (job.fill)(&work).and_then(|()| {
        let (argv, cwd) = (job.command)(&work);
        run_build(&argv, &cwd, &work, settings, corpus_root, warnings)
    });
    let build_time = start.elapsed();
    match result {
        Ok(None) => {
            seal(&work)?;
            // Another build of the same sources may have finished first: either is the same.
            if std::fs::rename(&work, &done).is_err() && done.is_dir() {
                remove_build(&work);
            }
            Ok(Outcome::Ready(ready(build_time, false)))
        }
        Ok(Some(compiler)) => {
            let _ = std::fs::remove_dir_all(&work);
            // Part of the grades: the same on every machine, whatever its cache's path.
            let message =
                format!("`{}` failed:\n{compiler}", job.shown).replace(BUILD, "<build folder>");
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

/// Makes a finished build the harness's: every entry owned by the harness's user (the build
/// ran as the sandbox's) and nobody's to write, so that no target, and no process of the
/// targets' user outside the sandbox, can change what a later check runs.
fn seal(work: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    let uid = crate::sys::effective_uid();
    // SAFETY: getegid has no preconditions and cannot fail.
    let gid = unsafe { libc::getegid() };
    for entry in walkdir::WalkDir::new(work).contents_first(true) {
        let entry = entry.map_err(|err| Error::Build(format!("cannot seal the build: {err}")))?;
        let path = entry.path();
        if uid == 0 {
            std::os::unix::fs::lchown(path, Some(uid), Some(gid))
                .map_err(|err| Error::io(path, err))?;
        }
        if entry.file_type().is_symlink() {
            continue;
        }
        let mode = entry
            .metadata()
            .map_err(|err| Error::Build(err.to_string()))?
            .permissions()
            .mode();
        let sealed = match entry.file_type().is_dir() {
            true => 0o555,
            false => mode & 0o555,
        };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(sealed))
            .map_err(|err| Error::io(path, err))?;
    }
    Ok(())
}

/// Whether the build at `done` is as [`seal`] left it: every entry the harness's user's and
/// nobody's to write (at most as many entries as a submission may hold).
fn sealed(done: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let uid = crate::sys::effective_uid();
    walkdir::WalkDir::new(done)
        .into_iter()
        .take(super::digest::MAX_FILES + 1)
        .enumerate()
        .all(|(k, entry)| {
            k < super::digest::MAX_FILES
                && entry.is_ok_and(|entry| {
                    entry.path_is_symlink()
                        || entry
                            .metadata()
                            .is_ok_and(|meta| meta.uid() == uid && meta.mode() & 0o222 == 0)
                })
        })
}

/// Removes a build folder, sealed or not.
fn remove_build(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walkdir::WalkDir::new(path).into_iter().flatten() {
        if entry.file_type().is_dir() {
            let writable = std::fs::Permissions::from_mode(0o755);
            let _ = std::fs::set_permissions(entry.path(), writable);
        }
    }
    let _ = std::fs::remove_dir_all(path);
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
    let mut settings = settings.clone();
    settings.cwd = Some(folder.to_path_buf());
    settings.writable = vec![work.to_path_buf()];
    settings.limits = LIMITS;
    let target = Target::command(&argv, folder);
    let (target, policy, found) = Policy::for_program(
        &Program::Command(argv.clone()),
        &settings,
        LIMITS,
        corpus_root,
        &target,
        crate::sandbox::available,
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
    // A build stopped by Ctrl-C or SIGTERM says nothing of the sources: no failure is kept.
    if execution.interrupted {
        return Err(Error::Interrupted);
    }
    let mut text = String::from_utf8_lossy(&execution.stderr).into_owned();
    text += &String::from_utf8_lossy(&execution.stdout);
    // The compiler names files by the paths it was given: the submission's own, relative.
    let text = text
        .replace(&format!("{}/", folder.display()), "")
        .replace(&work.display().to_string(), BUILD);
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

/// The build's name: a hash of the language's row, the compiler (its path, size and time: an
/// upgrade is another compiler), the sources built and their entry point (two programs of one
/// folder, `size.c` and `broken.c`, are two builds), the submission's folder (so that no two
/// students ever share a build, whatever their files) and every file in it, path and content (a data file a
/// source includes is part of the program), but for what is `hidden` from every program. Read
/// within the caps of [`super::digest`]; `Err`
/// says why a submission cannot be named, for its row.
fn key(recipe: &Recipe, folder: &Path, lone: bool, hidden: &[PathBuf]) -> Result<String, String> {
    let language = recipe.language;
    let mut digest = Digest::new(language.name.as_bytes());
    digest.part(language.run.as_bytes());
    digest.part(language.build.as_deref().unwrap_or_default().as_bytes());
    digest.part(recipe.main_class.as_deref().unwrap_or_default().as_bytes());
    digest.part(compiler_identity(&language.tool).as_bytes());
    digest.part(recipe.main.as_os_str().as_encoded_bytes());
    for source in &recipe.sources {
        digest.part(source.as_os_str().as_encoded_bytes());
    }
    digest.part(folder.as_os_str().as_encoded_bytes());
    match lone {
        // A lone file in a folder of other things: the files beside it, not the folders.
        true => {
            for entry in std::fs::read_dir(folder)
                .map_err(|err| format!("cannot list `{}`: {err}", folder.display()))?
                .flatten()
                .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
                .filter(|entry| !hidden.contains(&entry.path()))
            {
                digest.part(entry.file_name().as_encoded_bytes());
                digest.file(&entry.path())?;
            }
        }
        false => {
            digest.folder_but(folder, hidden)?;
        }
    }
    Ok(digest.finish())
}

/// The compiler as a build key names it: where it is (links followed), its size and its
/// modification time, so that a compiler upgraded in place is another compiler.
fn compiler_identity(tool: &str) -> String {
    let Some(path) = crate::target::find_on_path(&OsString::from(tool)) else {
        return format!("{tool}: not found");
    };
    let real = path.canonicalize().unwrap_or(path);
    match std::fs::metadata(&real) {
        Ok(meta) => {
            use std::os::unix::fs::MetadataExt;
            format!(
                "{} {} {}.{}",
                real.display(),
                meta.len(),
                meta.mtime(),
                meta.mtime_nsec()
            )
        }
        Err(_) => real.display().to_string(),
    }
}
