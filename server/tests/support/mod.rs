//! What the server's tests share: a course folder in a temporary directory, the server started
//! on a free loopback port (and ended by its pid), login links, and a small HTTP client that
//! keeps its session cookie.

#![allow(dead_code)]

pub mod lti;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const SERVER: &str = env!("CARGO_BIN_EXE_gridjudge-server");

/// The bundled reference, built once.
pub fn reference() -> PathBuf {
    xtask::workspace::build_reference().expect("the reference builds")
}

/// A file of the checkout.
pub fn checkout(path: &str) -> PathBuf {
    xtask::workspace::root().join(path)
}

/// The C solution of the Go spec, right, and one that says "in line" where the handout says
/// "on line" (it fails the illegal-character cases only).
pub fn go_c() -> Vec<u8> {
    std::fs::read(checkout("xtask/tests/solutions/go/go.c")).unwrap()
}

pub fn go_c_wrong() -> Vec<u8> {
    let text = String::from_utf8(go_c()).unwrap();
    assert!(text.contains("illegal character on line"));
    text.replace("illegal character on line", "illegal character in line")
        .into_bytes()
}

pub struct Course {
    pub dir: tempfile::TempDir,
    /// The PostgreSQL database the course's servers share; none: SQLite in the folder.
    pub database: Option<String>,
}

impl Course {
    /// A course with the roster `students` and `assignments` (each the body of one
    /// `[[assignment]]` table).
    pub fn new(students: &[&str], assignments: &[&str]) -> Course {
        let dir = tempfile::tempdir().unwrap();
        let mut toml = String::from("title = \"Test course\"\n");
        for body in assignments {
            toml += "\n[[assignment]]\n";
            toml += body;
            toml += "\n";
        }
        std::fs::write(dir.path().join("course.toml"), toml).unwrap();
        let mut roster = String::from("id,name,email\n");
        for id in students {
            roster += &format!("{id},Student {id},{id}@example.edu\n");
        }
        std::fs::write(dir.path().join("roster.csv"), roster).unwrap();
        Course {
            dir,
            database: None,
        }
    }

    /// The same on the PostgreSQL database `url`.
    pub fn on(mut self, url: &str) -> Course {
        self.database = Some(url.to_string());
        self
    }

