//! The memory cgroups the kernel still holds after they were removed: each stays until the
//! last page charged to it is freed, and slows every cgroup made and removed until then. The
//! benchmark warns when there are many (see `bench`).

use std::path::{Path, PathBuf};

/// How many memory cgroups the kernel still holds after they were removed (each stays until
/// the last page charged to it is freed): after a burst of runs, such as the test suite, a few
/// hundred, and every cgroup made until they go is slower to make and to remove. `None` where
/// it cannot be told (a cgroup v1 hierarchy seen from inside a container).
pub fn dying_memory_cgroups() -> Option<usize> {
    if let Ok(stat) = std::fs::read_to_string("/sys/fs/cgroup/cgroup.stat") {
        return stat
            .lines()
            .find_map(|line| line.strip_prefix("nr_dying_descendants "))
            .and_then(|n| n.trim().parse().ok());
    }
    let counts = std::fs::read_to_string("/proc/cgroups").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    dying_v1(&counts, &mounts, |mount| {
        walkdir::WalkDir::new(mount)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_dir())
            .count()
    })
}

/// cgroup v1: the kernel's count of memory cgroups (`/proc/cgroups`), less the folders of the
/// memory hierarchy (`folders` counts them under its mount point), where `mountinfo` shows
/// that hierarchy from its root (from inside a container, it shows a part of it).
fn dying_v1(counts: &str, mountinfo: &str, folders: impl Fn(&Path) -> usize) -> Option<usize> {
    let total: usize = counts.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        if fields.next() != Some("memory") {
            return None;
        }
        fields.nth(1)?.parse().ok()
    })?;
    let mount = mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let fields: Vec<&str> = before.split_whitespace().collect();
        let options = after.split_whitespace().nth(2)?;
        let memory = after.starts_with("cgroup ") && options.split(',').any(|o| o == "memory");
        let seen_whole = memory && fields.get(3) == Some(&"/");
        fields.get(4).filter(|_| seen_whole).map(PathBuf::from)
    })?;
    Some(total.saturating_sub(folders(&mount)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dying_memory_cgroups_are_the_kernels_count_less_the_hierarchys_folders() {
        let counts = "#subsys_name\thierarchy\tnum_cgroups\tenabled\n\
                      cpuset\t3\t1\t1\n\
                      memory\t4\t206\t1\n\
                      pids\t8\t5\t1\n";
        let whole = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n\
                     35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";
        let counted = |mount: &Path| {
            assert_eq!(mount, Path::new("/sys/fs/cgroup/memory"));
            3
        };
        assert_eq!(dying_v1(counts, whole, counted), Some(203));
        // Seen from inside a container, the hierarchy shows a part of what the kernel counts.
        let part = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
        assert_eq!(dying_v1(counts, part, |_| 3), None);
        // No memory controller mounted.
        let none = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n";
        assert_eq!(dying_v1(counts, none, |_| 3), None);
    }
}
