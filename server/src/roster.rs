//! `roster.csv`: the course's students, a header `id,name,email` then one row each; every
//! mistake names the file, the line and the field.

use std::path::Path;

use crate::error::Fault;

/// A student of the roster.
#[derive(Debug, Clone)]
pub(crate) struct Student {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) email: String,
}

/// The students of `roster.csv`: a header `id,name,email`, then one row each.
pub(crate) fn read(path: &Path) -> Result<Vec<Student>, Fault> {
    let fault = |line: u64, why: String| Fault::Course(format!("{}:{line}: {why}", path.display()));
    // Rows of any length: a missing field is named by the check below, not by the CSV reader.
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
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
        let field = |k: usize, column: &str| match record.get(k) {
            Some(value) if !value.is_empty() => Ok(value.to_string()),
            _ => Err(fault(line, format!("`{column}`: missing"))),
        };
        let student = Student {
            id: field(id, "id")?,
            name: field(name, "name")?,
            email: field(email, "email")?,
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
