//! The mount layer: what a case sees of the file system, built in its own mount namespace.
//!
//! A fresh tmpfs becomes the root. The system folders (`/usr`, `/lib*`, `/bin`, `/sbin`,
//! `/etc` but what no package lists there) and the folders the case may read (its own folder,
//! the folders of the files on its command line, its interpreter's install prefix, in `/opt`
//! too) are bound into it read-only at their own paths, and nothing else: not the folders above
//! them, not the rest of `/opt`, `/srv` or `/home`, not the gridjudge checkout, not the corpus,
//! not another student. A folder that must not be seen but lies inside a bound one (the
//! checkout inside a student's home folder) is covered by an empty read-only tmpfs. `/dev` holds
//! only null, zero, random and urandom; `/proc` is the case's own; `/tmp` is a tmpfs capped in
//! bytes and inodes, the only writable place, its HOME and TMPDIR. The view is built once per
//! worker for the cases that share it ([`build`]); `/tmp` and `/proc` are each case's own
//! ([`enter_case`]), and die with it.
//!
//! Sources are captured with `open_tree` before anything is mounted over them, so a student's
//! folder under `/tmp` is no different from any other.

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The system folders every case sees, where they exist. `/opt` is not one: a runtime
/// installed there is shown by its own prefix (the interpreter's), and nothing else of it.
pub const SYSTEM: &[&str] = &[
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc",
];

/// The entries of `/etc` that the system makes (installers, `ldconfig`, the container runtime)
/// rather than a package lists: shown to every case with the packages' own.
const ETC_MADE: &[&str] = &[
    ".java",
    "ca-certificates.conf",
    "environment",
    "group",
    "host.conf",
    "hostname",
    "hosts",
    "inputrc",
    "ld.so.cache",
    "locale.conf",
    "locale.gen",
    "localtime",
    "machine-id",
    "mtab",
    "networks",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "profile",
    "python3",
    "resolv.conf",
    "shells",
    "timezone",
];

/// The entries of `/etc` no case is shown: those that no installed package lists and the
/// system does not make ([`ETC_MADE`]), such as a course folder an instructor keeps there.
/// Known from the package database (`/var/lib/dpkg/info/*.list`, on Debian and its kin);
/// where there is none, nothing (`/etc` is then shown whole). Worked out once per machine (and
/// again when the database or `/etc`'s entries change), kept in the harness's cache; looked up
/// once per process.
pub(crate) fn etc_unlisted() -> &'static [PathBuf] {
    static UNLISTED: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    UNLISTED.get_or_init(|| {
        let cache = crate::files::cache_root().join("etc-mask");
        remembered_etc_unlisted(Path::new("/etc"), Path::new("/var/lib/dpkg/info"), &cache)
    })
}

