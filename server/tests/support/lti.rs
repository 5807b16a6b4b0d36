//! The LTI platform the tests launch from: OpenLearning's `lti1p3platform` behind a small
//! HTTP front (`tests/lti/platform.py`), run by the Python of the venv `.ci/run` makes
//! (`target/lti-venv`), on a loopback port, ended by its pid; and a browser in miniature that
//! keeps every cookie the tool sets and goes through a launch as an LMS user's browser would.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use super::{checkout, Answer, Course};

pub const CLIENT_ID: &str = "gridjudge-tool";
pub const DEPLOYMENT: &str = "deployment-1";
pub const LEARNER: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";
pub const INSTRUCTOR: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor";
pub const TA: &str =
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant";

pub struct Platform {
    child: Child,
    pub base: String,
    agent: ureq::Agent,
}

impl Drop for Platform {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Platform {
    /// The platform, or none (saying why) where its venv is missing.
    pub fn start() -> Option<Platform> {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| xtask::workspace::root().join("target"));
        let python = target.join("lti-venv/bin/python3");
        let usable = python.is_file()
            && Command::new(&python)
                .args(["-c", "import lti1p3platform"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        if !usable {
            println!(
                "skipped: no lti1p3platform in `{}` (.ci/run installs it there)",
                python.display()
            );
            return None;
        }
        let mut child = Command::new(python)
            .arg(checkout("server/tests/lti/platform.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("http://127.0.0.1:"), "{line:?}");
        Some(Platform {
            child,
            base: line.trim().to_string(),
            agent: super::agent(),
        })
    }

    /// The `[lti]` table of a course launched from this platform.
    pub fn course_table(&self) -> String {
        let base = &self.base;
        format!(
            "\n[lti]\nissuer = \"{base}\"\nclient_id = \"{CLIENT_ID}\"\n\
             deployment_id = [\"{DEPLOYMENT}\"]\nauth_url = \"{base}/auth\"\n\
             token_url = \"{base}/token\"\njwks_url = \"{base}/jwks\"\n"
        )
    }

    /// A course of `assignments` launched from this platform, with no roster.csv.
    pub fn course(&self, assignments: &[&str]) -> Course {
        let course = Course::new(&[], assignments);
        let toml = course.path().join("course.toml");
        let text = std::fs::read_to_string(&toml).unwrap() + &self.course_table();
        std::fs::write(&toml, text).unwrap();
        std::fs::remove_file(course.path().join("roster.csv")).unwrap();
        course
    }

    pub fn control(&self, path: &str, body: Value) -> Value {
        let mut response = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .unwrap();
        response.body_mut().read_json().unwrap()
    }

    pub fn read(&self, path: &str) -> Value {
        let mut response = self
            .agent
            .get(format!("{}{path}", self.base))
            .call()
            .unwrap();
        response.body_mut().read_json().unwrap()
    }

    /// Tells the platform where the tool is.
    pub fn register(&self, tool: &str) {
        self.control("/control/tool", json!({ "url": tool }));
    }

    /// The login URL of a launch as `spec` says (`user`, `roles`, `name`, `email`,
    /// `assignment`, `lineitem`, `forge`).
    pub fn login_url(&self, spec: Value) -> String {
        self.control("/control/launch", spec)["login_url"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The launch form the platform's authorization endpoint answers with.
pub struct LaunchForm {
    pub action: String,
    pub id_token: String,
    pub state: String,
}

fn attribute(page: &str, before: &str) -> String {
    let at = page
        .find(before)
        .unwrap_or_else(|| panic!("no {before} in {page}"))
        + before.len();
    let end = page[at..].find('"').unwrap() + at;
    page[at..end].replace("&amp;", "&")
}

/// A browser in miniature: every cookie kept by name, no redirect followed by itself.
pub struct Browser {
    agent: ureq::Agent,
    pub cookies: HashMap<String, String>,
}

impl Default for Browser {
    fn default() -> Browser {
        Browser {
            agent: super::agent(),
            cookies: HashMap::new(),
        }
    }
}

impl Browser {
    fn answer(&mut self, response: ureq::http::Response<ureq::Body>) -> Answer {
        for value in response.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            match value.is_empty() {
                true => self.cookies.remove(name),
                false => self.cookies.insert(name.to_string(), value.to_string()),
            };
        }
        super::answer_of(Ok(response)).expect("an answer")
    }

    fn cookie_header(&self) -> String {
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        pairs.join("; ")
    }

    pub fn get(&mut self, url: &str) -> Answer {
        let response = self
            .agent
            .get(url)
            .header("Cookie", self.cookie_header())
            .call()
            .unwrap();
        self.answer(response)
    }

    pub fn post_form(&mut self, url: &str, fields: &[(&str, &str)]) -> Answer {
        let response = self
            .agent
            .post(url)
            .header("Cookie", self.cookie_header())
            .send_form(fields.iter().copied())
            .unwrap();
        self.answer(response)
    }

    /// Opens `login_url` (the tool's login initiation) and follows it to the platform's
    /// authorization endpoint: the launch form it answers with.
    pub fn authorize(&mut self, login_url: &str) -> LaunchForm {
        let initiated = self.get(login_url);
        self.follow(initiated)
    }

    /// The same, with the login initiation's parameters posted as a form (as Canvas does).
    pub fn authorize_by_post(&mut self, login_url: &str) -> LaunchForm {
        let (address, query) = login_url.split_once('?').unwrap();
        let fields: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap();
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let initiated = self.post_form(address, &fields);
        self.follow(initiated)
    }

    /// Follows the tool's redirect to the platform's authorization endpoint.
    fn follow(&mut self, initiated: Answer) -> LaunchForm {
        assert!(
            [302, 303, 307].contains(&initiated.status),
            "{} {}",
            initiated.status,
            initiated.body
        );
        let form = self.get(&initiated.headers["location"]);
        assert_eq!(form.status, 200, "{}", form.body);
        LaunchForm {
            action: attribute(&form.body, "action=\""),
            id_token: attribute(&form.body, "name=\"id_token\" value=\""),
            state: attribute(&form.body, "name=\"state\" value=\""),
        }
    }

    /// Posts `form` to the tool as the platform's page would.
    pub fn submit(&mut self, form: &LaunchForm) -> Answer {
        let fields = [
            ("id_token", form.id_token.as_str()),
            ("state", form.state.as_str()),
        ];
        self.post_form(&form.action, &fields)
    }

    /// The whole launch: login initiation, authorization, the form post.
    pub fn launch(&mut self, platform: &Platform, spec: Value) -> Answer {
        let form = self.authorize(&platform.login_url(spec));
        self.submit(&form)
    }

    /// The session cookie the tool set, if any.
    pub fn session(&self) -> Option<String> {
        self.cookies.get("gj_session").cloned()
    }
}
