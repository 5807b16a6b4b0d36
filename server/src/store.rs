//! Uploads, each file stored once under its SHA-256 (`<state>/store/ab/abcd…`), written to a
//! temporary file, fsynced, renamed into place, its folder fsynced: a file the database names
//! is whole on disk before the server answers.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    pub fn new(root: PathBuf) -> Store {
        Store { root }
    }

    fn path(&self, hash: &str) -> PathBuf {
        self.root.join(&hash[..2]).join(hash)
    }

    /// Stores `bytes`; its hash.
    pub fn put(&self, bytes: &[u8]) -> std::io::Result<String> {
        let hash = xtask::files::to_hex(&Sha256::digest(bytes));
        let path = self.path(&hash);
        if path.is_file() {
            return Ok(hash);
        }
        let folder = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(folder)?;
        let mut file = tempfile::NamedTempFile::new_in(folder)?;
        file.write_all(bytes)?;
        file.as_file().sync_all()?;
        file.persist(&path).map_err(|err| err.error)?;
        std::fs::File::open(folder)?.sync_all()?;
        Ok(hash)
    }

    /// The bytes stored under `hash`.
    pub fn get(&self, hash: &str) -> std::io::Result<Vec<u8>> {
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(std::io::Error::other("not a stored file's hash"));
        }
        std::fs::read(self.path(hash))
    }

    /// Writes the file stored under `hash` as `to`.
    pub fn copy_to(&self, hash: &str, to: &Path) -> std::io::Result<()> {
        std::fs::write(to, self.get(hash)?)
    }
}

/// A file name a student's upload may have: its last part only, nothing hidden, no control
/// characters; none for a name that keeps nothing.
pub fn clean_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    let ok = !last.is_empty()
        && last.len() <= 100
        && !last.starts_with('.')
        && !last.chars().any(char::is_control);
    ok.then(|| last.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_stored_once_under_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        let a = store.put(b"print(1)\n").unwrap();
        let b = store.put(b"print(1)\n").unwrap();
        assert_eq!(a, b);
        // The SHA-256 of "print(1)\n", computed apart (sha256sum).
        assert_eq!(
            a,
            "cc42155088fca5730758db72b2a5bca33112a941dfaa2d43098ec422ce4ea213"
        );
        assert!(dir.path().join("cc").join(&a).is_file());
        assert_eq!(store.get(&a).unwrap(), b"print(1)\n");
        assert!(store.get("../../etc/passwd").is_err());
    }

    #[test]
    fn upload_names_keep_their_last_part_only() {
        assert_eq!(clean_name("../../etc/passwd").as_deref(), Some("passwd"));
        assert_eq!(clean_name("C:\\Users\\me\\go.py").as_deref(), Some("go.py"));
        assert_eq!(clean_name(".bashrc"), None);
        assert_eq!(clean_name("a\u{0}b"), None);
        assert_eq!(clean_name("dir/"), None);
    }
}
