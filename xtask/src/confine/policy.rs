//! Confining an untrusted target: the policy that says how, worked out once per run and suite.
//!
//! A target that is not the bundled reference runs, case by case, behind these layers, each its
//! own module below: `namespaces` (its own mount, PID, IPC, network and UTS namespaces, an
//! unprivileged uid), `mounts` (a read-only view of the system and of its own folder, nothing
//! else, and a capped tmpfs to write in), `seccomp` (the system calls namespaces leave open),
//! `landlock` (file and network access again, from inside), `cgroup` (memory and process count
//! per worker), `rlimits` (CPU time, file size, open files) and `environment` (a scrubbed one).
//! The sandbox helper (`sandbox`) applies the first five; this module decides what each case
//! may see and reports, once, any layer the machine cannot provide.
//!
//! Degrading: where the helper cannot make namespaces (a user without user namespaces, a kernel
//! without them), the target runs directly with rlimits, the scrubbed environment, Landlock if
//! the kernel has it and polling of its memory; a warning names what is not contained, and
//! `--require-isolation` makes it an error instead.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::limits::ResourceLimits;
use super::mounts::View;
use super::rlimits::Rlimit;
use super::{cgroup, environment, landlock, mounts, namespaces, rlimits};
use crate::error::Error;
use crate::target::{Program, Target};

/// What the user asked of the confinement of untrusted programs (`--no-sandbox`, the limits,
/// `--pass-env`, `--cwd`, `--require-isolation`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Use the sandbox (namespaces, seccomp, Landlock); `false` is `--no-sandbox`.
    pub sandbox: bool,
    /// A missing layer is an error rather than a warning.
    pub require_isolation: bool,
    /// Limits over the suite's.
    pub limits: ResourceLimits,
    /// Environment variables passed through to targets besides PATH and LANG.
    pub pass_env: Vec<String>,
    /// Where the target runs, instead of its program's folder.
    pub cwd: Option<PathBuf>,
    /// Paths no target may see, besides the checkout and the corpus (the reference binary, the
    /// submissions of other students): written only through [`Settings::hide`].
    protected: Vec<PathBuf>,
    /// Folders the target may write (a build's output folder); none for a case.
    pub writable: Vec<PathBuf>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            sandbox: true,
            require_isolation: false,
            limits: ResourceLimits::default(),
            pass_env: Vec::new(),
            cwd: None,
            protected: Vec::new(),
            writable: Vec::new(),
        }
    }
}

impl Settings {
    /// Keeps `path` out of every target's sight, besides the checkout and the corpus (which
    /// the policy hides itself): the one door into the list of what a run may not see.
    pub fn hide(&mut self, path: impl Into<PathBuf>) {
        self.protected.push(path.into());
    }

    /// What [`Settings::hide`] was given.
    pub fn hidden(&self) -> &[PathBuf] {
        &self.protected
    }
}

/// Lines the user should see once per run (a layer this machine lacks, ...).
pub type Warnings = Vec<String>;

/// Adds the `found` warnings that `warnings` does not hold yet.
pub fn note_once(warnings: &mut Warnings, found: Warnings) {
    for warning in found {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
}

/// How a target runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The bundled reference: nothing is confined or limited.
    Trusted,
    /// Behind every layer, through the worker's sandbox helper.
    Sandboxed,
    /// Directly, with what the machine allows without namespaces (or `--no-sandbox`).
    Direct,
}

/// How one suite's target is confined: worked out once, applied to every case.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    pub limits: ResourceLimits,
    /// The environment, to which each case adds HOME and TMPDIR, its temporary folder.
    pub env: Vec<(OsString, OsString)>,
    /// Whether the worker cgroup limits memory and processes (sandboxed, where cgroups exist).
    pub cgroup: bool,
    /// What Landlock lets a direct target read (its folder, the system, ...).
    pub readable: Vec<PathBuf>,
    /// The layers the sandbox helper applies to each case; a direct target takes its rlimits
    /// and, where `landlock` is on, Landlock from here too.
    pub layers: Layers,
}

