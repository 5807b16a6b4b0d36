//! The credentials a person holds, against a server on loopback: a login link signs in once
//! and is no API token; the API's tokens are their own, made on the access page or by
//! `--api-tokens`, and revocable; a session lasts a term at most; a classmate's link asks
//! before it replaces a live session (login CSRF), and no other site can answer for the user.

use crate::support::{go_assignment, Course, Server};

/// Seconds in a term, the longest a session lasts (the README says so).
const TERM: u64 = 120 * 24 * 3600;

#[test]
fn a_login_link_signs_in_once_and_is_no_api_token() {
    let course = Course::new(&["ada", "alan"], &[&go_assignment("go", "")]);
    let links = course.links();
    let server = Server::start(&course, &["--jobs", "0"]);
    // A link sits in URLs, proxy logs and browser history: it is no bearer token.
    let mut api = server.client();
    api.bearer = Some(links["ada"].clone());
    assert_eq!(api.get("/api/v1/submissions/1").status, 401);
    // It signs in once.
    let mut first = server.client();
    let login = first.login(&links["ada"]);
    assert_eq!(login.status, 303, "{}", login.body);
    let cookies = &login.headers["set-cookie"];
    assert!(
        cookies.contains(&format!("gj_session={}", first.cookie.as_ref().unwrap())),
        "{cookies}"
    );
    for line in cookies.lines() {
        let age: u64 = line
            .split("Max-Age=")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .and_then(|age| age.parse().ok())
            .unwrap_or_else(|| panic!("no Max-Age: {line}"));
        assert!(age <= TERM, "a cookie outlives a term: {line}");
    }
    assert!(first.get("/").body.contains("Student ada"));
    let mut second = server.client();
    let again = second.login(&links["ada"]);
    assert_eq!(again.status, 410, "{}", again.body);
    assert!(again.body.contains("works once"), "{}", again.body);
    assert_eq!(second.get("/").status, 401);
    // The first browser makes a link for another device; it too works once.
    let device = first.device_link();
    assert_eq!(second.login(&device).status, 303);
    assert!(second.get("/").body.contains("Student ada"));
    assert_eq!(server.client().login(&device).status, 410);
    // A spent link is no guess: it never locks its address out.
    let spender = server.client();
    for _ in 0..12 {
        assert_eq!(spender.get(&format!("/login/{device}")).status, 410);
    }
    assert_eq!(spender.get(&format!("/login/{:032x}", 1)).status, 404);
}

#[test]
fn an_api_token_is_made_on_the_access_page_and_revoked_there() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let from_cli = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut api = server.client();
    api.bearer = Some(from_cli["ada"].clone());
    // 404: signed in, and no such submission (a wrong token is 401).
    assert_eq!(api.get("/api/v1/submissions/1").status, 404);
    // No such address says so, as a page (and as JSON under the API), never an empty answer.
    let nowhere = server.client().get("/nonexistent");
    assert_eq!(nowhere.status, 404);
    assert!(
        nowhere.body.contains("there is nothing here"),
        "{}",
        nowhere.body
    );
    let nowhere = api.get("/api/v1/nonexistent");
    assert_eq!(nowhere.status, 404);
    assert!(nowhere.body.contains("\"error\""), "{}", nowhere.body);
    let mut browser = server.client();
    browser.login(&links["ada"]);
    let page = browser.get("/access").body;
    assert!(page.contains("You have a token"), "{page}");
    let csrf = browser.csrf("/access");
    // Without the session's CSRF token, no token is made.
    assert_eq!(
        browser
            .post_form("/access/token", &[("csrf", "nope")])
            .status,
        403
    );
    let made = browser.post_form("/access/token", &[("csrf", &csrf)]);
    assert_eq!(made.status, 200, "{}", made.body);
    let at = made.body.find("id=\"token\">").expect("the token shown") + 11;
    let token = made.body[at..at + 32].to_string();
    // The new token works; the one it replaced does not.
    assert_eq!(api.get("/api/v1/submissions/1").status, 401);
    api.bearer = Some(token.clone());
    assert_eq!(api.get("/api/v1/submissions/1").status, 404);
    // The page never shows it again; revoked, it opens nothing.
    assert!(!browser.get("/access").body.contains(&token));
    let revoked = browser.post_form("/access/token/revoke", &[("csrf", &csrf)]);
    assert_eq!(revoked.status, 303, "{}", revoked.body);
    assert_eq!(api.get("/api/v1/submissions/1").status, 401);
    assert!(browser.get("/access").body.contains("You have no token"));
    // Only its hash is kept.
    let count = |value: &str| {
        course.sql(&format!(
            "SELECT COUNT(*) FROM api_tokens WHERE hash = '{value}'"
        ))
    };
    assert_eq!(count(&token), "0");
    assert_eq!(count(&gridjudge_server::hash(&token)), "1");
    // --revoke ends the sessions and the tokens of a student alike.
    let again = course.tokens();
    api.bearer = Some(again["ada"].clone());
    assert_eq!(api.get("/api/v1/submissions/1").status, 404);
    let revoke = course.command().args(["--revoke", "ada"]).output().unwrap();
    assert!(revoke.status.success());
    assert_eq!(api.get("/api/v1/submissions/1").status, 401);
    assert_eq!(browser.get("/").status, 401);
}