/// What the mask of `etc` depends on, as a key: the package database's modification time
/// (dpkg writes every list beside it and renames it into place, which changes the folder's
/// time), `etc`'s entries by name, and the entries the system makes. None without a database.
fn etc_mask_key(etc: &Path, database: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(database).ok()?;
    let mut names: Vec<Vec<u8>> = std::fs::read_dir(etc)
        .ok()?
        .flatten()
        .map(|entry| entry.file_name().as_bytes().to_vec())
        .collect();
    names.sort();
    // The system's own entries after a separator no name holds.
    names.push(b"/".to_vec());
    names.extend(ETC_MADE.iter().map(|made| made.as_bytes().to_vec()));
    let mut key = Sha256::new();
    for number in [
        meta.dev(),
        meta.ino(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
    ] {
        key.update(number.to_le_bytes());
    }
    for name in &names {
        key.update((name.len() as u64).to_le_bytes());
        key.update(name);
    }
    Some(crate::files::to_hex(&key.finalize()[..16]))
}

/// [`etc_unlisted_in`], kept in the folder `cache` under the key of what it depends on: read
/// back while that holds, worked out again (and the earlier one removed) when it does not. A
/// cache that cannot be read or written only costs the reading of the database.
fn remembered_etc_unlisted(etc: &Path, database: &Path, cache: &Path) -> Vec<PathBuf> {
    let Some(key) = etc_mask_key(etc, database) else {
        return etc_unlisted_in(etc, database);
    };
    let file = cache.join(&key);
    if let Ok(text) = std::fs::read_to_string(&file) {
        return text.lines().map(|name| etc.join(name)).collect();
    }
    let unlisted = etc_unlisted_in(etc, database);
    let names: Vec<String> = unlisted
        .iter()
        .filter_map(|path| Some(path.file_name()?.to_str()?.to_string()))
        .collect();
    // A name that is not UTF-8 (or holds a line end) is not kept: the mask is worked out anew.
    if names.len() == unlisted.len() && names.iter().all(|name| !name.contains('\n')) {
        if let Ok(entries) = std::fs::read_dir(cache) {
            for entry in entries.flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        let _ = std::fs::create_dir_all(cache);
        let mut text = names.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        let _ = crate::files::write_atomically(&file, text.as_bytes());
    }
    unlisted
}

fn etc_unlisted_in(etc: &Path, database: &Path) -> Vec<PathBuf> {
    let Ok(lists) = std::fs::read_dir(database) else {
        return Vec::new();
    };
    let mut listed = std::collections::BTreeSet::new();
    for list in lists.flatten() {
        let path = list.path();
        if path.extension().is_none_or(|ext| ext != "list") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("/etc/") {
                listed.insert(rest.split('/').next().unwrap_or(rest).to_string());
            }
        }
    }
    // A database that lists nothing under /etc is not one to judge by.
    if listed.is_empty() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(etc) else {
        return Vec::new();
    };
    let mut unlisted: Vec<PathBuf> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let made = ETC_MADE.contains(&name.as_str());
            (!made && !listed.contains(&name)).then(|| etc.join(&name))
        })
        .collect();
    unlisted.sort();
    unlisted
}

/// The device nodes every case gets.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"];

/// Where the case's writable tmpfs is, inside its view.
pub const TEMP: &str = "/tmp";

/// What one case sees.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Folders bound read-only at their own paths (besides [`SYSTEM`]).
    pub readable: Vec<PathBuf>,
    /// Paths inside `readable` covered by an empty read-only tmpfs.
    pub masked: Vec<PathBuf>,
    /// Folders bound writable at their own paths: a build's output folder, no case's.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Size of the writable tmpfs, in bytes.
    pub temp_bytes: u64,
    /// Files and folders the writable tmpfs may hold.
    pub temp_inodes: u64,
}

const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

fn check(result: libc::c_long) -> io::Result<libc::c_long> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

fn cstring(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)
}

fn with_context(err: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(err.kind(), format!("{what} `{}`: {err}", path.display()))
}

/// A detached copy of the mount tree at `path`, read-only unless `writable`.
fn capture(path: &Path, devices: bool, writable: bool) -> io::Result<OwnedFd> {
    let name = cstring(path)?;
    // SAFETY: open_tree reads the NUL-terminated path; a non-negative result is a new fd.
    let fd = check(unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            name.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | AT_RECURSIVE,
        )
    })
    .map_err(|err| with_context(err, "failed to capture", path))?;
    // SAFETY: the fd is new and owned here.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) };
    let mut attr = MountAttr {
        attr_set: if writable { 0 } else { MOUNT_ATTR_RDONLY }
            | MOUNT_ATTR_NOSUID
            | if devices { 0 } else { MOUNT_ATTR_NODEV },
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: the attribute struct lives for the call; the empty path names the fd itself.
    check(unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            std::os::fd::AsRawFd::as_raw_fd(&fd),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH as libc::c_uint | AT_RECURSIVE,
            &mut attr as *mut MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    })
    .map_err(|err| with_context(err, "failed to make read-only", path))?;
    Ok(fd)
}

