//! The course folder: `course.toml` (the title and the assignments) and `roster.csv` (the
//! students), read once at start. Every mistake is an error naming the file, the line and the
//! field; `--init` writes a commented example of both.

use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde::Deserialize;
use toml::Spanned;

use crate::Fault;

/// Built-in specs a course may name without a cases folder of its own.
pub const BUILT_IN: [&str; 4] = ["columns", "collapse", "connect4", "go"];

#[derive(Debug, Clone)]
pub struct Course {
    pub title: String,
    pub assignments: Vec<Assignment>,
    pub roster: Vec<Student>,
}

#[derive(Debug, Clone)]
pub struct Assignment {
    /// Its name in addresses: `go`, `project-4`.
    pub name: String,
    pub title: String,
    pub spec: String,
    /// A corpus root of the course's own (`<spec>/suite.toml` inside); none: the bundled one.
    pub cases: Option<PathBuf>,
    /// The reference binary of a built-in spec (none: the bundled one, built).
    pub reference: Option<PathBuf>,
    pub deadline: DateTime<FixedOffset>,
    pub late: Late,
    pub per_hour: u32,
    /// Languages of the table a submission may be in; empty: any.
    pub languages: Vec<String>,
    /// Groups whose cases are hidden from students.
    pub hidden: Vec<String>,
    pub show_hidden: ShowHidden,
    /// The CPU time limit per case, in seconds (none: `grade`'s default).
    pub timeout: Option<f64>,
}

/// What happens to work handed in after the deadline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Late {
    /// Not accepted: the form and the API refuse it.
    Refused,
    /// Accepted, marked late, its score multiplied by `1 - penalty` in the grades.
    Accepted { penalty: f64 },
}

/// What a student sees of the hidden cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShowHidden {
    /// Each hidden case's verdict, never its input, output or difference.
    Verdicts,
    /// Nothing of them until the deadline has passed; their verdicts after it.
    AfterDeadline,
}

