//! The course server as students and instructors meet it day to day, over HTTP on a free
//! loopback port in a temporary course folder: the queue's page in its fair order, the hourly
//! limit under uploads at once, one server per course folder, the JSON API's errors and the
//! roster's, and `--init`'s example.

use crate::support::{go_assignment, go_c, Course, Server};

/// "N before yours" counts in the queue's own fair order: under a flood by one student,
/// another student's one submission is next but for the flood's first, and the flood's last
/// waits for every other submission.
#[test]
fn the_queue_page_counts_in_the_queues_fair_order() {
    let course = Course::new(&["ada", "alan"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    // Nothing grades: every submission stays queued, in a known order.
    let server = Server::start(&course, &["--jobs", "0"]);
    let hand_in = |student: &str| {
        let mut client = server.client();
        client.bearer = Some(tokens[student].clone());
        let answer = client.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.c", &go_c())],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
        (client, answer.json()["id"].as_i64().unwrap())
    };
    let flood: Vec<_> = (0..8).map(|_| hand_in("ada")).collect();
    let (alan, alans) = hand_in("alan");
    let status = |client: &crate::support::Client, id: i64| {
        let page = client.get(&format!("/submissions/{id}"));
        assert_eq!(page.status, 200, "{}", page.body);
        let start = page.body.find("id=\"status\"").expect("a status line");
        let text = &page.body[start..];
        text[text.find('>').unwrap() + 1..text.find("</p>").unwrap()].to_string()
    };
    // Ada's first, then Alan's: his first submission is second in the queue.
    assert_eq!(status(&flood[0].0, flood[0].1), "queued: yours is next");
    assert_eq!(status(&alan, alans), "queued: 1 before yours");
    // Ada's second waits for both first submissions; her last for all the others.
    assert_eq!(status(&flood[1].0, flood[1].1), "queued: 2 before yours");
    assert_eq!(status(&flood[7].0, flood[7].1), "queued: 8 before yours");
}

/// The hourly limit holds under 40 uploads at once: exactly the limit is taken.
#[test]
fn forty_uploads_at_once_take_exactly_the_hourly_limit() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "per_hour = 6")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    assert_eq!(
        crate::support::parallel_uploads(&server, &tokens["ada"], 40),
        6
    );
    assert_eq!(course.sql("SELECT COUNT(*) FROM submissions"), "6");
}

/// One server per course folder: a second one exits with status 4, naming the first's
/// process; once the first is gone, the course can be served again.
#[test]
fn a_second_server_on_one_course_folder_is_refused() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let first = Server::start(&course, &["--jobs", "0"]);
    let second = course
        .command()
        .args(["--listen", "127.0.0.1:0", "--jobs", "0"])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(4));
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains(&format!("by process {}", first.child.id())),
        "{said}"
    );
    first.kill();
    let again = Server::start(&course, &["--jobs", "0"]);
    assert_eq!(again.client().get("/static/live.js").status, 200);
}

/// The JSON API answers its errors in JSON, an address that is none of its routes included;
/// a roster line without a field is named by its line and field.
#[test]
fn the_api_answers_errors_in_json_and_the_roster_names_a_missing_field() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    for (path, status) in [
        ("/api/v1/submissions/9999", 404),
        ("/api/v1/submissions/%3Cb%3E", 404),
        ("/api/v1/nothing", 404),
        ("/api/v1/grades.csv", 404),
    ] {
        let answer = ada.get(path);
        assert_eq!(answer.status, status, "{path}: {}", answer.body);
        assert!(
            answer.headers["content-type"].starts_with("application/json"),
            "{path}: {:?}",
            answer.headers
        );
        assert!(
            answer.json()["error"].is_string(),
            "{path}: {}",
            answer.body
        );
    }
    let stranger = server.client();
    let answer = stranger.get("/api/v1/submissions/1");
    assert_eq!(answer.status, 401);
    assert!(answer.json()["error"].is_string(), "{}", answer.body);
    // The pages still answer with pages.
    let page = stranger.get("/assignments/go");
    assert!(page.headers["content-type"].starts_with("text/html"));
    std::fs::write(
        course.path().join("roster.csv"),
        "id,name,email\nada,Ada,ada@example.edu\nalan,Alan\n",
    )
    .unwrap();
    let out = course.command().arg("--links").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("roster.csv:3: `email`: missing"), "{said}");
}

