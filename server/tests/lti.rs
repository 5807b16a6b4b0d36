//! The course server inside an LMS, by LTI 1.3 Advantage, against a platform nobody here
//! wrote: OpenLearning's `lti1p3platform` (see `support/lti.rs`). A learner launches, hands
//! in, and the grade arrives at the platform's line item; instructors and TAs get the class,
//! whose roster the platform's membership service fills; forged launches are refused with no
//! session; a platform that is down during a grading gets the score once it is back.

use std::time::{Duration, Instant};

use crate::support::lti::{Browser, Platform, INSTRUCTOR, LEARNER, TA};
use crate::support::{go_assignment, go_c, go_c_wrong, Client, Course, Postgres, Server};
use serde_json::{json, Value};

/// Waits (at most three minutes) until `found` says yes of what the platform's `path` holds.
fn wait_for(platform: &Platform, path: &str, found: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let value = platform.read(path);
        if found(&value) {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "{path} never came to it: {value}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Hands `source` in as the signed-in `browser` and waits for its grade.
fn hand_in(server: &Server, browser: &Browser, source: &[u8]) -> Value {
    let mut client = Client::new(&server.base);
    client.cookie = browser.session();
    let csrf = client.csrf("/assignments/go");
    let answer = client.post_files(
        "/assignments/go/submissions",
        &[("csrf", &csrf)],
        &[("go.c", source)],
    );
    assert_eq!(answer.status, 303, "{}", answer.body);
    let id: i64 = answer.headers["location"]
        .trim_start_matches("/submissions/")
        .parse()
        .unwrap();
    client.wait_final(id)
}

/// A course of the Go assignment launched from `platform`, served, and registered with it.
fn serving(platform: &Platform) -> (Course, Server) {
    let course = platform.course(&[&go_assignment("go", "")]);
    let server = Server::start(&course, &[]);
    platform.register(&server.base);
    (course, server)
}

fn learner(user: &str) -> Value {
    json!({ "user": user, "roles": [LEARNER], "name": format!("Learner {user}"),
            "email": format!("{user}@lms.example"), "assignment": "go" })
}

#[test]
fn a_learner_launches_hands_in_and_the_counted_grade_reaches_the_platform() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let course = platform.course(&[&go_assignment("go", "")]);
    learner_to_gradebook(&platform, &course);
}

/// The same on PostgreSQL (a course served by several machines): the LTI tables and queries.
#[test]
fn the_grade_reaches_the_platform_from_a_course_on_postgres() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let course = platform
        .course(&[&go_assignment("go", "")])
        .on(&postgres.url);
    learner_to_gradebook(&platform, &course);
}

