//! The cgroup layer: one cgroup per worker, made once, that holds the worker's sandbox helper
//! and so every case it starts. It limits the memory and the number of processes of the case
//! running in it, tells the harness when a case ran into either, and gives its peak memory and
//! the CPU time all its processes used (`cpuacct` on v1, `cpu.stat` on v2): what a time limit
//! is judged by, whatever else the machine is doing.
//!
//! A cgroup per worker rather than per case: a memory cgroup made and removed costs a run time
//! and leaves the kernel one more to free, and moving a process into a cgroup by pid costs 5 to
//! 17 ms after a quiet spell (an RCU grace period), more than many cases take to run; on v1 the
//! helper moves itself instead, which skips that wait ([`WorkerCgroup::adopt`]). Cases of one
//! worker run one after the other, so the harness resets the peak and reads the counters
//! around each case. Cgroups left behind by
//! a harness that was killed (`gridjudge-PID-*` whose PID is gone) are removed at the next start.
//! Whether the harness can make cgroups at all is learnt by making the first worker's, which
//! that worker then takes: each memory cgroup made and removed costs a run time, and leaves the
//! kernel one more to free.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Which cgroup version is usable, and where the harness makes its cgroups.
#[derive(Debug, Clone)]
pub enum Hierarchy {
    /// cgroup v2: one folder holds memory and pids.
    V2 { parent: PathBuf },
    /// cgroup v1: one folder per controller (`cpuacct` where it is mounted and usable).
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpuacct: Option<PathBuf>,
    },
}