/// The layers of one case's box, as one value: what the sandbox helper is asked to build
/// around each case (and what `bench --layers` switches on one at a time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// What the target sees (sandboxed).
    pub view: View,
    /// Build the mount view (off only to measure what it costs: the case then sees the host's).
    pub view_on: bool,
    pub rlimits: Vec<Rlimit>,
    /// Landlock on top (where the kernel has it; outside namespaces, the file-system sandbox).
    pub landlock: bool,
    /// Load the seccomp filter (off only to measure what it costs).
    pub seccomp: bool,
    /// The uid and gid a sandboxed target runs as when the helper is root: always the one
    /// reserved for targets (`namespaces::SANDBOX_ID`).
    pub uid: u32,
}

impl Policy {
    /// No confinement at all, for the bundled reference alone: every other program is
    /// untrusted and runs under [`Policy::for_program`].
    pub fn trusted() -> Policy {
        Policy {
            mode: Mode::Trusted,
            limits: ResourceLimits::default(),
            env: Vec::new(),
            cgroup: false,
            readable: Vec::new(),
            layers: Layers {
                view: View::default(),
                view_on: false,
                rlimits: Vec::new(),
                landlock: false,
                seccomp: false,
                uid: crate::sys::effective_uid(),
            },
        }
    }

    pub fn is_trusted(&self) -> bool {
        self.mode == Mode::Trusted
    }

    /// The target to run and its policy, for `program` run as `target` under a suite whose
    /// limits are `suite_limits`: trusted for the bundled reference, confined for anything
    /// else, with the checkout, the corpus at `corpus_root` and `settings.protected` out of
    /// sight. Fails when the program lives where it cannot be shown without showing them, or
    /// when `--require-isolation` finds a layer missing.
    /// `sandbox` says whether this machine can run the sandbox helper (`Err`: why not).
    pub fn for_program(
        program: &Program,
        settings: &Settings,
        suite_limits: ResourceLimits,
        corpus_root: &Path,
        target: &Target,
        sandbox: impl FnOnce() -> Result<(), String>,
    ) -> Result<(Target, Policy, Warnings), Error> {
        if *program == Program::Reference {
            return Ok((target.clone(), Policy::trusted(), Warnings::new()));
        }
        let limits = settings.limits.or(suite_limits);
        let (resolved, folder) = resolve(target, settings.cwd.as_deref())?;
        let sight = Sight::of(settings, corpus_root, &resolved, folder.as_deref())?;
        // Whether the helper runs is asked last: the one started ahead sets itself up meanwhile.
        let machine = Machine::find(settings, sandbox())?;
        // Always the uid reserved for targets, never one taken from the submission's files: an
        // instructor who collects submissions as themselves and grades with sudo must not
        // lend a submission their own uid.
        let uid = namespaces::SANDBOX_ID;
        let policy = Policy {
            mode: machine.mode,
            limits,
            env: environment::scrubbed(&settings.pass_env),
            cgroup: machine.cgroup,
            readable: sight.readable.clone(),
            layers: Layers {
                view: View {
                    readable: sight.readable,
                    masked: sight.masked,
                    writable: settings.writable.clone(),
                    temp_bytes: limits.file_size.unwrap_or(64 << 20),
                    temp_inodes: 4096,
                },
                view_on: true,
                rlimits: rlimits::for_limits(&limits, machine.cgroup),
                landlock: machine.landlock,
                seccomp: true,
                uid,
            },
        };
        let mut resolved = resolved;
        // No folder: a fresh empty one, made per case (the case's temporary folder).
        resolved.dir = folder.unwrap_or_default();
        Ok((resolved, policy, machine.warnings))
    }
}

/// What this machine can do for a confined target, as the settings ask it.
struct Machine {
    mode: Mode,
    cgroup: bool,
    landlock: bool,
    /// One line per layer the machine lacks.
    warnings: Warnings,
}

