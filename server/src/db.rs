//! The database: SQLite in the course's state folder (WAL, synchronous FULL: a committed write
//! survives a crash of the machine), the server's versioned migrations and the queue's (apalis
//! keeps its jobs in tables of its own, in the same file), and the queries the pages share.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use crate::course::Course;
use crate::Fault;

/// Opens (creating) the database at `path` and brings its tables up to date.
pub async fn open(path: &Path) -> Result<SqlitePool, Fault> {
    let fault = |err: &dyn std::fmt::Display| Fault::Database(format!("{}: {err}", path.display()));
    let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
        .map_err(|err| fault(&err))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(30));
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .connect_with(options)
        .await
        .map_err(|err| fault(&err))?;
    // Two migrators share one `_sqlx_migrations` table: each ignores the other's versions.
    let mut ours = sqlx::migrate!("./migrations");
    ours.set_ignore_missing(true);
    ours.run(&pool).await.map_err(|err| fault(&err))?;
    let mut queue = apalis_sqlite::SqliteStorage::<()>::migrations();
    queue.set_ignore_missing(true);
    queue.run(&pool).await.map_err(|err| fault(&err))?;
    Ok(pool)
}

/// Makes the students table the roster's: new students added, names and emails updated.
/// Students no longer on the roster keep their rows (and their submissions).
pub async fn sync_roster(pool: &SqlitePool, course: &Course) -> Result<(), Fault> {
    let mut tx = pool.begin().await.map_err(Fault::db)?;
    for student in &course.roster {
        sqlx::query(
            "INSERT INTO students (id, name, email) VALUES (?1, ?2, ?3)
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
