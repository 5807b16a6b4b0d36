//! The course server in a real browser: headless Chromium driven over WebDriver (Debian's
//! `chromium` and `chromium-driver`; the test skips, saying so, where they are missing). A
//! student opens the link, uploads a file, and the page follows the grading by itself to the
//! result, which shows a failing case's difference; the instructor sees the class and
//! downloads the grades. Screenshots of both pages go to the test's output folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{go_assignment, go_c_wrong, Course, Server};
use base64::Engine;
use serde_json::{json, Value};

const CHROMIUM: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A chromedriver of ours, ended by its pid.
struct Driver {
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            agent,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while driver
            .call("GET", "/status", None)
            .get("value")
            .and_then(|v| v.get("ready"))
            != Some(&json!(true))
        {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let response = match (method, body) {
            ("GET", _) => self.agent.get(&url).call(),
            ("DELETE", _) => self.agent.delete(&url).call(),
            (_, body) => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.unwrap_or(json!({})).to_string()),
        };
        match response {
            Ok(mut response) => response.body_mut().read_json().unwrap_or(Value::Null),
            Err(_) => Value::Null,
        }
    }
}

struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Session<'_> {
    fn new<'a>(driver: &'a Driver, profile: &Path) -> Session<'a> {
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,1000",
            &format!("--user-data-dir={}", profile.display()),
        ];
        let answer = driver.call(
            "POST",
            "/session",
            Some(
                json!({"capabilities": {"alwaysMatch": {"browserName": "chrome",
                "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}),
            ),
        );
        let id = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_string();
        Session { driver, id }
    }

    fn post(&self, path: &str, body: Value) -> Value {
        self.driver
            .call("POST", &format!("/session/{}{path}", self.id), Some(body))["value"]
            .clone()
    }

    fn get(&self, path: &str) -> Value {
        self.driver
            .call("GET", &format!("/session/{}{path}", self.id), None)["value"]
            .clone()
    }

    fn open(&self, url: &str) {
        self.post("/url", json!({ "url": url }));
    }

    fn find(&self, css: &str) -> Option<String> {
        let found = self.post("/element", json!({"using": "css selector", "value": css}));
        found[ELEMENT].as_str().map(str::to_string)
    }

    fn text(&self, css: &str) -> Option<String> {
        let element = self.find(css)?;
        self.get(&format!("/element/{element}/text"))
            .as_str()
            .map(str::to_string)
    }

    /// Answers "Sign in as someone else?" yes, and waits for the page that holds `landing`.
    fn sign_in_as_someone_else(&self, landing: &str) {
        let confirm = self
            .find("form[action^='/login/'] button")
            .expect("the button that answers");
        self.post(&format!("/element/{confirm}/click"), json!({}));
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.source().contains(landing) {
            assert!(Instant::now() < deadline, "{}", self.source());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn source(&self) -> String {
        self.get("/source").as_str().unwrap_or_default().to_string()
    }

    fn screenshot(&self, to: &Path) {
        let data = self.get("/screenshot");
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap_or_default())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(to, png).unwrap();
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        self.driver
            .call("DELETE", &format!("/session/{}", self.id), None);
    }
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("server-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_student_hands_in_and_watches_the_result_and_the_instructor_downloads_the_grades() {
    for tool in [CHROMIUM, DRIVER] {
        if !Path::new(tool).exists() {
            println!("skipped: {tool} is missing (Debian's chromium and chromium-driver)");
            return;
        }
    }
    let course = Course::new(&["ada", "alan"], &[&go_assignment("go", "")]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let upload = tempfile::tempdir().unwrap();
    let program = upload.path().join("go.c");
    std::fs::write(&program, go_c_wrong()).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let driver = Driver::start();
    let browser = Session::new(&driver, profile.path());

    browser.open(&format!("{}/login/{}", server.base, links["ada"]));
    assert!(
        browser.source().contains("Your assignments"),
        "{}",
        browser.source()
    );
    browser.open(&format!("{}/assignments/go", server.base));
    let input = browser.find("#files").expect("the file input");
    browser.post(
        &format!("/element/{input}/value"),
        json!({ "text": program.display().to_string() }),
    );
    let submit = browser.find("#submit").expect("the submit button");
    browser.post(&format!("/element/{submit}/click"), json!({}));

    // From here the test only reads: the page follows its grading by itself.
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if let Some(status) = browser.text("#status") {
            if seen.last() != Some(&status) {
                seen.push(status.clone());
            }
            if status.starts_with("graded") && browser.find("#totals").is_some() {
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the page never showed the result: {seen:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let page = browser.source();
    assert!(
        page.contains("expected: There was an illegal character on line"),
        "{page}"
    );
    assert!(
        page.contains("actual:   There was an illegal character in line"),
        "{page}"
    );
    let shots = screenshots();
    browser.screenshot(&shots.join("student-result.png"));
    println!("statuses the page showed: {seen:?}");

    // The instructor's link in a browser where Ada is signed in asks first (login CSRF).
    browser.open(&format!("{}/login/{}", server.base, links["instructor"]));
    assert!(
        browser.source().contains("Sign in as someone else?"),
        "{}",
        browser.source()
    );
    browser.sign_in_as_someone_else("The class");
    let best = browser
        .text("tr[data-student=ada] td.best")
        .unwrap_or_default();
    assert_ne!(best, "–");
    browser.screenshot(&shots.join("instructor-class.png"));
    // The class report, with a pair side by side (alan hands in ada's program), fits a
    // window 1280 px wide: nothing scrolls sideways but inside its own box.
    let mut alan = server.client();
    alan.bearer = Some(tokens["alan"].clone());
    let answer = alan.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c_wrong())],
    );
    alan.wait_final(answer.json()["id"].as_i64().unwrap());
    browser.open(&format!(
        "{}/instructor/assignments/go/report.html",
        server.base
    ));
    assert!(browser.source().contains("data-pair=\"ada alan\""));
    let widths = browser.post(
        "/execute/sync",
        json!({"script": "return [document.documentElement.scrollWidth, window.innerWidth];", "args": []}),
    );
    let (scroll, inner) = (widths[0].as_u64().unwrap(), widths[1].as_u64().unwrap());
    browser.screenshot(&shots.join("class-report.png"));
    // What sticks out, where something does: the narrowest element past the window's edge.
    let widest = browser.post(
        "/execute/sync",
        json!({"script": "let w = null; for (const e of document.querySelectorAll('body *')) { const r = e.getBoundingClientRect(); if (r.right > window.innerWidth && (!w || r.width < w.width)) w = {tag: e.tagName, cls: e.className, width: r.width, right: r.right}; } return w;", "args": []}),
    );
    assert!(
        scroll <= inner,
        "the class report scrolls sideways: {scroll} px in {inner} ({widest})"
    );
    browser.open(&format!("{}/instructor", server.base));
    let script = "const done = arguments[arguments.length - 1];\
        fetch('/instructor/assignments/go/grades.csv').then(r => r.text()).then(done);";
    let downloaded = browser.post("/execute/async", json!({"script": script, "args": []}));
    let mut api = server.client();
    api.bearer = Some(tokens["instructor"].clone());
    assert_eq!(
        downloaded.as_str(),
        Some(api.get("/api/v1/grades.csv").body.as_str())
    );
    println!("screenshots in {}", shots.display());
}

/// An LMS user's launch in a real browser: the tool's login initiation redirects to the
/// platform (OpenLearning's `lti1p3platform`), whose page posts the signed id_token back as a
/// form by its own script; the tool signs the learner in and shows the assignment the link
/// names; the work handed in there is graded and its grade reaches the platform.
#[test]
fn a_learner_launches_from_the_lms_in_a_browser_and_the_grade_goes_back() {
    for tool in [CHROMIUM, DRIVER] {
        if !Path::new(tool).exists() {
            println!("skipped: {tool} is missing (Debian's chromium and chromium-driver)");
            return;
        }
    }
    let Some(platform) = crate::support::lti::Platform::start() else {
        return;
    };
    let course = platform.course(&[&go_assignment("go", "")]);
    let server = Server::start(&course, &[]);
    platform.register(&server.base);
    let login = platform.login_url(json!({
        "user": "browser-learner", "roles": [crate::support::lti::LEARNER],
        "name": "Grace Hopper", "email": "grace@lms.example", "assignment": "go",
    }));
    let upload = tempfile::tempdir().unwrap();
    let program = upload.path().join("go.c");
    std::fs::write(&program, crate::support::go_c()).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let driver = Driver::start();
    let browser = Session::new(&driver, profile.path());

    browser.open(&login);
    let deadline = Instant::now() + Duration::from_secs(60);
    while browser.find("#files").is_none() {
        assert!(
            Instant::now() < deadline,
            "the launch never reached the assignment: {}",
            browser.source()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        browser.source().contains("Grace Hopper"),
        "{}",
        browser.source()
    );
    let input = browser.find("#files").expect("the file input");
    browser.post(
        &format!("/element/{input}/value"),
        json!({ "text": program.display().to_string() }),
    );
    let submit = browser.find("#submit").expect("the submit button");
    browser.post(&format!("/element/{submit}/click"), json!({}));
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let scores = platform.read("/control/scores");
        if let Some(score) = scores.as_array().and_then(|s| s.first()) {
            assert_eq!(score["userId"], "browser-learner");
            assert_eq!(score["scoreGiven"], score["scoreMaximum"], "{score}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no score arrived: {}",
            browser.source()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    browser.screenshot(&screenshots().join("lms-launch.png"));
}

/// Where `.ci/run` installs axe-core (from the npm registry) for the accessibility test.
fn axe_source() -> Option<String> {
    let path = xtask::workspace::target_dir().join("axe/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(path).ok()
}

/// The WCAG 2.1 AA rules of axe-core that `page` (open in `browser`) breaks: each rule's id,
/// how many elements break it, and the first of them.
fn axe_violations(browser: &Session, source: &str) -> Vec<String> {
    browser.post("/execute/sync", json!({"script": source, "args": []}));
    let script = "const done = arguments[arguments.length - 1];\
        axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})\
        .then(r => done(r.violations.map(v => v.id + ' (' + v.nodes.length + '): ' + v.nodes[0].html)))\
        .catch(e => done(['axe failed: ' + e]));";
    let found = browser.post("/execute/async", json!({"script": script, "args": []}));
    found
        .as_array()
        .unwrap_or_else(|| panic!("axe answered {found}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

/// The form controls of the page open in `browser` that the Tab key never reaches (pressed as
/// a keyboard would, from the top of the page, at most 400 times).
fn unreachable_by_keyboard(browser: &Session) -> Vec<String> {
    let describe = "e => e.outerHTML.slice(0, 100)";
    let controls = browser.post(
        "/execute/sync",
        json!({"script": format!("return Array.from(document.querySelectorAll(\
            'input:not([type=hidden]), select, textarea, button'))\
            .filter(e => !e.disabled && e.offsetParent !== null).map({describe});"), "args": []}),
    );
    let mut left: Vec<String> = controls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    browser.post(
        "/execute/sync",
        json!({"script": "document.activeElement.blur(); window.focus();", "args": []}),
    );
    for _ in 0..400 {
        if left.is_empty() {
            break;
        }
        browser.post(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": "\u{E004}"}, {"type": "keyUp", "value": "\u{E004}"}]}]}),
        );
        let focused = browser.post(
            "/execute/sync",
            json!({"script": format!("const e = document.activeElement; return e ? ({describe})(e) : null;"), "args": []}),
        );
        if let Some(focused) = focused.as_str() {
            left.retain(|c| c != focused);
        }
    }
    left
}

/// Every page of the course, the student's and the instructor's (the term's new ones
/// included: extensions, regrade requests), passes axe-core's WCAG 2.1 AA rules in Chromium,
/// and the Tab key reaches every control of its forms.
#[test]
fn every_page_of_the_course_passes_axe_cores_wcag_aa_rules() {
    for tool in [CHROMIUM, DRIVER] {
        if !Path::new(tool).exists() {
            println!("skipped: {tool} is missing (Debian's chromium and chromium-driver)");
            return;
        }
    }
    let Some(axe) = axe_source() else {
        println!("skipped: axe-core is not in target/axe (.ci/run installs it with npm)");
        return;
    };
    let course = Course::new(&["ada", "alan"], &[&go_assignment("go", "")]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c_wrong())],
    );
    let id = answer.json()["id"].as_i64().unwrap();
    let graded = ada.wait_final(id);
    let (case, _) = crate::support::first_failing_case(&graded);
    let asked = ada.send_json(
        "POST",
        &format!("/api/v1/submissions/{id}/requests"),
        Some(json!({ "case": case, "text": "Is this one right?" })),
    );
    assert_eq!(asked.status, 201, "{}", asked.body);
    let mut teacher = server.client();
    teacher.bearer = Some(tokens["instructor"].clone());
    let granted = teacher.send_json(
        "PUT",
        "/api/v1/assignments/go/extensions/ada",
        Some(json!({ "deadline": "2099-02-01T00:00:00+01:00" })),
    );
    assert_eq!(granted.status, 200, "{}", granted.body);

    let profile = tempfile::tempdir().unwrap();
    let driver = Driver::start();
    let browser = Session::new(&driver, profile.path());
    let mut failures = Vec::new();
    let mut check = |path: &str| {
        browser.open(&format!("{}{path}", server.base));
        let violations = axe_violations(&browser, &axe);
        println!("axe-core, {path}: {} violations", violations.len());
        for violation in violations {
            failures.push(format!("{path}: {violation}"));
        }
        for control in unreachable_by_keyboard(&browser) {
            failures.push(format!("{path}: the Tab key never reaches {control}"));
        }
    };
    // The rules do fire: a page with an image without words and no language breaks two.
    browser.open("data:text/html,<html><body><img src='x.png'></body></html>");
    let control = axe_violations(&browser, &axe);
    assert!(
        control.iter().any(|v| v.starts_with("image-alt"))
            && control.iter().any(|v| v.starts_with("html-has-lang")),
        "{control:?}"
    );
    // And the keyboard walk does see a control it cannot reach, and only that one.
    browser.open("data:text/html,<html lang=en><body><input aria-label=one><input aria-label=two tabindex=-1><button>three</button></body></html>");
    let unreached = unreachable_by_keyboard(&browser);
    assert!(
        unreached.len() == 1 && unreached[0].contains("two"),
        "{unreached:?}"
    );
    check(&format!("/login/{}", links["ada"]));
    for path in [
        "/".to_string(),
        "/assignments/go".into(),
        format!("/submissions/{id}"),
        format!("/submissions/{id}/report"),
        "/access".into(),
        "/no-such-page".into(),
    ] {
        check(&path);
    }
    // The instructor's link in Ada's browser asks first: that page too.
    check(&format!("/login/{}", links["instructor"]));
    browser.sign_in_as_someone_else("The class");
    for path in [
        "/instructor".to_string(),
        "/instructor/students/ada".into(),
        "/instructor/assignments/go/report".into(),
        "/instructor/assignments/go/report.html".into(),
        "/instructor/assignments/go/regrades".into(),
        "/instructor/assignments/go/extensions".into(),
        "/instructor/requests".into(),
        format!("/submissions/{id}"),
    ] {
        check(&path);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
