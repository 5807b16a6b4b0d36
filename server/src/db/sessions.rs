//! The `tokens`, `sessions` and `login_failures` tables: login links (only their SHA-256
//! kept), the sessions they open, and the failed logins the guessing limit counts.

use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// Stores a fresh link token's `hash` for `student` (none: the instructor), revoking the
/// earlier ones.
pub async fn issue(pool: &Db, student: Option<&str>, hash: &str) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    revoke_in(&mut tx, student).await?;
    sqlx::query("INSERT INTO tokens (hash, student, created_at) VALUES ($1, $2, $3)")
        .bind(hash)
        .bind(student)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Stores a token for a launch from the LMS, for `student` (none: an instructor), beside the
/// links and the other launches' tokens (none is revoked).
pub async fn issue_beside(pool: &Db, student: Option<&str>, hash: &str) -> Result<(), Fault> {
    sqlx::query("INSERT INTO tokens (hash, student, created_at) VALUES ($1, $2, $3)")
        .bind(hash)
        .bind(student)
        .bind(now())
        .execute(pool)
        .await?;
    Ok(())
}

/// Revokes every token of `student` (none: the instructor's) and ends their sessions.
pub async fn revoke(pool: &Db, student: Option<&str>) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    revoke_in(&mut tx, student).await?;
    tx.commit().await?;
    Ok(())
}

async fn revoke_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    student: Option<&str>,
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
    Ok(())
}

/// Whose the live token stored as `hash` is: `Some(None)` for the instructor's,
/// `Some(Some(id))` for a student's.
pub async fn token_owner(pool: &Db, hash: &str) -> Result<Option<Option<String>>, Fault> {
    let row = sqlx::query("SELECT student FROM tokens WHERE hash = $1 AND revoked_at IS NULL")
        .bind(hash)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|row| row.get::<Option<String>, _>(0)))
}

/// The failed logins from `addr` since `since`; one more recorded first when `failed`.
pub async fn failures(pool: &Db, addr: &str, failed: bool, since: i64) -> Result<i64, Fault> {
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
/// CSRF token its forms carry.
pub async fn open(pool: &Db, hash: &str, token_hash: &str, csrf: &str) -> Result<(), Fault> {
    sqlx::query("INSERT INTO sessions (hash, token, csrf, created_at) VALUES ($1, $2, $3, $4)")
        .bind(hash)
        .bind(token_hash)
        .bind(csrf)
        .bind(now())
        .execute(pool)
        .await?;
    Ok(())
}

/// The live session stored as `hash`, opened after `since`: whose it is (none: the
/// instructor's), its CSRF token, and the student's name.
pub async fn live(
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
pub async fn end(pool: &Db, hash: Option<&str>) -> Result<(), Fault> {
    sqlx::query("UPDATE sessions SET ended_at = $1 WHERE hash = $2")
        .bind(now())
        .bind(hash)
        .execute(pool)
        .await?;
    Ok(())
}
