//! Opening the database: SQLite in the course's state folder (WAL, synchronous FULL: a committed write
//! survives a crash of the machine), or PostgreSQL (`--database postgres://...`) for a course
//! served by several machines. Every query of the server is written once, for both, through
//! sqlx's `any` driver (`$N` placeholders, 64-bit integers, no function either lacks); each
//! database keeps its own migrations and its own pool for the queue (apalis's SQLite or
//! PostgreSQL backend). On PostgreSQL the queue is in the course's database; on SQLite it is a
//! file of its own beside it, `queue.db`: SQLite writes one transaction at a time per file, and
//! when a worker stops, apalis lets the gradings under way finish without driving the
//! transaction its poll may have begun, which then holds the file's write lock until they
//! have ended. In the course's file, that lock kept those gradings from recording their
//! results; in its own, it holds back only the queue.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{AnyPool, PgPool, SqlitePool};

use crate::error::Fault;

/// The pool every query of the server goes through.
pub(crate) type Db = AnyPool;

/// The pool of the queue's database, in its own driver: on SQLite the queue's own file, on
/// PostgreSQL the course's database (whose migrations it also runs).
#[derive(Clone)]
pub(crate) enum Backend {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// An open database: the pool for queries and the queue's.
pub(crate) struct Opened {
    pub(crate) db: Db,
    pub(crate) backend: Backend,
}

/// How long a connection is waited for, and a query for a lock: a database restarting is
/// waited for this long before a request fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// Opens the database: `url` (`postgres://...`) when given, else SQLite at `path` (created);
/// brings its tables up to date.
pub(crate) async fn open(url: Option<&str>, path: &Path) -> Result<Opened, Fault> {
    sqlx::any::install_default_drivers();
    match url {
        Some(url) => open_postgres(url).await,
        None => open_sqlite(path).await,
    }
}

/// A pool of SQLite connections to the file at `path` (made if missing), in WAL mode with
/// synchronous FULL.
async fn sqlite_pool(path: &Path, most: u32) -> Result<SqlitePool, Fault> {
    let fault = |err: &dyn std::fmt::Display| Fault::Database(format!("{}: {err}", path.display()));
    let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
        .map_err(|err| fault(&err))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(PATIENCE);
    SqlitePoolOptions::new()
        .max_connections(most)
        .connect_with(options)
        .await
        .map_err(|err| fault(&err))
}

async fn open_sqlite(path: &Path) -> Result<Opened, Fault> {
    let fault = |err: &dyn std::fmt::Display| Fault::Database(format!("{}: {err}", path.display()));
    let url = format!("sqlite://{}", path.display());
    let own = sqlite_pool(path, 1).await?;
    // A course from before the queue had a file of its own keeps apalis's versions in this
    // `_sqlx_migrations` table, and its tables unused: ours ignores the versions it lacks.
    let mut ours = sqlx::migrate!("./migrations/sqlite");
    ours.set_ignore_missing(true);
    ours.run(&own).await.map_err(|err| fault(&err))?;
    own.close().await;
    // The queue's file, beside the course's (its jobs are made again at every start from the
    // submissions not graded yet: a new file loses none).
    let queue_path = path.with_file_name("queue.db");
    let queue_pool = sqlite_pool(&queue_path, 4).await?;
    apalis_sqlite::SqliteStorage::<()>::migrations()
        .run(&queue_pool)
        .await
        .map_err(|err| Fault::Database(format!("{}: {err}", queue_path.display())))?;
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
        backend: Backend::Sqlite(queue_pool),
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

/// Seconds since the epoch: how the database keeps every time.
pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    /// A column as both databases must agree on it: its kind of value, and its constraints.
    type Columns = BTreeMap<String, Vec<String>>;

    /// The tables and indexes the migrations in `folder` make (`CREATE TABLE`, `ALTER TABLE
    /// ... ADD COLUMN`, `CREATE [UNIQUE] INDEX`): each table's columns, by name,
    /// with the kind of their type (64-bit integers, text, floats, bytes) and their
    /// constraints; each `CREATE INDEX` as written.
    fn schema(folder: &str) -> (BTreeMap<String, Columns>, Vec<String>) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        let (mut tables, mut indexes) = (BTreeMap::new(), Vec::new());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let code: String = text
                .lines()
                .map(|line| line.split("--").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join(" ");
            for statement in code.split(';').map(str::trim) {
                if statement.starts_with("CREATE INDEX")
                    || statement.starts_with("CREATE UNIQUE INDEX")
                {
                    indexes.push(statement.split_whitespace().collect::<Vec<_>>().join(" "));
                } else if let Some(rest) = statement.strip_prefix("CREATE TABLE ") {
                    let (name, body) = rest.split_once('(').unwrap();
                    let body = body.trim().strip_suffix(')').unwrap();
                    tables.insert(name.trim().to_string(), columns(body));
                } else if let Some(rest) = statement.strip_prefix("ALTER TABLE ") {
                    let (name, column) = rest.split_once(" ADD COLUMN ").unwrap();
                    let table: &mut Columns = tables.get_mut(name.trim()).unwrap();
                    table.extend(columns(column));
                } else {
                    assert!(statement.is_empty(), "{}: `{statement}`", file.display());
                }
            }
        }
        (tables, indexes)
    }

