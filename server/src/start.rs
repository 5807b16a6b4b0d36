//! What `serve` does, step by step: open the course folder and its database, then one of
//! `--init`, `--links`, `--revoke`, `--worker` (grade only), or serve: the web server and,
//! unless `--jobs 0`, a grading worker beside it, until SIGTERM lets the gradings under way
//! finish. Each assignment's harness options are built here through the harness's typed
//! constructor, with `grade`'s defaults.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::course::{Assignment, Course};
use crate::db::{self, Opened};
use crate::error::Fault;
use crate::flags::Args;
use crate::state::{Graded, Live, State};
use crate::{auth, grading, queue, web};
use xtask::report::csv_text;

/// Runs the server as `args` ask.
pub async fn run(args: Args) -> Result<(), Fault> {
    if args.init {
        return crate::init::init(&args.course);
    }
    let dir = args
        .course
        .canonicalize()
        .map_err(|err| Fault::Course(format!("--course {}: {err}", args.course.display())))?;
    let course = Course::load(&dir)?;
    let state_dir = dir.join(".gridjudge");
    private_folder(&state_dir)?;
    let opened = db::open(args.database.as_deref(), &state_dir.join("course.db")).await?;
    private_files(&state_dir)?;
    if !args.worker {
        db::students::sync_roster(&opened.db, &course).await?;
        crate::extensions::load(&opened.db, &course, &dir).await?;
    }
    let base_url = args
        .base_url
        .clone()
        .unwrap_or_else(|| format!("http://{}", args.listen));
    if args.links || args.api_tokens {
        let made = match args.links {
            true => Credential::Link(&base_url),
            false => Credential::ApiToken,
        };
        return print_credentials(&opened.db, &course, made, args.student.as_deref()).await;
    }
    if args.student.is_some() {
        return Err(Fault::Course(
            "--student goes with --links or --api-tokens".into(),
        ));
    }
    if let Some(id) = &args.revoke {
        return revoke(&opened.db, &course, id).await;
    }
    // One web server per course; workers are not locked out. Held until this run ends.
    let _serving = match args.worker {
        true => None,
        false => Some(ServeLock::take(&state_dir, &opened.backend).await?),
    };
    let state = Arc::new(shared_state(&args, course, &dir, opened, &base_url)?);
    let requeued = grading::requeue_unfinished(&state).await?;
    match args.worker {
        true => work_only(state, requeued).await,
        false => serve(&args, state, requeued).await,
    }
}

/// What makes a web server the course's only one while it runs: an exclusive lock on a file
/// of the state folder (SQLite), or a session advisory lock of the course's database
/// (PostgreSQL, whose web server may be on another machine). Both go with the process, however
/// it ends.
#[allow(
    dead_code,
    reason = "held, never read: the lock lives as long as the value"
)]
enum ServeLock {
    File(std::fs::File),
    Postgres(sqlx::pool::PoolConnection<sqlx::Postgres>),
}

/// The advisory lock's key: "gridjudge" in ASCII, the serving of one course's database.
const SERVE_KEY: i64 = 0x6772_6964_6a75_6467;

impl ServeLock {
    async fn take(state_dir: &Path, backend: &db::Backend) -> Result<ServeLock, Fault> {
        match backend {
            db::Backend::Sqlite(_) => Self::file(state_dir),
            db::Backend::Postgres(pool) => Self::postgres(pool).await,
        }
    }

    fn file(state_dir: &Path) -> Result<ServeLock, Fault> {
        use std::io::{Read, Seek, Write};
        let path = state_dir.join("serve.lock");
        let io = |err: std::io::Error| Fault::Io(format!("{}: {err}", path.display()));
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        // Private as every state file is (one made by an earlier version is made so).
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(io)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io)?;
        if file.try_lock().is_err() {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            return Err(Fault::Database(format!(
                "this course is served already, by process {}: one server per course folder (a worker grades beside it: --worker)",
                pid.trim()
            )));
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        Ok(ServeLock::File(file))
    }

