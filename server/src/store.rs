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

/// The path a student's uploaded file gets inside the submission: its name's parts, with
/// `..`, `.` and empty parts (and any drive or root) dropped; none for a name that keeps
/// nothing, or with a hidden part (`.git/config`, `.DS_Store`) or a control character.
pub fn clean_name(name: &str) -> Option<String> {
    let parts: Vec<&str> = name
        .split(['/', '\\'])
        .map(str::trim)
        .filter(|part| !part.is_empty() && *part != "." && *part != ".." && !part.ends_with(':'))
        .collect();
    let ok = !parts.is_empty()
        && parts.len() <= 16
        && name.len() <= 400
        && parts
            .iter()
            .all(|part| part.len() <= 100 && !part.starts_with('.'))
        && !name.chars().any(char::is_control);
    ok.then(|| parts.join("/"))
}

/// The names of a folder's upload without the folder's own name, which every one begins with
/// (a browser sends `project/src/Main.java` for a folder `project`).
pub fn without_common_folder(names: &mut [String]) {
    let first = |name: &String| name.split_once('/').map(|(head, _)| head.to_string());
    let Some(head) = names.first().and_then(first) else {
        return;
    };
    if names
        .iter()
        .all(|name| first(name).as_deref() == Some(head.as_str()))
    {
        for name in names.iter_mut() {
            *name = name[head.len() + 1..].to_string();
        }
    }
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
    fn upload_names_stay_inside_the_submission() {
        assert_eq!(
            clean_name("../../etc/passwd").as_deref(),
            Some("etc/passwd")
        );
        assert_eq!(clean_name("/etc/passwd").as_deref(), Some("etc/passwd"));
        assert_eq!(
            clean_name("C:\\Users\\me\\go.py").as_deref(),
            Some("Users/me/go.py")
        );
        assert_eq!(
            clean_name("project/src/./Main.java").as_deref(),
            Some("project/src/Main.java")
        );
        assert_eq!(clean_name(".bashrc"), None);
        assert_eq!(clean_name("project/.git/config"), None);
        assert_eq!(clean_name("a\u{0}b"), None);
        assert_eq!(clean_name("dir/"), Some("dir".into()));
        assert_eq!(clean_name("../"), None);
    }

    #[test]
    fn a_folders_own_name_is_dropped() {
        let mut names = vec!["p/src/Main.java".to_string(), "p/Makefile".to_string()];
        without_common_folder(&mut names);
        assert_eq!(names, ["src/Main.java", "Makefile"]);
        let mut loose = vec!["go.c".to_string(), "p/x.h".to_string()];
        without_common_folder(&mut loose);
        assert_eq!(loose, ["go.c", "p/x.h"]);
    }
}
