//! Writing files so that nothing is lost: a file holds its old contents or its new ones, never
//! a part, whatever interrupts the write.

use std::path::Path;

use crate::error::Error;

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// `path` holds either its old contents or the new ones, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|err| Error::io(path, err))?;
    file.write_all(bytes).map_err(|err| Error::io(path, err))?;
    // A temporary file is private; the file it replaces keeps its mode, a new one gets 0644.
    let permissions = std::fs::metadata(path)
        .map(|meta| meta.permissions())
        .unwrap_or_else(|_| std::os::unix::fs::PermissionsExt::from_mode(0o644));
    file.as_file()
        .set_permissions(permissions)
        .map_err(|err| Error::io(path, err))?;
    file.persist(path)
        .map_err(|err| Error::io(path, err.error))?;
    Ok(())
}
