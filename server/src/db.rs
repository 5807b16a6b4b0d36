//! The database: SQLite in the course's state folder (WAL, synchronous FULL: a committed write
//! survives a crash of the machine), or PostgreSQL (`--database postgres://...`) for a course
//! served by several machines. Every query of the server is written once, for both, through
//! sqlx's `any` driver (`$N` placeholders, 64-bit integers, no function either lacks); each
//! database keeps its own migrations and its own pool for the queue (apalis's SQLite or
//! PostgreSQL backend, in the same database).

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{AnyPool, PgPool, SqlitePool};

use crate::course::Course;
use crate::Fault;

/// The pool every query of the server goes through.
pub type Db = AnyPool;

/// The database's own pool, for its migrations and the queue.
#[derive(Clone)]
pub enum Backend {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// An open database: the pool for queries and the database's own.
pub struct Opened {
    pub db: Db,
    pub backend: Backend,
}

/// How long a connection is waited for, and a query for a lock: a database restarting is
/// waited for this long before a request fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// Opens the database: `url` (`postgres://...`) when given, else SQLite at `path` (created);
/// brings its tables up to date.
pub async fn open(url: Option<&str>, path: &Path) -> Result<Opened, Fault> {
    sqlx::any::install_default_drivers();
    match url {
        Some(url) => open_postgres(url).await,
        None => open_sqlite(path).await,
    }
}

async fn open_sqlite(path: &Path) -> Result<Opened, Fault> {
    let fault = |err: &dyn std::fmt::Display| Fault::Database(format!("{}: {err}", path.display()));
    let url = format!("sqlite://{}", path.display());
    let options = SqliteConnectOptions::from_str(&url)
        .map_err(|err| fault(&err))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(PATIENCE);
    let own = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await
        .map_err(|err| fault(&err))?;
    // Two migrators share one `_sqlx_migrations` table: each ignores the other's versions.
    let mut ours = sqlx::migrate!("./migrations/sqlite");
    ours.set_ignore_missing(true);
    ours.run(&own).await.map_err(|err| fault(&err))?;
    let mut queue = apalis_sqlite::SqliteStorage::<()>::migrations();
    queue.set_ignore_missing(true);
    queue.run(&own).await.map_err(|err| fault(&err))?;
    // The queries' pool: the same settings on every connection it opens.
    let db = AnyPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(PATIENCE)
        .after_connect(|connection, _| {
            Box::pin(async move {
                use sqlx::Executor;
                connection
                    .execute(
                        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
                         PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 30000;",
                    )
                    .await
                    .map(|_| ())
            })
        })
        .connect(&url)
        .await
        .map_err(|err| fault(&err))?;
    Ok(Opened {
        db,
        backend: Backend::Sqlite(own),
    })
}

async fn open_postgres(url: &str) -> Result<Opened, Fault> {
    // The URL may hold a password: messages name the database by its host and name only.
    let options = PgConnectOptions::from_str(url)
        .map_err(|err| Fault::Database(format!("--database: {err}")))?;
    let name = format!(
        "the database {} on {}",
        options.get_database().unwrap_or("(default)"),
        options.get_host()
    );
    let fault = |err: &dyn std::fmt::Display| Fault::Database(format!("{name}: {err}"));
    let own = PgPoolOptions::new()
        .max_connections(4)
        .acquire_timeout(PATIENCE)
        .connect_with(options)
        .await
        .map_err(|err| fault(&err))?;
    let mut ours = sqlx::migrate!("./migrations/postgres");
    ours.set_ignore_missing(true);
    ours.run(&own).await.map_err(|err| fault(&err))?;
    let mut queue = apalis_postgres::PostgresStorage::<()>::migrations();
    queue.set_ignore_missing(true);
    queue.run(&own).await.map_err(|err| fault(&err))?;
    let db = AnyPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(PATIENCE)
        .connect(url)
        .await
        .map_err(|err| fault(&err))?;
    Ok(Opened {
        db,
        backend: Backend::Postgres(own),
    })
}

/// Makes the students table the roster's: new students added, names and emails updated.
/// Students no longer on the roster keep their rows (and their submissions).
pub async fn sync_roster(pool: &Db, course: &Course) -> Result<(), Fault> {
    let mut tx = pool.begin().await.map_err(Fault::db)?;
    for student in &course.roster {
        sqlx::query(
            "INSERT INTO students (id, name, email) VALUES ($1, $2, $3)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email",
        )
        .bind(&student.id)
        .bind(&student.name)
        .bind(&student.email)
        .execute(&mut *tx)
        .await
        .map_err(Fault::db)?;
    }
    tx.commit().await.map_err(Fault::db)?;
    Ok(())
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}
