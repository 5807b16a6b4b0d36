//! The `api_tokens` table: the bearer tokens of the JSON API, apart from the login links (a
//! link signs in once; a token is for scripts). One live token per person (none: the
//! instructor), only its SHA-256 kept; making a new one revokes the earlier one.

use sqlx::Row;

use super::{now, Db};
use crate::error::Fault;

/// Stores a fresh token's `hash` for `student`, revoking their earlier one.
pub(crate) async fn issue(pool: &Db, student: Option<&str>, hash: &str) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    let at = now();
    sqlx::query(
        "UPDATE api_tokens SET revoked_at = $1 WHERE revoked_at IS NULL
         AND student IS NOT DISTINCT FROM $2",
    )
    .bind(at)
    .bind(student)
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO api_tokens (hash, student, created_at) VALUES ($1, $2, $3)")
        .bind(hash)
        .bind(student)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Revokes `student`'s live token, if any.
pub(crate) async fn revoke(pool: &Db, student: Option<&str>) -> Result<(), Fault> {
    sqlx::query(
        "UPDATE api_tokens SET revoked_at = $1 WHERE revoked_at IS NULL
         AND student IS NOT DISTINCT FROM $2",
    )
    .bind(now())
    .bind(student)
    .execute(pool)
    .await?;
    Ok(())
}

/// Whose the live token stored as `hash` is: `Some(None)` for the instructor's.
pub(crate) async fn owner(pool: &Db, hash: &str) -> Result<Option<Option<String>>, Fault> {
    let row = sqlx::query("SELECT student FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL")
        .bind(hash)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|row| row.get::<Option<String>, _>(0)))
}

/// When `student`'s live token was made, if they have one.
pub(crate) async fn made(pool: &Db, student: Option<&str>) -> Result<Option<i64>, Fault> {
    let row = sqlx::query(
        "SELECT created_at FROM api_tokens WHERE revoked_at IS NULL
         AND student IS NOT DISTINCT FROM $1",
    )
    .bind(student)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| row.get(0)))
}