    /// The columns of a table's body, its top-level commas splitting them.
    fn columns(body: &str) -> Columns {
        let (mut parts, mut depth, mut part) = (Vec::new(), 0, String::new());
        for c in body.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut part));
                    continue;
                }
                _ => {}
            }
            part.push(c);
        }
        parts.push(part);
        parts
            .iter()
            .map(|part| {
                let words: Vec<String> = part.split_whitespace().map(str::to_uppercase).collect();
                let kind = match words.get(1).map(String::as_str) {
                    Some("INTEGER" | "BIGINT") => "integer",
                    Some("TEXT") => "text",
                    Some("REAL" | "DOUBLE") => "float",
                    Some("BLOB" | "BYTEA") => "bytes",
                    _ => "constraint",
                };
                // Both ways of numbering rows by themselves are one fact.
                let rest = words[1..]
                    .join(" ")
                    .replace("GENERATED BY DEFAULT AS IDENTITY", "AUTOINCREMENT");
                let mut facts = vec![kind.to_string()];
                for fact in [
                    "NOT NULL",
                    "PRIMARY KEY",
                    "REFERENCES",
                    "DEFAULT",
                    "AUTOINCREMENT",
                ] {
                    if rest.contains(fact) {
                        facts.push(fact.to_string());
                    }
                }
                if let Some(at) = rest.find("REFERENCES") {
                    facts.push(rest[at..].replace(' ', ""));
                }
                (
                    words.join(" ").split(' ').next().unwrap().to_string(),
                    facts,
                )
            })
            .collect()
    }

    #[test]
    fn both_databases_make_the_same_tables_and_columns() {
        let (sqlite, sqlite_indexes) = schema("migrations/sqlite");
        let (postgres, postgres_indexes) = schema("migrations/postgres");
        assert!(sqlite.len() >= 10, "too few tables read: {sqlite:?}");
        assert_eq!(
            sqlite.keys().collect::<Vec<_>>(),
            postgres.keys().collect::<Vec<_>>()
        );
        for (table, columns) in &sqlite {
            assert_eq!(columns, &postgres[table], "table `{table}`");
        }
        assert_eq!(sqlite_indexes, postgres_indexes);
    }

    #[test]
    fn a_column_that_differs_is_told() {
        let sqlite = super::tests::columns("id TEXT PRIMARY KEY, n INTEGER NOT NULL");
        let postgres = super::tests::columns("id TEXT PRIMARY KEY, n BIGINT");
        assert_ne!(sqlite, postgres);
        let same = super::tests::columns("id TEXT PRIMARY KEY, n BIGINT NOT NULL");
        assert_eq!(sqlite, same);
    }
}