#[derive(Debug, Clone)]
pub struct Student {
    pub id: String,
    pub name: String,
    pub email: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CourseFile {
    title: Spanned<String>,
    #[serde(default, rename = "assignment")]
    assignments: Vec<AssignmentFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AssignmentFile {
    name: Spanned<String>,
    title: Option<String>,
    spec: Spanned<String>,
    cases: Option<Spanned<String>>,
    reference: Option<Spanned<String>>,
    deadline: Spanned<String>,
    #[serde(default = "accept")]
    late: Spanned<String>,
    late_penalty: Option<Spanned<f64>>,
    #[serde(default = "ten")]
    per_hour: Spanned<u32>,
    languages: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    hidden: Vec<String>,
    #[serde(default = "verdicts")]
    show_hidden: Spanned<String>,
    timeout: Option<Spanned<f64>>,
}

fn accept() -> Spanned<String> {
    Spanned::new(0..0, "accept".into())
}
fn ten() -> Spanned<u32> {
    Spanned::new(0..0, 10)
}
fn verdicts() -> Spanned<String> {
    Spanned::new(0..0, "verdicts".into())
}

/// The line (from 1) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Course {
    /// Reads `course.toml` and `roster.csv` of `dir`.
    pub fn load(dir: &Path) -> Result<Course, Fault> {
        let path = dir.join("course.toml");
        let text = std::fs::read_to_string(&path).map_err(|err| {
            Fault::Course(format!(
                "{}: {err} (write an example with --init)",
                path.display()
            ))
        })?;
        let file: CourseFile = toml::from_str(&text)
            .map_err(|err| Fault::Course(format!("{}: {err}", path.display())))?;
        let at = |span: Range<usize>, field: &str, why: String| {
            Fault::Course(format!(
                "{}:{}: `{field}`: {why}",
                path.display(),
                line_of(&text, span.start)
            ))
        };
        let mut assignments: Vec<Assignment> = Vec::new();
        for a in file.assignments {
            let name = a.name.get_ref().clone();
            let good_name = !name.is_empty()
                && name.len() <= 40
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !good_name {
                return Err(at(
                    a.name.span(),
                    "name",
                    format!("`{name}` is no name for an address: use letters, digits, - and _ (at most 40)"),
                ));
            }
            if assignments.iter().any(|other| other.name == name) {
                return Err(at(
                    a.name.span(),
                    "name",
                    format!("`{name}` is named twice"),
                ));
            }
            let cases = a.cases.as_ref().map(|c| dir.join(c.get_ref()));
            let spec = a.spec.get_ref().clone();
            match &cases {
                None if !BUILT_IN.contains(&spec.as_str()) => {
                    return Err(at(
                        a.spec.span(),
                        "spec",
                        format!(
                        "`{spec}` is not a built-in spec ({}); give `cases` for a spec of your own",
                        BUILT_IN.join(", ")
                    ),
                    ))
                }
                Some(root) if !root.join(&spec).join("suite.toml").is_file() => {
                    let span = a.cases.as_ref().map(Spanned::span).unwrap_or_default();
                    return Err(at(
                        span,
                        "cases",
                        format!("`{}` holds no `{spec}/suite.toml`", root.display()),
                    ));
                }
                _ => {}
            }
            let deadline = DateTime::parse_from_rfc3339(a.deadline.get_ref()).map_err(|err| {
                at(
                    a.deadline.span(),
                    "deadline",
                    format!(
                        "`{}` is not a date and time with its offset, as 2026-12-10T23:59:00+01:00 ({err})",
                        a.deadline.get_ref()
                    ),
                )
            })?;
            let penalty = a.late_penalty.as_ref().map_or(0.0, |p| *p.get_ref());
            if !(0.0..=1.0).contains(&penalty) {
                return Err(at(
                    a.late_penalty
                        .as_ref()
                        .map(Spanned::span)
                        .unwrap_or_default(),
                    "late_penalty",
                    format!("{penalty} is not a fraction between 0 and 1"),
                ));
            }
            let late = match a.late.get_ref().as_str() {
                "accept" => Late::Accepted { penalty },
                "refuse" => Late::Refused,
                other => {
                    return Err(at(
                        a.late.span(),
                        "late",
                        format!("`{other}`: write \"accept\" or \"refuse\""),
                    ))
                }
            };
            let show_hidden = match a.show_hidden.get_ref().as_str() {
                "verdicts" => ShowHidden::Verdicts,
                "after-deadline" => ShowHidden::AfterDeadline,
                other => {
                    return Err(at(
                        a.show_hidden.span(),
                        "show_hidden",
                        format!("`{other}`: write \"verdicts\" or \"after-deadline\""),
                    ))
                }
            };
            let known: Vec<&str> = xtask::language::table()
                .iter()
                .map(|l| l.name.as_str())
                .collect();
            let languages = a
                .languages
                .as_ref()
                .map(|l| l.get_ref().clone())
                .unwrap_or_default();
            if let Some(unknown) = languages.iter().find(|l| !known.contains(&l.as_str())) {
                return Err(at(
                    a.languages.as_ref().map(Spanned::span).unwrap_or_default(),
                    "languages",
                    format!(
                        "`{unknown}` is not in the language table ({})",
                        known.join(", ")
                    ),
                ));
            }
            if *a.per_hour.get_ref() == 0 {
                return Err(at(
                    a.per_hour.span(),
                    "per_hour",
                    "must be at least 1".into(),
                ));
            }
            if let Some(timeout) = &a.timeout {
                if !timeout.get_ref().is_finite() || *timeout.get_ref() <= 0.0 {
                    return Err(at(
                        timeout.span(),
                        "timeout",
                        "must be more than 0 seconds".into(),
                    ));
                }
            }
            assignments.push(Assignment {
                title: a.title.clone().unwrap_or_else(|| name.clone()),
                name,
                spec,
                cases,
                reference: a.reference.as_ref().map(|r| dir.join(r.get_ref())),
                deadline,
                late,
                per_hour: *a.per_hour.get_ref(),
                languages,
                hidden: a.hidden.clone(),
                show_hidden,
                timeout: a.timeout.as_ref().map(|t| *t.get_ref()),
            });
        }
        if assignments.is_empty() {
            return Err(at(
                file.title.span(),
                "assignment",
                "the course has no [[assignment]]".into(),
            ));
        }
        let roster = read_roster(&dir.join("roster.csv"))?;
        Ok(Course {
            title: file.title.into_inner(),
            assignments,
            roster,
        })
    }

    pub fn assignment(&self, name: &str) -> Option<&Assignment> {
        self.assignments.iter().find(|a| a.name == name)
    }

    pub fn student(&self, id: &str) -> Option<&Student> {
        self.roster.iter().find(|s| s.id == id)
    }
}

/// The students of `roster.csv`: a header `id,name,email`, then one row each.
fn read_roster(path: &Path) -> Result<Vec<Student>, Fault> {
    let fault = |line: u64, why: String| Fault::Course(format!("{}:{line}: {why}", path.display()));
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|err| Fault::Course(format!("{}: {err}", path.display())))?;
    let headers = reader
        .headers()
        .map_err(|err| fault(1, err.to_string()))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(id), Some(name), Some(email)) = (column("id"), column("name"), column("email"))
    else {
        return Err(fault(
            1,
            format!(
                "the header is `{}`; it must name the columns id, name and email",
                headers.iter().collect::<Vec<_>>().join(",")
            ),
        ));
    };
    let mut students: Vec<Student> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|err| {
            let line = err.position().map_or(0, |p| p.line());
            fault(line, err.to_string())
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let field = |k: usize| record.get(k).unwrap_or_default().to_string();
        let student = Student {
            id: field(id),
            name: field(name),
            email: field(email),
        };
        let good_id = !student.id.is_empty()
            && student.id.len() <= 64
            && student
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c))
            && !student.id.starts_with('.');
        if !good_id {
            return Err(fault(
                line,
                format!(
                    "`id`: `{}` is no student id: letters, digits and - _ . @ (at most 64)",
                    student.id
                ),
            ));
        }
        if students.iter().any(|s| s.id == student.id) {
            return Err(fault(
                line,
                format!("`id`: `{}` is listed twice", student.id),
            ));
        }
        students.push(student);
    }
    Ok(students)
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
# The languages of the table accepted (c, cpp, java, csharp, rust, python, javascript); none: any.
languages = ["java", "cpp", "csharp"]
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
