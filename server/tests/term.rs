//! A term's daily life: a student's own deadline (an extension), through every door the
//! course has: `extensions.csv`, the instructor's page, the API; and the same deadline
//! wherever lateness is decided or shown.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{go_c, Client, Course, Server};

/// The Go assignment, its class deadline long passed, taking no late work.
const PASSED: &str =
    "name = \"go\"\nspec = \"go\"\ndeadline = \"2020-01-01T00:00:00+00:00\"\nlate = \"refuse\"\nper_hour = 100\n";

const HEADER: &str = "id,assignment,deadline\n";

fn hand_in(client: &Client) -> crate::support::Answer {
    client.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    )
}

fn signed(server: &Server, token: &str) -> Client {
    let mut client = server.client();
    client.bearer = Some(token.to_string());
    client
}

/// What the server says when it refuses to start on `course` (exit status 2, a course fault).
fn refused(course: &Course) -> String {
    let out = course
        .command()
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{said}");
    said
}

/// Waits (at most 60 s) until the page at `path` holds `text`.
fn wait_for(client: &Client, path: &str, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let page = client.get(path).body;
        if page.contains(text) {
            return page;
        }
        assert!(
            Instant::now() < deadline,
            "{path} never held {text:?}: {page}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An extension moves one student's deadline: on time for them, refused for a classmate; the
/// API grants one to the classmate, and taking a student's away makes their earlier work late
/// again, as every door reads it.
#[test]
fn an_extension_moves_one_students_deadline_and_only_theirs() {
    let course = Course::new(&["ada", "bob"], &[PASSED]);
    std::fs::write(
        course.path().join("extensions.csv"),
        format!("{HEADER}ada,go,2099-01-01T00:00:00+02:00\n"),
    )
    .unwrap();
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let (ada, bob, teacher) = (
        signed(&server, &tokens["ada"]),
        signed(&server, &tokens["bob"]),
        signed(&server, &tokens["instructor"]),
    );

    let on_time = hand_in(&ada);
    assert_eq!(on_time.status, 202, "{}", on_time.body);
    let ada_id = on_time.json()["id"].as_i64().unwrap();
    let refused = hand_in(&bob);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("has passed"), "{}", refused.body);
    let page = ada.get("/assignments/go").body;
    assert!(page.contains(">2099-01-01 00:00 +02:00</time>"), "{page}");
    assert!(page.contains("your own deadline"), "{page}");
    let page = bob.get("/assignments/go").body;
    assert!(!page.contains("2099"), "{page}");
    assert!(ada.get("/").body.contains("(your own)"));

    // The API: bad grants are refused naming the field, a student may not grant.
    let put = |client: &Client, path: &str, deadline: &str| {
        client.send_json("PUT", path, Some(json!({ "deadline": deadline })))
    };
    for (path, deadline, field) in [
        (
            "/api/v1/assignments/go/extensions/bob",
            "next friday",
            "`deadline`",
        ),
        (
            "/api/v1/assignments/go/extensions/zed",
            "2099-01-01T00:00:00Z",
            "`id`",
        ),
        (
            "/api/v1/assignments/gone/extensions/bob",
            "2099-01-01T00:00:00Z",
            "`assignment`",
        ),
    ] {
        let answer = put(&teacher, path, deadline);
        assert_eq!(answer.status, 422, "{path}: {}", answer.body);
        assert!(
            answer.json()["error"].as_str().unwrap().starts_with(field),
            "{}",
            answer.body
        );
    }
    let answer = put(
        &bob,
        "/api/v1/assignments/go/extensions/bob",
        "2099-01-01T00:00:00Z",
    );
    assert_eq!(answer.status, 404, "{}", answer.body);
    assert_eq!(hand_in(&bob).status, 403);

    let answer = put(
        &teacher,
        "/api/v1/assignments/go/extensions/bob",
        "2099-01-01T00:00:00Z",
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json()["deadline"], "2099-01-01T00:00:00+00:00");
    let now_taken = hand_in(&bob);
    assert_eq!(now_taken.status, 202, "{}", now_taken.body);
    let bob_id = now_taken.json()["id"].as_i64().unwrap();
    assert_eq!(
        bob.get(&format!("/api/v1/submissions/{bob_id}")).json()["late"],
        false
    );
    let page = teacher.get("/instructor/assignments/go/extensions").body;
    assert!(
        page.contains(">bob<") && page.contains("granted here"),
        "{page}"
    );
    assert!(
        page.contains(">ada<") && page.contains("extensions.csv"),
        "{page}"
    );

    // Taken away: ada's work, handed in after the class's deadline, is late again.
    let path = format!("/api/v1/submissions/{ada_id}");
    assert_eq!(ada.get(&path).json()["late"], false);
    let gone = teacher.send_json("DELETE", "/api/v1/assignments/go/extensions/ada", None);
    assert_eq!(gone.status, 204, "{}", gone.body);
    assert_eq!(ada.get(&path).json()["late"], true);
    assert_eq!(hand_in(&ada).status, 403);
    let again = teacher.send_json("DELETE", "/api/v1/assignments/go/extensions/ada", None);
    assert_eq!(again.status, 404, "{}", again.body);
}

/// The instructor's page grants and takes away, its forms asking the session's CSRF token.
#[test]
fn the_extensions_page_grants_and_takes_away() {
    let course = Course::new(&["ada", "bob"], &[PASSED]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut teacher = server.client();
    teacher.login(&links["instructor"]);
    let base = "/instructor/assignments/go/extensions";
    assert!(teacher.get("/instructor").body.contains(base));
    let forged = teacher.post_form(
        base,
        &[
            ("csrf", "0"),
            ("id", "ada"),
            ("deadline", "2099-01-01T00:00:00Z"),
        ],
    );
    assert_eq!(forged.status, 403, "{}", forged.body);
    let csrf = teacher.csrf(base);
    let wrong = teacher.post_form(
        base,
        &[("csrf", &csrf), ("id", "ada"), ("deadline", "soon")],
    );
    assert_eq!(wrong.status, 422, "{}", wrong.body);
    assert!(wrong.body.contains("deadline"), "{}", wrong.body);
    let granted = teacher.post_form(
        base,
        &[
            ("csrf", &csrf),
            ("id", "ada"),
            ("deadline", "2099-01-01T00:00:00Z"),
        ],
    );
    assert_eq!(granted.status, 303, "{}", granted.body);
    let ada = signed(&server, &tokens["ada"]);
    assert_eq!(hand_in(&ada).status, 202);
    let removed = teacher.post_form(&format!("{base}/ada/remove"), &[("csrf", &csrf)]);
    assert_eq!(removed.status, 303, "{}", removed.body);
    assert!(teacher
        .get(base)
        .body
        .contains("No student has a deadline of their own"));
    assert_eq!(hand_in(&ada).status, 403);
}

/// `extensions.csv` is read again when it changes; a bad line (at start: the server does not
/// start; later: the change is refused) names the file, the line and the field, and nothing
/// granted earlier is lost.
#[test]
fn a_bad_extensions_line_is_refused_naming_its_line_and_field_and_loses_nothing() {
    let course = Course::new(&["ada", "bob"], &[PASSED]);
    let file = course.path().join("extensions.csv");
    std::fs::write(
        &file,
        format!("{HEADER}ada,go,2099-01-01T00:00:00Z\nzed,go,2099-01-01T00:00:00Z\n"),
    )
    .unwrap();
    let said = refused(&course);
    assert!(
        said.contains("extensions.csv:3: `id`: `zed` is no student"),
        "{said}"
    );

    std::fs::write(&file, format!("{HEADER}ada,go,2099-01-01T00:00:00Z\n")).unwrap();
    let tokens = course.tokens();
    let links = course.links();
    let server = Server::start(&course, &["--jobs", "0"]);
    let (ada, bob) = (
        signed(&server, &tokens["ada"]),
        signed(&server, &tokens["bob"]),
    );
    let mut teacher = server.client();
    teacher.login(&links["instructor"]);
    // A grant through the API, beside the file's.
    let answer = teacher.send_json(
        "PUT",
        "/api/v1/assignments/go/extensions/bob",
        Some(json!({ "deadline": "2099-06-01T00:00:00Z" })),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);

    let cases = [
        (
            "ada,go,2099-01-01T00:00:00Z\nbob,go,someday\n",
            "extensions.csv:3: `deadline`: `someday`",
        ),
        ("ada,go\n", "extensions.csv:2: `deadline`: missing"),
        (
            "ada,go,2099-01-01T00:00:00Z\nada,go,2099-02-01T00:00:00Z\n",
            "extensions.csv:3: `id`: `ada` has a second deadline",
        ),
        (
            "ada,homework,2099-01-01T00:00:00Z\n",
            "extensions.csv:2: `assignment`: `homework` is no assignment",
        ),
    ];
    for (rows, said) in cases {
        std::fs::write(&file, format!("{HEADER}{rows}")).unwrap();
        wait_for(&teacher, "/instructor/assignments/go/extensions", said);
        assert_eq!(hand_in(&ada).status, 202, "after {rows:?}");
        assert_eq!(hand_in(&bob).status, 202, "after {rows:?}");
    }
    // A good file again: its rows hold, the refusal is gone, the API's grant stays.
    std::fs::write(&file, format!("{HEADER}ada,go,2099-03-01T00:00:00+01:00\n")).unwrap();
    wait_for(
        &ada,
        "/assignments/go",
        "Due <strong><time datetime=\"2099-03-01T00:00:00+01:00\">",
    );
    let page = teacher.get("/instructor/assignments/go/extensions").body;
    assert!(!page.contains("was refused"), "{page}");
    assert!(bob
        .get("/assignments/go")
        .body
        .contains(">2099-06-01 00:00 +00:00</time>"));
    // The file's line taken out: its grant goes with it.
    std::fs::write(&file, HEADER).unwrap();
    wait_for(
        &ada,
        "/assignments/go",
        "Due <strong><time datetime=\"2020-01-01T00:00:00+00:00\">",
    );
    assert_eq!(hand_in(&ada).status, 403);
}

/// Late days: 4 a term, spent oldest assignment first, the days beyond them paid per day; as
/// grades.csv, the class table and the student's pages show them. Ada's own deadline on the
/// first assignment (an extension) is where her days late count from.
#[test]
fn late_days_are_spent_oldest_assignment_first_and_the_rest_is_penalised_per_day() {
    let now = chrono::Utc::now();
    let at = |days: f64| (now - chrono::Duration::seconds((days * 86_400.0) as i64)).to_rfc3339();
    let course = Course::new(&["ada", "bob"], &[]);
    let assignment = |name: &str, deadline: String| {
        format!(
            "[[assignment]]\nname = \"{name}\"\nspec = \"go\"\ndeadline = \"{deadline}\"\n\
             late_penalty_per_day = 0.1\nlate_days_max = 5\n"
        )
    };
    std::fs::write(
        course.path().join("course.toml"),
        format!(
            "title = \"Term\"\nlate_days = 4\n\n{}\n{}",
            assignment("first", at(10.0)),
            assignment("second", at(3.5)),
        ),
    )
    .unwrap();
    std::fs::write(
        course.path().join("extensions.csv"),
        format!("{HEADER}ada,first,{}\n", at(1.5)),
    )
    .unwrap();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let (ada, bob, teacher) = (
        signed(&server, &tokens["ada"]),
        signed(&server, &tokens["bob"]),
        signed(&server, &tokens["instructor"]),
    );
    let mut ids = Vec::new();
    for (client, name) in [(&ada, "first"), (&ada, "second"), (&bob, "second")] {
        let answer = client.post_files(
            &format!("/api/v1/assignments/{name}/submissions"),
            &[],
            &[("go.c", &go_c())],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
        ids.push(answer.json()["id"].as_i64().unwrap());
    }
    for id in ids {
        assert_eq!(teacher.wait_final(id)["status"], "graded");
    }
    let grades = |name: &str| {
        let csv = teacher
            .get(&format!("/api/v1/grades.csv?assignment={name}"))
            .body;
        let mut lines = csv.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        let column = |row: &str, name: &str| {
            let k = header.iter().position(|h| h == name).unwrap();
            row.split(',').nth(k).unwrap().to_string()
        };
        assert_eq!(
            header[header.len() - 2..],
            ["late_days_used", "late_penalty"],
            "{csv}"
        );
        lines
            .map(|row| {
                let max: f64 = column(row, "max_score").parse().unwrap();
                let fields = ["score", "late_days_used", "late_penalty"].map(|c| column(row, c));
                (column(row, "id"), max, fields)
            })
            .collect::<Vec<_>>()
    };
    let first = grades("first");
    let (_, max, ada_first) = &first[0];
    assert_eq!(first[0].0, "ada");
    let full = format!("{max:.2}");
    assert_eq!(ada_first, &[full.clone(), "2".into(), "0.00".into()]);
    let second = grades("second");
    assert_eq!((second[0].0.as_str(), second[1].0.as_str()), ("ada", "bob"));
    // Ada: 4 days late, 2 late days left, 2 days at 10%.
    assert_eq!(
        second[0].2,
        [
            format!("{:.2}", max * 0.8),
            "2".into(),
            format!("{:.2}", max * 0.2)
        ]
    );
    // Bob: 4 days late, his 4 late days unspent before.
    assert_eq!(second[1].2, [full, "4".into(), "0.00".into()]);
    for client in [&ada, &bob] {
        let page = client.get("/").body;
        assert!(page.contains("4 of 4 late days used this term."), "{page}");
    }
    let page = ada.get("/assignments/second").body;
    assert!(page.contains("2 late days spent on it"), "{page}");
    let class = teacher.get("/instructor").body;
    assert!(
        class.contains("late days used") && class.contains("late penalty"),
        "{class}"
    );
}

/// The late keys that contradict each other are refused with the file, the line and the field.
#[test]
fn contradictory_late_keys_are_refused_naming_the_field() {
    for (more, field) in [
        (
            "late_penalty = 0.1\nlate_penalty_per_day = 0.1\n",
            "`late_penalty`",
        ),
        ("late_days_max = 3\n", "`late_days_max`"),
        (
            "late = \"refuse\"\nlate_penalty_per_day = 0.1\n",
            "`late_penalty_per_day`",
        ),
        ("late_penalty_per_day = 1.5\n", "`late_penalty_per_day`"),
    ] {
        let course = Course::new(&["ada"], &[&crate::support::go_assignment("go", more)]);
        let said = refused(&course);
        assert!(
            said.contains("course.toml:") && said.contains(field),
            "{more}: {said}"
        );
    }
}

/// A regrade request: the student asks about one failing case (once while it is open); the
/// instructor answers with a point, which the submission document, grades.csv and the
/// student's page show, and which "Regrade all" keeps.
#[test]
fn a_regrade_request_is_answered_with_points_that_a_regrade_keeps() {
    let course = Course::new(&["ada", "bob"], &[&crate::support::go_assignment("go", "")]);
    let tokens = course.tokens();
    let links = course.links();
    let server = Server::start(&course, &[]);
    let (ada, bob, teacher) = (
        signed(&server, &tokens["ada"]),
        signed(&server, &tokens["bob"]),
        signed(&server, &tokens["instructor"]),
    );
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &crate::support::go_c_wrong())],
    );
    let id = answer.json()["id"].as_i64().unwrap();
    let graded = ada.wait_final(id);
    let (before, max) = (
        graded["score"].as_f64().unwrap(),
        graded["max_score"].as_f64().unwrap(),
    );
    assert!(before < max, "{graded}");
    let (case, failing) = crate::support::first_failing_case(&graded);
    let path = format!("/api/v1/submissions/{id}/requests");
    let ask = |client: &Client, case: &str, text: &str| {
        client.send_json("POST", &path, Some(json!({ "case": case, "text": text })))
    };
    for (case, text, status, said) in [
        (case.as_str(), "  ", 422, "`text`"),
        (case.as_str(), &"x".repeat(2_001), 422, "`text`"),
        ("handout/no-such-case", "why?", 422, "`case`"),
    ] {
        let answer = ask(&ada, case, text);
        assert_eq!(answer.status, status, "{}", answer.body);
        assert!(
            answer.json()["error"].as_str().unwrap().starts_with(said),
            "{}",
            answer.body
        );
    }
    assert_eq!(ask(&bob, &case, "is this right?").status, 404);
    let asked = ask(
        &ada,
        &case,
        "The handout says \"on line\" here, I think <b>mine</b> is fine.",
    );
    assert_eq!(asked.status, 201, "{}", asked.body);
    let request = asked.json()["id"].as_i64().unwrap();
    assert_eq!(ask(&ada, &case, "again").status, 409);

    let open = teacher.get("/api/v1/requests").json();
    assert_eq!(open.as_array().unwrap().len(), 1, "{open}");
    assert_eq!(open[0]["case"], case.as_str());
    assert_eq!(open[0]["report"]["verdict"], failing["verdict"]);
    let answer_path = format!("/api/v1/requests/{request}/answer");
    let wrong = teacher.send_json(
        "POST",
        &answer_path,
        Some(json!({ "text": "fine", "points": max + 1.0 })),
    );
    assert_eq!(wrong.status, 422, "{}", wrong.body);
    assert_eq!(
        ada.send_json(
            "POST",
            &answer_path,
            Some(json!({ "text": "mine", "points": 1 }))
        )
        .status,
        404
    );
    let answered = teacher.send_json(
        "POST",
        &answer_path,
        Some(json!({ "text": "Fair: one point back.", "points": 1 })),
    );
    assert_eq!(answered.status, 200, "{}", answered.body);
    let again = teacher.send_json(
        "POST",
        &answer_path,
        Some(json!({ "text": "more", "points": 1 })),
    );
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(teacher.get("/api/v1/requests").json(), json!([]));

    let expected = (before + 1.0).min(max);
    let document = ada.get(&format!("/api/v1/submissions/{id}")).json();
    assert_eq!(document["score"].as_f64(), Some(expected), "{document}");
    assert_eq!(document["requests"][0]["answer"]["points"], 1.0);
    let grades = |teacher: &Client| teacher.get("/api/v1/grades.csv").body;
    assert!(
        grades(&teacher).contains(&format!("ada,{expected:.2},")),
        "{}",
        grades(&teacher)
    );
    let mut page_ada = server.client();
    page_ada.login(&links["ada"]);
    let page = page_ada.get(&format!("/submissions/{id}")).body;
    assert!(page.contains("Fair: one point back."), "{page}");
    assert!(page.contains("&lt;b&gt;mine&lt;/b&gt;"), "{page}");

    // Regrade all: the graded score is the same, the answer's point is kept.
    let mut browser = server.client();
    browser.login(&links["instructor"]);
    let csrf = browser.csrf("/instructor");
    let regrade = browser.post_form("/instructor/assignments/go/regrade", &[("csrf", &csrf)]);
    assert_eq!(regrade.status, 303, "{}", regrade.body);
    let regraded = teacher.wait_final(id);
    assert_eq!(regraded["score"].as_f64(), Some(expected), "{regraded}");
    assert!(grades(&teacher).contains(&format!("ada,{expected:.2},")));
    let audit = browser.get("/instructor/assignments/go/regrades").body;
    assert!(
        audit.contains("Fair: one point back.") && audit.contains(&case),
        "{audit}"
    );
}
