//! Naming a submission by what it holds: every byte of every file streamed into one hash,
//! under one cap on bytes and files, so that no submission (a sparse 6 GiB header, a huge
//! archive) makes the harness read more than [`MAX_BYTES`] of it or hold more than a buffer.
//!
//! Every path that names student files by their content goes through here: the build key, the
//! folder an archive or a lone file is unpacked into, the copy a custom build runs in. A
//! submission over the cap is not read further; the caller tells the student why.

use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

/// The most bytes of one submission the harness reads (the cap an archive unpacks to, too).
pub(crate) const MAX_BYTES: u64 = 64 << 20;
/// The most files (and folders and links) of one submission the harness looks at.
pub(crate) const MAX_FILES: usize = 2000;

/// A hash being made of a submission, with what it has read so far.
pub(crate) struct Digest {
    hash: Sha256,
    bytes: u64,
    entries: usize,
}

impl Digest {
    /// A digest that starts with `salt` (what else names the result: a language row, a
    /// command line, a student).
    pub(crate) fn new(salt: &[u8]) -> Digest {
        let mut digest = Digest {
            hash: Sha256::new(),
            bytes: 0,
            entries: 0,
        };
        digest.part(salt);
        digest
    }

    /// Adds one part, its length first, so that no two lists of parts hash alike.
    pub(crate) fn part(&mut self, part: &[u8]) {
        self.hash.update((part.len() as u64).to_le_bytes());
        self.hash.update(part);
    }

    /// Adds the bytes of the file at `path`, read as a stream: an `Err` says why not, the cap
    /// among the reasons (checked on its size first, so that a sparse file is never read).
    pub(crate) fn file(&mut self, path: &Path) -> Result<(), String> {
        let shown = path.display();
        let size = std::fs::metadata(path)
            .map_err(|err| format!("cannot read `{shown}`: {err}"))?
            .len();
        self.count(size)?;
        let file =
            std::fs::File::open(path).map_err(|err| format!("cannot read `{shown}`: {err}"))?;
        self.hash.update(size.to_le_bytes());
        // One byte past its size tells a file that grows while it is read.
        let mut reader = file.take(size + 1);
        let mut buffer = [0u8; 64 << 10];
        let mut read = 0;
        loop {
            let n = reader
                .read(&mut buffer)
                .map_err(|err| format!("cannot read `{shown}`: {err}"))?;
            if n == 0 {
                break;
            }
            self.hash.update(&buffer[..n]);
            read += n as u64;
        }
        if read != size {
            return Err(format!("`{shown}` changed while it was read"));
        }
        Ok(())
    }

    /// Adds every entry under `folder` (names relative to it, sorted): each regular file's
    /// bytes, each link's target, each folder's name; the regular files' relative paths are
    /// returned. Devices and FIFOs are named but never opened.
    pub(crate) fn folder(&mut self, folder: &Path) -> Result<Vec<PathBuf>, String> {
        self.folder_but(folder, &[])
    }

    /// [`Digest::folder`], leaving out the entries at `hidden` (files no program may see, such
    /// as the reports the run writes: no build can depend on them).
    pub(crate) fn folder_but(
        &mut self,
        folder: &Path,
        hidden: &[PathBuf],
    ) -> Result<Vec<PathBuf>, String> {
        let mut files = Vec::new();
        let walk = walkdir::WalkDir::new(folder)
            .min_depth(1)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|entry| !hidden.iter().any(|path| path == entry.path()));
        for entry in walk {
            let entry =
                entry.map_err(|err| format!("cannot list `{}`: {err}", folder.display()))?;
            self.entries += 1;
            if self.entries > MAX_FILES {
                return Err(format!("the submission holds more than {MAX_FILES} files"));
            }
            let relative = entry.path().strip_prefix(folder).unwrap_or(entry.path());
            self.part(relative.as_os_str().as_bytes());
            let kind = entry.file_type();
            if kind.is_file() {
                self.part(b"file");
                self.file(entry.path())?;
                files.push(relative.to_path_buf());
            } else if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).unwrap_or_default();
                self.part(b"link");
                self.part(target.as_os_str().as_bytes());
            } else if kind.is_dir() {
                self.part(b"folder");
            } else {
                self.part(b"other");
            }
        }
        Ok(files)
    }

    /// The name: 24 hex digits of the hash.
    pub(crate) fn finish(self) -> String {
        let digest: [u8; 32] = self.hash.finalize().into();
        crate::files::to_hex(&digest[..12])
    }

    fn count(&mut self, bytes: u64) -> Result<(), String> {
        self.bytes = self.bytes.saturating_add(bytes);
        match self.bytes > MAX_BYTES {
            true => Err(format!(
                "the submission is larger than {} MiB",
                MAX_BYTES >> 20
            )),
            false => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(folder: &Path) -> String {
        let mut digest = Digest::new(b"salt");
        digest.folder(folder).unwrap();
        digest.finish()
    }

    #[test]
    fn the_name_follows_content_not_sizes_or_times() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ans.txt"), "AMY").unwrap();
        let before = name_of(dir.path());
        // Same size, same second: only the content differs.
        std::fs::write(dir.path().join("ans.txt"), "BOB").unwrap();
        assert_ne!(name_of(dir.path()), before);
        std::fs::write(dir.path().join("ans.txt"), "AMY").unwrap();
        assert_eq!(name_of(dir.path()), before);
        let mut other = Digest::new(b"another salt");
        other.folder(dir.path()).unwrap();
        assert_ne!(other.finish(), before);
    }

    #[test]
    fn a_sparse_file_past_the_cap_is_refused_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(dir.path().join("big.h")).unwrap();
        big.set_len(6 << 30).unwrap();
        let mut digest = Digest::new(b"");
        let why = digest.folder(dir.path()).unwrap_err();
        assert!(why.contains("larger than 64 MiB"), "{why}");
    }
}
