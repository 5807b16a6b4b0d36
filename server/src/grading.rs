//! Grading: submissions wait in apalis's durable queue (with heartbeats; a job whose worker
//! stopped answering goes back to the queue) and are graded two at a time through the harness's
//! own `grade_one`, on `--jobs` CPU seats: confined, built once, the same score as `grade`
//! gives the same files. A job is keyed by its submission and generation, and its result is
//! written only while the submission still waits for it: a job that runs twice records its
//! result once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use apalis::prelude::*;

use crate::db::gradings::{self, Outcome, Reports};
use crate::db::submissions::{self, Waiting};
use crate::db::{now, regrades, Status};
use crate::error::Fault;
use crate::queue::{enqueue, Job, Queue};
use crate::state::State;
use crate::watch::{Ticket, Watch};

/// Queues again every submission not graded yet (after any stop: its job may be gone with
/// the database's last moments, or never written).
pub(crate) async fn requeue_unfinished(state: &State) -> Result<usize, Fault> {
    // On SQLite this process is the course's only grader: whatever the database says is under
    // way was under way in a run that has stopped. On PostgreSQL a worker elsewhere may be
    // grading it; the queue gives its job to another when that worker's heartbeats stop.
    if matches!(state.queue, Queue::Sqlite(_)) {
        submissions::reset_unfinished(&state.db).await?;
    }
    let unfinished = submissions::unfinished(&state.db).await?;
    for &(submission, generation) in &unfinished {
        let job = Job {
            submission,
            generation,
        };
        enqueue(&state.queue, &state.db, job).await?;
    }
    Ok(unfinished.len())
}