/// Attaches a captured tree at `target`.
fn attach(tree: &OwnedFd, target: &Path) -> io::Result<()> {
    let name = cstring(target)?;
    // SAFETY: both paths are NUL-terminated; the fd is a detached mount.
    check(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            std::os::fd::AsRawFd::as_raw_fd(tree),
            c"".as_ptr(),
            libc::AT_FDCWD,
            name.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    })
    .map(|_| ())
    .map_err(|err| with_context(err, "failed to bind", target))
}

fn mount(
    source: &str,
    target: &Path,
    kind: &str,
    flags: libc::c_ulong,
    data: &str,
) -> io::Result<()> {
    let (source, kind, data) = (
        CString::new(source).map_err(io::Error::other)?,
        CString::new(kind).map_err(io::Error::other)?,
        CString::new(data).map_err(io::Error::other)?,
    );
    let target_c = cstring(target)?;
    // SAFETY: every string is NUL-terminated and lives for the call.
    let result = unsafe {
        libc::mount(
            source.as_ptr(),
            target_c.as_ptr(),
            kind.as_ptr(),
            flags,
            data.as_ptr().cast(),
        )
    };
    check(result as libc::c_long)
        .map(|_| ())
        .map_err(|err| with_context(err, "failed to mount", target))
}

/// `path` seen from inside `root`.
fn inside(root: &Path, path: &Path) -> PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

/// Builds the view in the calling process's fresh, private mount namespace and makes it the
/// root: the system folders and the view's own, `/dev`, and empty mount points for `/tmp` and
/// `/proc`, which each case fills with [`enter_case`]. The helper builds a view once and
/// starts every case that shares it from there.
pub(crate) fn build(view: &View) -> io::Result<()> {
    mount(
        "none",
        Path::new("/"),
        "",
        libc::MS_REC | libc::MS_PRIVATE,
        "",
    )?;
    // Capture every source first: the new root is mounted over /tmp, where a source may be.
    let sources = Sources::capture(view)?;
    let root = Path::new("/tmp");
    mount(
        "gridjudge",
        root,
        "tmpfs",
        libc::MS_NOSUID | libc::MS_NODEV,
        "size=1m,mode=0755",
    )?;
    for (path, target) in &sources.links {
        std::os::unix::fs::symlink(target, inside(root, path))?;
    }
    for point in [TEMP, "/proc"] {
        std::fs::create_dir_all(inside(root, Path::new(point)))?;
    }
    sources.attach(root)?;
    mask(root, &view.masked)?;
    pivot(root)?;
    // Nothing may be created at the root itself.
    mount(
        "none",
        Path::new("/"),
        "",
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
        "",
    )
}

/// Gives a case its own `/tmp` (a fresh tmpfs, capped in bytes and inodes) and `/proc` (its
/// PID namespace's), in its own copy of the view [`build`] made. Must run in the case's first
/// process, in fresh mount and PID namespaces. A folder of the view under `/tmp` (a student's
/// folder there) is carried into the new `/tmp`, with what covers parts of it.
pub(crate) fn enter_case(view: &View) -> io::Result<()> {
    let temp = Path::new(TEMP);
    let carried: Vec<(&PathBuf, OwnedFd, bool)> = view
        .readable
        .iter()
        .map(|path| (path, false))
        .chain(view.writable.iter().map(|path| (path, true)))
        .filter(|(path, _)| path.starts_with(temp) && path.as_path() != temp)
        .map(|(path, writable)| Ok((path, capture(path, false, writable)?, path.is_dir())))
        .collect::<io::Result<_>>()?;
    mount(
        "tmp",
        temp,
        "tmpfs",
        libc::MS_NOSUID | libc::MS_NODEV,
        &format!(
            "size={},nr_inodes={},mode=1777",
            view.temp_bytes.max(4096),
            view.temp_inodes.max(16)
        ),
    )?;
    for (path, tree, is_dir) in &carried {
        make_point(path, *is_dir, temp)?;
        attach(tree, path)?;
    }
    // The case's processes see only their own uid's: not its first process, which runs as
    // the helper.
    mount(
        "proc",
        Path::new("/proc"),
        "proc",
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        "hidepid=2",
    )
}