impl Hierarchy {
    /// The folders the harness makes its cgroups in: v2's one, or v1's memory, pids and (where
    /// usable) cpuacct, in that order.
    fn parents(&self) -> Vec<&PathBuf> {
        match self {
            Hierarchy::V2 { parent } => vec![parent],
            Hierarchy::V1 {
                memory,
                pids,
                cpuacct,
            } => [Some(memory), Some(pids), cpuacct.as_ref()]
                .into_iter()
                .flatten()
                .collect(),
        }
    }
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

/// The folders of the first worker's cgroup, made by [`probe`] to find out whether the
/// harness can make cgroups, and kept for that worker: making a memory cgroup and removing it
/// again cost every run a few tenths of a millisecond, and left the kernel one more removed
/// cgroup to free. Removed by [`discard_spare`] when no worker took them.
static SPARE: std::sync::Mutex<Option<Vec<PathBuf>>> = std::sync::Mutex::new(None);

/// A fresh name for a worker's cgroup: `gridjudge-PID-N`.
fn worker_name() -> String {
    format!(
        "gridjudge-{}-{}",
        std::process::id(),
        WORKER_COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Makes `name` in each parent of `wanted` and checks that it has the files the parent's
/// controllers give it: the folders made, or why not (and none of them left).
fn make_all(name: &str, wanted: &[(&Path, &[&str])]) -> io::Result<Vec<PathBuf>> {
    let mut made: Vec<PathBuf> = Vec::new();
    for (parent, files) in wanted {
        let dir = parent.join(name);
        let created = std::fs::create_dir(&dir);
        if created.is_ok() {
            made.push(dir.clone());
        }
        let missing = files.iter().find(|file| !dir.join(file).exists());
        let checked = created.and_then(|()| match missing {
            Some(file) => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("`{}` has no `{file}`", dir.display()),
            )),
            None => Ok(()),
        });
        if let Err(err) = checked {
            for dir in made {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(err);
        }
    }
    Ok(made)
}

/// Removes the first worker's cgroup [`probe`] made, if no worker took it. Every command line
/// does this at its end (through the sandbox's `release`).
pub(crate) fn discard_spare() {
    for dir in take_spare().into_iter().flatten() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// The usable hierarchy, found once per process (concurrent probes would disturb each other);
/// stale cgroups of killed harnesses are removed on the way.
pub(crate) fn hierarchy() -> Option<Hierarchy> {
    static FOUND: std::sync::OnceLock<Option<Hierarchy>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let found = probe();
            if let Some(found) = &found {
                remove_stale(found);
            }
            found
        })
        .clone()
}

/// Starts, on a thread of its own, the wait the kernel makes the first move of a process into
/// a cgroup v2 after a quiet spell do (it takes the cgroup migration lock in its slow mode: an
/// RCU grace period, about 10 ms), so that the workers' helpers, moved by pid a few
/// milliseconds later, find that wait over or under way instead of idling through all of it.
/// The wait is started by writing the harness into the cgroup it is already in, which moves
/// nothing; where that is not allowed, nothing is lost. On v1, where helpers move themselves
/// without that lock, nothing is primed: the kernel holds its cgroup lock through the wait,
/// and their moves would wait behind it.
pub fn prime_migrations() {
    std::thread::spawn(|| {
        // After `hierarchy`'s probe, which makes and removes a cgroup, for the same reason.
        if let Some(Hierarchy::V2 { parent }) = hierarchy() {
            let _ = std::fs::write(parent.join("cgroup.procs"), std::process::id().to_string());
        }
    });
}

/// Finds the usable hierarchy by making the first worker's cgroup in it (kept in [`SPARE`]).
fn probe() -> Option<Hierarchy> {
    let name = worker_name();
    if let (Some(memory), Some(pids)) = (own_cgroup("memory"), own_cgroup("pids")) {
        let required: [(&Path, &[&str]); 2] = [
            (&memory, &["memory.limit_in_bytes"]),
            (&pids, &["pids.max"]),
        ];
        if let Ok(mut dirs) = make_all(&name, &required) {
            let cpuacct = own_cgroup("cpuacct").and_then(|dir| {
                dirs.extend(make_all(&name, &[(&dir, &["cpuacct.usage"])]).ok()?);
                Some(dir)
            });
            keep_spare(dirs);
            return Some(Hierarchy::V1 {
                memory,
                pids,
                cpuacct,
            });
        }
    }
    let parent = own_cgroup("")?;
    if parent.join("cgroup.controllers").exists() {
        // Delegate memory and pids to the workers' cgroups where the parent allows it.
        let _ = std::fs::write(parent.join("cgroup.subtree_control"), "+memory +pids");
        if let Ok(dirs) = make_all(&name, &[(&parent, &["memory.max", "pids.max"])]) {
            keep_spare(dirs);
            return Some(Hierarchy::V2 { parent });
        }
    }
    None
}

/// Keeps the first worker's folders, which [`probe`] made, for [`WorkerCgroup::new`].
fn keep_spare(dirs: Vec<PathBuf>) {
    *SPARE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(dirs);
}

/// The first worker's folders, if no worker took them yet; none are spare after.
fn take_spare() -> Option<Vec<PathBuf>> {
    SPARE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

/// Removes the cgroups harnesses that no longer run left, without making one to find out
/// whether this one could (a run that confines nothing, `--no-sandbox`): in each hierarchy
/// this process is in. Once per process.
pub(crate) fn sweep_stale() {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| {
        let parents: Vec<PathBuf> = ["memory", "pids", "cpuacct", ""]
            .into_iter()
            .filter_map(own_cgroup)
            .collect();
        remove_stale_in(parents.iter().map(PathBuf::as_path));
    });
}

/// Removes the empty cgroups `gridjudge-PID-*` of harnesses that no longer run.
fn remove_stale(hierarchy: &Hierarchy) {
    remove_stale_in(hierarchy.parents().into_iter().map(PathBuf::as_path));
}

/// [`remove_stale`] in the folders `parents`.
fn remove_stale_in<'a>(parents: impl Iterator<Item = &'a Path>) {
    for parent in parents {
        let Ok(entries) = std::fs::read_dir(parent) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let owner = name
                .strip_prefix("gridjudge-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok());
            if owner.is_some_and(|pid| !alive(pid)) {
                kill_members(&entry.path());
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }
}

/// Whether process `pid` runs (a zombie, dead but not reaped, does not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(") ")?.1.chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

/// SIGKILLs every process listed in a cgroup folder.
fn kill_members(dir: &Path) {
    let members = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    for pid in members.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
        crate::sys::kill(pid, libc::SIGKILL);
    }
}

static WORKER_COUNTER: AtomicU64 = AtomicU64::new(0);

/// What a worker's cgroup saw during one case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Observed {
    /// Peak memory during the case, in bytes.
    pub peak_memory: Option<u64>,
    pub memory_limit_hit: bool,
    pub process_limit_hit: bool,
    /// CPU time of every process of the case, where the cgroup accounts it.
    pub cpu: Option<std::time::Duration>,
}

/// The counters of a worker's cgroup before a case.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mark {
    oom_kills: u64,
    pids_max: u64,
    /// CPU time of the cgroup so far, where it is accounted.
    cpu: Option<std::time::Duration>,
}

impl Mark {
    /// The CPU time used between `earlier` and this mark, where it is accounted.
    fn cpu_since(&self, earlier: &Mark) -> Option<std::time::Duration> {
        Some(self.cpu?.saturating_sub(earlier.cpu?))
    }
}