/// `--init`'s example serves as it is written, and takes a Python program: it names no
/// languages unless the instructor does.
#[test]
fn the_init_example_serves_and_takes_python() {
    let dir = tempfile::tempdir().unwrap();
    let course_dir = dir.path().join("course");
    let init = std::process::Command::new(crate::support::SERVER)
        .arg("--course")
        .arg(&course_dir)
        .arg("--init")
        .output()
        .unwrap();
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    // The example's deadline has passed by the time anyone reads this: move it on.
    let toml = std::fs::read_to_string(course_dir.join("course.toml")).unwrap();
    let toml = toml.replace("2026-12-10T23:59:00+01:00", "2099-12-10T23:59:00+01:00");
    std::fs::write(course_dir.join("course.toml"), toml).unwrap();
    let course = Course {
        dir: tempfile::TempDir::new_in(dir.path()).unwrap(),
        database: None,
    };
    std::fs::remove_dir(course.path()).unwrap();
    std::fs::rename(&course_dir, course.path()).unwrap();
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let python = std::fs::read(crate::support::checkout("xtask/bench/go.py")).unwrap();
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.py", &python)],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
}

/// A student's result page gives the causes they can see first, and the hidden cases last, as
/// one line; the instructor's gives every cause.
#[test]
fn the_result_page_puts_hidden_cases_last_as_one_line() {
    let course = Course::new(
        &["alan"],
        &[&go_assignment("go", "hidden = [\"error-character\"]")],
    );
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut alan = server.client();
    alan.bearer = Some(tokens["alan"].clone());
    let answer = alan.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &crate::support::go_c_wrong())],
    );
    let id = answer.json()["id"].as_i64().unwrap();
    assert_eq!(alan.wait_final(id)["status"], "graded");
    let page = alan.get(&format!("/submissions/{id}")).body;
    // The visible cases' cause first; the hidden group's cases last, as one line, and no
    // cause of theirs.
    let cause = page.find("class=\"cause\"").expect("a visible cause");
    let hidden = page
        .find("hidden cases failed.")
        .expect("one line for the hidden");
    assert!(cause < hidden, "{page}");
    assert!(!page.contains("<code>go/error-character/"), "{page}");
    let mut instructor = server.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    let theirs = instructor.get(&format!("/submissions/{id}")).body;
    assert!(theirs.contains("<code>go/error-character/"), "{theirs}");
    assert!(!theirs.contains("hidden cases failed"), "{theirs}");
}

/// A deadline is shown as the course wrote it, with its offset (the page's script adds the
/// reader's own time), not turned into UTC.
#[test]
fn a_deadline_is_shown_with_the_courses_offset() {
    let assignment = "name = \"go\"\nspec = \"go\"\ndeadline = \"2099-01-01T23:59:00+01:00\"\n";
    let course = Course::new(&["ada"], &[assignment]);
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    for path in ["/", "/assignments/go"] {
        let page = ada.get(path).body;
        assert!(
            page.contains(">2099-01-01 23:59 +01:00</time>"),
            "{path}: {page}"
        );
        assert!(!page.contains("22:59 UTC"), "{path}: {page}");
    }
    let script = ada.get("/static/live.js").body;
    assert!(script.contains("time[datetime]"), "{script}");
}

