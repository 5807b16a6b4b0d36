//! The helper's view: built once for the cases that share it (every case of one submission, on
//! one worker), kept while requests ask for it, and left for a new one when they change.
//!
//! The helper keeps a descriptor of its home namespace: as root, the one it started in (the
//! host's); in a user namespace, a private copy of it, made first (going back to the host's
//! namespace needs root's rights there). A view is built in a fresh copy of home, made
//! private before anything is mounted in it, and becomes the helper's root;
//! each case is then cloned from there into its own copy of the view, which needs only its own
//! `/tmp` and `/proc` ([`mounts::enter_case`]). Going home drops the view: its namespace dies
//! with its last process.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

use crate::confine::{landlock, mounts, View};
use crate::sys::check;

/// Home, and the view the helper is in (none: home).
pub(super) struct Views {
    home: OwnedFd,
    current: Option<(View, Sight)>,
}

/// A view's places for Landlock, opened once in it: each case's ruleset is made from them
/// (and its own `/tmp` and `/proc`) without looking a path up.
pub(super) struct Sight {
    pub readable: Vec<OwnedFd>,
    pub writable: Vec<OwnedFd>,
}

impl Sight {
    /// Opens, in the current view, what a case of `view` may read and write besides its `/tmp`
    /// and `/proc`: the system folders, the view's own, `/dev` (read) and `/dev/null`.
    pub(super) fn open(view: &View) -> io::Result<Sight> {
        let mut readable: Vec<PathBuf> = mounts::SYSTEM
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect();
        readable.extend(view.readable.iter().cloned());
        readable.push("/dev".into());
        let mut writable = vec![PathBuf::from("/dev/null")];
        writable.extend(view.writable.iter().cloned());
        Ok(Sight {
            readable: landlock::open_all(&readable)?,
            writable: landlock::open_all(&writable)?,
        })
    }
}

impl Views {
    /// The calling (single-threaded) helper's home: as root, the namespace it is in; else a
    /// private mount namespace of its own, which it moves into. Root mounts nothing at home,
    /// and copying the host's namespace cost a helper about a tenth of a millisecond to make
    /// and again to tear down (a one-case check 0.10 to 0.26 ms quicker without, three runs
    /// of 101 alternating).
    pub(super) fn new() -> io::Result<Views> {
        if crate::sys::effective_uid() == 0 {
            let home = std::fs::File::open("/proc/self/ns/mnt")?.into();
            return Ok(Views {
                home,
                current: None,
            });
        }
        // SAFETY: unshare and mount take flags and NUL-terminated strings.
        unsafe {
            check(libc::unshare(libc::CLONE_NEWNS))?;
            check(libc::mount(
                c"none".as_ptr(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
        }
        let home = std::fs::File::open("/proc/self/ns/mnt")?.into();
        Ok(Views {
            home,
            current: None,
        })
    }

    /// Puts the helper in `view` (`None`: home), building it unless it is the current one.
    pub(super) fn enter(&mut self, view: Option<&View>) -> io::Result<()> {
        if self.current.as_ref().map(|(current, _)| current) == view {
            return Ok(());
        }
        if self.current.is_some() {
            self.go_home()?;
        }
        let Some(view) = view else { return Ok(()) };
        // SAFETY: unshare takes flags only.
        let built = check(unsafe { libc::unshare(libc::CLONE_NEWNS) })
            .and_then(|_| mounts::build(view))
            .and_then(|()| Sight::open(view));
        match built {
            Ok(sight) => {
                self.current = Some((view.clone(), sight));
                Ok(())
            }
            Err(err) => {
                self.go_home()?;
                Err(err)
            }
        }
    }

    /// The current view's places for Landlock; `None` at home.
    pub(super) fn sight(&self) -> Option<&Sight> {
        self.current.as_ref().map(|(_, sight)| sight)
    }

    /// Back home, from a view or from a view half built.
    fn go_home(&mut self) -> io::Result<()> {
        self.current = None;
        // SAFETY: setns takes a namespace descriptor owned here and a flag.
        check(unsafe { libc::setns(self.home.as_raw_fd(), libc::CLONE_NEWNS) }).map(drop)
    }
}
