//! `cargo xtask serve --course DIR`: the course server. Students open their login link, hand
//! in their work in the browser (or by the JSON API) and watch it graded; the instructor sees
//! the class. One process: the web server, the database (SQLite in the course folder), and a
//! grading worker that takes submissions from the durable queue and grades them through the
//! harness, as `grade` does. On several machines: PostgreSQL (`--database`), one web server,
//! and any number of `--worker` processes that grade and share nothing but the database.
//!
//! The modules, from the top: [`web`] (routes, headers, logging in and out), [`pages`]
//! (the students'), [`class`] (the instructor's), [`api`], [`upload`] (taking work in),
//! [`auth`] (links, sessions, CSRF), [`grading`] (the queue's worker), [`queue`] (the jobs), [`state`] (what they
//! share, and the answers), [`store`] (uploads by hash, in the database), [`db`], [`course`] (the
//! course folder's files).

mod api;
mod auth;
mod class;
mod course;
mod db;
mod grading;
mod pages;
mod queue;
mod state;
mod store;
mod upload;
mod web;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

/// What stops the server before it serves, each with its exit status.
#[derive(Debug)]
pub enum Fault {
    /// `course.toml` or `roster.csv` (or a flag) is wrong: 2.
    Course(String),
    /// The database cannot be opened or written: 4.
    Database(String),
    /// A file of the server's state cannot be written: 4.
    Io(String),
    /// The listen address cannot be bound: 5.
    Listen(String),
    /// The harness could not be set up (its reference, its cases): 1.
    Harness(String),
}

impl Fault {
    pub fn db(err: sqlx::Error) -> Fault {
        Fault::Database(format!("the database: {err}"))
    }

    fn status(&self) -> u8 {
        match self {
            Fault::Course(_) => 2,
            Fault::Database(_) | Fault::Io(_) => 4,
            Fault::Listen(_) => 5,
            Fault::Harness(_) => 1,
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Course(m)
            | Fault::Database(m)
            | Fault::Io(m)
            | Fault::Listen(m)
            | Fault::Harness(m) => f.write_str(m),
        }
    }
}

/// The course server.
#[derive(Parser)]
#[command(
    name = "cargo xtask serve",
    about = "The course server: students hand in work in a browser, the instructor sees the class"
)]
struct Args {
    /// The course folder: course.toml, roster.csv, and the server's state (.gridjudge/).
    #[arg(long, value_name = "DIR")]
    course: PathBuf,
    /// The address to serve on (loopback by default; put a TLS proxy in front for a network).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: String,
    /// CPU seats for grading (cases run at once); 0: this server grades nothing.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write a commented course.toml and roster.csv into the course folder, and stop.
    #[arg(long)]
    init: bool,
    /// Print a CSV `id,name,link` of fresh login links (the earlier ones stop working), the
    /// instructor's last, and stop.
    #[arg(long)]
    links: bool,
    /// With --links: only this student's link (or `instructor`'s).
    #[arg(long, value_name = "ID", requires = "links")]
    student: Option<String>,
    /// Revoke the links of student ID (or `instructor`) and end their sessions, and stop.
    #[arg(long, value_name = "ID")]
    revoke: Option<String>,
    /// The address students reach the server at, for --links (default: http://LISTEN). An
    /// https address makes the session cookie Secure.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The largest upload taken, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 10)]
    max_upload: usize,
    /// The reference binary of the built-in specs (default: the bundled one, built).
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    /// The database: a PostgreSQL URL (`postgres://user@host/db`, or a Unix socket's folder
    /// as `postgres:///db?host=/run/postgresql`), shared by the web server and its workers.
    /// Default: SQLite in the course folder.
    #[arg(
        long,
        value_name = "URL",
        env = "GRIDJUDGE_DATABASE",
        hide_env_values = true
    )]
    database: Option<String>,
    /// Grade only, serving no pages: a worker beside a web server on the same database (any
    /// number of them, on any machine with the course folder's cases).
    #[arg(long, requires = "database", conflicts_with_all = ["links", "revoke", "init"])]
    worker: bool,
}

