//! The `tokens`, `sessions` and `login_failures` tables: login links (only their SHA-256
//! kept, each used once), the sessions they open (with the browser each lives in), and the
//! failed logins the guessing limit counts.

use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// Stores a fresh link token's `hash` for `student` (none: the instructor), revoking the
/// earlier ones.
pub(crate) async fn issue(pool: &Db, student: Option<&str>, hash: &str) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    revoke_in(&mut tx, student, false).await?;
    sqlx::query("INSERT INTO tokens (hash, student, created_at) VALUES ($1, $2, $3)")
        .bind(hash)
        .bind(student)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Stores a token for `student` (none: an instructor) beside the links and tokens they have
/// (none is revoked): a launch from the LMS's, `spent` at once, or a link for another device.
pub(crate) async fn issue_beside(
    pool: &Db,
    student: Option<&str>,
    hash: &str,
    spent: bool,
) -> Result<(), Fault> {
    let at = now();
    sqlx::query("INSERT INTO tokens (hash, student, created_at, used_at) VALUES ($1, $2, $3, $4)")
        .bind(hash)
        .bind(student)
        .bind(at)
        .bind(spent.then_some(at))
        .execute(pool)
        .await?;
    Ok(())
}

/// Revokes every link and API token of `student` (none: the instructor's) and ends their
/// sessions.
pub(crate) async fn revoke(pool: &Db, student: Option<&str>) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    revoke_in(&mut tx, student, true).await?;
    tx.commit().await?;
    Ok(())
}

/// Revokes `student`'s links, ending the sessions they opened, and, `with_api`, their API
/// token.
async fn revoke_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    student: Option<&str>,
    with_api: bool,
) -> Result<(), Fault> {
    let at = now();
    sqlx::query(
        "UPDATE sessions SET ended_at = $1 WHERE ended_at IS NULL AND token IN
         (SELECT hash FROM tokens WHERE student IS NOT DISTINCT FROM $2)",
    )
    .bind(at)
    .bind(student)
    .execute(&mut **tx)
    .await?;
    sqlx::query("UPDATE tokens SET revoked_at = $1 WHERE revoked_at IS NULL AND student IS NOT DISTINCT FROM $2")
        .bind(at)
        .bind(student)
        .execute(&mut **tx)
        .await?;
    if with_api {
        sqlx::query("UPDATE api_tokens SET revoked_at = $1 WHERE revoked_at IS NULL AND student IS NOT DISTINCT FROM $2")
            .bind(at)
            .bind(student)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// What a login link is: live (whose: `None` for the instructor's), spent, or none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Link {
    Live(Option<String>),
    Spent,
    Unknown,
}

/// What the link stored as `hash` is (a revoked one is none).
pub(crate) async fn link(pool: &Db, hash: &str) -> Result<Link, Fault> {
    let row =
        sqlx::query("SELECT student, used_at FROM tokens WHERE hash = $1 AND revoked_at IS NULL")
            .bind(hash)
            .fetch_optional(pool)
            .await?;
    Ok(match row {
        None => Link::Unknown,
        Some(row) if row.get::<Option<i64>, _>(1).is_some() => Link::Spent,
        Some(row) => Link::Live(row.get(0)),
    })
}

/// Spends the live link stored as `hash`, once: whose it was, or none where it was not live
/// (two tabs opening one link: one of them signs in).
pub(crate) async fn spend(pool: &Db, hash: &str) -> Result<Option<Option<String>>, Fault> {
    let row = sqlx::query(
        "UPDATE tokens SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND revoked_at IS NULL
         RETURNING student",
    )
    .bind(now())
    .bind(hash)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| row.get::<Option<String>, _>(0)))
}

/// The failed logins from `addr` since `since`; one more recorded first when `failed`.
pub(crate) async fn failures(
    pool: &Db,
    addr: &str,
    failed: bool,
    since: i64,
) -> Result<i64, Fault> {
    if failed {
        sqlx::query("INSERT INTO login_failures (addr, at) VALUES ($1, $2)")
            .bind(addr)
            .bind(now())
            .execute(pool)
            .await?;
    }
    let count =
        sqlx::query_scalar("SELECT COUNT(*) FROM login_failures WHERE addr = $1 AND at > $2")
            .bind(addr)
            .bind(since)
            .fetch_one(pool)
            .await?;
    Ok(count)
}

/// Stores a session (its id's `hash`) opened by the token stored as `token_hash`, with the
/// CSRF token its forms carry and the hash of the browser's id.
pub(crate) async fn open(
    pool: &Db,
    hash: &str,
    token_hash: &str,
    csrf: &str,
    browser: &str,
) -> Result<(), Fault> {
    sqlx::query(
        "INSERT INTO sessions (hash, token, csrf, created_at, browser) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(hash)
    .bind(token_hash)
    .bind(csrf)
    .bind(now())
    .bind(browser)
    .execute(pool)
    .await?;
    Ok(())
}

/// The live session, opened after `since`, of the browser whose id is stored as `browser`:
/// whose it is (none: the instructor's), the student's name, and its CSRF token.
pub(crate) async fn in_browser(
    pool: &Db,
    browser: &str,
    since: i64,
) -> Result<Option<(Option<String>, Option<String>, String)>, Fault> {
    let row = sqlx::query(
        "SELECT tokens.student, students.name, sessions.csrf FROM sessions
         JOIN tokens ON sessions.token = tokens.hash
         LEFT JOIN students ON students.id = tokens.student
         WHERE sessions.browser = $1 AND sessions.ended_at IS NULL AND tokens.revoked_at IS NULL
         AND sessions.created_at > $2
         ORDER BY sessions.created_at DESC LIMIT 1",
    )
    .bind(browser)
    .bind(since)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| (row.get(0), row.get(1), row.get(2))))
}

/// Ends every session of the browser whose id is stored as `browser`.
pub(crate) async fn end_browser(pool: &Db, browser: &str) -> Result<(), Fault> {
    sqlx::query("UPDATE sessions SET ended_at = $1 WHERE browser = $2 AND ended_at IS NULL")
        .bind(now())
        .bind(browser)
        .execute(pool)
        .await?;
    Ok(())
}

/// The live session stored as `hash`, opened after `since`: whose it is (none: the
/// instructor's), its CSRF token, and the student's name.
pub(crate) async fn live(
    pool: &Db,
    hash: &str,
    since: i64,
) -> Result<Option<(Option<String>, String, Option<String>)>, Fault> {
    let row = sqlx::query(
        "SELECT tokens.student, sessions.csrf, students.name FROM sessions
         JOIN tokens ON sessions.token = tokens.hash
         LEFT JOIN students ON students.id = tokens.student
         WHERE sessions.hash = $1 AND sessions.ended_at IS NULL AND tokens.revoked_at IS NULL
         AND sessions.created_at > $2",
    )
    .bind(hash)
    .bind(since)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| (row.get(0), row.get(1), row.get(2))))
}

/// Ends the session stored as `hash`.
pub(crate) async fn end(pool: &Db, hash: Option<&str>) -> Result<(), Fault> {
    sqlx::query("UPDATE sessions SET ended_at = $1 WHERE hash = $2")
        .bind(now())
        .bind(hash)
        .execute(pool)
        .await?;
    Ok(())
}
