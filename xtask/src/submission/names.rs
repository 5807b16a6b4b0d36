//! What a submission may name, decided here once: the path an archive's entry gets (refused
//! where it would leave its folder) and the path a file uploaded to the course server gets
//! (`..`, `.` and roots dropped; hidden parts and control characters refused).

use std::path::{Component, Path, PathBuf};

/// The path of an archive entry inside `folder`, if it stays there.
pub(super) fn inside(folder: &Path, name: &Path) -> Result<PathBuf, String> {
    let stays = name
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !stays || name.as_os_str().is_empty() {
        return Err(format!("`{}` would leave its folder", name.display()));
    }
    Ok(folder.join(name))
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
