//! Taking an upload in: the multipart body read within the cap, then checked (the assignment,
//! the names, the languages, the deadline, the hourly limit), stored and recorded in one
//! transaction, and queued.

use axum::http::StatusCode;

use crate::auth::Who;
use crate::course::{Assignment, Late};
use crate::db::{now, submissions};
use crate::error::{not_found, Reply};
use crate::queue::{self, Job};
use crate::state::State;
use xtask::submission::clean_name;

/// The parts one upload may have: as many as a submission may hold files.
const MAX_PARTS: usize = 2000;

/// Reads a multipart body: its `file` fields (name and bytes) and its `csrf` field. A body
/// over the cap, or of more than [`MAX_PARTS`] parts, ends here (413), before anything is
/// stored.
async fn read_upload(
    mut multipart: axum::extract::Multipart,
    max_upload: usize,
) -> Result<(Vec<(String, Vec<u8>)>, Option<String>), Reply> {
    let too_big = |err: axum::extract::multipart::MultipartError| {
        let status = err.status();
        Reply::Status(
            status,
            match status {
                StatusCode::PAYLOAD_TOO_LARGE => too_large(max_upload),
                _ => format!("The upload could not be read: {}", err.body_text()),
            },
        )
    };
    let (mut files, mut csrf, mut parts) = (Vec::new(), None, 0);
    while let Some(field) = multipart.next_field().await.map_err(too_big)? {
        parts += 1;
        if parts > MAX_PARTS {
            return Err(Reply::Status(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("The upload has more than {MAX_PARTS} parts; nothing was stored."),
            ));
        }
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

/// Which hand-ins must carry their CSRF token: every one (the page's form), or a browser
/// session's only (the API, where a bearer token is no credential a browser sends by itself).
pub(crate) enum Csrf {
    Always,
    ForSessions,
}

/// The one hand-in of the form and the API: `who`'s multipart body for assignment `name`
/// read, its CSRF token checked as `csrf` says, then taken in ([`accept`]). The new
/// submission's id.
pub(crate) async fn hand_in(
    state: &State,
    who: &Who,
    name: &str,
    multipart: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
    csrf: Csrf,
) -> Result<i64, Reply> {
    // A body that is no multipart form is the asker's mistake, said in words (as JSON under
    // the API), not the framework's plain text.
    let multipart = multipart.map_err(|rejection| {
        Reply::Status(
            StatusCode::BAD_REQUEST,
            format!(
                "The upload could not be read ({}): send the files as `file` fields of a \
                 multipart/form-data body.",
                rejection.body_text()
            ),
        )
    })?;
    let (files, token) = read_upload(multipart, state.max_upload).await?;
    if matches!(csrf, Csrf::Always) || who.session.is_some() {
        crate::auth::check_csrf(who, token.as_deref().unwrap_or_default())?;
    }
    accept(state, who, name, files).await
}

/// Takes student `who`'s upload for `name` in: checked (the assignment, the files, the
/// languages, the deadline, the hourly limit), stored and recorded in one transaction, then
/// queued. The new submission's id.
async fn accept(
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
    let named = named_files(files, state.max_upload)?;
    check_languages(assignment, &named)?;
    let at = now();
    let deadline = crate::db::extensions::deadline_for(&state.db, student, assignment).await?;
    let late = at > deadline.timestamp();
    if late && assignment.late == Late::Refused {
        return Err(Reply::Status(
            StatusCode::FORBIDDEN,
            format!(
                "The deadline ({}) has passed, and this assignment takes no late work.",
                deadline.to_rfc3339()
            ),
        ));
    }
    let new = submissions::New {
        student,
        assignment: name,
        at,
        late,
        per_hour: assignment.per_hour,
        files: &named,
    };
    let Some(id) = submissions::insert(&state.db, &new).await? else {
        let next = submissions::next_allowed(&state.db, student, name, assignment.per_hour).await?;
        return Err(Reply::TooMany {
            retry_after: (next - at).max(1),
            message: format!(
                "You have handed in {} times in the last hour, this assignment's limit; your next submission is allowed at {}.",
                assignment.per_hour,
                crate::view::when(next)
            ),
        });
    };
    let job = Job {
        submission: id,
        generation: 0,
    };
    queue::enqueue(&state.queue, &state.db, job).await?;
    Ok(id)
}

fn unprocessable(why: String) -> Reply {
    Reply::Status(StatusCode::UNPROCESSABLE_ENTITY, why)
}

/// The files of an upload under the names the submission gives them: within the cap, hidden
/// files of a folder (`.git/`, `.DS_Store`) left out, the folder's own name dropped, no two
/// alike; a name that keeps nothing refuses the upload.
fn named_files(
    files: Vec<(String, Vec<u8>)>,
    max_upload: usize,
) -> Result<Vec<(String, Vec<u8>)>, Reply> {
    if files.is_empty() {
        return Err(unprocessable("Choose at least one file.".into()));
    }
    let total: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
    if total > max_upload {
        return Err(Reply::Status(
            StatusCode::PAYLOAD_TOO_LARGE,
            too_large(max_upload),
        ));
    }
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
    xtask::submission::without_common_folder(&mut names);
    for ((name, _), short) in named.iter_mut().zip(names) {
        *name = short;
    }
    let mut seen = std::collections::HashSet::new();
    if let Some((twice, _)) = named.iter().find(|(name, _)| !seen.insert(name.clone())) {
        return Err(unprocessable(format!("Two files are named `{twice}`.")));
    }
    Ok(named)
}

/// Refuses a file in a language of the table that `assignment` does not take.
fn check_languages(assignment: &Assignment, named: &[(String, Vec<u8>)]) -> Result<(), Reply> {
    if assignment.languages.is_empty() {
        return Ok(());
    }
    for (file, _) in named {
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
    Ok(())
}

/// What an upload over the cap is told: the cap itself (`--max-upload`).
fn too_large(max_upload: usize) -> String {
    let mib = max_upload as f64 / (1024.0 * 1024.0);
    format!("The upload is larger than the course allows ({mib} MiB in all); nothing was stored.")
}
