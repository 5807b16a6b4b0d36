//! Taking an upload in: the multipart body read within the cap, then checked (the assignment,
//! the names, the languages, the deadline, the hourly limit), stored and recorded in one
//! transaction, and queued.

use axum::http::StatusCode;

use crate::auth::Who;
use crate::course::Late;
use crate::db::now;
use crate::queue::{self, Job};
use crate::state::{not_found, Reply, State};
use crate::store::clean_name;
use crate::Fault;

/// Reads a multipart body: its `file` fields (name and bytes) and its `csrf` field. A body
/// over the cap ends here (413), before anything is stored.
pub async fn read_upload(
    mut multipart: axum::extract::Multipart,
) -> Result<(Vec<(String, Vec<u8>)>, Option<String>), Reply> {
    let too_big = |err: axum::extract::multipart::MultipartError| {
        let status = err.status();
        Reply::Status(
            status,
            match status {
                StatusCode::PAYLOAD_TOO_LARGE => {
                    "The upload is larger than the course allows; nothing was stored.".into()
                }
                _ => format!("The upload could not be read: {}", err.body_text()),
            },
        )
    };
    let (mut files, mut csrf) = (Vec::new(), None);
    while let Some(field) = multipart.next_field().await.map_err(too_big)? {
        match field.name() {
            Some("csrf") => csrf = Some(field.text().await.map_err(too_big)?),
            Some("file") => {
                let name = field.file_name().unwrap_or_default().to_string();
                let bytes = field.bytes().await.map_err(too_big)?;
                // A file input left empty sends one nameless empty part.
                if name.is_empty() && bytes.is_empty() {
                    continue;
                }
                files.push((name, bytes.to_vec()));
            }
            _ => {}
        }
    }
    Ok((files, csrf))
}

/// Takes student `who`'s upload for `name` in: checked (the assignment, the files, the
/// languages, the deadline, the hourly limit), stored and recorded in one transaction, then
/// queued. The new submission's id.
pub async fn accept(
    state: &State,
    who: &Who,
    name: &str,
    files: Vec<(String, Vec<u8>)>,
) -> Result<i64, Reply> {
    let Some(student) = &who.student else {
        return Err(Reply::Status(
            StatusCode::BAD_REQUEST,
            "The instructor hands nothing in.".into(),
        ));
    };
    let Some(assignment) = state.course.assignment(name) else {
        return Err(not_found());
    };
    let unprocessable = |why: String| Reply::Status(StatusCode::UNPROCESSABLE_ENTITY, why);
    if files.is_empty() {
        return Err(unprocessable("Choose at least one file.".into()));
    }
    let total: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
    if total > state.max_upload {
        return Err(Reply::Status(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The upload is larger than the course allows; nothing was stored.".into(),
        ));
    }
    // Hidden files of a folder (`.git/`, `.DS_Store`) are left out; a name that keeps nothing
    // refuses the upload.
    let mut named: Vec<(String, Vec<u8>)> = Vec::new();
    for (raw, bytes) in files {
        match clean_name(&raw) {
            Some(clean) => named.push((clean, bytes)),
            None if raw
                .split(['/', '\\'])
                .any(|part| part.starts_with('.') && part != "." && part != "..") => {}
            None => {
                return Err(unprocessable(format!(
                    "`{}` is no file name a submission can hold.",
                    raw.escape_debug()
                )))
            }
        }
    }
    if named.is_empty() {
        return Err(unprocessable("Choose at least one file.".into()));
    }
    let mut names: Vec<String> = named.iter().map(|(name, _)| name.clone()).collect();
    crate::store::without_common_folder(&mut names);
    for ((name, _), short) in named.iter_mut().zip(names) {
        *name = short;
    }
    let mut seen = std::collections::HashSet::new();
    if let Some((twice, _)) = named.iter().find(|(name, _)| !seen.insert(name.clone())) {
        return Err(unprocessable(format!("Two files are named `{twice}`.")));
    }
    if !assignment.languages.is_empty() {
        for (file, _) in &named {
            if let Some(language) = xtask::language::of_file(std::path::Path::new(file)) {
                if !assignment.languages.contains(&language.name) {
                    return Err(unprocessable(format!(
                        "`{file}` is {}; this assignment takes {}.",
                        language.title,
                        assignment.languages.join(", ")
                    )));
                }
            }
        }
    }
    let at = now();
    let late = at > assignment.deadline.timestamp();
    if late && assignment.late == Late::Refused {
        return Err(Reply::Status(
            StatusCode::FORBIDDEN,
            format!(
                "The deadline ({}) has passed, and this assignment takes no late work.",
                assignment.deadline.to_rfc3339()
            ),
        ));
    }
    let mut tx = state.db.begin().await.map_err(Fault::db)?;
    // One statement counts and inserts: two uploads at once cannot both take the last place.
    let inserted: Option<i64> = sqlx::query_scalar(
        "INSERT INTO submissions (student, assignment, created_at, late, status)
         SELECT $1, $2, $3, $4, 'queued'
         WHERE (SELECT COUNT(*) FROM submissions WHERE student = $1 AND assignment = $2 AND created_at > $3 - 3600) < $5
         RETURNING id",
    )
    .bind(student)
    .bind(name)
    .bind(at)
    .bind(i64::from(late))
    .bind(assignment.per_hour as i64)
    .fetch_optional(&mut *tx)
    .await
    .map_err(Fault::db)?;
    let Some(id) = inserted else {
        drop(tx);
        let next = next_allowed(state, student, name, assignment.per_hour).await?;
        return Err(Reply::TooMany {
            retry_after: (next - at).max(1),
            message: format!(
                "You have handed in {} times in the last hour, this assignment's limit; your next submission is allowed at {}.",
                assignment.per_hour,
                crate::state::when(next)
            ),
        });
    };
    // The bytes live in the database, once per hash, committed with the submission: a worker
    // on any machine reads them from there.
    for (file, bytes) in &named {
        let hash = crate::store::hash(bytes);
        sqlx::query(
            "INSERT INTO blobs (hash, bytes) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
        )
        .bind(&hash)
        .bind(bytes.as_slice())
        .execute(&mut *tx)
        .await
        .map_err(Fault::db)?;
        sqlx::query("INSERT INTO files (submission, name, hash, size) VALUES ($1, $2, $3, $4)")
            .bind(id)
            .bind(file)
            .bind(&hash)
            .bind(bytes.len() as i64)
            .execute(&mut *tx)
            .await
            .map_err(Fault::db)?;
    }
    tx.commit().await.map_err(Fault::db)?;
    queue::enqueue(
        &state.queue,
        &state.db,
        Job {
            submission: id,
            generation: 0,
        },
    )
    .await?;
    Ok(id)
}

/// When student's next submission to `assignment` is allowed: an hour after the oldest of the
/// last `per_hour`.
pub async fn next_allowed(
    state: &State,
    student: &str,
    assignment: &str,
    per_hour: u32,
) -> Result<i64, Fault> {
    let at = now();
    let oldest: Option<i64> = sqlx::query_scalar(
        "SELECT created_at FROM submissions WHERE student = $1 AND assignment = $2 AND created_at > $3 - 3600
         ORDER BY created_at DESC LIMIT 1 OFFSET $4",
    )
    .bind(student)
    .bind(assignment)
    .bind(at)
    .bind(per_hour as i64 - 1)
    .fetch_optional(&state.db)
    .await
    .map_err(Fault::db)?;
    Ok(oldest.map_or(at, |oldest| oldest + 3600))
}