/// The class report is `grade --html`'s, inside the course's page frame, with the similarity
/// section: two students who hand in the same program are ranked first, a third is not.
#[test]
fn the_class_report_is_framed_and_holds_the_similarity_of_the_class() {
    let course = Course::new(&["ada", "alan", "grace"], &[&go_assignment("go", "")]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let program = ("go.c", go_c());
    let other = (
        "go.py",
        std::fs::read(crate::support::checkout("xtask/bench/go.py")).unwrap(),
    );
    for (student, (name, source)) in [("ada", &program), ("alan", &program), ("grace", &other)] {
        let mut client = server.client();
        client.bearer = Some(tokens[student].clone());
        let answer =
            client.post_files("/api/v1/assignments/go/submissions", &[], &[(name, source)]);
        assert_eq!(answer.status, 202, "{}", answer.body);
        client.wait_final(answer.json()["id"].as_i64().unwrap());
    }
    let mut instructor = server.client();
    assert_eq!(instructor.login(&links["instructor"]).status, 303);
    let framed = instructor.get("/instructor/assignments/go/report");
    assert_eq!(framed.status, 200);
    assert!(
        framed.body.contains("href=\"/instructor\""),
        "the frame: {}",
        framed.body
    );
    assert!(framed
        .body
        .contains("src=\"/instructor/assignments/go/report.html\""));
    let report = instructor.get("/instructor/assignments/go/report.html");
    assert_eq!(report.status, 200);
    assert!(
        report.body.contains("Similarity across the class"),
        "{}",
        report.body
    );
    assert!(
        report.body.contains("data-pair=\"ada alan\""),
        "{}",
        report.body
    );
    for pair in ["ada grace", "alan grace"] {
        assert!(
            !report.body.contains(&format!("data-pair=\"{pair}\"")),
            "{pair}"
        );
    }
    // Its notes speak to someone on a page: no flag to give.
    assert!(!report.body.contains("give --grades"), "{}", report.body);
    assert!(
        report.body.contains("not compared on this page"),
        "{}",
        report.body
    );
    // A student has no class report.
    let mut ada = server.client();
    ada.login(&links["ada"]);
    assert_eq!(
        ada.get("/instructor/assignments/go/report.html").status,
        404
    );
}

/// A course file's `timeout` is checked as `--timeout` is, by the harness's setter: a day at
/// most. One over it is refused where it is written, with its file and line, before anything
/// starts.
#[test]
fn a_course_timeout_over_a_day_is_refused_with_its_file_and_line() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "timeout = 100000")]);
    let out = course.command().arg("--links").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let toml = std::fs::read_to_string(course.path().join("course.toml")).unwrap();
    let line = toml.lines().position(|l| l == "timeout = 100000").unwrap() + 1;
    assert!(
        stderr.contains(&format!("course.toml:{line}: `timeout`: `100000.0` is not a number of seconds above 0 and up to 86400.0 (a day)")),
        "{stderr}"
    );
}

/// A course may name a spec without `cases` only if the bundled corpus holds it; another is
/// refused with the line and the built-in specs, found in the corpus (the server keeps no
/// list of its own).
#[test]
fn a_spec_the_bundled_corpus_lacks_is_refused_naming_the_ones_it_has() {
    let assignment = go_assignment("chess", "").replace("spec = \"go\"", "spec = \"chess\"");
    let course = Course::new(&["ada"], &[&assignment]);
    let out = course.command().arg("--links").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "`chess` is not a built-in spec (collapse, columns, connect4, go); give `cases` for a spec of your own"
        ),
        "{stderr}"
    );
}

/// A hidden group the spec lacks (a typo) would hide nothing and show the group it meant to
/// every student: it is refused where it is written, with the group meant and those there are.
#[test]
fn a_mistyped_hidden_group_is_refused_before_it_can_show_anything() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "hidden = [\"generatd\"]")]);
    let out = course.command().arg("--links").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let toml = std::fs::read_to_string(course.path().join("course.toml")).unwrap();
    let line = toml
        .lines()
        .position(|l| l.starts_with("hidden = "))
        .unwrap()
        + 1;
    assert!(
        stderr.contains(&format!(
            "course.toml:{line}: `hidden`: `generatd` is no group of `go` (did you mean `generated`?): a hidden group must be one of "
        )),
        "{stderr}"
    );
    // Spelled right, it is taken.
    let course = Course::new(
        &["ada"],
        &[&go_assignment("go", "hidden = [\"generated\"]")],
    );
    let out = course.command().arg("--links").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
