//! `serve --init`: a commented example of `course.toml` and `roster.csv`, written into a
//! course folder that has neither.

use std::path::Path;

use crate::error::Fault;

/// Writes the example files into `dir`, never over existing ones.
pub fn init(dir: &Path) -> Result<(), Fault> {
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
pub const EXAMPLE_COURSE: &str = r#"# The course this server runs. Every field is read at start; a mistake stops the server
# with the file, line and field at fault.
title = "Programming in C++, fall 2026"

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
# When work is due, with its offset from UTC.
deadline = "2026-12-10T23:59:00+01:00"
# After the deadline: "accept" (marked late, its score times 1 - late_penalty) or "refuse".
late = "accept"
late_penalty = 0.1
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
"#;

/// The example `--init` writes: `roster.csv`.
pub const EXAMPLE_ROSTER: &str =
    "id,name,email\nada,Ada Lovelace,ada@example.edu\nalan,Alan Turing,alan@example.edu\n";
