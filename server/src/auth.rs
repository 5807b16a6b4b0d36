//! Who is asking: login links (random 128-bit tokens, only their SHA-256 stored), the session a
//! link opens (a fresh random id in an HttpOnly, SameSite=Strict cookie, Secure behind TLS), the
//! CSRF token every form carries, bearer tokens for the API, and the rate limit on guessing.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use sha2::{Digest, Sha256};
use sqlx::Row;

use crate::db::Db;

use crate::db::now;
use crate::state::{Reply, State};
use crate::Fault;

pub const COOKIE: &str = "gj_session";

/// Failed logins from one address allowed per [`WINDOW`] seconds.
pub const FAILURES_ALLOWED: i64 = 10;
pub const WINDOW: i64 = 600;

/// A random 128-bit token in hex, and the hash that is kept of it.
pub fn new_token() -> (String, String) {
    let mut bytes = [0u8; 16];
    // The kernel's random source; there is no token without it.
    getrandom::fill(&mut bytes).expect("the kernel's random source");
    let token = xtask::files::to_hex(&bytes);
    let hash = hash(&token);
    (token, hash)
}

pub fn hash(token: &str) -> String {
    xtask::files::to_hex(&Sha256::digest(token.as_bytes()))
}

/// Compares two secrets in time that does not depend on where they differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Issues a fresh link token for `student` (none: the instructor), revoking the earlier ones.
pub async fn issue(pool: &Db, student: Option<&str>) -> Result<String, Fault> {
    let (token, hash) = new_token();
    let mut tx = pool.begin().await.map_err(Fault::db)?;
    revoke_in(&mut tx, student).await?;
    sqlx::query("INSERT INTO tokens (hash, student, created_at) VALUES ($1, $2, $3)")
        .bind(&hash)
        .bind(student)
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(Fault::db)?;
    tx.commit().await.map_err(Fault::db)?;
    Ok(token)
}

/// Revokes every token of `student` (none: the instructor's) and ends their sessions.
pub async fn revoke(pool: &Db, student: Option<&str>) -> Result<(), Fault> {
    let mut tx = pool.begin().await.map_err(Fault::db)?;
    revoke_in(&mut tx, student).await?;
    tx.commit().await.map_err(Fault::db)
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
    .await
    .map_err(Fault::db)?;
    sqlx::query("UPDATE tokens SET revoked_at = $1 WHERE revoked_at IS NULL AND student IS NOT DISTINCT FROM $2")
        .bind(at)
        .bind(student)
        .execute(&mut **tx)
        .await
        .map_err(Fault::db)?;
    Ok(())
}

/// Whose a live token is: `Some(None)` for the instructor's, `Some(Some(id))` for a student's.
pub async fn token_owner(pool: &Db, token: &str) -> Result<Option<Option<String>>, Fault> {
    let row = sqlx::query("SELECT student FROM tokens WHERE hash = $1 AND revoked_at IS NULL")
        .bind(hash(token))
        .fetch_optional(pool)
        .await
        .map_err(Fault::db)?;
    Ok(row.map(|row| row.get::<Option<String>, _>(0)))
}

/// Whether `addr` has used up its failed logins; records a failure when `failed`.
pub async fn limited(pool: &Db, addr: &str, failed: bool) -> Result<bool, Fault> {
    if failed {
        sqlx::query("INSERT INTO login_failures (addr, at) VALUES ($1, $2)")
            .bind(addr)
            .bind(now())
            .execute(pool)
            .await
            .map_err(Fault::db)?;
    }
    let count: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM login_failures WHERE addr = $1 AND at > $2")
            .bind(addr)
            .bind(now() - WINDOW)
            .fetch_one(pool)
            .await
            .map_err(Fault::db)?;
    Ok(count >= FAILURES_ALLOWED)
}

/// Opens a session for the live token `token_hash`: its cookie value and CSRF token.
pub async fn open_session(pool: &Db, token_hash: &str) -> Result<String, Fault> {
    let (session, session_hash) = new_token();
    let (csrf, _) = new_token();
    sqlx::query("INSERT INTO sessions (hash, token, csrf, created_at) VALUES ($1, $2, $3, $4)")
        .bind(session_hash)
        .bind(token_hash)
        .bind(csrf)
        .bind(now())
        .execute(pool)
        .await
        .map_err(Fault::db)?;
    Ok(session)
}

/// The cookie that carries `session`.
pub fn cookie(session: &str, secure: bool) -> String {
    format!(
        "{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict; Max-Age=15552000{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The cookie that ends a session in the browser.
pub fn cleared(secure: bool) -> String {
    format!(
        "{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{}",
        if secure { "; Secure" } else { "" }
    )
}

/// Someone signed in by a session cookie, or by a bearer token (the API).
#[derive(Debug, Clone)]
pub struct Who {
    /// The student, or none for the instructor.
    pub student: Option<String>,
    /// The CSRF token of the session; none for a bearer token (no cookie, no CSRF).
    pub csrf: Option<String>,
    pub session: Option<String>,
}

impl Who {
    pub fn instructor(&self) -> bool {
        self.student.is_none()
    }
}

fn cookie_value(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string())
}

impl FromRequestParts<Arc<State>> for Who {
    type Rejection = Reply;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<State>) -> Result<Who, Reply> {
        let pool = &state.db;
        let bearer = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim);
        if let Some(token) = bearer {
            return match token_owner(pool, token).await? {
                Some(student) => Ok(Who {
                    student,
                    csrf: None,
                    session: None,
                }),
                None => Err(Reply::Status(
                    StatusCode::UNAUTHORIZED,
                    "that token is not a live one".into(),
                )),
            };
        }
        let Some(session) = cookie_value(parts) else {
            return Err(Reply::SignIn);
        };
        let row = sqlx::query(
            "SELECT tokens.student, sessions.csrf FROM sessions JOIN tokens ON sessions.token = tokens.hash
             WHERE sessions.hash = $1 AND sessions.ended_at IS NULL AND tokens.revoked_at IS NULL",
        )
        .bind(hash(&session))
        .fetch_optional(pool)
        .await
        .map_err(Fault::db)?;
        match row {
            Some(row) => Ok(Who {
                student: row.get(0),
                csrf: Some(row.get(1)),
                session: Some(hash(&session)),
            }),
            None => Err(Reply::SignIn),
        }
    }
}

/// A form that carries only its CSRF token (sign out, regrade).
#[derive(serde::Deserialize)]
pub struct CsrfForm {
    pub csrf: String,
}

/// Refuses a form whose CSRF token is not its session's.
pub fn check_csrf(who: &Who, given: &str) -> Result<(), Reply> {
    match &who.csrf {
        Some(csrf) if same(csrf, given) => Ok(()),
        _ => Err(Reply::Status(
            StatusCode::FORBIDDEN,
            "The form is stale or forged (its CSRF token is not this session's): reload the page."
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_random_bits_and_kept_hashed() {
        let (a, hash_a) = new_token();
        let (b, _) = new_token();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(hash_a, hash(&a));
        assert_ne!(hash_a, a);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }
}
