//! `serve --init`: a commented example of `course.toml` and `roster.csv`, written into a
//! course folder that has neither.

use std::path::Path;

use crate::error::Fault;

/// Writes the example files into `dir`, never over existing ones.
pub(crate) fn init(dir: &Path) -> Result<(), Fault> {
    let files = [
        ("course.toml", EXAMPLE_COURSE),
        ("roster.csv", EXAMPLE_ROSTER),
    ];
    for (name, _) in &files {
        if dir.join(name).exists() {
            return Err(Fault::Course(format!(
                "{}: exists already; --init writes only into a course folder without one",
                dir.join(name).display()
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(|err| Fault::Io(format!("{}: {err}", dir.display())))?;
    for (name, text) in files {
        xtask::files::write_atomically(&dir.join(name), text.as_bytes())
            .map_err(|err| Fault::Io(err.to_string()))?;
        println!("wrote {}", dir.join(name).display());
    }
    println!(
        "next: edit both, then `cargo xtask serve --course {} --links`",
        dir.display()
    );
    Ok(())
}

/// The example `--init` writes: `course.toml`.
pub(crate) const EXAMPLE_COURSE: &str = r#"# The course this server runs. Every field is read at start; a mistake stops the server
# with the file, line and field at fault.
title = "Programming in C++, fall 2026"
# Late days each student may spend over the term (without this line: none).
# late_days = 4

# One [[assignment]] per project.
[[assignment]]
# Its name in addresses (/assignments/go): letters, digits, - and _.
name = "go"
title = "Project 4: Go"
# A built-in spec (columns, collapse, connect4, go), graded against the bundled cases...
spec = "go"
# ... or a spec of your own: a corpus folder holding <spec>/suite.toml (see `cargo xtask new`),
# relative to this file.
# cases = "my-cases"
# When work is due, with its offset from UTC. A student's own deadline (an extension) goes in
# extensions.csv beside this file (id,assignment,deadline), read again when it changes.
deadline = "2026-12-10T23:59:00+01:00"
# After the deadline: "accept" (marked late, its score times 1 - late_penalty) or "refuse".
late = "accept"
late_penalty = 0.1
# Or a penalty per day late beyond the student's late days (`late_days = N` at the top of this
# file), and no work counted more than late_days_max days late:
# late_penalty_per_day = 0.1
# late_days_max = 5
# Submissions a student may make per hour.
per_hour = 10
# The languages of the table accepted (c, cpp, java, csharp, rust, python, javascript); without
# this line, any. For a course taught in Java, C++ and C#:
# languages = ["java", "cpp", "csharp"]
# Groups whose cases students never see: only their verdicts ("verdicts"), or nothing of them
# before the deadline ("after-deadline").
hidden = ["generated"]
show_hidden = "verdicts"
# CPU seconds per case (default: grade's).
# timeout = 10

# The course inside your LMS (Canvas, Moodle, Blackboard, D2L, Sakai...) by LTI 1.3: students
# open the assignment from the LMS and are signed in, the roster comes from the LMS, and each
# grade lands in the LMS gradebook. The values come from the LMS's registration of this tool
# (docs/guide/src/lti.md says where each one is); with [lti], roster.csv and the links are optional.
# In the LMS's link to an assignment, set the custom parameter `assignment=go` (its name here).
# [lti]
# issuer = "https://canvas.instructure.com"
# client_id = "10000000000042"
# deployment_id = ["42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"]
# auth_url = "https://sso.canvaslms.com/api/lti/authorize_redirect"
# token_url = "https://sso.canvaslms.com/login/oauth2/token"
# jwks_url = "https://sso.canvaslms.com/api/lti/security/jwks"
# The server's address as the LMS reaches it (default: the address each request came to).
# tool_url = "https://grader.example.edu"
"#;

/// The example `--init` writes: `roster.csv`.
pub(crate) const EXAMPLE_ROSTER: &str =
    "id,name,email\nada,Ada Lovelace,ada@example.edu\nalan,Alan Turing,alan@example.edu\n";

#[cfg(test)]
mod tests {
    use super::*;

    /// The example's `[lti]` lines, uncommented, make a course of the LMS; a wrong one is an
    /// error naming the file, its line and the field.
    #[test]
    fn the_example_s_lti_table_reads_once_uncommented() {
        let dir = tempfile::tempdir().unwrap();
        let start = EXAMPLE_COURSE.find("# [lti]").unwrap();
        let table: String = EXAMPLE_COURSE[start..]
            .lines()
            .map(|line| line.strip_prefix("# ").unwrap_or(line))
            .filter(|line| !line.starts_with("The server's address"))
            .map(|line| format!("{line}\n"))
            .collect();
        let text = format!("{}{table}", &EXAMPLE_COURSE[..start]);
        std::fs::write(dir.path().join("course.toml"), &text).unwrap();
        // No roster.csv: the LMS's roster is the course's.
        let course = crate::course::Course::load(dir.path()).unwrap();
        let lti = course.lti.expect("the [lti] table");
        assert_eq!(lti.client_id, "10000000000042");
        assert_eq!(lti.deployment_ids.len(), 1);
        assert_eq!(lti.tool_url.as_deref(), Some("https://grader.example.edu"));
        assert!(course.roster.is_empty());

        let wrong = text.replace("token_url = \"https://", "token_url = \"ftp://");
        std::fs::write(dir.path().join("course.toml"), &wrong).unwrap();
        let line = wrong
            .lines()
            .position(|l| l.starts_with("token_url"))
            .unwrap()
            + 1;
        let fault = crate::course::Course::load(dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            fault.contains(&format!("course.toml:{line}: `lti.token_url`")),
            "{fault}"
        );
        let none = text.replace(
            "deployment_id = [\"42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb\"]",
            "deployment_id = []",
        );
        std::fs::write(dir.path().join("course.toml"), none).unwrap();
        let fault = crate::course::Course::load(dir.path())
            .unwrap_err()
            .to_string();
        assert!(fault.contains("`lti.deployment_id`"), "{fault}");
    }
}
