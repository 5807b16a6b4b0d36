//! Confining an untrusted target: resource limits, a cgroup per case, a Landlock sandbox and a
//! scrubbed environment.
//!
//! A [`Policy`] is worked out once per run (which paths the target may read, which cgroup
//! hierarchies are usable, the environment); a [`Confinement`] is made per case from it (a fresh
//! temporary folder, the case's cgroups, a Landlock ruleset) and applied in the child between
//! fork and exec with raw system calls only, since the harness is multi-threaded and nothing
//! that allocates or takes a lock is safe there.
//!
//! Memory is limited by the cgroup (memory.max or memory.limit_in_bytes), not by an address-space
//! rlimit, which breaks the JVM and turns memory exhaustion into a crash; where no cgroup can be
//! made, the harness polls the target's peak resident memory and kills it past the limit, which
//! watches the main process only. Processes are limited by the cgroup's pids controller, with
//! RLIMIT_NPROC as the fallback (it counts all of a user's processes and does not bind root).
//! CPU time, file size and open files are rlimits. Landlock lets the target read the system, its
//! folder and the folders of the files on its command line, carving the corpus out of them, and
//! write only in its temporary folder; network access (TCP) is denied from Landlock ABI 4, and
//! signals and abstract sockets outside the sandbox from ABI 6. UDP is not covered.

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope, ABI,
};

use crate::limits::ResourceLimits;
use crate::target::{Program, Target};

/// The newest Landlock ABI this code knows how to use.
const LANDLOCK_ABI: ABI = ABI::V6;

/// The Landlock ABI the kernel offers (0 where it has none).
pub fn landlock_version() -> i64 {
    // SAFETY: landlock_create_ruleset with a null attribute and the VERSION flag only returns a
    // number.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    version.max(0)
}

/// Which cgroup version is usable, and where the harness makes the cases' cgroups.
#[derive(Debug, Clone)]
enum Cgroups {
    /// cgroup v2: one folder holds memory and pids.
    V2 { parent: PathBuf },
    /// cgroup v1: one folder per hierarchy.
    V1 { memory: PathBuf, pids: PathBuf },
}

/// What the user asked of the confinement of untrusted programs (the command line's
/// `--no-sandbox`, limits and `--pass-env`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Use Landlock where the kernel has it.
    pub sandbox: bool,
    /// Limits over the suite's.
    pub limits: ResourceLimits,
    /// Environment variables passed through to targets besides PATH and LANG.
    pub pass_env: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            sandbox: true,
            limits: ResourceLimits::default(),
            pass_env: Vec::new(),
        }
    }
}

/// What the harness learned about a run's confinement, and what it will apply to each case.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The bundled reference: nothing is confined or limited.
    trusted: bool,
    pub limits: ResourceLimits,
    pub sandbox: bool,
    readable: Vec<PathBuf>,
    env: Vec<(OsString, OsString)>,
    cgroups: Option<Cgroups>,
}

/// Lines the user should see once per run (no sandbox here, no cgroup, ...).
pub type Warnings = Vec<String>;

