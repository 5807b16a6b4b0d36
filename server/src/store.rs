//! What an upload's files are called: the SHA-256 each is stored under (`db::blobs`), and the
//! names a submission's files get.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, in hex: what a file handed in is stored under.
pub fn hash(bytes: &[u8]) -> String {
    xtask::files::to_hex(&Sha256::digest(bytes))
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
    fn a_file_is_stored_under_its_sha_256() {
        // The SHA-256 of "print(1)\n", computed apart (sha256sum).
        assert_eq!(
            hash(b"print(1)\n"),
            "cc42155088fca5730758db72b2a5bca33112a941dfaa2d43098ec422ce4ea213"
        );
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