impl Machine {
    /// The layers available under `settings`; `sandbox` says whether the helper can run.
    /// `--require-isolation` makes a missing layer an error.
    fn find(settings: &Settings, sandbox: Result<(), String>) -> Result<Machine, Error> {
        let mut missing = Vec::new();
        let helper = if settings.sandbox {
            sandbox
        } else {
            Err("--no-sandbox".to_string())
        };
        // Looked for (by making the first worker's cgroup) only where a confined case may use
        // it: under --no-sandbox nothing runs in a cgroup, and only what killed harnesses left
        // is removed.
        let hierarchy = if settings.sandbox {
            cgroup::hierarchy()
        } else {
            cgroup::sweep_stale();
            None
        };
        let landlock = settings.sandbox && landlock::version() > 0;
        let mode = match &helper {
            Ok(()) => Mode::Sandboxed,
            Err(why) => {
                if settings.sandbox {
                    missing.push(format!(
                        "namespaces and seccomp ({why}): targets can see the whole file system, \
                         other processes and the network"
                    ));
                }
                Mode::Direct
            }
        };
        let cgroup = mode == Mode::Sandboxed && hierarchy.is_some();
        if settings.sandbox && hierarchy.is_none() {
            // Worded for who runs it: RLIMIT_NPROC binds every user but root.
            let nproc = if crate::sys::effective_uid() == 0 {
                "is RLIMIT_NPROC, which does not bind root"
            } else {
                "is RLIMIT_NPROC, which counts every process of your user"
            };
            missing.push(format!(
                "a cgroup: memory is watched by polling the main process, and the process limit \
                 {nproc}"
            ));
        }
        if settings.sandbox && !landlock {
            missing.push("Landlock (this kernel has none)".into());
        }
        if !missing.is_empty() && settings.require_isolation {
            return Err(Error::Usage(format!(
                "--require-isolation: this machine cannot provide {}",
                missing.join("; ")
            )));
        }
        let warnings = missing
            .into_iter()
            .map(|what| format!("warning: not contained by {what}"))
            .collect();
        Ok(Machine {
            mode,
            cgroup,
            landlock,
            warnings,
        })
    }
}

/// What a confined target may see of the file system besides the system folders.
struct Sight {
    /// Folders bound read-only.
    readable: Vec<PathBuf>,
    /// Protected paths inside them, covered.
    masked: Vec<PathBuf>,
}

impl Sight {
    /// The folders `resolved` (run in `folder`) needs, without the checkout, the corpus at
    /// `corpus_root` and `settings.protected`. Fails when the program lives where it cannot be
    /// shown without showing them.
    fn of(
        settings: &Settings,
        corpus_root: &Path,
        resolved: &Target,
        folder: Option<&Path>,
    ) -> Result<Sight, Error> {
        let mut protected: Vec<PathBuf> = crate::workspace::checkouts();
        protected.push(corpus_root.into());
        protected.extend(settings.protected.iter().cloned());
        let mut protected: Vec<PathBuf> = protected
            .iter()
            .filter_map(|path| path.canonicalize().ok())
            .collect();
        protected.sort();
        protected.dedup();
        // The system folders are bound whole: a protected path inside one is masked there, and
        // one that holds a system folder cannot be hidden without hiding the system.
        let system: Vec<PathBuf> = mounts::SYSTEM
            .iter()
            .filter_map(|path| Path::new(path).canonicalize().ok())
            .collect();
        if let Some((holder, held)) = protected
            .iter()
            .find_map(|p| system.iter().find(|s| s.starts_with(p)).map(|s| (p, s)))
        {
            return Err(Error::Usage(format!(
                "`{}` must stay out of every target's sight, but it holds `{}`, which every \
                 target needs: move it into a folder of its own",
                holder.display(),
                held.display()
            )));
        }
        let mut readable: Vec<PathBuf> = folder.iter().map(|f| f.to_path_buf()).collect();
        for word in std::iter::once(&resolved.program).chain(&resolved.args) {
            let path = Path::new(word);
            if path.is_absolute() && path.is_file() {
                readable.extend(path.parent().map(Path::to_path_buf));
            }
        }
        // An interpreter's install prefix, not a submission's: a program inside its folder
        // (`alice/bin/run.sh`) opens nothing above it.
        if !folder.is_some_and(|f| Path::new(&resolved.program).starts_with(f)) {
            readable.extend(program_dirs(&resolved.program));
        }
        let mut readable: Vec<PathBuf> = readable
            .into_iter()
            .filter_map(|path| path.canonicalize().ok())
            .filter(|path| !mounts::SYSTEM.iter().any(|system| path.starts_with(system)))
            .collect();
        readable.sort();
        readable.dedup();
        // The folder it runs in must be shown; any other folder inside a protected one is not.
        if let Some(folder) = folder.filter(|f| is_shared(f)) {
            return Err(Error::CouldNotRun {
                command: resolved.display(),
                message: format!(
                    "it would run in `{}`, which other programs share: put the program in a \
                     folder of its own (or pass --cwd)",
                    folder.display()
                ),
            });
        }
        readable.retain(|path| !is_shared(path));
        if let Some(folder) = folder {
            if let Some(hidden) = protected.iter().find(|p| folder.starts_with(p)) {
                return Err(Error::CouldNotRun {
                    command: resolved.display(),
                    message: format!(
                        "it would run in `{}`, inside `{}`, which no target may see: move the \
                         program out of it (or pass --cwd)",
                        folder.display(),
                        hidden.display()
                    ),
                });
            }
        }
        readable.retain(|path| !protected.iter().any(|p| path.starts_with(p)));
        let mut masked: Vec<PathBuf> = protected
            .iter()
            .filter(|p| readable.iter().chain(&system).any(|r| p.starts_with(r)))
            .cloned()
            .collect();
        // What no package lists in /etc (a course folder kept there), unless the case runs or
        // reads inside it.
        let unlisted: Vec<PathBuf> = mounts::etc_unlisted()
            .iter()
            .filter(|p| !masked.iter().any(|m| p.starts_with(m)))
            .filter(|p| !readable.iter().any(|r| r.starts_with(p)))
            .cloned()
            .collect();
        masked.extend(unlisted);
        Ok(Sight { readable, masked })
    }
}