/// Runs the grading worker until `stop` resolves; the submission being graded then finishes.
pub(crate) async fn work(
    state: Arc<State>,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) {
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
    // name, until the stop: its jobs came back to the queue when its heartbeats stopped. So
    // does a worker the watchdog found taking no work while work waited: it is dropped where
    // it stands (its gradings under way go on, and record what they find).
    for attempt in 0u64.. {
        let name = format!("{name}-{attempt}");
        let worker = async {
            match &state.queue {
                Queue::Sqlite(storage) => run!(storage, name),
                Queue::Postgres(storage) => run!(storage, name),
            }
        };
        let ran = tokio::select! {
            ran = worker => ran,
            () = state.watch.restart.notified() => continue,
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
    // waits for the count to reach zero before it exits). The watchdog may give it up: this
    // handler then ends, and the job's place goes to the next one.
    let (ticket, given_up) = Watch::begin(&state.watch, job.key());
    let graded = tokio::spawn({
        let state = Arc::clone(&state);
        let job = job.clone();
        async move { grade(&state, &job, &ticket).await }
    });
    let graded = tokio::select! {
        graded = graded => graded,
        Ok(()) = given_up => return Err("given up: it made no progress".into()),
    };
    match graded {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => {
            eprintln!("submission {}: {err}", job.submission);
            Err(err.to_string().into())
        }
        Err(err) => Err(err.to_string().into()),
    }
}

/// How often a grading's count of cases run goes to the database.
const PROGRESS_EVERY: Duration = Duration::from_millis(300);

/// The pace of a grading's progress writes: [`Pace::due`] says yes at most once per span,
/// whatever the threads asking, and never while the write it said yes to last is still under
/// way. While the database's write lock is slow to come (a slow disk, a long transaction),
/// unpaced writes would pile up, each holding a connection of the pool that the grading's
/// result then waits for in vain.
struct Pace {
    span: Duration,
    last: std::sync::Mutex<Option<std::time::Instant>>,
    writing: Arc<AtomicBool>,
}

/// A progress write under way: the pace says no until it is dropped.
struct Writing(Arc<AtomicBool>);

impl Drop for Writing {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Pace {
    fn new(span: Duration) -> Pace {
        Pace {
            span,
            last: std::sync::Mutex::new(None),
            writing: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A write may start: a span has passed since the last yes (the first asking is due), and
    /// the write that yes started has ended.
    fn due(&self) -> Option<Writing> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::Instant::now();
        if last.is_some_and(|at| now.duration_since(at) < self.span)
            || self.writing.swap(true, Ordering::AcqRel)
        {
            return None;
        }
        *last = Some(now);
        Some(Writing(Arc::clone(&self.writing)))
    }
}

impl Job {
    /// The submission and generation, as the database keys a grading.
    fn key(&self) -> (i64, i64) {
        (self.submission, self.generation)
    }
}

/// Where a submission is graded from: its scratch folder, and the folder it is graded in (the
/// scratch folder's, or where its lone archive was unpacked).
struct Materialized {
    scratch: PathBuf,
    dir: PathBuf,
    unpacked: Option<PathBuf>,
}

impl Materialized {
    /// Removes what grading the submission needed on disk.
    fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
        if let Some(unpacked) = &self.unpacked {
            xtask::submission::remove_unpacked(unpacked);
        }
    }
}

/// The submission's files, as a folder the harness grades: an archive alone is unpacked by
/// the harness's bounded code, as `grade` unpacks one. The files are written and unpacked on a
/// blocking thread: no async thread of the server waits on the disk.
async fn materialize(state: &State, job: &Job, student: &str) -> Result<Materialized, String> {
    let names = submissions::files(&state.db, job.submission)
        .await
        .map_err(|err| err.to_string())?;
    let mut files = Vec::with_capacity(names.len());
    for (name, hash) in names {
        let bytes = crate::db::blobs::get(&state.db, &hash)
            .await
            .map_err(|err| format!("`{name}`: {err}"))?;
        files.push((name, bytes));
    }
    let scratch = state
        .work
        .join(format!("{}-{}", job.submission, job.generation));
    let folder = scratch.join(student);
    tokio::task::spawn_blocking(move || write_out(scratch, folder, files))
        .await
        .map_err(|err| err.to_string())?
}

fn write_out(
    scratch: PathBuf,
    folder: PathBuf,
    files: Vec<(String, Vec<u8>)>,
) -> Result<Materialized, String> {
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&folder).map_err(|err| err.to_string())?;
    for (name, bytes) in &files {
        // Names were cleaned on the way in: relative, no `..`, nothing hidden.
        let target = folder.join(name);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|err| format!("`{name}`: {err}"))?;
        }
        std::fs::write(&target, bytes).map_err(|err| format!("`{name}`: {err}"))?;
    }
    if let [(only, _)] = files.as_slice() {
        let path = folder.join(only);
        if let Some(extension) = xtask::submission::archive_extension(&path) {
            let unpacked = xtask::submission::unpack(&path, extension);
            let _ = std::fs::remove_dir_all(&scratch);
            let unpacked = unpacked?;
            return Ok(Materialized {
                scratch,
                dir: unpacked.clone(),
                unpacked: Some(unpacked),
            });
        }
    }
    Ok(Materialized {
        scratch,
        dir: folder,
        unpacked: None,
    })
}

