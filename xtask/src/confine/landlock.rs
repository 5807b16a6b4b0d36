//! The Landlock layer: the target may read only the paths it is shown and write only in its
//! temporary folder; TCP is denied (Landlock ABI 4 and later), and so are signals and abstract
//! sockets beyond its own domain (ABI 6). Inside the namespaces it repeats what the mount view
//! already enforces; without them it is the file-system sandbox.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};

/// The newest Landlock ABI this code knows how to use.
const LANDLOCK_ABI: ABI = ABI::V6;

/// The Landlock ABI the kernel offers (0 where it has none).
pub fn version() -> i64 {
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

/// A ruleset that allows reading `readable` and everything in `writable`.
pub(crate) fn ruleset(readable: &[PathBuf], writable: &[PathBuf]) -> io::Result<OwnedFd> {
    let (readable, writable) = (open_all(readable)?, open_all(writable)?);
    ruleset_of(&borrowed(&readable), &borrowed(&writable))
}

/// `fds`, borrowed.
pub(crate) fn borrowed(fds: &[OwnedFd]) -> Vec<BorrowedFd<'_>> {
    fds.iter().map(AsFd::as_fd).collect()
}

/// Each of `paths`, opened as a place (`O_PATH`, closed on exec) for a rule to name.
pub(crate) fn open_all(paths: &[PathBuf]) -> io::Result<Vec<OwnedFd>> {
    paths
        .iter()
        .map(|path| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
                .open(path)
                .map(OwnedFd::from)
                .map_err(|err| io::Error::new(err.kind(), format!("`{}`: {err}", path.display())))
        })
        .collect()
}

/// A ruleset that allows reading beneath each of `readable` and everything beneath each of
/// `writable`, given as open folders and files: a helper opens a view's once and makes each
/// case's ruleset from them without looking a path up.
pub(crate) fn ruleset_of(readable: &[BorrowedFd], writable: &[BorrowedFd]) -> io::Result<OwnedFd> {
    let to_io = |err: landlock::RulesetError| io::Error::other(err.to_string());
    let abi = LANDLOCK_ABI;
    fn rules<'a>(
        fds: &[BorrowedFd<'a>],
        access: landlock::BitFlags<AccessFs>,
    ) -> Vec<Result<PathBeneath<BorrowedFd<'a>>, landlock::RulesetError>> {
        fds.iter()
            .map(|fd| Ok(PathBeneath::new(*fd, access)))
            .collect()
    }
    let created = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(to_io)?
        .handle_access(AccessNet::from_all(abi))
        .map_err(to_io)?
        .scope(Scope::from_all(abi))
        .map_err(to_io)?
        .create()
        .map_err(to_io)?
        .add_rules(rules(readable, AccessFs::from_read(abi)))
        .map_err(to_io)?
        .add_rules(rules(writable, AccessFs::from_all(abi)))
        .map_err(to_io)?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| io::Error::other("Landlock is not supported here"))
}

/// Restricts the calling thread with `ruleset` (after `no_new_privs`). Makes only system calls,
/// so it is safe between fork and exec.
pub(crate) fn restrict(ruleset: libc::c_int) -> io::Result<()> {
    // SAFETY: prctl and landlock_restrict_self take integers only.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