/// Adds the `found` warnings that `warnings` does not hold yet.
pub fn note_once(warnings: &mut Warnings, found: Warnings) {
    for warning in found {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
}

impl Policy {
    /// No confinement at all, for the bundled reference alone: every other program is
    /// untrusted and runs under [`Policy::new`].
    pub fn trusted() -> Policy {
        Policy {
            trusted: true,
            limits: ResourceLimits::default(),
            sandbox: false,
            readable: Vec::new(),
            env: Vec::new(),
            cgroups: None,
        }
    }

    /// The policy for running `program` as `target` under a suite whose limits are
    /// `suite_limits`: trusted for the bundled reference, confined for anything else, with the
    /// corpus at `corpus_root` kept private.
    pub fn for_program(
        program: &Program,
        settings: &Settings,
        suite_limits: ResourceLimits,
        corpus_root: &Path,
        target: &Target,
    ) -> (Policy, Warnings) {
        match program {
            Program::Reference => (Policy::trusted(), Warnings::new()),
            Program::Command(_) => Policy::new(
                settings.limits.or(suite_limits),
                settings.sandbox,
                corpus_root,
                target,
                &settings.pass_env,
            ),
        }
    }

    pub fn is_trusted(&self) -> bool {
        self.trusted
    }

    /// A policy for running `target` with the corpus at `corpus_root` kept private.
    pub fn new(
        limits: ResourceLimits,
        sandbox: bool,
        corpus_root: &Path,
        target: &Target,
        pass_env: &[String],
    ) -> (Policy, Warnings) {
        let mut warnings = Vec::new();
        let sandbox = sandbox
            && {
                let supported = landlock_version() > 0;
                if !supported {
                    warnings.push(
                    "warning: this kernel has no Landlock: targets run without the file-system sandbox \
                     (pass --no-sandbox to silence this)"
                        .into(),
                );
                }
                supported
            };
        let cgroups = find_cgroups();
        if cgroups.is_none() && (limits.memory.is_some() || limits.processes.is_some()) {
            warnings.push(
                "warning: no usable cgroup: memory is watched by polling the main process, and the \
                 process limit is RLIMIT_NPROC (not enforced for root)"
                    .into(),
            );
        }
        let corpus = corpus_root
            .canonicalize()
            .unwrap_or_else(|_| corpus_root.to_path_buf());
        let mut roots: Vec<PathBuf> = [
            "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys",
            "/dev", "/run",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        roots.push(target.dir.clone());
        roots.extend(program_dirs(&target.program));
        for arg in &target.args {
            let path = target.dir.join(arg);
            if path.exists() {
                roots.extend(path.parent().map(Path::to_path_buf));
            }
        }
        let readable = carve(&roots, &corpus);
        let mut env: Vec<(OsString, OsString)> = Vec::new();
        let path =
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
        env.push(("PATH".into(), path));
        env.push((
            "LANG".into(),
            std::env::var_os("LANG").unwrap_or_else(|| "C.UTF-8".into()),
        ));
        for name in pass_env {
            if let Some(value) = std::env::var_os(name) {
                env.push((name.into(), value));
            }
        }
        (
            Policy {
                trusted: false,
                limits,
                sandbox,
                readable,
                env,
                cgroups,
            },
            warnings,
        )
    }

    /// Whether a cgroup per case is used.
    pub fn has_cgroups(&self) -> bool {
        self.cgroups.is_some()
    }
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

/// The paths under `roots` that lead nowhere near `excluded`: each root not containing it, and,
/// for a root that does, its entries, recursively, leaving out the branch that is `excluded`.
pub fn carve(roots: &[PathBuf], excluded: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = roots.iter().filter_map(|r| r.canonicalize().ok()).collect();
    while let Some(path) = stack.pop() {
        if path == excluded || path.starts_with(excluded) {
            continue;
        }
        if !excluded.starts_with(&path) {
            out.push(path);
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&path) {
            stack.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// This process's own cgroup folder in a hierarchy, from /proc/self/cgroup.
fn own_cgroup(controller: &str) -> Option<PathBuf> {
    let table = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in table.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        if matches {
            let base = if controller.is_empty() {
                PathBuf::from("/sys/fs/cgroup")
            } else {
                Path::new("/sys/fs/cgroup").join(controller)
            };
            return Some(base.join(path.trim_start_matches('/')));
        }
    }
    None
}

/// A folder in which the harness can make cgroups, tried by making one.
fn usable(parent: &Path, must_have: &str) -> bool {
    let probe = parent.join(format!("gridjudge-probe-{}", std::process::id()));
    let ok = std::fs::create_dir(&probe).is_ok() && probe.join(must_have).exists();
    let _ = std::fs::remove_dir(&probe);
    ok
}

/// The usable cgroups, found once per process: concurrent probes would disturb each other.
fn find_cgroups() -> Option<Cgroups> {
    static FOUND: std::sync::OnceLock<Option<Cgroups>> = std::sync::OnceLock::new();
    FOUND.get_or_init(probe_cgroups).clone()
}

fn probe_cgroups() -> Option<Cgroups> {
    if let (Some(memory), Some(pids)) = (own_cgroup("memory"), own_cgroup("pids")) {
        if usable(&memory, "memory.limit_in_bytes") && usable(&pids, "pids.max") {
            return Some(Cgroups::V1 { memory, pids });
        }
    }
    let parent = own_cgroup("")?;
    if parent.join("cgroup.controllers").exists() {
        // Delegate memory and pids to the cases' cgroups where the parent allows it.
        let _ = std::fs::write(parent.join("cgroup.subtree_control"), "+memory +pids");
        if usable(&parent, "memory.max") && usable(&parent, "pids.max") {
            return Some(Cgroups::V2 { parent });
        }
    }
    None
}

static CASE_COUNTER: AtomicU64 = AtomicU64::new(0);

/// What confinement observed about one case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Observed {
    /// Peak memory of the case's processes, in bytes, where measured.
    pub peak_memory: Option<u64>,
    pub memory_limit_hit: bool,
    pub process_limit_hit: bool,
}

/// One case's confinement: its temporary folder, cgroups and Landlock ruleset.
pub struct Confinement {
    temp: tempfile::TempDir,
    cgroup_dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each cgroup, for the child to join them.
    join: Vec<CString>,
    ruleset: Option<OwnedFd>,
    rlimits: Vec<(libc::__rlimit_resource_t, libc::rlim_t, libc::rlim_t)>,
    v2: bool,
}

impl Confinement {
    pub fn new(policy: &Policy) -> io::Result<Confinement> {
        let temp = tempfile::Builder::new()
            .prefix("gridjudge-case-")
            .tempdir()?;
        let mut confinement = Confinement {
            temp,
            cgroup_dirs: Vec::new(),
            join: Vec::new(),
            ruleset: None,
            rlimits: Vec::new(),
            v2: false,
        };
        let limits = policy.limits;
        if let Some(cgroups) = &policy.cgroups {
            let name = format!(
                "gridjudge-{}-{}",
                std::process::id(),
                CASE_COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            match cgroups {
                Cgroups::V2 { parent } => {
                    let dir = parent.join(&name);
                    std::fs::create_dir(&dir)?;
                    confinement.cgroup_dirs.push(dir.clone());
                    confinement.v2 = true;
                    if let Some(memory) = limits.memory {
                        std::fs::write(dir.join("memory.max"), memory.to_string())?;
                        let _ = std::fs::write(dir.join("memory.swap.max"), "0");
                    }
                    if let Some(processes) = limits.processes {
                        std::fs::write(dir.join("pids.max"), processes.to_string())?;
                    }
                }
                Cgroups::V1 {
                    memory: memory_root,
                    pids: pids_root,
                } => {
                    let (memory_dir, pids_dir) = (memory_root.join(&name), pids_root.join(&name));
                    std::fs::create_dir(&memory_dir)?;
                    confinement.cgroup_dirs.push(memory_dir.clone());
                    std::fs::create_dir(&pids_dir)?;
                    confinement.cgroup_dirs.push(pids_dir.clone());
                    if let Some(memory) = limits.memory {
                        std::fs::write(
                            memory_dir.join("memory.limit_in_bytes"),
                            memory.to_string(),
                        )?;
                        let _ = std::fs::write(
                            memory_dir.join("memory.memsw.limit_in_bytes"),
                            memory.to_string(),
                        );
                    }
                    if let Some(processes) = limits.processes {
                        std::fs::write(pids_dir.join("pids.max"), processes.to_string())?;
                    }
                }
            }
            for dir in &confinement.cgroup_dirs {
                confinement.join.push(CString::new(
                    dir.join("cgroup.procs").as_os_str().as_bytes(),
                )?);
            }
        }
        let mut rlimit =
            |resource, soft: u64, hard: u64| confinement.rlimits.push((resource, soft, hard));
        if let Some(cpu) = limits.cpu {
            let seconds = cpu.as_secs_f64().ceil().max(1.0) as u64;
            rlimit(libc::RLIMIT_CPU, seconds, seconds + 1);
        }
        if let Some(size) = limits.file_size {
            rlimit(libc::RLIMIT_FSIZE, size, size);
        }
        if let Some(files) = limits.open_files {
            rlimit(libc::RLIMIT_NOFILE, files, files);
        }
        if let (Some(processes), None) = (limits.processes, &policy.cgroups) {
            rlimit(libc::RLIMIT_NPROC, processes, processes);
        }
        if policy.sandbox {
            confinement.ruleset = Some(ruleset(policy, confinement.temp.path())?);
        }
        Ok(confinement)
    }

    /// The temporary folder the target may write in (its HOME and TMPDIR).
    pub fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    /// Sets the scrubbed environment and the confinement applied between fork and exec.
    pub fn configure(&self, command: &mut Command, policy: &Policy) {
        command.env_clear();
        command.envs(policy.env.iter().map(|(k, v)| (k, v)));
        command
            .env("HOME", self.temp.path())
            .env("TMPDIR", self.temp.path());
        let join = self.join.clone();
        let rlimits = self.rlimits.clone();
        let ruleset = self.ruleset.as_ref().map_or(-1, |fd| fd.as_raw_fd());
        // SAFETY: the closure runs in the forked child before exec and makes only
        // async-signal-safe system calls on data prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                for path in &join {
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(io::Error::last_os_error());
                    }
                    libc::close(fd);
                }
                for &(resource, soft, hard) in &rlimits {
                    let limit = libc::rlimit {
                        rlim_cur: soft,
                        rlim_max: hard,
                    };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                if ruleset >= 0
                    && (libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                        || libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0)
                {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// The processes still in the case's cgroup.
    fn members(&self) -> Vec<libc::pid_t> {
        let Some(dir) = self.cgroup_dirs.first() else {
            return Vec::new();
        };
        std::fs::read_to_string(dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// Kills every process of the case, including any that left its process group.
    pub fn kill_all(&self) {
        if self.v2 {
            if let Some(dir) = self.cgroup_dirs.first() {
                let _ = std::fs::write(dir.join("cgroup.kill"), "1");
            }
        }
        for _ in 0..200 {
            let members = self.members();
            if members.is_empty() {
                return;
            }
            for pid in members {
                // SAFETY: kill has no memory-safety preconditions.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Reads a cgroup file of the case; empty where it cannot be read.
    fn read(dir: &Path, file: &str) -> String {
        std::fs::read_to_string(dir.join(file)).unwrap_or_default()
    }

    /// Whether the case tried to exceed its process limit (read while it runs, so it reads
    /// only the pids controller's events).
    pub fn process_limit_hit(&self) -> bool {
        let pids = match (self.v2, &self.cgroup_dirs[..]) {
            (true, [dir]) | (false, [_, dir]) => dir,
            _ => return false,
        };
        event_count(&Self::read(pids, "pids.events"), "max ") > 0
    }

    /// What the cgroups saw: peak memory and whether a limit was hit.
    pub fn observed(&self) -> Observed {
        let (peak, memory_events) = match (self.v2, &self.cgroup_dirs[..]) {
            (true, [dir]) => (
                Self::read(dir, "memory.peak"),
                Self::read(dir, "memory.events"),
            ),
            (false, [memory, _]) => (
                Self::read(memory, "memory.max_usage_in_bytes"),
                Self::read(memory, "memory.oom_control"),
            ),
            _ => return Observed::default(),
        };
        Observed {
            peak_memory: peak.trim().parse().ok(),
            memory_limit_hit: event_count(&memory_events, "oom_kill ") > 0,
            process_limit_hit: self.process_limit_hit(),
        }
    }
}

/// The number after `key` in a cgroup events file (`max 3`, `oom_kill 1`); 0 where absent.
fn event_count(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|line| {
            line.strip_prefix(key)
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0)
}

impl Drop for Confinement {
    fn drop(&mut self) {
        self.kill_all();
        for dir in &self.cgroup_dirs {
            for _ in 0..100 {
                if std::fs::remove_dir(dir).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// The Landlock ruleset of one case: read the policy's paths, write its temporary folder.
fn ruleset(policy: &Policy, temp: &Path) -> io::Result<OwnedFd> {
    let to_io = |err: landlock::RulesetError| io::Error::other(err.to_string());
    let abi = LANDLOCK_ABI;
    let created = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(to_io)?
        .handle_access(AccessNet::from_all(abi))
        .map_err(to_io)?
        .scope(Scope::from_all(abi))
        .map_err(to_io)?
        .create()
        .map_err(to_io)?
        .add_rules(path_beneath_rules(
            &policy.readable,
            AccessFs::from_read(abi),
        ))
        .map_err(to_io)?
        .add_rules(path_beneath_rules([temp], AccessFs::from_all(abi)))
        .map_err(to_io)?
        .add_rules(path_beneath_rules(["/dev/null"], AccessFs::from_all(abi)))
        .map_err(to_io)?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| io::Error::other("Landlock is not supported here"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carving_keeps_everything_but_the_excluded_branch() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for path in ["a/x", "a/cases/columns", "b"] {
            std::fs::create_dir_all(root.join(path)).unwrap();
        }
        std::fs::write(root.join("a/file.txt"), "x").unwrap();
        let kept = carve(std::slice::from_ref(&root), &root.join("a/cases"));
        assert_eq!(
            kept,
            vec![root.join("a/file.txt"), root.join("a/x"), root.join("b")]
        );
        assert_eq!(
            carve(&[root.join("b")], &root.join("a/cases")),
            vec![root.join("b")]
        );
        assert!(carve(&[root.join("a/cases/columns")], &root.join("a/cases")).is_empty());
    }
}
