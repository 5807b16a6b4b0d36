//! Writing files so that nothing is lost: a file holds its old contents or its new ones, never
//! a part, whatever interrupts the write.

use std::path::{Path, PathBuf};

use crate::error::Error;

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