async fn grade(state: &Arc<State>, job: &Job, ticket: &Ticket) -> Result<(), Fault> {
    let Some(waiting) = submissions::waiting(&state.db, job.submission, job.generation).await?
    else {
        // Graded already, or a regrade made this job stale.
        return Ok(());
    };
    let Some(assignment) = state.assignments.get(&waiting.assignment) else {
        return record_failure(
            state,
            job,
            Status::CouldNotRun,
            "the assignment is no longer in course.toml",
        )
        .await;
    };
    submissions::set_status(&state.db, job.key(), Status::Building, 0).await?;
    state.live.set(job.submission, Status::Building, 0, 0);
    let seats = state.watch.seats();
    let materialized = match materialize(state, job, &waiting.student).await {
        Ok(found) => found,
        Err(why) => {
            return record_failure(
                state,
                job,
                Status::CouldNotBuild,
                &format!("could not unpack it: {why}"),
            )
            .await
        }
    };
    let options = assignment.options.clone();
    let dir = materialized.dir.clone();
    let (id, submission) = (waiting.student.clone(), job.submission);
    let progress_state = Arc::clone(state);
    let handle = tokio::runtime::Handle::current();
    let progress_job = job.clone();
    let mover = ticket.mover();
    let graded = tokio::task::spawn_blocking(move || {
        let stop = AtomicBool::new(false);
        let pace = Pace::new(PROGRESS_EVERY);
        let progress = |step: xtask::check::Step| match step {
            xtask::check::Step::Planned { cases } => {
                mover.moved();
                progress_state
                    .live
                    .set(submission, Status::Running, 0, cases);
                let _ = handle.block_on(submissions::set_status(
                    &progress_state.db,
                    progress_job.key(),
                    Status::Running,
                    cases,
                ));
            }
            xtask::check::Step::Ran => {
                mover.moved();
                let done = progress_state.live.ran(submission);
                // The count goes through the database too, for a web server that grades
                // nothing (its pages read it there), at most every few hundred milliseconds.
                let Some(done) = done else { return };
                if let Some(writing) = pace.due() {
                    let (db, key) = (progress_state.db.clone(), progress_job.key());
                    handle.spawn(async move {
                        let written = submissions::set_done(&db, key, done).await;
                        drop(writing);
                        written
                    });
                }
            }
        };
        xtask::grade::grade_one(&options, &id, &dir, &seats, &progress, &stop)
    })
    .await
    .map_err(|err| Fault::Harness(format!("the grading thread: {err}")))?;
    materialized.remove();
    let one = match graded {
        Ok(one) => one,
        Err(err) => return record_failure(state, job, Status::CouldNotRun, &err.to_string()).await,
    };
    record(state, job, assignment, &waiting, one).await
}

async fn record_failure(state: &State, job: &Job, status: Status, why: &str) -> Result<(), Fault> {
    let why = without_paths(why.to_string(), &grader_paths(state));
    gradings::record_failure(&state.db, job.key(), status, &why).await?;
    state.live.done(job.submission);
    crate::lti::passback::graded(state, job.key()).await?;
    Ok(())
}

/// The grader's folders no student page names.
fn grader_paths(state: &State) -> [String; 2] {
    [
        xtask::files::cache_root().display().to_string(),
        state.course_dir.display().to_string(),
    ]
}

/// `text` with the grader's own folders (the harness's cache, where submissions are built and
/// run, and the course folder) left out: no student page names a path of the grader, nor how
/// its cache is laid out. A path into the cache keeps only what lies inside the submission's
/// own folder there (`go.c:3:1: error`, not `…/builds/3f2a…/go.c:3:1: error`); any other
/// path of the grader's is written `…`, whole.
pub(crate) fn without_paths(text: String, paths: &[String]) -> String {
    paths
        .iter()
        .filter(|path| path.len() > 1)
        .fold(text, |text, path| without_path(&text, path))
}

/// The folders of the cache's layout under its root, each with the components that name one
/// submission's folder there: `builds/KEY/`, `unpacked/HASH/`, `copied/KEY/`,
/// `server/COURSE/SUBMISSION/STUDENT/`.
const LAYOUT: &[(&str, usize)] = &[("builds", 1), ("unpacked", 1), ("copied", 1), ("server", 3)];