/// Whether `path` is a folder no single program owns (the root, `/tmp`, or `/home`-like
/// folders above others), which a case may not be shown whole.
fn is_shared(path: &Path) -> bool {
    [
        Path::new("/"),
        Path::new("/tmp"),
        Path::new("/var/tmp"),
        Path::new("/home"),
    ]
    .contains(&path)
}

/// The command line with every word that names an existing file made absolute (against `cwd`,
/// or the target's folder), and the folder the target runs in: `cwd` if given, else the folder
/// of the first existing file on the command line, else the folder the user named if a word
/// names a folder in it, else none (a fresh empty folder).
///
/// A bare command word (`python3`, `java`) is always a program on PATH, never a file of the
/// folder: a submission cannot replace the interpreter its command names. With `cwd` (a
/// submission's folder), a relative word whose real path (links followed) leaves it is refused:
/// a submission cannot show a classmate's files, or the grader's, to its own program. (An
/// absolute word is the command's own: the user wrote it.)
pub(super) fn resolve(
    target: &Target,
    cwd: Option<&Path>,
) -> Result<(Target, Option<PathBuf>), Error> {
    let base = cwd.unwrap_or(&target.dir);
    let inside = cwd.and_then(|cwd| cwd.canonicalize().ok());
    let mut resolved = target.clone();
    let mut first_file: Option<PathBuf> = None;
    let mut first_folder: Option<PathBuf> = None;
    let typed_in = target
        .dir
        .canonicalize()
        .unwrap_or_else(|_| target.dir.clone());
    let words = std::iter::once(&mut resolved.program).chain(resolved.args.iter_mut());
    for (k, word) in words.enumerate() {
        let bare_command = k == 0 && Path::new(&*word).components().count() == 1;
        if word.is_empty() || bare_command {
            continue;
        }
        let path = base.join(&*word);
        if path.is_file() {
            let path = path.canonicalize().unwrap_or(path);
            // An absolute word is the command's own (an interpreter, a tool the user named); a
            // relative one names a file of the submission and must stay in it.
            let relative = Path::new(&*word).is_relative();
            let leaves = |folder: &&PathBuf| relative && !path.starts_with(folder);
            if let Some(inside) = inside.as_ref().filter(leaves) {
                return Err(Error::CouldNotRun {
                    command: target.display(),
                    message: format!(
                        "`{}` links outside the submission (`{}`): name files of the \
                         submission itself",
                        Path::new(&*word).display(),
                        inside.file_name().unwrap_or_default().to_string_lossy()
                    ),
                });
            }
            first_file
                .get_or_insert_with(|| path.parent().map(Path::to_path_buf).unwrap_or_default());
            *word = path.into_os_string();
        } else if path.is_dir() {
            // A folder the command names (`java -cp build Go`): it runs where it was typed,
            // which shows the folder, unless the folder lies elsewhere (`-cp /home/s/build`,
            // typed in the checkout): then it runs in that folder.
            let path = path.canonicalize().unwrap_or(path);
            if inside
                .as_ref()
                .is_none_or(|inside| path.starts_with(inside))
            {
                let folder = match path.starts_with(&typed_in) {
                    true => typed_in.clone(),
                    false => path.clone(),
                };
                first_folder.get_or_insert(folder);
                *word = path.into_os_string();
            }
        }
    }
    let folder = match cwd {
        Some(cwd) => Some(cwd.to_path_buf()),
        None => first_file.or(first_folder),
    };
    Ok((resolved, folder.and_then(|f| f.canonicalize().ok())))
}

