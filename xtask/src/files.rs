//! Writing files so that nothing is lost: a file holds its old contents or its new ones, never
//! a part, whatever interrupts the write. Reading a file somebody else made (a package, a
//! validator's feedback) as a stranger's: [`read_untrusted`].

use std::path::{Path, PathBuf};

use crate::error::Error;

/// The first `most` bytes of `path`, read as a file somebody else controls: never through a
/// link (`O_NOFOLLOW`), never blocking on a FIFO (`O_NONBLOCK`), and only from a regular file
/// (a device, a FIFO, a folder is an error that says so); at most `most` bytes, however large
/// the file.
pub fn read_untrusted(path: &Path, most: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|err| match err.raw_os_error() {
            Some(libc::ELOOP) => std::io::Error::other("a link, not a file of its own"),
            _ => err,
        })?;
    if !file.metadata()?.file_type().is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(most).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// `path` holds either its old contents or the new ones, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    // A temporary file is private; the file it replaces keeps its mode, a new one gets 0644.
    let mode = std::fs::metadata(path)
        .map(|meta| std::os::unix::fs::PermissionsExt::mode(&meta.permissions()))
        .unwrap_or(0o644);
    write_atomically_with_mode(path, bytes, mode)
}

/// [`write_atomically`], the file getting `mode` before it appears (an executable is never
/// seen without its `x` bits).
pub fn write_atomically_with_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), Error> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|err| Error::io(path, err))?;
    file.write_all(bytes).map_err(|err| Error::io(path, err))?;
    let permissions = std::os::unix::fs::PermissionsExt::from_mode(mode);
    file.as_file()
        .set_permissions(permissions)
        .map_err(|err| Error::io(path, err))?;
    file.persist(path)
        .map_err(|err| Error::io(path, err.error))?;
    Ok(())
}

/// [`write_atomically`] for a file written piece by piece: `write` fills the temporary file
/// (buffered), which then replaces `path`.
pub fn write_atomically_streamed(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    use std::io::Write;
    let mode = std::fs::metadata(path)
        .map(|meta| std::os::unix::fs::PermissionsExt::mode(&meta.permissions()))
        .unwrap_or(0o644);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file = tempfile::NamedTempFile::new_in(dir).map_err(|err| Error::io(path, err))?;
    let mut buffered = std::io::BufWriter::new(file);
    write(&mut buffered).map_err(|err| Error::io(path, err))?;
    buffered.flush().map_err(|err| Error::io(path, err))?;
    let file = buffered
        .into_inner()
        .map_err(|err| Error::io(path, err.into_error()))?;
    file.as_file()
        .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))
        .map_err(|err| Error::io(path, err))?;
    file.persist(path)
        .map_err(|err| Error::io(path, err.error))?;
    Ok(())
}

/// `path` made absolute with its links followed, where it may not exist yet: its nearest
/// existing folder, canonical, and the rest as given (`path` itself if that cannot be told).
pub fn canonical_even_if_absent(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(found) = existing.canonicalize() {
            return rest.iter().rev().fold(found, |path, part| path.join(part));
        }
        let Some(name) = existing.file_name() else {
            return path.to_path_buf();
        };
        rest.push(name.to_os_string());
        existing = match existing.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
    }
}

/// The folder the harness keeps builds and unpacked submissions in: `$GRIDJUDGE_CACHE`, else
/// the user's cache folder.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("GRIDJUDGE_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")));
    match cache {
        Some(cache) => cache.join("gridjudge"),
        // SAFETY: getuid has no preconditions.
        None => std::env::temp_dir().join(format!("gridjudge-{}", unsafe { libc::getuid() })),
    }
}

/// The lowercase hex digits of `bytes`: how digests are written (cache folders' names, a hidden
/// case's hashes, the kit's corpus id).
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of hex text, or `None` if it is not hex (an odd length included).
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A validator's feedback file, read by the harness: a link (to a secret, to /dev/zero) or
    /// a FIFO gives nothing and never blocks; a large file gives its first bytes only.
    #[test]
    fn an_untrusted_file_is_read_only_when_it_is_a_regular_file_of_its_own_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "root's own\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let said = read_untrusted(&link, 100).unwrap_err().to_string();
        assert!(said.contains("a link"), "{said}");
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(read_untrusted(&zero, 100).is_err());
        assert!(read_untrusted(Path::new("/dev/zero"), 100).is_err());
        let fifo = dir.path().join("fifo");
        let path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
        let said = read_untrusted(&fifo, 100).unwrap_err().to_string();
        assert!(said.contains("not a regular file"), "{said}");
        let large = dir.path().join("large");
        std::fs::write(&large, vec![b'x'; 10_000]).unwrap();
        assert_eq!(read_untrusted(&large, 64).unwrap(), vec![b'x'; 64]);
        assert_eq!(read_untrusted(&secret, 100).unwrap(), b"root's own\n");
    }
}