    async fn postgres(pool: &sqlx::PgPool) -> Result<ServeLock, Fault> {
        // A web server killed a moment ago holds its lock until its database session notices.
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let mut connection = pool.acquire().await?;
            let taken: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
                .bind(SERVE_KEY)
                .fetch_one(&mut *connection)
                .await?;
            if taken {
                return Ok(ServeLock::Postgres(connection));
            }
            drop(connection);
            if Instant::now() >= until {
                return Err(Fault::Database(
                    "this course's database is served already, by another web server: one per course (workers grade beside it: --worker)"
                        .into(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The server's state folder (the database, its uploads and reports), made or kept readable
/// by its owner alone: no other user of the machine reads a submission.
fn private_folder(state_dir: &Path) -> Result<(), Fault> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let fault = |err: std::io::Error| Fault::Io(format!("{}: {err}", state_dir.display()));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state_dir)
        .map_err(fault)?;
    std::fs::set_permissions(state_dir, std::fs::Permissions::from_mode(0o700)).map_err(fault)
}

/// The files of the state folder (SQLite's database, its journal), its owner's alone.
fn private_files(state_dir: &Path) -> Result<(), Fault> {
    use std::os::unix::fs::PermissionsExt;
    let entries = std::fs::read_dir(state_dir)
        .map_err(|err| Fault::Io(format!("{}: {err}", state_dir.display())))?;
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let path = entry.path();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                .map_err(|err| Fault::Io(format!("{}: {err}", path.display())))?;
        }
    }
    Ok(())
}

/// What every part of the server shares, with each assignment's harness options.
fn shared_state(
    args: &Args,
    course: Course,
    dir: &Path,
    opened: Opened,
    base_url: &str,
) -> Result<State, Fault> {
    let work = grading::work_root(dir);
    std::fs::create_dir_all(&work)
        .map_err(|err| Fault::Io(format!("{}: {err}", work.display())))?;
    let mut assignments = HashMap::new();
    let mut jobs = 1;
    for assignment in &course.assignments {
        let options = grade_options(args, assignment, &work, &dir.join(".gridjudge"))?;
        jobs = options.check.jobs;
        let gradebook = xtask::grade::empty_gradebook(&options)
            .map_err(|err| Fault::Harness(format!("assignment `{}`: {err}", assignment.name)))?;
        let graded = Graded {
            options,
            hidden: assignment.hidden.clone(),
            gradebook,
        };
        assignments.insert(assignment.name.clone(), graded);
    }
    let lti = match &course.lti {
        Some(config) => {
            let key = crate::lms::keys::ToolKey::load_or_make(&dir.join(".gridjudge"))?;
            Some(Arc::new(crate::lms::Platform::new(config.clone(), key)))
        }
        None => None,
    };
    Ok(State {
        lti,
        passback: tokio::sync::Notify::new(),
        extensions_refused: std::sync::Mutex::default(),
        queue: queue::queue(&opened.backend),
        db: opened.db,
        course,
        course_dir: dir.to_path_buf(),
        assignments,
        live: Live::default(),
        work,
        secure: base_url.starts_with("https://"),
        base_url: base_url.trim_end_matches('/').to_string(),
        trusted_proxy: args.trusted_proxy,
        max_upload: args.max_upload << 20,
        stopping: AtomicBool::new(false),
        streams: std::sync::Mutex::default(),
        watch: Arc::new(crate::watch::Watch::new(
            jobs,
            Duration::from_secs(args.stall_after),
        )),
    })
}

/// The harness's options for `assignment`: `grade`'s, built by the harness's typed
/// constructor (the same defaults as `cargo xtask grade`), with the course folder (roster,
/// database, uploads) out of every program's sight.
fn grade_options(
    args: &Args,
    assignment: &Assignment,
    work: &Path,
    state_dir: &Path,
) -> Result<xtask::grade::Options, Fault> {
    let harness = |err: xtask::error::Error| {
        Fault::Harness(format!("assignment `{}`: {err}", assignment.name))
    };
    let cases = assignment.cases.as_deref();
    let given = assignment.reference.as_ref().or(args.reference.as_ref());
    let check = xtask::check::Options::new(
        xtask::check::corpus_root(cases).map_err(harness)?,
        xtask::check::reference_for(cases, given.map(|p| p.as_path())).map_err(harness)?,
        std::path::PathBuf::new(),
    );
    let mut options =
        xtask::grade::Options::new(check, &assignment.spec, work, state_dir.to_path_buf())
            .map_err(harness)?
            .hide(args.course.clone());
    if let Some(jobs) = args.jobs.filter(|jobs| *jobs > 0) {
        options = options.jobs(jobs);
    }
    if let Some(timeout) = assignment.timeout {
        options = options.timeout(timeout).map_err(|err| {
            Fault::Course(format!("assignment `{}`: timeout: {err}", assignment.name))
        })?;
    }
    Ok(options)
}

/// `--revoke ID`: the links and API token of student `id` (or `instructor`) stop working,
/// their sessions end.
async fn revoke(pool: &db::Db, course: &Course, id: &str) -> Result<(), Fault> {
    let student = (id != "instructor").then_some(id);
    if student.is_some_and(|id| course.student(id).is_none()) {
        return Err(Fault::Course(format!(
            "--revoke: `{id}` is not on the roster"
        )));
    }
    auth::revoke(pool, student).await?;
    println!("revoked the links and API token of {id}; their sessions are ended");
    Ok(())
}

/// Serves the pages (and grades, unless `--jobs 0`) until SIGTERM.
async fn serve(args: &Args, state: Arc<State>, requeued: usize) -> Result<(), Fault> {
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .map_err(|err| Fault::Listen(format!("--listen {}: {err}", args.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|err| Fault::Listen(err.to_string()))?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let until_stopped = |mut stop: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stop.wait_for(|stop| *stop).await;
    };
    let grader = (args.jobs != Some(0)).then(|| {
        let stop = until_stopped(stop_rx.clone());
        tokio::spawn(crate::watchdog::run(Arc::clone(&state)));
        tokio::spawn(grading::work(Arc::clone(&state), stop))
    });
    if state.lti.is_some() {
        tokio::spawn(crate::lti::passback::run(Arc::clone(&state)));
    }
    tokio::spawn(crate::extensions::watch(Arc::clone(&state)));
    println!(
        "listening on http://{address} ({requeued} waiting to be graded); the instructor signs \
         in with the last link of --links"
    );
    let app = web::router(Arc::clone(&state));
    let signals = {
        let state = Arc::clone(&state);
        async move {
            stopped().await;
            eprintln!("{}", stopping_words(&state));
            state.stopping.store(true, Ordering::Relaxed);
            let _ = stop_tx.send(true);
        }
    };
    tokio::spawn(signals);
    let header_timeout = Duration::from_secs_f64(args.header_timeout);
    let patience = Duration::from_secs(60);
    crate::listen::serve(
        listener,
        app,
        header_timeout,
        until_stopped(stop_rx),
        patience,
    )
    .await;
    if let Some(grader) = grader {
        let _ = grader.await;
    }
    finish_in_flight(&state).await;
    Ok(())
}

/// `--worker`: grades from the queue until SIGTERM, then lets the gradings under way finish.
async fn work_only(state: Arc<State>, requeued: usize) -> Result<(), Fault> {
    println!("grading ({requeued} waiting to be graded)");
    if state.lti.is_some() {
        tokio::spawn(crate::lti::passback::run(Arc::clone(&state)));
    }
    tokio::spawn(crate::watchdog::run(Arc::clone(&state)));
    let words = Arc::clone(&state);
    grading::work(Arc::clone(&state), async move {
        stopped().await;
        eprintln!("{}", stopping_words(&words));
    })
    .await;
    finish_in_flight(&state).await;
    Ok(())
}

/// What the server says when it is asked to stop: whether a grading finishes first.
fn stopping_words(state: &State) -> String {
    match state.watch.in_flight() {
        0 => "stopping".into(),
        1 => "stopping: the submission being graded finishes first".into(),
        n => format!("stopping: the {n} submissions being graded finish first"),
    }
}

/// Waits for the gradings under way to record their results (each is bounded by its cases'
/// limits); past an hour the process stops anyway, and their jobs go back to the queue.
async fn finish_in_flight(state: &State) {
    let until = Instant::now() + Duration::from_secs(3600);
    while state.watch.in_flight() > 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// SIGTERM or Ctrl-C.
async fn stopped() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(term) => term,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// What `--links` or `--api-tokens` makes for each person.
#[derive(Clone, Copy)]
enum Credential<'a> {
    /// A login link at this base address (the earlier ones stop working, their sessions end).
    Link(&'a str),
    /// An API token (the earlier one stops working).
    ApiToken,
}

/// `--links` or `--api-tokens`: a CSV `id,name,link` (or `id,name,token`) of fresh links or
/// tokens, the instructor's last; `only` one of them.
async fn print_credentials(
    pool: &db::Db,
    course: &Course,
    made: Credential<'_>,
    only: Option<&str>,
) -> Result<(), Fault> {
    if let Some(id) = only {
        if id != "instructor" && course.student(id).is_none() {
            return Err(Fault::Course(format!(
                "--student: `{id}` is not on the roster"
            )));
        }
    }
    let make = |student: Option<String>| async move {
        Ok::<_, Fault>(match made {
            Credential::Link(base) => format!(
                "{}/login/{}",
                base.trim_end_matches('/'),
                auth::issue(pool, student.as_deref()).await?
            ),
            Credential::ApiToken => auth::issue_api(pool, student.as_deref()).await?,
        })
    };
    let mut writer = csv::Writer::from_writer(std::io::stdout());
    let column = match made {
        Credential::Link(_) => "link",
        Credential::ApiToken => "token",
    };
    writer.write_record(["id", "name", column])?;
    for student in &course.roster {
        if only.is_some_and(|id| id != student.id) {
            continue;
        }
        let value = make(Some(student.id.clone())).await?;
        // A name or id that begins like a formula is text in a spreadsheet, as in grades.csv.
        let (id, name) = (csv_text(&student.id), csv_text(&student.name));
        writer.write_record([&id, &name, &value])?;
    }
    if only.is_none_or(|id| id == "instructor") {
        writer.write_record(["instructor", "Instructor", &make(None).await?])?;
    }
    writer.flush().map_err(|err| Fault::Io(err.to_string()))
}
