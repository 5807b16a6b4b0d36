//! Who is asking: login links (random 128-bit tokens, only their SHA-256 stored, each spent by
//! the session it opens), the session a link opens (a fresh random id in an HttpOnly,
//! SameSite=Strict cookie, Secure behind TLS, and a browser id in a Lax one, so that a link
//! opened from another site still sees whose session the browser holds), the CSRF token every
//! form carries, the API's bearer tokens (their own, revocable), and the rate limit on
//! guessing.

use axum::http::StatusCode;
use sha2::{Digest, Sha256};

use crate::db::{api_tokens, now, sessions, Db};
use crate::error::{Fault, Reply};

pub(crate) const COOKIE: &str = "gj_session";

/// The browser's id: no credential (it opens nothing), only which session a browser holds.
pub(crate) const BROWSER: &str = "gj_browser";

/// Failed logins from one address allowed per [`WINDOW`] seconds.
pub(crate) const FAILURES_ALLOWED: i64 = 10;
pub(crate) const WINDOW: i64 = 600;

/// How long a session lasts at most: a term (about four months), then the link signs in again.
pub(crate) const TERM: i64 = 120 * 24 * 3600;

/// A random 128-bit token in hex, and the hash that is kept of it.
pub(crate) fn new_token() -> (String, String) {
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
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Issues a fresh link token for `student` (none: the instructor), revoking the earlier ones.
pub(crate) async fn issue(pool: &Db, student: Option<&str>) -> Result<String, Fault> {
    let (token, hash) = new_token();
    sessions::issue(pool, student, &hash).await?;
    Ok(token)
}

/// Revokes every token of `student` (none: the instructor's) and ends their sessions.
pub(crate) async fn revoke(pool: &Db, student: Option<&str>) -> Result<(), Fault> {
    sessions::revoke(pool, student).await
}

/// Whose a live API token is: `Some(None)` for the instructor's, `Some(Some(id))` for a
/// student's. A login link is no API token.
pub(crate) async fn api_owner(pool: &Db, token: &str) -> Result<Option<Option<String>>, Fault> {
    api_tokens::owner(pool, &hash(token)).await
}

/// A fresh API token for `student` (none: the instructor), revoking their earlier one.
pub(crate) async fn issue_api(pool: &Db, student: Option<&str>) -> Result<String, Fault> {
    let (token, hash) = new_token();
    api_tokens::issue(pool, student, &hash).await?;
    Ok(token)
}

/// Whether `addr` has used up its failed logins; records a failure when `failed`.
pub(crate) async fn limited(pool: &Db, addr: &str, failed: bool) -> Result<bool, Fault> {
    Ok(sessions::failures(pool, addr, failed, now() - WINDOW).await? >= FAILURES_ALLOWED)
}

/// A session opened: the values of its two cookies.
pub(crate) struct Opened {
    pub(crate) session: String,
    pub(crate) browser: String,
}

impl Opened {
    /// The cookies that carry it: the session's (Strict) and the browser's id (Lax).
    pub(crate) fn cookies(&self, secure: bool) -> [String; 2] {
        [
            cookie(COOKIE, &self.session, "Strict", TERM, secure),
            cookie(BROWSER, &self.browser, "Lax", TERM, secure),
        ]
    }
}

/// A `Set-Cookie` value: HttpOnly, the whole site, `age` seconds.
fn cookie(name: &str, value: &str, same_site: &str, age: i64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}={value}; Path=/; HttpOnly; SameSite={same_site}; Max-Age={age}{secure}")
}

/// Opens a session for the token `token_hash`, in the browser whose id is `browser` (none:
/// a fresh one).
pub(crate) async fn open_session(
    pool: &Db,
    token_hash: &str,
    browser: Option<&str>,
) -> Result<Opened, Fault> {
    let (session, session_hash) = new_token();
    let (csrf, _) = new_token();
    let browser = browser.map_or_else(|| new_token().0, str::to_string);
    sessions::open(pool, &session_hash, token_hash, &csrf, &hash(&browser)).await?;
    Ok(Opened { session, browser })
}

/// The cookies that end a session in the browser.
pub(crate) fn cleared(secure: bool) -> [String; 2] {
    [
        cookie(COOKIE, "", "Strict", 0, secure),
        cookie(BROWSER, "", "Lax", 0, secure),
    ]
}

/// Adds `cookies` to `response`'s headers.
pub(crate) fn set_cookies(
    response: &mut axum::response::Response,
    cookies: impl IntoIterator<Item = String>,
) -> Result<(), Fault> {
    for value in cookies {
        let value = axum::http::HeaderValue::from_str(&value)
            .map_err(|err| Fault::Harness(err.to_string()))?;
        response
            .headers_mut()
            .append(axum::http::header::SET_COOKIE, value);
    }
    Ok(())
}

/// Someone signed in by a session cookie, or by a bearer token (the API).
#[derive(Debug, Clone)]
pub(crate) struct Who {
    /// The student, or none for the instructor.
    pub(crate) student: Option<String>,
    /// The CSRF token of the session; none for a bearer token (no cookie, no CSRF).
    pub(crate) csrf: Option<String>,
    pub(crate) session: Option<String>,
    /// The student's name as the database has it (the roster's, or the LMS's).
    pub(crate) name: Option<String>,
}

impl Who {
    pub(crate) fn instructor(&self) -> bool {
        self.student.is_none()
    }
}

/// A form that carries only its CSRF token (sign out, regrade).
#[derive(serde::Deserialize)]
pub(crate) struct CsrfForm {
    pub(crate) csrf: String,
}

/// Refuses a form whose CSRF token is not its session's.
pub(crate) fn check_csrf(who: &Who, given: &str) -> Result<(), Reply> {
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