fn main() -> ExitCode {
    // Each grading worker's sandbox helper is this program too, as it is the harness's.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == xtask::sandbox::HELPER_ARG)
    {
        return xtask::sandbox::helper_main();
    }
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot start: {err}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(fault) => {
            eprintln!("error: {fault}");
            ExitCode::from(fault.status())
        }
    }
}

/// `--init`: the example files, never over existing ones.
fn init(dir: &Path) -> Result<(), Fault> {
    let files = [
        ("course.toml", course::EXAMPLE_COURSE),
        ("roster.csv", course::EXAMPLE_ROSTER),
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

/// The harness's options for `assignment`, made by `grade`'s own command line: the same
/// defaults as `cargo xtask grade`.
fn grade_options(
    args: &Args,
    assignment: &course::Assignment,
    work: &Path,
    state_dir: &Path,
) -> Result<xtask::grade::Options, Fault> {
    #[derive(Parser)]
    struct Grade {
        #[command(flatten)]
        grade: xtask::cli::GradeArgs,
    }
    let mut argv: Vec<std::ffi::OsString> = vec![
        "grade".into(),
        "--spec".into(),
        assignment.spec.clone().into(),
    ];
    argv.extend(["--submissions".into(), work.as_os_str().to_owned()]);
    // The course folder (roster, database, uploads) is what the students' programs must not see.
    argv.extend(["--out".into(), state_dir.as_os_str().to_owned()]);
    if let Some(jobs) = args.jobs.filter(|jobs| *jobs > 0) {
        argv.extend(["--jobs".into(), jobs.to_string().into()]);
    }
    if let Some(cases) = &assignment.cases {
        argv.extend(["--cases".into(), cases.as_os_str().to_owned()]);
    }
    if let Some(reference) = assignment.reference.as_ref().or(args.reference.as_ref()) {
        argv.extend(["--reference".into(), reference.as_os_str().to_owned()]);
    }
    if let Some(timeout) = assignment.timeout {
        argv.extend(["--timeout".into(), timeout.to_string().into()]);
    }
    let parsed = Grade::try_parse_from(&argv)
        .map_err(|err| Fault::Course(format!("assignment `{}`: {err}", assignment.name)))?;
    let mut options = parsed
        .grade
        .options()
        .map_err(|err| Fault::Harness(format!("assignment `{}`: {err}", assignment.name)))?;
    options.out = state_dir.to_path_buf();
    options.check.confine.protected.push(args.course.clone());
    Ok(options)
}

async fn run(args: Args) -> Result<(), Fault> {
    if args.init {
        return init(&args.course);
    }
    let dir = args
        .course
        .canonicalize()
        .map_err(|err| Fault::Course(format!("--course {}: {err}", args.course.display())))?;
    let course = course::Course::load(&dir)?;
    let state_dir = dir.join(".gridjudge");
    std::fs::create_dir_all(&state_dir)
        .map_err(|err| Fault::Io(format!("{}: {err}", state_dir.display())))?;
    let opened = db::open(args.database.as_deref(), &state_dir.join("course.db")).await?;
    let pool = opened.db.clone();
    if !args.worker {
        db::sync_roster(&pool, &course).await?;
    }
    let base_url = args
        .base_url
        .clone()
        .unwrap_or_else(|| format!("http://{}", args.listen));
    if args.links {
        return print_links(&pool, &course, &base_url, args.student.as_deref()).await;
    }
    if let Some(id) = &args.revoke {
        let student = (id != "instructor").then_some(id.as_str());
        if student.is_some_and(|id| course.student(id).is_none()) {
            return Err(Fault::Course(format!(
                "--revoke: `{id}` is not on the roster"
            )));
        }
        auth::revoke(&pool, student).await?;
        println!("revoked the links of {id}; their sessions are ended");
        return Ok(());
    }
    let work = grading::work_root(&dir);
    std::fs::create_dir_all(&work)
        .map_err(|err| Fault::Io(format!("{}: {err}", work.display())))?;
    let mut assignments = HashMap::new();
    let mut jobs = 1;
    for assignment in &course.assignments {
        let options = grade_options(&args, assignment, &work, &state_dir)?;
        jobs = options.check.jobs;
        let gradebook = xtask::grade::empty_gradebook(&options)
            .map_err(|err| Fault::Harness(format!("assignment `{}`: {err}", assignment.name)))?;
        assignments.insert(
            assignment.name.clone(),
            state::Graded {
                options,
                hidden: assignment.hidden.clone(),
                gradebook,
            },
        );
    }
    let state = Arc::new(state::State {
        queue: queue::queue(&opened.backend),
        db: pool,
        course,
        course_dir: dir.clone(),
        assignments,
        live: state::Live::default(),
        work,
        secure: base_url.starts_with("https://"),
        max_upload: args.max_upload << 20,
        stopping: std::sync::atomic::AtomicBool::new(false),
        in_flight: std::sync::atomic::AtomicUsize::new(0),
        seats: xtask::process::SharedSeats::new(jobs),
    });
    let requeued = grading::requeue_unfinished(&state).await?;
    if args.worker {
        return work_only(state, requeued).await;
    }
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .map_err(|err| Fault::Listen(format!("--listen {}: {err}", args.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|err| Fault::Listen(err.to_string()))?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let grader = match args.jobs {
        Some(0) => None,
        _ => {
            let mut stop = stop_rx.clone();
            let state = Arc::clone(&state);
            Some(tokio::spawn(grading::work(state, async move {
                let _ = stop.wait_for(|stop| *stop).await;
            })))
        }
    };
    println!(
        "listening on http://{address} ({} waiting to be graded)",
        requeued
    );
    let app = web::router(Arc::clone(&state));
    let mut stop = stop_rx.clone();
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        let _ = stop.wait_for(|stop| *stop).await;
    });
    let signals = {
        let state = Arc::clone(&state);
        async move {
            stopped().await;
            eprintln!("stopping: the submission being graded finishes first");
            state
                .stopping
                .store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = stop_tx.send(true);
        }
    };
    tokio::spawn(signals);
    served.await.map_err(|err| Fault::Listen(err.to_string()))?;
    if let Some(grader) = grader {
        let _ = grader.await;
    }
    finish_in_flight(&state).await;
    Ok(())
}

/// `--worker`: grades from the queue until SIGTERM, then lets the gradings under way finish.
async fn work_only(state: Arc<state::State>, requeued: usize) -> Result<(), Fault> {
    println!("grading ({requeued} waiting to be graded)");
    grading::work(Arc::clone(&state), async {
        stopped().await;
        eprintln!("stopping: the submission being graded finishes first");
    })
    .await;
    finish_in_flight(&state).await;
    Ok(())
}

/// Waits for the gradings under way to record their results (each is bounded by its cases'
/// limits); past an hour the process stops anyway, and their jobs go back to the queue.
async fn finish_in_flight(state: &state::State) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(3600);
    while state.in_flight.load(std::sync::atomic::Ordering::SeqCst) > 0
        && std::time::Instant::now() < until
    {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
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

async fn print_links(
    pool: &crate::db::Db,
    course: &course::Course,
    base_url: &str,
    only: Option<&str>,
) -> Result<(), Fault> {
    if let Some(id) = only {
        if id != "instructor" && course.student(id).is_none() {
            return Err(Fault::Course(format!(
                "--student: `{id}` is not on the roster"
            )));
        }
    }
    let mut writer = csv::Writer::from_writer(std::io::stdout());
    let base = base_url.trim_end_matches('/');
    let fault = |err: csv::Error| Fault::Io(err.to_string());
    writer.write_record(["id", "name", "link"]).map_err(fault)?;
    for student in &course.roster {
        if only.is_some_and(|id| id != student.id) {
            continue;
        }
        let token = auth::issue(pool, Some(&student.id)).await?;
        writer
            .write_record([&student.id, &student.name, &format!("{base}/login/{token}")])
            .map_err(fault)?;
    }
    if only.is_none_or(|id| id == "instructor") {
        let token = auth::issue(pool, None).await?;
        writer
            .write_record(["instructor", "Instructor", &format!("{base}/login/{token}")])
            .map_err(fault)?;
    }
    writer.flush().map_err(|err| Fault::Io(err.to_string()))
}