/// Makes a folder, or an empty file, at `target` for a tree to be attached on.
fn make_point(target: &Path, is_dir: bool, root: &Path) -> io::Result<()> {
    if is_dir {
        std::fs::create_dir_all(target)
    } else {
        std::fs::create_dir_all(target.parent().unwrap_or(root))?;
        std::fs::write(target, b"")
    }
}

/// What a view binds, captured before anything is mounted over it.
struct Sources {
    /// (path, tree, whether it is a folder): the system folders and the readable ones.
    trees: Vec<(PathBuf, OwnedFd, bool)>,
    /// System paths that are symbolic links (`/bin -> usr/bin`), re-made as links.
    links: Vec<(PathBuf, PathBuf)>,
    devices: Vec<(PathBuf, OwnedFd)>,
    /// The helper's own `/proc`, read-only, under each case's: a user namespace may mount a
    /// `proc` only where one is already fully visible. No case ever sees it.
    proc: OwnedFd,
}

impl Sources {
    fn capture(view: &View) -> io::Result<Sources> {
        let mut trees: Vec<(PathBuf, OwnedFd, bool)> = Vec::new();
        let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
        for system in SYSTEM {
            let path = Path::new(system);
            match std::fs::read_link(path) {
                Ok(target) => links.push((path.to_path_buf(), target)),
                Err(_) if path.is_dir() => {
                    trees.push((path.to_path_buf(), capture(path, false, false)?, true))
                }
                Err(_) => {}
            }
        }
        for path in &view.readable {
            let covered = trees.iter().any(|(bound, _, _)| path.starts_with(bound));
            if !covered {
                trees.push((path.clone(), capture(path, false, false)?, path.is_dir()));
            }
        }
        for path in &view.writable {
            trees.push((path.clone(), capture(path, false, true)?, true));
        }
        let devices: Vec<(PathBuf, OwnedFd)> = DEVICES
            .iter()
            .map(|device| {
                let tree = capture(Path::new(device), true, false)?;
                Ok((PathBuf::from(device), tree))
            })
            .collect::<io::Result<_>>()?;
        Ok(Sources {
            trees,
            links,
            devices,
            proc: capture(Path::new("/proc"), false, false)?,
        })
    }

    /// Attaches every tree and device at its own path under `root`, and `/dev`'s links.
    fn attach(&self, root: &Path) -> io::Result<()> {
        for (path, tree, is_dir) in &self.trees {
            let target = inside(root, path);
            make_point(&target, *is_dir, root)?;
            attach(tree, &target)?;
        }
        std::fs::create_dir_all(inside(root, Path::new("/dev")))?;
        attach(&self.proc, &inside(root, Path::new("/proc")))?;
        for (path, tree) in &self.devices {
            let target = inside(root, path);
            std::fs::write(&target, b"")?;
            attach(tree, &target)?;
        }
        for (name, target) in [
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ] {
            std::os::unix::fs::symlink(target, root.join("dev").join(name))?;
        }
        Ok(())
    }
}

/// Covers each of `masked` under `root`: a folder with an empty read-only tmpfs, a file with
/// `/dev/null`.
fn mask(root: &Path, masked: &[PathBuf]) -> io::Result<()> {
    for path in masked {
        let target = inside(root, path);
        if target.is_dir() {
            mount(
                "masked",
                &target,
                "tmpfs",
                libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                "size=4k,mode=0755",
            )?;
        } else if target.exists() {
            let null = inside(root, Path::new("/dev/null"));
            mount(
                &null.to_string_lossy(),
                &target,
                "",
                libc::MS_BIND | libc::MS_RDONLY,
                "",
            )?;
        }
    }
    Ok(())
}