/// The folders an interpreter or compiled program needs: the folder of `program` (found
/// through PATH for a bare name) and of what it links to, and, where such a folder is an
/// install prefix's `bin` (or pyenv's `shims`), the prefix itself, for the interpreter's
/// libraries (`~/.pyenv/versions/3.11.7/bin/python3` needs `.../lib/python3.11`). A program in
/// a student's own folder does not open the folder above, where the other students are.
fn program_dirs(program: &OsString) -> Vec<PathBuf> {
    let program = Path::new(program);
    let found = if program.components().count() > 1 {
        Some(program.to_path_buf())
    } else {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    };
    let Some(found) = found else {
        return Vec::new();
    };
    let mut dirs = Vec::new();
    for path in [Some(found.clone()), found.canonicalize().ok()]
        .into_iter()
        .flatten()
    {
        let Some(dir) = path.parent() else { continue };
        dirs.push(dir.to_path_buf());
        let is_prefix_bin = dir
            .file_name()
            .is_some_and(|name| name == "bin" || name == "sbin" || name == "shims");
        if is_prefix_bin {
            dirs.extend(dir.parent().map(Path::to_path_buf));
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_runs_in_the_folder_of_its_first_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("student")).unwrap();
        std::fs::write(root.join("student/run.sh"), "").unwrap();
        std::fs::create_dir(root.join("student/build")).unwrap();
        let target = |argv: &[&str], dir: &Path| {
            Target::command(&argv.iter().map(OsString::from).collect::<Vec<_>>(), dir)
        };
        let (resolved, folder) =
            resolve(&target(&["./run.sh", "x"], &root.join("student")), None).unwrap();
        assert_eq!(resolved.program, root.join("student/run.sh"));
        assert_eq!(folder, Some(root.join("student")));
        let (resolved, folder) = resolve(&target(&["sh", "student/run.sh"], &root), None).unwrap();
        assert_eq!(resolved.args[0], root.join("student/run.sh"));
        assert_eq!(
            folder,
            Some(root.join("student")),
            "the file's folder, not the cwd"
        );
        let (_, folder) = resolve(
            &target(&["java", "-cp", "build", "Main"], &root.join("student")),
            None,
        )
        .unwrap();
        assert_eq!(
            folder,
            Some(root.join("student")),
            "a folder named in the cwd"
        );
        let (resolved, folder) = resolve(
            &target(
                &[
                    "java",
                    "-cp",
                    &root.join("student/build").to_string_lossy(),
                    "Main",
                ],
                &root.join("alice"),
            ),
            None,
        )
        .unwrap();
        assert_eq!(
            folder,
            Some(root.join("student/build")),
            "a folder named elsewhere"
        );
        assert_eq!(resolved.args[1], root.join("student/build"));
        let (_, folder) = resolve(&target(&["true"], &root), None).unwrap();
        assert_eq!(folder, None, "no file: a fresh empty folder");
        let (_, folder) =
            resolve(&target(&["./run.sh"], &root), Some(&root.join("student"))).unwrap();
        assert_eq!(folder, Some(root.join("student")), "--cwd wins");
        // A bare command word is a program on PATH, even where the folder has a file so named.
        std::fs::write(root.join("student/python3"), "").unwrap();
        let (resolved, _) = resolve(
            &target(&["python3", "run.sh"], &root),
            Some(&root.join("student")),
        )
        .unwrap();
        assert_eq!(resolved.program, "python3");
        assert_eq!(resolved.args[0], root.join("student/run.sh"));
        // A word whose real path leaves the submission is refused.
        std::fs::create_dir(root.join("alice")).unwrap();
        std::fs::write(root.join("alice/main.py"), "").unwrap();
        std::os::unix::fs::symlink("../alice/main.py", root.join("student/main.py")).unwrap();
        let refused = resolve(
            &target(&["python3", "main.py"], &root),
            Some(&root.join("student")),
        )
        .unwrap_err()
        .to_string();
        assert!(
            refused.contains("`main.py` links outside the submission"),
            "{refused}"
        );
    }
}