fn without_path(text: &str, path: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(path) {
        out.push_str(&rest[..at]);
        let after = &rest[at + path.len()..];
        // The components that follow, up to the end of the path (a space, a quote, a colon,
        // markup).
        let end = after
            .find(|c: char| c.is_whitespace() || "`'\":,;()<>&".contains(c))
            .unwrap_or(after.len());
        let parts: Vec<&str> = after[..end].split('/').collect();
        // Inside a submission's folder of the cache: the path from there; else nothing of it.
        let inside = match parts.as_slice() {
            ["", kind, named @ ..] => LAYOUT
                .iter()
                .find(|(folder, _)| folder == kind)
                .filter(|(_, depth)| named.len() > *depth)
                .map(|(_, depth)| depth + 2),
            _ => None,
        };
        let kept = inside
            .map(|inside| parts[inside..].join("/"))
            .unwrap_or_default();
        out.push_str(if kept.is_empty() { "…" } else { &kept });
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn reports(
    run: Option<&xtask::judge::Run>,
    hidden: &[String],
    paths: &[String],
    label: &str,
) -> Reports {
    let Some(run) = run else {
        return Reports::default();
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
        None => Status::Graded,
        Some(xtask::grade::Failure::Build) => Status::CouldNotBuild,
        Some(xtask::grade::Failure::Run) => Status::CouldNotRun,
    };
    let paths = grader_paths(state);
    let label = format!("submission {} of {}", job.submission, waiting.student);
    let outcome = Outcome {
        status,
        score: one.submission.score,
        max_score: assignment.gradebook.max_score,
        error: one
            .submission
            .error
            .clone()
            .map(|error| without_paths(error, &paths)),
        row: serde_json::to_string(&one.submission)?,
        blocks: serde_json::to_string(&one.blocks)?,
        reports: reports(one.run.as_ref(), &assignment.hidden, &paths, &label),
    };
    let moved = (waiting.old_score != Some(one.submission.score)).then(|| regrades::Change {
        assignment: &waiting.assignment,
        student: &waiting.student,
        old_score: waiting.old_score,
        new_score: one.submission.score,
        why: why_moved(waiting.old_row.as_deref(), &one.submission),
    });
    gradings::record(&state.db, job.key(), &outcome, moved).await?;
    state.live.done(job.submission);
    crate::lti::passback::graded(state, job.key()).await?;
    Ok(())
}

/// Why a regrade moved a score: the cases whose verdict changed (the first five), the cases
/// that came or went, or the error that came or went.
pub(crate) fn why_moved(old_row: Option<&str>, new: &xtask::report::Submission) -> String {
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
pub(crate) fn work_root(course: &Path) -> PathBuf {
    let key = xtask::corpus::fnv1a(course.as_os_str().as_encoded_bytes());
    xtask::files::cache_root()
        .join("server")
        .join(format!("{key:016x}"))
}

#[cfg(test)]
mod tests {
    use super::{without_paths, Pace};
    use std::time::Duration;

    #[test]
    fn a_progress_write_waits_for_the_last_to_end_and_for_its_span() {
        // No span: only the write under way holds the next back.
        let pace = Pace::new(Duration::ZERO);
        let writing = pace.due().expect("the first asking is due");
        assert!(
            pace.due().is_none(),
            "a second write while the first is under way"
        );
        drop(writing);
        assert!(pace.due().is_some(), "the first write ended");
        // A long span: the next is held back after the first ended too.
        let pace = Pace::new(Duration::from_secs(3600));
        drop(pace.due().expect("the first asking is due"));
        assert!(pace.due().is_none(), "a second write within the span");
    }

    #[test]
    fn no_text_names_the_graders_folders_or_the_caches_layout() {
        let paths = [
            "/root/.cache/gridjudge".to_string(),
            "/srv/course".to_string(),
        ];
        let cases = [
            (
                "/root/.cache/gridjudge/builds/3f2a9c/go.c:3:1: error: expected ';'",
                "go.c:3:1: error: expected ';'",
            ),
            (
                "cannot make `/root/.cache/gridjudge/unpacked/77aa/src/deep`: denied",
                "cannot make `src/deep`: denied",
            ),
            (
                "in /root/.cache/gridjudge/server/00ff/17-0/ada/Main.java line 2",
                "in Main.java line 2",
            ),
            (
                "the folder /root/.cache/gridjudge/builds/3f2a9c is gone",
                "the folder … is gone",
            ),
            ("/srv/course/.gridjudge/course.db: locked", "…: locked"),
            ("/srv/course: gone", "…: gone"),
            ("<td>/srv/course/roster.csv</td>", "<td>…</td>"),
        ];
        for (text, shown) in cases {
            assert_eq!(without_paths(text.to_string(), &paths), shown, "{text}");
        }
    }
}