/// Makes `root` the root and detaches the old one.
fn pivot(root: &Path) -> io::Result<()> {
    std::env::set_current_dir(root)?;
    // SAFETY: "." names the new root twice: the old root is stacked under it, then detached.
    unsafe {
        check(libc::syscall(
            libc::SYS_pivot_root,
            c".".as_ptr(),
            c".".as_ptr(),
        ))
        .map_err(|err| with_context(err, "failed to pivot into", root))?;
        check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH) as libc::c_long)?;
    }
    std::env::set_current_dir("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etc_hides_what_no_package_lists_and_the_system_does_not_make() {
        let dir = tempfile::tempdir().unwrap();
        let (etc, database) = (dir.path().join("etc"), dir.path().join("info"));
        for folder in ["ssl/certs", "course/hidden", "java-17-openjdk"] {
            std::fs::create_dir_all(etc.join(folder)).unwrap();
        }
        for file in ["ld.so.cache", "passwd", "answers.txt", "bash.bashrc"] {
            std::fs::write(etc.join(file), "").unwrap();
        }
        std::fs::create_dir(&database).unwrap();
        std::fs::write(
            database.join("openssl.list"),
            "/.\n/etc\n/etc/ssl\n/etc/ssl/certs\n/usr/bin/openssl\n",
        )
        .unwrap();
        std::fs::write(
            database.join("openjdk.list"),
            "/etc/java-17-openjdk/jvm.cfg\n/etc/bash.bashrc\n",
        )
        .unwrap();
        // Not a package's list: ignored.
        std::fs::write(database.join("openjdk.md5sums"), "/etc/answers.txt\n").unwrap();
        let unlisted = etc_unlisted_in(&etc, &database);
        assert_eq!(unlisted, vec![etc.join("answers.txt"), etc.join("course")]);
        // No package database: nothing is judged, /etc is shown whole.
        assert!(etc_unlisted_in(&etc, &dir.path().join("none")).is_empty());
    }

    #[test]
    fn the_etc_mask_is_kept_until_the_database_or_etc_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (etc, database, cache) = (
            dir.path().join("etc"),
            dir.path().join("info"),
            dir.path().join("cache"),
        );
        std::fs::create_dir_all(etc.join("course")).unwrap();
        std::fs::write(etc.join("bash.bashrc"), "").unwrap();
        std::fs::create_dir(&database).unwrap();
        std::fs::write(database.join("bash.list"), "/etc/bash.bashrc\n").unwrap();
        let first = remembered_etc_unlisted(&etc, &database, &cache);
        assert_eq!(first, vec![etc.join("course")]);
        // Kept: the next look-up reads the cache, not the database.
        let kept: Vec<_> = std::fs::read_dir(&cache).unwrap().flatten().collect();
        assert_eq!(kept.len(), 1);
        std::fs::write(kept[0].path(), "course\nplanted\n").unwrap();
        assert_eq!(
            remembered_etc_unlisted(&etc, &database, &cache),
            vec![etc.join("course"), etc.join("planted")]
        );
        // A new entry of /etc: worked out again, the earlier one removed.
        std::fs::write(etc.join("answers.txt"), "").unwrap();
        let again = remembered_etc_unlisted(&etc, &database, &cache);
        assert_eq!(again, vec![etc.join("answers.txt"), etc.join("course")]);
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
        // A package installed (its list renamed into the database): worked out again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.path().join("new.list"), "/etc/answers.txt\n").unwrap();
        std::fs::rename(dir.path().join("new.list"), database.join("answers.list")).unwrap();
        let installed = remembered_etc_unlisted(&etc, &database, &cache);
        assert_eq!(installed, vec![etc.join("course")]);
    }
}
