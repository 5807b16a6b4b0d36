//! Grading: submissions wait in apalis's durable queue (in the course's database, with
//! heartbeats; a job whose worker stopped answering goes back to the queue) and are graded one
//! at a time through the harness's own `grade_one`, on `--jobs` CPU seats: confined, built
//! once, the same score as `grade` gives the same files. A job is keyed by its submission and
//! generation, and its result is written only while the submission still waits for it: a job
//! that runs twice records its result once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use apalis::prelude::*;
use sqlx::Row;

use crate::db::now;
use crate::queue::{enqueue, Job, Queue, FINAL};
use crate::state::State;
use crate::Fault;

/// Queues again every submission not graded yet (after any stop: its job may be gone with
/// the database's last moments, or never written).
pub async fn requeue_unfinished(state: &State) -> Result<usize, Fault> {
    let rows = sqlx::query(
        "SELECT id, generation FROM submissions
         WHERE status NOT IN ('graded', 'could not build', 'could not run')",
    )
    .fetch_all(&state.db)
    .await
    .map_err(Fault::db)?;
    for row in &rows {
        let job = Job {
            submission: row.get(0),
            generation: row.get(1),
        };
        enqueue(&state.queue, &state.db, job).await?;
    }
    Ok(rows.len())
}

/// Runs the grading worker until `stop` resolves; the submission being graded then finishes.
pub async fn work(state: Arc<State>, stop: impl std::future::Future<Output = ()> + Send + 'static) {
    // A fresh name per start: apalis refuses a worker whose name is still heard from.
    // Random too: workers on several machines may share a pid and a second.
    let mut salt = [0u8; 4];
    let _ = getrandom::fill(&mut salt);
    let name = format!(
        "grader-{}-{}-{}",
        std::process::id(),
        now(),
        xtask::files::to_hex(&salt)
    );
    // Two submissions at a time, on one set of CPU seats: the next one builds and starts while
    // the last cases of the one before run, as a class's next submission does under `grade`.
    // A queue without work is looked at every 100 ms: a submission waits for a look at most
    // that long (apalis's default would be the heartbeat's 2 s).
    let stop = futures::FutureExt::shared(Box::pin(stop));
    // The same worker on either backend (their types differ, not what is asked of them).
    macro_rules! run {
        ($storage:expr, $name:expr) => {
            WorkerBuilder::new($name)
                .backend(
                    $storage
                        .clone()
                        .poll_with_interval(Duration::from_millis(100)),
                )
                .data(Arc::clone(&state))
                .concurrency(2)
                .build(handle)
                .run_until({
                    let stop = stop.clone();
                    async move {
                        stop.await;
                        Ok::<(), std::io::Error>(())
                    }
                })
                .await
        };
    }
    // A worker the database dropped (a restart, a network cut) starts again, under a new
    // name, until the stop: its jobs came back to the queue when its heartbeats stopped.
    for attempt in 0u64.. {
        let name = format!("{name}-{attempt}");
        let ran = match &state.queue {
            Queue::Sqlite(storage) => run!(storage, name),
            Queue::Postgres(storage) => run!(storage, name),
        };
        if futures::FutureExt::now_or_never(stop.clone()).is_some() {
            return;
        }
        match ran {
            Err(err) => eprintln!("the grading worker stopped ({err}); starting again in 1 s"),
            Ok(()) => eprintln!("the grading worker stopped; starting again in 1 s"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn handle(job: Job, state: Data<Arc<State>>) -> Result<(), BoxDynError> {
    let state: Arc<State> = (*state).clone();
    // The grading is a task of its own, counted while it runs: whatever becomes of this
    // handler at a stop, a grading once started finishes and records its result (the server
    // waits for the count to reach zero before it exits).
    state
        .in_flight
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let graded = tokio::spawn({
        let state = Arc::clone(&state);
        let job = job.clone();
        async move {
            let graded = grade(&state, &job).await;
            state
                .in_flight
                .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            graded
        }
    })
    .await;
    match graded {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => {
            eprintln!("submission {}: {err}", job.submission);
            Err(err.to_string().into())
        }
        Err(err) => Err(err.to_string().into()),
    }
}

/// What the database holds of a submission while it waits.
struct Waiting {
    student: String,
    assignment: String,
    old_row: Option<String>,
    old_score: Option<f64>,
}

async fn waiting(state: &State, job: &Job) -> Result<Option<Waiting>, Fault> {
    let row = sqlx::query(
        "SELECT student, assignment, status, generation, row, score FROM submissions WHERE id = $1",
    )
    .bind(job.submission)
    .fetch_optional(&state.db)
    .await
    .map_err(Fault::db)?;
    let Some(row) = row else { return Ok(None) };
    let status: String = row.get(2);
    let generation: i64 = row.get(3);
    if generation != job.generation || FINAL.contains(&status.as_str()) {
        return Ok(None);
    }
    Ok(Some(Waiting {
        student: row.get(0),
        assignment: row.get(1),
        old_row: row.get(4),
        old_score: row.get(5),
    }))
}

async fn set_status(state: &State, job: &Job, status: &str, total: u64) -> Result<(), Fault> {
    sqlx::query(
        "UPDATE submissions SET status = $1, cases_total = $2 WHERE id = $3 AND generation = $4
         AND status NOT IN ('graded', 'could not build', 'could not run')",
    )
    .bind(status)
    .bind(total as i64)
    .bind(job.submission)
    .bind(job.generation)
    .execute(&state.db)
    .await
    .map_err(Fault::db)?;
    Ok(())
}

/// The submission's files, as a folder the harness grades: an archive alone is unpacked by
/// the harness's bounded code, as `grade` unpacks one.
async fn materialize(
    state: &State,
    job: &Job,
    student: &str,
) -> Result<(PathBuf, PathBuf), String> {
    let files = sqlx::query("SELECT name, hash FROM files WHERE submission = $1 ORDER BY name")
        .bind(job.submission)
        .fetch_all(&state.db)
        .await
        .map_err(|err| err.to_string())?;
    let scratch = state
        .work
        .join(format!("{}-{}", job.submission, job.generation));
    let _ = std::fs::remove_dir_all(&scratch);
    let folder = scratch.join(student);
    std::fs::create_dir_all(&folder).map_err(|err| err.to_string())?;
    for file in &files {
        let (name, hash): (String, String) = (file.get(0), file.get(1));
        // Names were cleaned on the way in: relative, no `..`, nothing hidden.
        let target = folder.join(&name);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|err| format!("`{name}`: {err}"))?;
        }
        let bytes = crate::store::get(&state.db, &hash)
            .await
            .map_err(|err| format!("`{name}`: {err}"))?;
        std::fs::write(&target, bytes).map_err(|err| format!("`{name}`: {err}"))?;
    }
    if let [only] = files.as_slice() {
        let path = folder.join(only.get::<String, _>(0));
        if let Some(extension) = xtask::submission::archive_extension(&path) {
            let unpacked = xtask::submission::unpack(&path, extension)?;
            return Ok((scratch, unpacked));
        }
    }
    Ok((scratch, folder))
}

async fn grade(state: &Arc<State>, job: &Job) -> Result<(), Fault> {
    let Some(waiting) = waiting(state, job).await? else {
        // Graded already, or a regrade made this job stale.
        return Ok(());
    };
    let Some(assignment) = state.assignments.get(&waiting.assignment) else {
        return record_failure(
            state,
            job,
            "could not run",
            "the assignment is no longer in course.toml",
        )
        .await;
    };
    set_status(state, job, "building", 0).await?;
    state.live.set(job.submission, "building", 0, 0);
    let (scratch, dir) = match materialize(state, job, &waiting.student).await {
        Ok(found) => found,
        Err(why) => {
            return record_failure(
                state,
                job,
                "could not build",
                &format!("could not unpack it: {why}"),
            )
            .await
        }
    };
    let options = assignment.options.clone();
    let (id, submission) = (waiting.student.clone(), job.submission);
    let progress_state = Arc::clone(state);
    let handle = tokio::runtime::Handle::current();
    let progress_job = job.clone();
    let graded = tokio::task::spawn_blocking(move || {
        let stop = AtomicBool::new(false);
        let progress = |step: xtask::check::Step| match step {
            xtask::check::Step::Planned { cases } => {
                progress_state.live.set(submission, "running", 0, cases);
                let _ =
                    handle.block_on(set_status(&progress_state, &progress_job, "running", cases));
            }
            xtask::check::Step::Ran => progress_state.live.ran(submission),
        };
        xtask::grade::grade_one(&options, &id, &dir, &progress_state.seats, &progress, &stop)
    })
    .await
    .map_err(|err| Fault::Harness(format!("the grading thread: {err}")))?;
    let _ = std::fs::remove_dir_all(&scratch);
    let one = match graded {
        Ok(one) => one,
        Err(err) => return record_failure(state, job, "could not run", &err.to_string()).await,
    };
    record(state, job, assignment, &waiting, one).await
}

async fn record_failure(state: &State, job: &Job, status: &str, why: &str) -> Result<(), Fault> {
    let why = without_paths(why.to_string(), &grader_paths(state));
    let mut tx = state.db.begin().await.map_err(Fault::db)?;
    let written = sqlx::query(
        "UPDATE submissions SET status = $1, error = $2, score = 0, graded_at = $3
         WHERE id = $4 AND generation = $5 AND status NOT IN ('graded', 'could not build', 'could not run')",
    )
    .bind(status)
    .bind(why)
    .bind(now())
    .bind(job.submission)
    .bind(job.generation)
    .execute(&mut *tx)
    .await
    .map_err(Fault::db)?
    .rows_affected();
    if written == 1 {
        recorded(&mut tx, job).await?;
    }
    tx.commit().await.map_err(Fault::db)?;
    state.live.done(job.submission);
    Ok(())
}

/// Notes the result of `job` as recorded; the key refuses a second result outright (the
/// second line of defence, after the status the update waits for).
async fn recorded(tx: &mut sqlx::Transaction<'_, sqlx::Any>, job: &Job) -> Result<(), Fault> {
    sqlx::query("INSERT INTO gradings (submission, generation, recorded_at) VALUES ($1, $2, $3)")
        .bind(job.submission)
        .bind(job.generation)
        .bind(now())
        .execute(&mut **tx)
        .await
        .map_err(Fault::db)?;
    Ok(())
}

/// The reports a graded submission is shown by, each drawn once.
struct Reports {
    full: Option<String>,
    students: Option<String>,
    before: Option<String>,
    html_full: Option<String>,
    html_students: Option<String>,
    html_before: Option<String>,
}

/// The grader's folders no student page names.
fn grader_paths(state: &State) -> [String; 2] {
    [
        xtask::files::cache_root().display().to_string(),
        state.course_dir.display().to_string(),
    ]
}

/// `text` with the grader's own folders (the harness's cache, where submissions are built and
/// run, and the course folder) written as `…`: no student page names a path of the grader.
pub fn without_paths(text: String, paths: &[String]) -> String {
    paths
        .iter()
        .filter(|path| path.len() > 1)
        .fold(text, |text, path| text.replace(path.as_str(), "…"))
}

fn reports(
    run: Option<&xtask::judge::Run>,
    hidden: &[String],
    paths: &[String],
    label: &str,
) -> Reports {
    let Some(run) = run else {
        return Reports {
            full: None,
            students: None,
            before: None,
            html_full: None,
            html_students: None,
            html_before: None,
        };
    };
    let mut students = run.for_students(hidden, false);
    let mut before = run.for_students(hidden, true);
    // Named as the student knows it, not by the folder it was graded in.
    students.target = label.to_string();
    before.target = label.to_string();
    let shown = |text: String| Some(without_paths(text, paths));
    Reports {
        full: Some(xtask::report::json_report(run)),
        students: shown(xtask::report::json_report(&students)),
        before: shown(xtask::report::json_report(&before)),
        html_full: Some(xtask::report::check_report(run)),
        html_students: shown(xtask::report::check_report(&students)),
        html_before: shown(xtask::report::check_report(&before)),
    }
}

async fn record(
    state: &State,
    job: &Job,
    assignment: &crate::state::Graded,
    waiting: &Waiting,
    one: xtask::grade::One,
) -> Result<(), Fault> {
    let status = match one.failure {
        None => "graded",
        Some(xtask::grade::Failure::Build) => "could not build",
        Some(xtask::grade::Failure::Run) => "could not run",
    };
    let paths = grader_paths(state);
    let label = format!("submission {} of {}", job.submission, waiting.student);
    let reports = reports(one.run.as_ref(), &assignment.hidden, &paths, &label);
    let row =
        serde_json::to_string(&one.submission).map_err(|err| Fault::Harness(err.to_string()))?;
    let blocks =
        serde_json::to_string(&one.blocks).map_err(|err| Fault::Harness(err.to_string()))?;
    let mut tx = state.db.begin().await.map_err(Fault::db)?;
    let written = sqlx::query(
        "UPDATE submissions SET status = $1, score = $2, max_score = $3, error = $4, graded_at = $5,
         row = $6, blocks = $7, report_full = $8, report_students = $9, report_before = $10,
         html_full = $11, html_students = $12, html_before = $13, cases_done = cases_total
         WHERE id = $14 AND generation = $15
         AND status NOT IN ('graded', 'could not build', 'could not run')",
    )
    .bind(status)
    .bind(one.submission.score)
    .bind(assignment.gradebook.max_score)
    .bind(one.submission.error.clone().map(|error| without_paths(error, &paths)))
    .bind(now())
    .bind(&row)
    .bind(&blocks)
    .bind(&reports.full)
    .bind(&reports.students)
    .bind(&reports.before)
    .bind(&reports.html_full)
    .bind(&reports.html_students)
    .bind(&reports.html_before)
    .bind(job.submission)
    .bind(job.generation)
    .execute(&mut *tx)
    .await
    .map_err(Fault::db)?
    .rows_affected();
    if written == 1 {
        recorded(&mut tx, job).await?;
    }
    if written == 1 && job.generation > 0 {
        let new_score = one.submission.score;
        if waiting.old_score != Some(new_score) {
            let why = why_moved(waiting.old_row.as_deref(), &one.submission);
            sqlx::query(
                "INSERT INTO regrade_changes (regrade, submission, student, old_score, new_score, why)
                 VALUES ((SELECT MAX(id) FROM regrades WHERE assignment = $1), $2, $3, $4, $5, $6)",
            )
            .bind(&waiting.assignment)
            .bind(job.submission)
            .bind(&waiting.student)
            .bind(waiting.old_score)
            .bind(new_score)
            .bind(why)
            .execute(&mut *tx)
            .await
            .map_err(Fault::db)?;
        }
    }
    tx.commit().await.map_err(Fault::db)?;
    state.live.done(job.submission);
    Ok(())
}

/// Why a regrade moved a score: the cases whose verdict changed (the first five), the cases
/// that came or went, or the error that came or went.
pub fn why_moved(old_row: Option<&str>, new: &xtask::report::Submission) -> String {
    let old: Option<xtask::report::Submission> =
        old_row.and_then(|row| serde_json::from_str(row).ok());
    let Some(old) = old else {
        return "graded for the first time".into();
    };
    if old.error != new.error {
        return match (&old.error, &new.error) {
            (_, Some(error)) => format!("now: {error}"),
            (Some(error), None) => format!("no longer: {error}"),
            _ => String::new(),
        };
    }
    let before: BTreeMap<&str, &str> = old
        .cases
        .iter()
        .map(|c| (c.id.as_str(), c.verdict.as_str()))
        .collect();
    let after: BTreeMap<&str, &str> = new
        .cases
        .iter()
        .map(|c| (c.id.as_str(), c.verdict.as_str()))
        .collect();
    let mut moved: Vec<String> = after
        .iter()
        .filter_map(|(id, verdict)| match before.get(id) {
            Some(old) if old != verdict => Some(format!("{id}: {old} → {verdict}")),
            _ => None,
        })
        .collect();
    let added = after.keys().filter(|id| !before.contains_key(*id)).count();
    let removed = before.keys().filter(|id| !after.contains_key(*id)).count();
    let changed = moved.len();
    moved.truncate(5);
    let mut why = moved.join("; ");
    if changed > 5 {
        why += &format!("; and {} more", changed - 5);
    }
    if added + removed > 0 {
        if !why.is_empty() {
            why += "; ";
        }
        why += &format!("cases added: {added}, cases removed: {removed}");
    }
    if why.is_empty() {
        why = "the groups' points changed".into();
    }
    why
}

/// Where a submission's folder is made for its grading: outside the course folder (which no
/// program may see), under the harness's cache.
pub fn work_root(course: &Path) -> PathBuf {
    let key = xtask::corpus::fnv1a(course.as_os_str().as_encoded_bytes());
    xtask::files::cache_root()
        .join("server")
        .join(format!("{key:016x}"))
}
