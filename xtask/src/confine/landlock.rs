//! The Landlock layer: the target may read only the paths it is shown and write only in its
//! temporary folder; TCP is denied (Landlock ABI 4 and later), and so are signals and abstract
//! sockets beyond its own domain (ABI 6). Inside the namespaces it repeats what the mount view
//! already enforces; without them it is the file-system sandbox.

use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope, ABI,
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
pub fn ruleset(readable: &[PathBuf], writable: &[PathBuf]) -> io::Result<OwnedFd> {
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
        .add_rules(path_beneath_rules(readable, AccessFs::from_read(abi)))
        .map_err(to_io)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))
        .map_err(to_io)?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| io::Error::other("Landlock is not supported here"))
}

/// Restricts the calling thread with `ruleset` (after `no_new_privs`). Makes only system calls,
/// so it is safe between fork and exec.
pub fn restrict(ruleset: libc::c_int) -> io::Result<()> {
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
