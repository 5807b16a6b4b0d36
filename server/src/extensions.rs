//! Extensions: a student's own deadline for an assignment (an accommodation, an extension),
//! through every door the course has: `extensions.csv` in the course folder (read at start,
//! and again whenever it changes), the instructor's "Extensions" page of an assignment, and
//! the API (`PUT`/`DELETE /api/v1/assignments/NAME/extensions/ID`). Where a student has one,
//! it is their deadline everywhere: whether a submission is late or refused, what their pages
//! show, when they see hidden cases that wait for the deadline.
//!
//! A grant is checked in one place, [`checked`]: the student is one of the course, the
//! assignment is one of it, the deadline a date with its offset. A bad line of the file is
//! refused with the file, the line and the field, and the file is then not applied at all:
//! what was granted before stays.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::DateTime;

use crate::course::{Assignment, Course};
use crate::db::extensions::{self, Extension, FROM_FILE, GRANTED};
use crate::db::{students, Db};
use crate::error::Fault;
use crate::state::State;

/// The file of extensions in the course folder.
pub(crate) const FILE: &str = "extensions.csv";

/// How often the file is looked at for a change.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// A grant of `deadline` to student `id` on `assignment`, checked: else the field at fault
/// (`id`, `assignment` or `deadline`) and why.
pub(crate) async fn checked(
    db: &Db,
    course: &Course,
    (id, assignment, deadline): (&str, &str, &str),
    source: &str,
) -> Result<Result<Extension, (&'static str, String)>, Fault> {
    if !students::exists(db, id).await? {
        return Ok(Err(("id", format!("`{id}` is no student of the course"))));
    }
    if course.assignment(assignment).is_none() {
        let names: Vec<&str> = course.assignments.iter().map(|a| a.name.as_str()).collect();
        let why = format!(
            "`{assignment}` is no assignment of the course (it has {})",
            names.join(", ")
        );
        return Ok(Err(("assignment", why)));
    }
    let Ok(deadline) = DateTime::parse_from_rfc3339(deadline.trim()) else {
        let why = format!(
            "`{deadline}` is not a date and time with its offset, as 2026-12-10T23:59:00+01:00"
        );
        return Ok(Err(("deadline", why)));
    };
    Ok(Ok(Extension {
        student: id.to_string(),
        assignment: assignment.to_string(),
        deadline,
        source: source.to_string(),
    }))
}

/// Grants student `id` their own `deadline` on `assignment` (the pages' and the API's door),
/// checked as [`checked`] checks it: the grant, or the field at fault and why.
pub(crate) async fn grant(
    state: &State,
    (id, assignment, deadline): (&str, &str, &str),
) -> Result<Result<Extension, (&'static str, String)>, Fault> {
    let grant = checked(
        &state.db,
        &state.course,
        (id, assignment, deadline),
        GRANTED,
    )
    .await?;
    if let (Ok(grant), Some(a)) = (&grant, state.course.assignment(assignment)) {
        extensions::grant(&state.db, grant, a.deadline.timestamp()).await?;
        crate::lti::passback::changed(state, id, assignment).await?;
    }
    Ok(grant)
}

/// Takes student `id`'s own deadline on `assignment` away: whether they had one.
pub(crate) async fn remove(
    state: &State,
    id: &str,
    assignment: &Assignment,
) -> Result<bool, Fault> {
    let deadline = assignment.deadline.timestamp();
    let removed = extensions::remove(&state.db, id, &assignment.name, deadline).await?;
    crate::lti::passback::changed(state, id, &assignment.name).await?;
    Ok(removed)
}

/// The extensions of the file at `path` (none where there is no file), every line checked:
/// the first one at fault is an error naming the file, its line and the field.
async fn read(db: &Db, course: &Course, path: &Path) -> Result<Vec<Extension>, Fault> {
    let fault = |line: u64, why: String| Fault::Course(format!("{}:{line}: {why}", path.display()));
    let mut reader = match csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
        .from_path(path)
    {
        Ok(reader) => reader,
        Err(err) => match err.kind() {
            csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Vec::new())
            }
            _ => return Err(Fault::Course(format!("{}: {err}", path.display()))),
        },
    };
    let headers = reader
        .headers()
        .map_err(|err| fault(1, err.to_string()))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(id), Some(assignment), Some(deadline)) =
        (column("id"), column("assignment"), column("deadline"))
    else {
        let why = format!(
            "the header is `{}`; it must name the columns id, assignment and deadline",
            headers.iter().collect::<Vec<_>>().join(",")
        );
        return Err(fault(1, why));
    };
    let mut rows: Vec<Extension> = Vec::new();
    for record in reader.records() {
        let record =
            record.map_err(|err| fault(err.position().map_or(0, |p| p.line()), err.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        let field = |k: usize, name: &str| match record.get(k) {
            Some(value) if !value.is_empty() => Ok(value),
            _ => Err(fault(line, format!("`{name}`: missing"))),
        };
        let fields = (
            field(id, "id")?,
            field(assignment, "assignment")?,
            field(deadline, "deadline")?,
        );
        let row = checked(db, course, fields, FROM_FILE)
            .await?
            .map_err(|(name, why)| fault(line, format!("`{name}`: {why}")))?;
        if rows
            .iter()
            .any(|r| r.student == row.student && r.assignment == row.assignment)
        {
            let why = format!(
                "`id`: `{}` has a second deadline for `{}`",
                row.student, row.assignment
            );
            return Err(fault(line, why));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Reads the course folder's file and applies it whole, or not at all.
/// The students and assignments whose deadline it changed (or kept), and how many rows it has.
async fn apply(
    db: &Db,
    course: &Course,
    path: &Path,
) -> Result<(Vec<(String, String)>, usize), Fault> {
    let rows = read(db, course, path).await?;
    let class_deadline = |name: &str| course.assignment(name).map(|a| a.deadline.timestamp());
    let touched = extensions::replace_file(db, &rows, class_deadline).await?;
    Ok((touched, rows.len()))
}

/// At start: the file applied (a bad line stops the server, as a bad roster line does).
pub(crate) async fn load(db: &Db, course: &Course, dir: &Path) -> Result<(), Fault> {
    apply(db, course, &dir.join(FILE)).await.map(drop)
}

/// While the server runs: the file is looked at every [`LOOK_EVERY`] and applied when its
/// bytes change; a bad one is logged with its file, line and field (and kept for the
/// instructor's page, [`State::extensions_refused`]), and what was granted before stays. Ends
/// when the server stops.
pub(crate) async fn watch(state: Arc<State>) {
    let path: PathBuf = state.course_dir.join(FILE);
    let mut seen = std::fs::read(&path).ok();
    while !state.stopping.load(std::sync::atomic::Ordering::Relaxed) {
        tokio::time::sleep(LOOK_EVERY).await;
        let now = std::fs::read(&path).ok();
        if now == seen {
            continue;
        }
        seen = now;
        let refused = match apply(&state.db, &state.course, &path).await {
            Ok((touched, n)) => {
                eprintln!("{}: read again, {n} extensions", path.display());
                for (student, assignment) in touched {
                    if let Err(fault) =
                        crate::lti::passback::changed(&state, &student, &assignment).await
                    {
                        eprintln!("{fault}");
                    }
                }
                None
            }
            Err(fault) => {
                eprintln!("{fault}; the extensions granted before stay");
                Some(fault.to_string())
            }
        };
        *state
            .extensions_refused
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = refused;
    }
}