/// One worker's cgroup (a folder per controller on v1).
pub struct WorkerCgroup {
    hierarchy: Hierarchy,
    dirs: Vec<PathBuf>,
    /// The peak memory file, kept open (v2's memory.peak, v1's memory.max_usage_in_bytes): a
    /// write resets the peak (on v2, the one seen through this descriptor).
    peak: Option<File>,
    /// The files read for every case, kept open and read again from the start: a path
    /// lookup in the cgroup file system each time cost more than the reading.
    kept: std::cell::RefCell<Vec<(PathBuf, File)>>,
    /// The limits written last: a case with the same ones writes nothing.
    limits: Option<(Option<u64>, Option<u64>)>,
}

impl WorkerCgroup {
    /// Makes a fresh cgroup for a worker (or takes the one [`probe`] made); none of its
    /// folders is left when one cannot be made.
    pub fn new(hierarchy: &Hierarchy) -> io::Result<WorkerCgroup> {
        let dirs = match take_spare() {
            Some(dirs) => dirs,
            None => {
                let parents: Vec<(&Path, &[&str])> = hierarchy
                    .parents()
                    .into_iter()
                    .map(|parent| (parent.as_path(), &[][..]))
                    .collect();
                make_all(&worker_name(), &parents)?
            }
        };
        let mut cgroup = WorkerCgroup {
            hierarchy: hierarchy.clone(),
            dirs,
            peak: None,
            kept: std::cell::RefCell::new(Vec::new()),
            limits: None,
        };
        let peak = match hierarchy {
            Hierarchy::V2 { .. } => {
                let _ = std::fs::write(cgroup.dirs[0].join("memory.swap.max"), "0");
                "memory.peak"
            }
            Hierarchy::V1 { .. } => "memory.max_usage_in_bytes",
        };
        cgroup.peak = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(cgroup.dirs[0].join(peak))
            .ok();
        Ok(cgroup)
    }

    fn memory_dir(&self) -> &Path {
        &self.dirs[0]
    }

    fn pids_dir(&self) -> &Path {
        let at = match self.hierarchy {
            Hierarchy::V2 { .. } => 0,
            Hierarchy::V1 { .. } => 1,
        };
        self.dirs.get(at).map_or(Path::new("/"), PathBuf::as_path)
    }

    /// The CPU time every process of the cgroup has used so far; `None` where it is not
    /// accounted.
    fn cpu(&self) -> Option<std::time::Duration> {
        match &self.hierarchy {
            Hierarchy::V2 { .. } => {
                let stat = self.read(&self.dirs[0], "cpu.stat");
                let micros = stat.lines().find_map(|l| l.strip_prefix("usage_usec "))?;
                Some(std::time::Duration::from_micros(
                    micros.trim().parse().ok()?,
                ))
            }
            Hierarchy::V1 { cpuacct: None, .. } => None,
            Hierarchy::V1 { .. } => {
                let nanos = self.read(self.dirs.get(2)?, "cpuacct.usage");
                Some(std::time::Duration::from_nanos(nanos.trim().parse().ok()?))
            }
        }
    }