fn learner_to_gradebook(platform: &Platform, course: &Course) {
    let server = Server::start(course, &[]);
    platform.register(&server.base);

    let mut browser = Browser::default();
    let form = browser.authorize(&platform.login_url(learner("user-7")));
    // The tool's login initiation, as the platform's authorization endpoint saw it.
    let auth = platform.read("/control/auth");
    for (name, value) in [
        ("scope", "openid"),
        ("response_type", "id_token"),
        ("response_mode", "form_post"),
        ("prompt", "none"),
        ("client_id", crate::support::lti::CLIENT_ID),
        ("login_hint", "user-7"),
    ] {
        assert_eq!(auth[name], value, "{auth}");
    }
    assert!(
        auth["nonce"].as_str().is_some_and(|n| n.len() >= 32),
        "{auth}"
    );
    assert_eq!(auth["state"].as_str(), Some(form.state.as_str()));
    assert!(browser.cookies.contains_key("gj_lti_state"));
    let signed_in = browser.submit(&form);
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
    assert!(
        signed_in.body.contains("url=/assignments/go"),
        "{}",
        signed_in.body
    );
    assert!(browser.session().is_some(), "no session");
    assert!(
        !browser.cookies.contains_key("gj_lti_state"),
        "the state stays"
    );

    let right = hand_in(&server, &browser, &go_c());
    assert_eq!(right["status"], "graded", "{right}");
    let scores = wait_for(platform, "/control/scores", |s| {
        s.as_array().unwrap().len() == 1
    });
    let score = &scores[0];
    assert_eq!(score["userId"], "user-7");
    assert_eq!(score["gradingProgress"], "FullyGraded");
    assert_eq!(score["activityProgress"], "Completed");
    assert!(
        score["timestamp"].as_str().unwrap().ends_with('Z'),
        "{score}"
    );
    let maximum = score["scoreMaximum"].as_f64().unwrap();
    assert!(maximum > 0.0);
    assert_eq!(score["scoreGiven"].as_f64(), Some(maximum), "{score}");
    // The launch named no line item: the tool made one for the assignment.
    let items = platform.read("/control/lineitems");
    let item = items.as_object().unwrap().values().next().unwrap().clone();
    assert_eq!(item["resourceId"], "go", "{items}");
    assert_eq!(item["scoreMaximum"].as_f64(), Some(maximum));

    // A worse submission after it: the grade that counts is still the best.
    let wrong = hand_in(&server, &browser, &go_c_wrong());
    assert!(wrong["score"].as_f64().unwrap() < maximum, "{wrong}");
    let scores = wait_for(platform, "/control/scores", |s| {
        s.as_array().unwrap().len() == 2
    });
    assert_eq!(scores[1]["scoreGiven"].as_f64(), Some(maximum), "{scores}");
    assert_eq!(
        items.as_object().unwrap().len(),
        1,
        "one line item per assignment"
    );
    assert_eq!(
        platform
            .read("/control/lineitems")
            .as_object()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn instructors_and_tas_get_the_class_whose_roster_comes_from_the_lms() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let (_course, server) = serving(&platform);
    let members: Vec<Value> = (1..=5)
        .map(|n| {
            json!({ "user_id": format!("member-{n}"), "roles": [LEARNER],
                         "name": format!("Member {n}"), "email": format!("m{n}@lms.example") })
        })
        .chain([json!({ "user_id": "ta-1", "roles": [TA], "name": "A. Assistant" })])
        .chain([
            json!({ "user_id": "gone", "roles": [LEARNER], "name": "Gone", "status": "Inactive" }),
        ])
        .collect();
    platform.control("/control/members", json!(members));

    let mut learner_browser = Browser::default();
    let answer = learner_browser.launch(&platform, learner("member-1"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let mut as_learner = Client::new(&server.base);
    as_learner.cookie = learner_browser.session();
    assert_eq!(
        as_learner.get("/instructor").status,
        404,
        "a learner has no class page"
    );

    let mut teacher = Browser::default();
    let answer = teacher.launch(
        &platform,
        json!({ "user": "teacher-1", "roles": [INSTRUCTOR], "name": "T. Eacher" }),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains("url=/instructor"), "{}", answer.body);
    let mut client = Client::new(&server.base);
    client.cookie = teacher.session();
    // The roster is read in the background, two members a page.
    let deadline = Instant::now() + Duration::from_secs(60);
    let class = loop {
        let page = client.get("/instructor");
        assert_eq!(page.status, 200, "{}", page.body);
        if page.body.contains("Member 5") || Instant::now() > deadline {
            break page.body;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    for n in 1..=5 {
        assert!(
            class.contains(&format!("data-student=\"member-{n}\"")),
            "{class}"
        );
    }
    assert!(
        !class.contains("A. Assistant"),
        "a TA is no student: {class}"
    );
    assert!(
        !class.contains("data-student=\"gone\""),
        "an inactive member: {class}"
    );
    assert!(!class.contains("T. Eacher"), "{class}");

    let mut assistant = Browser::default();
    let answer = assistant.launch(
        &platform,
        json!({ "user": "ta-1", "roles": [TA], "name": "A. Assistant" }),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let mut client = Client::new(&server.base);
    client.cookie = assistant.session();
    assert_eq!(client.get("/instructor").status, 200, "a TA gets the class");

    // A member who joined later is listed once the instructor asks again.
    let mut more = members.clone();
    more.push(json!({ "user_id": "member-6", "roles": [LEARNER], "name": "Member 6" }));
    platform.control("/control/members", json!(more));
    let csrf = client.csrf("/instructor");
    let refreshed = client.post_form("/instructor/lti/roster", &[("csrf", &csrf)]);
    assert_eq!(refreshed.status, 303, "{}", refreshed.body);
    assert!(client.get("/instructor").body.contains("Member 6"));
}

#[test]
fn forged_launches_are_refused_and_open_no_session() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let (_course, server) = serving(&platform);
    let refused = |answer: &crate::support::Answer, browser: &Browser, why: &str| {
        assert_eq!(answer.status, 401, "{why}: {}", answer.body);
        assert!(answer.body.contains("refused"), "{why}: {}", answer.body);
        assert!(browser.session().is_none(), "{why}: a session was opened");
    };
    for (forge, why) in [
        ("key", "signed by another key"),
        ("audience", "for another audience"),
        ("issuer", "from another issuer"),
        ("expired", "expired"),
        ("deployment", "from an unknown deployment"),
        ("message_type", "not a resource link launch"),
        ("version", "not LTI 1.3"),
    ] {
        let mut spec = learner("user-1");
        spec["forge"] = json!(forge);
        let mut browser = Browser::default();
        let answer = browser.launch(&platform, spec);
        refused(&answer, &browser, why);
    }

    // The same form posted twice: the second is a replay (its state and nonce are used up).
    let mut browser = Browser::default();
    let form = browser.authorize(&platform.login_url(learner("user-2")));
    let state_cookie = browser.cookies["gj_lti_state"].clone();
    assert_eq!(browser.submit(&form).status, 200);
    let mut replay = Browser::default();
    replay.cookies.insert("gj_lti_state".into(), state_cookie);
    refused(&replay.submit(&form), &replay, "a replayed launch");

    // A state this server never issued, with a cookie to match it.
    let mut browser = Browser::default();
    let mut form = browser.authorize(&platform.login_url(learner("user-3")));
    form.state = "0123456789abcdef0123456789abcdef".into();
    browser
        .cookies
        .insert("gj_lti_state".into(), form.state.clone());
    refused(&browser.submit(&form), &browser, "a state never issued");

    // A launch posted from another browser (no state cookie): login CSRF.
    let mut browser = Browser::default();
    let form = browser.authorize(&platform.login_url(learner("user-4")));
    let mut other = Browser::default();
    refused(
        &other.submit(&form),
        &other,
        "a launch from another browser",
    );

    // A login initiation from another issuer is refused before any redirect.
    let mut browser = Browser::default();
    let answer = browser.get(&format!(
        "{}/lti/login?iss=https://evil.example&login_hint=x&target_link_uri={}/lti/launch",
        server.base, server.base
    ));
    assert_eq!(answer.status, 401, "{}", answer.body);
}

#[test]
fn a_grade_made_while_the_platform_is_down_arrives_once_it_is_back() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let (_course, server) = serving(&platform);
    let mut browser = Browser::default();
    let mut spec = learner("user-9");
    // The link has a line item of its own.
    spec["lineitem"] = json!("1");
    let mut teacher = Browser::default();
    teacher.launch(&platform, json!({ "user": "t", "roles": [INSTRUCTOR] }));
    assert_eq!(browser.launch(&platform, spec).status, 200);
    platform.control("/control/down", json!({ "down": true }));
    let graded = hand_in(&server, &browser, &go_c());
    assert_eq!(graded["status"], "graded");
    // The sender tried and failed; the instructor's page says so.
    let mut client = Client::new(&server.base);
    client.cookie = teacher.session();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !client.get("/instructor").body.contains("waiting (tried") {
        assert!(
            Instant::now() < deadline,
            "{}",
            client.get("/instructor").body
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(platform.read("/control/scores"), json!([]));
    // Line item 1 exists on the platform once it is back.
    platform.control("/control/down", json!({ "down": false }));
    let scores = wait_for(&platform, "/control/scores", |s| {
        !s.as_array().unwrap().is_empty()
    });
    assert_eq!(scores[0]["userId"], "user-9");
    assert!(client.get("/instructor").body.contains("sent "));
    // Once: nothing more arrives.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        platform.read("/control/scores").as_array().unwrap().len(),
        1
    );
}

#[test]
fn a_new_platform_key_is_fetched_when_a_launch_names_it() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let (_course, _server) = serving(&platform);
    let mut browser = Browser::default();
    assert_eq!(browser.launch(&platform, learner("user-1")).status, 200);
    platform.control("/control/rotate", json!({}));
    // The tool fetches the key set again at most once a second.
    std::thread::sleep(Duration::from_millis(1100));
    let mut browser = Browser::default();
    let answer = browser.launch(&platform, learner("user-1"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(browser.session().is_some());
}

/// Links and launches side by side: the roster's students keep their links, and a roster
/// student who launches from the LMS (the same email) is the same student, with one history.
#[test]
fn links_and_launches_work_side_by_side() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let toml = course.path().join("course.toml");
    let text = std::fs::read_to_string(&toml).unwrap() + &platform.course_table();
    std::fs::write(&toml, text).unwrap();
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    platform.register(&server.base);
    let mut by_link = server.client();
    assert_eq!(by_link.login(&links["ada"]).status, 303);
    by_link.bearer = Some(tokens["ada"].clone());
    by_link.the_next_is_graded();

    let mut spec = learner("lms-user-ada");
    spec["email"] = json!("ada@example.edu");
    let mut browser = Browser::default();
    // This launch's login initiation comes as a form post.
    let form = browser.authorize_by_post(&platform.login_url(spec));
    assert_eq!(browser.submit(&form).status, 200);
    let mut client = Client::new(&server.base);
    client.cookie = browser.session();
    let page = client.get("/assignments/go").body;
    assert!(page.contains("Student ada"), "the roster's student: {page}");
    assert!(
        page.contains("/submissions/"),
        "her submission by link is hers: {page}"
    );
    let mut teacher = server.client();
    teacher.login(&links["instructor"]);
    let class = teacher.get("/instructor").body;
    assert_eq!(class.matches("data-student=").count(), 1, "{class}");
}

/// A grade that changes with no grading reaches the platform too: a regrade request answered
/// with a point (an extension's change takes the same path, `passback::changed`).
#[test]
fn a_grade_changed_by_an_answered_request_reaches_the_platform() {
    let Some(platform) = Platform::start() else {
        return;
    };
    let (_course, server) = serving(&platform);
    let mut browser = Browser::default();
    assert_eq!(browser.launch(&platform, learner("user-5")).status, 200);
    let mut teacher = Browser::default();
    teacher.launch(&platform, json!({ "user": "t", "roles": [INSTRUCTOR] }));
    let wrong = hand_in(&server, &browser, &go_c_wrong());
    let before = wrong["score"].as_f64().unwrap();
    wait_for(&platform, "/control/scores", |s| {
        s.as_array().unwrap().len() == 1
    });

    let mut learner = Client::new(&server.base);
    learner.cookie = browser.session();
    let (case, _) = crate::support::first_failing_case(&wrong);
    let id = wrong["id"].as_i64().unwrap();
    let asked = learner.send_json(
        "POST",
        &format!("/api/v1/submissions/{id}/requests"),
        Some(json!({ "case": case, "text": "Is this right?" })),
    );
    assert_eq!(asked.status, 201, "{}", asked.body);
    let mut instructor = Client::new(&server.base);
    instructor.cookie = teacher.session();
    let request = asked.json()["id"].as_i64().unwrap();
    let answered = instructor.send_json(
        "POST",
        &format!("/api/v1/requests/{request}/answer"),
        Some(json!({ "text": "One point back.", "points": 1 })),
    );
    assert_eq!(answered.status, 200, "{}", answered.body);
    let scores = wait_for(&platform, "/control/scores", |s| {
        s.as_array().unwrap().len() == 2
    });
    assert_eq!(
        scores[1]["scoreGiven"].as_f64(),
        Some(before + 1.0),
        "{scores}"
    );
}