#[test]
fn a_classmate_s_link_asks_before_it_replaces_a_live_session() {
    let course = Course::new(&["ada", "alan"], &[&go_assignment("go", "")]);
    let links = course.links();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut ada = server.client();
    assert_eq!(ada.login(&links["ada"]).status, 303);
    // Alan's link, opened in Ada's browser from another site: the Strict session cookie is not
    // sent, the browser's Lax one is.
    let mut from_elsewhere = server.client();
    from_elsewhere.browser = ada.browser.clone();
    let asked = from_elsewhere.get(&format!("/login/{}", links["alan"]));
    assert_eq!(asked.status, 200, "{}", asked.body);
    assert!(
        asked
            .body
            .contains("signed in as <strong>Student ada (ada)</strong>")
            && asked
                .body
                .contains("signs in <strong>Student alan (alan)</strong>"),
        "{}",
        asked.body
    );
    assert!(!asked.headers.contains_key("set-cookie"));
    // Nothing changed: Ada is still signed in, Alan's link is still live.
    assert!(ada.get("/").body.contains("Student ada"));
    // Another site's form posting the answer carries neither cookie: refused.
    let forged = server.client().post_form(
        &format!("/login/{}", links["alan"]),
        &[("csrf", "0123456789abcdef0123456789abcdef")],
    );
    assert_eq!(forged.status, 401, "{}", forged.body);
    // Ada's own session with a wrong CSRF token: refused.
    let wrong = ada.post_form(&format!("/login/{}", links["alan"]), &[("csrf", "nope")]);
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    assert!(ada.get("/").body.contains("Student ada"));
    // The answer from the page itself: now Alan, and Ada's session is over.
    let csrf_at = asked.body.find("name=\"csrf\" value=\"").unwrap() + 19;
    let csrf = &asked.body[csrf_at..csrf_at + 32];
    let old_session = ada.cookie.clone();
    let confirmed = ada.post_form(&format!("/login/{}", links["alan"]), &[("csrf", csrf)]);
    assert_eq!(confirmed.status, 303, "{}", confirmed.body);
    ada.keep_cookies(&confirmed);
    assert_ne!(ada.cookie, old_session);
    assert!(ada.get("/").body.contains("Student alan"));
    let mut stale = server.client();
    stale.cookie = old_session;
    assert_eq!(stale.get("/").status, 401);
    // A browser with no live session signs in at once, as before.
    let fresh = course.links();
    let mut new_browser = server.client();
    assert_eq!(new_browser.login(&fresh["ada"]).status, 303);
}