    /// The server's command line for this course.
    pub fn command(&self) -> Command {
        let mut command = Command::new(SERVER);
        command.arg("--course").arg(self.path());
        if let Some(url) = &self.database {
            command.env("GRIDJUDGE_DATABASE", url);
        }
        command
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fresh login tokens of every student and of `instructor`, from `--links` (each signs
    /// in once).
    pub fn links(&self) -> HashMap<String, String> {
        self.credentials("--links")
    }

    /// Fresh API tokens of every student and of `instructor`, from `--api-tokens`.
    pub fn tokens(&self) -> HashMap<String, String> {
        self.credentials("--api-tokens")
    }

    fn credentials(&self, flag: &str) -> HashMap<String, String> {
        let out = self
            .command()
            .args([flag, "--base-url", "http://example.invalid"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        let column = if flag == "--links" { "link" } else { "token" };
        assert_eq!(lines.next(), Some(format!("id,name,{column}").as_str()));
        lines
            .map(|line| {
                let id = line.split(',').next().unwrap().to_string();
                let value = line.rsplit(',').next().unwrap();
                let token = value.rsplit("/login/").next().unwrap().to_string();
                assert_eq!(token.len(), 32, "{line}");
                (id, token)
            })
            .collect()
    }

    /// The first column of the first row `query` finds in the course's database, as text.
    pub fn sql(&self, query: &str) -> String {
        use sqlx::Row;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let path = self.path().join(".gridjudge/course.db");
        let url = self
            .database
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}", path.display()));
        sqlx::any::install_default_drivers();
        runtime.block_on(async {
            let pool = sqlx::AnyPool::connect(&url).await.unwrap();
            let row = sqlx::query(sqlx::AssertSqlSafe(query.to_string()))
                .fetch_one(&pool)
                .await
                .unwrap();
            let text = match row.try_get::<i64, _>(0) {
                Ok(number) => number.to_string(),
                Err(_) => row.get::<String, _>(0),
            };
            pool.close().await;
            text
        })
    }
}

/// The write lock of a SQLite file, held until dropped, as an open transaction holds it.
pub struct WriteLock {
    runtime: tokio::runtime::Runtime,
    connection: Option<sqlx::SqliteConnection>,
}

impl WriteLock {
    /// Takes the write lock of the SQLite file at `path` (waiting for it as long as a busy
    /// server might hold it).
    pub fn take(path: &Path) -> WriteLock {
        use sqlx::ConnectOptions;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let connection = runtime.block_on(async {
            let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(path)
                .busy_timeout(Duration::from_secs(60))
                .connect()
                .await
                .unwrap();
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut connection)
                .await
                .unwrap();
            connection
        });
        WriteLock {
            runtime,
            connection: Some(connection),
        }
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        if let Some(mut connection) = self.connection.take() {
            self.runtime.block_on(async {
                let _ = sqlx::query("ROLLBACK").execute(&mut connection).await;
                let _ = sqlx::Connection::close(connection).await;
            });
        }
    }
}

/// A server process of ours: ended by its pid when dropped.
pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Server {
    pub fn start(course: &Course, extra: &[&str]) -> Server {
        let mut child = course
            .command()
            .args(["--listen", "127.0.0.1:0", "--reference"])
            .arg(reference())
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        // The first line says where it listens; it comes once the course is read.
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let base = line
            .split_whitespace()
            .find(|word| word.starts_with("http://"))
            .unwrap_or_else(|| panic!("the server did not start: {line:?}"))
            .to_string();
        Server { child, base }
    }

    /// A grading worker of the course (`--worker`), once it grades.
    pub fn worker(course: &Course, extra: &[&str]) -> Server {
        let mut child = course
            .command()
            .args(["--worker", "--reference"])
            .arg(reference())
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        assert!(
            line.starts_with("grading"),
            "the worker did not start: {line:?}"
        );
        Server {
            child,
            base: String::new(),
        }
    }

    /// kill -9.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, and its exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        // The pid is our own child's, not yet waited for.
        xtask::sys::kill(self.child.id() as i32, 15);
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn client(&self) -> Client {
        Client::new(&self.base)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Answer {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|err| panic!("{err}: {}", self.body))
    }
}

/// The tests' one HTTP agent (blocking ureq): statuses are answers, not errors; no redirect
/// followed by itself; a minute at most.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// A response as the tests read it: its status, its headers (one given more than once, as
/// Set-Cookie, keeps every value, a line each) and its body.
pub fn answer_of(
    response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<Answer, ureq::Error> {
    let mut response = response?;
    let mut headers: HashMap<String, String> = HashMap::new();
    for (name, value) in response.headers() {
        let value = value.to_str().unwrap_or_default();
        headers
            .entry(name.as_str().to_string())
            .and_modify(|values| *values = format!("{values}\n{value}"))
            .or_insert_with(|| value.to_string());
    }
    let mut body = String::new();
    let _ = response.body_mut().as_reader().read_to_string(&mut body);
    Ok(Answer {
        status: response.status().as_u16(),
        headers,
        body,
    })
}

/// A browser in miniature: one session cookie, its CSRF token read off the last page.
pub struct Client {
    agent: ureq::Agent,
    pub base: String,
    pub cookie: Option<String>,
    /// The browser's id (the Lax cookie a sign-in sets beside the session's).
    pub browser: Option<String>,
    pub bearer: Option<String>,
    /// An `X-Forwarded-For` this client's requests carry, as a proxy in front would add.
    pub forwarded_for: Option<String>,
}

impl Client {
    pub fn new(base: &str) -> Client {
        Client {
            agent: agent(),
            base: base.to_string(),
            cookie: None,
            browser: None,
            bearer: None,
            forwarded_for: None,
        }
    }

    fn answer(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        Self::try_answer(response).expect("an answer")
    }

    fn try_answer(
        response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Answer, ureq::Error> {
        answer_of(response)
    }

    fn auth<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        let request = match &self.forwarded_for {
            Some(addr) => request.header("X-Forwarded-For", addr),
            None => request,
        };
        let cookies: Vec<String> = [("gj_session", &self.cookie), ("gj_browser", &self.browser)]
            .into_iter()
            .filter_map(|(name, value)| Some(format!("{name}={}", value.as_ref()?)))
            .collect();
        let request = match cookies.is_empty() {
            false => request.header("Cookie", cookies.join("; ")),
            true => request,
        };
        match &self.bearer {
            Some(token) => request.header("Authorization", format!("Bearer {token}")),
            None => request,
        }
    }

    pub fn get(&self, path: &str) -> Answer {
        Self::answer(
            self.auth(self.agent.get(format!("{}{path}", self.base)))
                .call(),
        )
    }

    pub fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{k}={}", v.replace(' ', "+")))
            .collect();
        Self::answer(
            self.auth(self.agent.post(format!("{}{path}", self.base)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .send(body.join("&")),
        )
    }

    /// A request of `method` (`PUT`, `DELETE`, `POST`) with a JSON body, none where `json` is
    /// `None`.
    pub fn send_json(&self, method: &str, path: &str, json: Option<serde_json::Value>) -> Answer {
        let url = format!("{}{path}", self.base);
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(&url)
            .header("Content-Type", "application/json");
        let body = json.map(|j| j.to_string()).unwrap_or_default();
        let request = self.auth_http(request).body(body).unwrap();
        Self::answer(self.agent.run(request))
    }

    fn auth_http(&self, request: ureq::http::request::Builder) -> ureq::http::request::Builder {
        let request = match &self.cookie {
            Some(cookie) => request.header("Cookie", format!("gj_session={cookie}")),
            None => request,
        };
        match &self.bearer {
            Some(token) => request.header("Authorization", format!("Bearer {token}")),
            None => request,
        }
    }

    /// A multipart POST of `files` (as `file` fields) and `fields`.
    pub fn post_files(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &[u8])],
    ) -> Answer {
        self.try_post_files(path, fields, files).expect("an answer")
    }

    /// [`Client::post_files`], or the error of a request the server did not read to its end
    /// (a body it refused: it answers and closes while the client still writes).
    pub fn try_post_files(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &[u8])],
    ) -> Result<Answer, ureq::Error> {
        let boundary = "gridjudge-test-boundary-7d1f";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes());
        }
        for (name, bytes) in files {
            body.extend(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                    .as_bytes(),
            );
            body.extend(*bytes);
            body.extend(b"\r\n");
        }
        body.extend(format!("--{boundary}--\r\n").as_bytes());
        Self::try_answer(
            self.auth(self.agent.post(format!("{}{path}", self.base)))
                .header(
                    "Content-Type",
                    format!("multipart/form-data; boundary={boundary}"),
                )
                .send(&body[..]),
        )
    }

    /// Opens login link `token`: the cookies it sets are kept.
    pub fn login(&mut self, token: &str) -> Answer {
        let answer = self.get(&format!("/login/{token}"));
        self.keep_cookies(&answer);
        answer
    }

    /// Keeps the session's and the browser's cookies `answer` sets.
    pub fn keep_cookies(&mut self, answer: &Answer) {
        for cookie in answer
            .headers
            .get("set-cookie")
            .into_iter()
            .flat_map(|c| c.lines())
        {
            let pair = cookie.split(';').next().unwrap();
            if let Some(value) = pair.strip_prefix("gj_session=") {
                self.cookie = Some(value.to_string());
            }
            if let Some(value) = pair.strip_prefix("gj_browser=") {
                self.browser = Some(value.to_string());
            }
        }
    }

    /// A one-time link for another device, made on this signed-in client's access page.
    pub fn device_link(&self) -> String {
        let csrf = self.csrf("/access");
        let page = self.post_form("/access/link", &[("csrf", &csrf)]);
        assert_eq!(page.status, 200, "{}", page.body);
        let at = page.body.find("/login/").expect("a link") + 7;
        page.body[at..at + 32].to_string()
    }

    /// Hands in the right Go solution and waits for its grade: the server grades the next
    /// submission, whatever came before.
    pub fn the_next_is_graded(&self) {
        let answer = self.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.c", &go_c())],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
        let graded = self.wait_final(answer.json()["id"].as_i64().unwrap());
        assert_eq!(graded["status"], "graded", "{graded}");
    }

    /// The CSRF token of the page at `path`.
    pub fn csrf(&self, path: &str) -> String {
        let page = self.get(path).body;
        let at = page
            .find("name=\"csrf\" value=\"")
            .expect("a form with its CSRF token")
            + 19;
        page[at..at + 32].to_string()
    }

    /// Waits (at most five minutes) for submission `id` to end its grading; its API answer.
    /// Waits (at most 300 s) until submission `id` is being graded here with at least `cases`
    /// of its cases run; its JSON then.
    pub fn wait_running(&self, id: i64, cases: i64) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let json = self.get(&format!("/api/v1/submissions/{id}")).json();
            if json["status"] == "running" && json["cases_done"].as_i64().unwrap_or(0) >= cases {
                return json;
            }
            assert!(Instant::now() < deadline, "never running: {json}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_final(&self, id: i64) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let answer = self.get(&format!("/api/v1/submissions/{id}"));
            assert_eq!(answer.status, 200, "{}", answer.body);
            let json = answer.json();
            let status = json["status"].as_str().unwrap_or_default().to_string();
            if ["graded", "could not build", "could not run"].contains(&status.as_str()) {
                return json;
            }
            assert!(Instant::now() < deadline, "submission {id} still {status}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The first failing case of a graded submission's API document: `GROUP/NAME`, and the case.
pub fn first_failing_case(graded: &serde_json::Value) -> (String, serde_json::Value) {
    let case = graded["report"]["cases"]
        .as_array()
        .expect("a report")
        .iter()
        .find(|case| !case["cause_id"].is_null())
        .expect("a failing case");
    let key = format!(
        "{}/{}",
        case["group"].as_str().unwrap(),
        case["name"].as_str().unwrap()
    );
    (key, case.clone())
}

/// An assignment of the Go spec, due far in the future, with `more` lines.
pub fn go_assignment(name: &str, more: &str) -> String {
    format!("name = \"{name}\"\nspec = \"go\"\ndeadline = \"2099-01-01T00:00:00+00:00\"\n{more}")
}

/// `grade`'s grades.csv of a class folder holding `files` per student, graded as
/// `cargo xtask grade --spec go` grades it.
pub fn grade_csv(class: &[(&str, &str, &[u8])]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let submissions = dir.path().join("class");
    for (student, name, bytes) in class {
        std::fs::create_dir_all(submissions.join(student)).unwrap();
        std::fs::write(submissions.join(student).join(name), bytes).unwrap();
    }
    let out = dir.path().join("out");
    // The options `cargo xtask grade --spec go --submissions DIR --out OUT --reference R` has
    // (xtask's flags tests hold the typed constructor to the command line's defaults).
    let check = xtask::check::Options::new(xtask::workspace::cases(), reference(), PathBuf::new());
    let options = xtask::grade::Options::new(check, "go", &submissions, out.clone()).unwrap();
    xtask::grade::grade(&options, &|_| {}).unwrap();
    std::fs::read_to_string(out.join("grades.csv")).unwrap()
}

/// A PostgreSQL cluster of our own, in a temporary folder, on a Unix socket there (no TCP),
/// run as an unprivileged user (`postgres` when the tests run as root); stopped when dropped.
pub struct Postgres {
    pub dir: tempfile::TempDir,
    bin: PathBuf,
    user: Option<&'static str>,
    pub url: String,
}

impl Postgres {
    /// Starts one; `None`, having said why, where PostgreSQL is not installed or cannot run.
    pub fn start() -> Option<Postgres> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|entry| Some(entry.ok()?.path().join("bin")))
            .find(|bin| bin.join("initdb").is_file());
        let Some(bin) = bin else {
            println!("skipped: PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb)");
            return None;
        };
        // PostgreSQL refuses to run as root.
        let root = xtask::sys::effective_uid() == 0;
        let user = root.then_some("postgres");
        let dir = tempfile::tempdir().unwrap();
        if root {
            let chowned = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status();
            if !chowned.is_ok_and(|s| s.success()) {
                println!("skipped: no `postgres` user to run PostgreSQL as");
                return None;
            }
        }
        let postgres = Postgres {
            url: format!(
                "postgres:///postgres?host={}&user=gridjudge",
                dir.path().display()
            ),
            dir,
            bin,
            user,
        };
        let data = postgres.dir.path().join("data");
        let initdb = postgres
            .run("initdb")
            .args(["-A", "trust", "-U", "gridjudge", "--no-sync", "-D"])
            .arg(&data)
            .output()
            .unwrap();
        if !initdb.status.success() {
            println!(
                "skipped: initdb failed: {}",
                String::from_utf8_lossy(&initdb.stderr)
            );
            return None;
        }
        if !postgres.pg_ctl(&["start"]) {
            println!("skipped: PostgreSQL did not start");
            return None;
        }
        Some(postgres)
    }

    fn run(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(path);
                command
            }
            None => Command::new(path),
        }
    }

    /// `pg_ctl ACTION`, waiting for it; whether it worked.
    pub fn pg_ctl(&self, action: &[&str]) -> bool {
        let dir = self.dir.path();
        let options = format!(
            "-c listen_addresses='' -c unix_socket_directories='{}'",
            dir.display()
        );
        self.run("pg_ctl")
            .args(["-w", "-t", "120", "-D"])
            .arg(dir.join("data"))
            .arg("-l")
            .arg(dir.join("log"))
            .args(["-o", &options])
            .args(action)
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    /// A fast restart: every connection is cut.
    pub fn restart(&self) {
        assert!(
            self.pg_ctl(&["restart", "-m", "fast"]),
            "PostgreSQL did not restart"
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.pg_ctl(&["stop", "-m", "immediate"]);
    }
}

/// `n` uploads of the Go solution by the student of `token`, all at once (each on a thread of
/// its own, released together): how many were taken (202).
pub fn parallel_uploads(server: &Server, token: &str, n: usize) -> usize {
    let start = std::sync::Barrier::new(n);
    let bytes = go_c();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let (start, bytes) = (&start, &bytes);
                scope.spawn(move || {
                    let mut client = server.client();
                    client.bearer = Some(token.to_string());
                    start.wait();
                    let answer = client.post_files(
                        "/api/v1/assignments/go/submissions",
                        &[],
                        &[("go.c", bytes)],
                    );
                    assert!([202, 429].contains(&answer.status), "{}", answer.body);
                    answer.status == 202
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .filter(|taken| *taken)
            .count()
    })
}

/// Asserts that an upload was refused with `status`, or, where the server answered and closed
/// while the client still wrote the body, with the connection closed: which of the two the
/// client sees is a race.
pub fn assert_refused(answer: Result<Answer, ureq::Error>, status: u16) {
    match answer {
        Ok(answer) => assert_eq!(answer.status, status, "{}", answer.body),
        Err(ureq::Error::Io(err)) => assert!(
            matches!(
                err.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ),
            "{err}"
        ),
        Err(err) => panic!("{err}"),
    }
}