    /// The processes in the cgroup now (the helper and the running case's).
    pub fn members(&self) -> Vec<libc::pid_t> {
        read(self.pids_dir(), "cgroup.procs")
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    /// The CPU time the running case has used since `mark`, where it is accounted.
    pub fn cpu_since(&self, mark: &Mark) -> Option<std::time::Duration> {
        Some(self.cpu()?.saturating_sub(mark.cpu?))
    }

    /// Moves the worker's helper, `pid`, into the cgroup, or opens what it moves itself with.
    ///
    /// On v1 the helper moves itself: it writes `0` into each returned `tasks` file, which
    /// moves the thread writing (the helper has one). A move by pid takes the kernel's
    /// process-wide cgroup migration lock, whose slow mode waits for an RCU grace period: 5 to
    /// 17 ms here for a move after a quiet spell, more than a one-case check takes. The
    /// calling thread moving itself through `tasks` is the one move that skips that lock. On
    /// v2 there is no such file for a process: the harness moves it by pid, and nothing is
    /// returned.
    pub fn adopt(&self, pid: u32) -> io::Result<Vec<File>> {
        match self.hierarchy {
            Hierarchy::V1 { .. } => self
                .dirs
                .iter()
                .map(|dir| {
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(dir.join("tasks"))
                })
                .collect(),
            Hierarchy::V2 { .. } => {
                for dir in &self.dirs {
                    std::fs::write(dir.join("cgroup.procs"), pid.to_string())?;
                }
                Ok(Vec::new())
            }
        }
    }

    /// Sets the limits for the next case, resets its peak, and returns the counters to compare
    /// with after it.
    pub fn prepare(&mut self, memory: Option<u64>, processes: Option<u64>) -> io::Result<Mark> {
        if let Some(peak) = &self.peak {
            use std::os::unix::fs::FileExt;
            let reset: &[u8] = match self.hierarchy {
                Hierarchy::V2 { .. } => b"reset",
                Hierarchy::V1 { .. } => b"0",
            };
            let _ = peak.write_at(reset, 0);
        }
        if self.limits != Some((memory, processes)) {
            self.set_limits(memory, processes)?;
            self.limits = Some((memory, processes));
        }
        Ok(self.mark())
    }

    /// Writes the memory and process limits.
    fn set_limits(&mut self, memory: Option<u64>, processes: Option<u64>) -> io::Result<()> {
        let (memory_file, pids_file) = match self.hierarchy {
            Hierarchy::V2 { .. } => ("memory.max", "pids.max"),
            Hierarchy::V1 { .. } => ("memory.limit_in_bytes", "pids.max"),
        };
        let max = |value: Option<u64>| value.map_or_else(|| "max".to_string(), |v| v.to_string());
        if let Hierarchy::V1 { .. } = self.hierarchy {
            // -1 is v1's "no limit"; memsw (memory + swap) where the kernel accounts swap.
            // The kernel keeps memsw at or above the memory limit, refusing (EINVAL) a write
            // that would break it: when raising, memsw must go first; when lowering, second.
            // Writing it before and after does both (one of the two is refused).
            let memory = memory.map_or_else(|| "-1".to_string(), |m| m.to_string());
            let memsw = self.memory_dir().join("memory.memsw.limit_in_bytes");
            let _ = std::fs::write(&memsw, &memory);
            std::fs::write(self.memory_dir().join(memory_file), &memory)?;
            let _ = std::fs::write(&memsw, &memory);
        } else {
            std::fs::write(self.memory_dir().join(memory_file), max(memory))?;
        }
        std::fs::write(self.pids_dir().join(pids_file), max(processes))
    }

    /// The text of `file` in `dir` now, through a descriptor kept open; empty if unreadable.
    fn read(&self, dir: &Path, file: &str) -> String {
        let path = dir.join(file);
        let mut kept = self.kept.borrow_mut();
        let at = match kept.iter().position(|(p, _)| *p == path) {
            Some(at) => at,
            None => match File::open(&path) {
                Ok(opened) => {
                    kept.push((path, opened));
                    kept.len() - 1
                }
                Err(_) => return String::new(),
            },
        };
        read_at_start(&kept[at].1)
    }

    fn mark(&self) -> Mark {
        let memory_events = match self.hierarchy {
            Hierarchy::V2 { .. } => self.read(self.memory_dir(), "memory.events"),
            Hierarchy::V1 { .. } => self.read(self.memory_dir(), "memory.oom_control"),
        };
        Mark {
            oom_kills: event_count(&memory_events, "oom_kill "),
            pids_max: self.pids_max_events(),
            cpu: self.cpu(),
        }
    }

    fn pids_max_events(&self) -> u64 {
        event_count(&self.read(self.pids_dir(), "pids.events"), "max ")
    }

    /// Whether the running case has tried to exceed its process limit since `mark`.
    pub fn process_limit_hit(&self, mark: &Mark) -> bool {
        self.pids_max_events() > mark.pids_max
    }

    /// What the cgroup saw since `mark`.
    pub fn observed(&mut self, mark: &Mark) -> Observed {
        let now = self.mark();
        let peak = match &self.peak {
            Some(file) => read_at_start(file),
            None => String::new(),
        };
        Observed {
            peak_memory: peak.trim().parse().ok(),
            memory_limit_hit: now.oom_kills > mark.oom_kills,
            process_limit_hit: now.pids_max > mark.pids_max,
            cpu: now.cpu_since(mark),
        }
    }
}

impl Drop for WorkerCgroup {
    fn drop(&mut self) {
        for dir in &self.dirs {
            for _ in 0..100 {
                kill_members(dir);
                if std::fs::remove_dir(dir).is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// The whole text of an open cgroup file, read from its start; empty if unreadable.
fn read_at_start(file: &File) -> String {
    use std::os::unix::fs::FileExt;
    let mut bytes = Vec::with_capacity(512);
    let mut chunk = [0u8; 512];
    loop {
        match file.read_at(&mut chunk, bytes.len() as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_counts_are_read_by_key() {
        let text = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(event_count(text, "oom_kill "), 3);
        assert_eq!(event_count("max 0\n", "max "), 0);
        assert_eq!(event_count("", "max "), 0);
    }
}
