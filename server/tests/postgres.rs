//! The course server on several machines' worth of processes: a real PostgreSQL cluster of
//! the test's own (a temporary folder, a Unix socket, an unprivileged user), a web server that
//! grades nothing and grading workers that share nothing but the database. Every accepted
//! submission is graded and its result recorded exactly once, whatever is killed: a worker
//! (kill -9, in the middle of a case), the web server (kill -9), the database (a restart). The
//! grades are those one `grade` run gives the same files, byte for byte. Skips, saying why,
//! where PostgreSQL or gcc is missing.

use std::time::{Duration, Instant};

use crate::support::{go_assignment, go_c, go_c_wrong, Course, Postgres, Server};

/// How many students, each handing in twice.
const STUDENTS: usize = 100;

fn installed(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The first column of `query`'s first row, or `None` while the database cannot answer (it
/// is restarting).
fn try_sql(course: &Course, query: &str) -> Option<String> {
    let course = std::panic::AssertUnwindSafe(course);
    let query = query.to_string();
    std::panic::catch_unwind(move || course.sql(&query)).ok()
}

/// Waits until `query` counts at least `n`, for at most `within`.
fn wait_for(course: &Course, query: &str, n: usize, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let count = try_sql(course, query).and_then(|text| text.parse::<usize>().ok());
        if count.is_some_and(|count| count >= n) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{query}: {count:?} after {within:?}, waiting for {n}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Hands in student `k`'s file (the right C solution for even `k`, the wrong one for odd).
fn hand_in(server: &Server, token: &str, k: usize) -> i64 {
    let mut client = server.client();
    client.bearer = Some(token.to_string());
    let bytes = if k.is_multiple_of(2) {
        go_c()
    } else {
        go_c_wrong()
    };
    let answer = client.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &bytes)],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    answer.json()["id"].as_i64().unwrap()
}

#[test]
fn two_hundred_submissions_are_graded_once_through_kills_and_a_database_restart() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let students: Vec<String> = (0..STUDENTS).map(|k| format!("s{k:03}")).collect();
    let names: Vec<&str> = students.iter().map(String::as_str).collect();
    let course = Course::new(&names, &[&go_assignment("go", "")]).on(&postgres.url);
    let tokens = course.tokens();
    // A web server that grades nothing, and two workers of one seat each.
    let web = Server::start(&course, &["--jobs", "0"]);
    let first = Server::worker(&course, &["--jobs", "1"]);
    let _second = Server::worker(&course, &["--jobs", "1"]);
    let mut ids = Vec::new();
    for (k, student) in students.iter().enumerate() {
        ids.push(hand_in(&web, &tokens[student], k));
    }
    let graded = "SELECT COUNT(*) FROM gradings";
    // kill -9 of a worker while it runs a case, and another joins.
    wait_for(&course, graded, 10, Duration::from_secs(300));
    wait_for(
        &course,
        "SELECT COUNT(*) FROM submissions WHERE status = 'running' AND cases_total > 0",
        1,
        Duration::from_secs(60),
    );
    first.kill();
    let _third = Server::worker(&course, &["--jobs", "1"]);
    // kill -9 of the web server, and a new one; the second hand-in of every student.
    wait_for(&course, graded, 40, Duration::from_secs(300));
    web.kill();
    let web = Server::start(&course, &["--jobs", "0"]);
    for (k, student) in students.iter().enumerate() {
        ids.push(hand_in(&web, &tokens[student], k));
    }
    // The database restarts while the workers grade.
    wait_for(&course, graded, 120, Duration::from_secs(300));
    postgres.restart();
    let total = ids.len();
    wait_for(&course, graded, total, Duration::from_secs(600));
    // Exactly once: one result per submission, none twice (the table's key), none left out.
    assert_eq!(
        course.sql("SELECT COUNT(*) FROM gradings"),
        total.to_string()
    );
    assert_eq!(
        course.sql("SELECT COUNT(DISTINCT submission) FROM gradings"),
        total.to_string()
    );
    assert_eq!(
        course.sql("SELECT COUNT(*) FROM submissions WHERE status = 'graded'"),
        total.to_string()
    );
    // The grades are grade's, byte for byte.
    let mut instructor = web.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    let csv = instructor.get("/api/v1/grades.csv");
    assert_eq!(csv.status, 200);
    let right = go_c();
    let wrong = go_c_wrong();
    let class: Vec<(&str, &str, &[u8])> = students
        .iter()
        .enumerate()
        .map(|(k, student)| {
            let bytes: &[u8] = if k.is_multiple_of(2) { &right } else { &wrong };
            (student.as_str(), "go.c", bytes)
        })
        .collect();
    assert_eq!(csv.body, crate::support::grade_csv(&class));
}

/// A web server that grades nothing shows a submission's progress while a worker on another
/// machine grades it: the count of cases run goes through the database.
#[test]
fn a_web_server_shows_the_progress_of_a_grading_another_process_runs() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]).on(&postgres.url);
    let tokens = course.tokens();
    let web = Server::start(&course, &["--jobs", "0"]);
    let _worker = Server::worker(&course, &["--jobs", "1"]);
    let id = hand_in(&web, &tokens["ada"], 0);
    let mut ada = web.client();
    ada.bearer = Some(tokens["ada"].clone());
    let deadline = Instant::now() + Duration::from_secs(300);
    let (done, total) = loop {
        let json = ada.get(&format!("/api/v1/submissions/{id}")).json();
        let (done, total) = (json["cases_done"].as_i64(), json["cases_total"].as_i64());
        if json["status"] == "running" && done.is_some_and(|done| done > 0) {
            break (done.unwrap(), total.unwrap());
        }
        assert_ne!(
            json["status"], "graded",
            "graded before any progress was seen"
        );
        assert!(Instant::now() < deadline, "no progress seen: {json}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(done < total, "{done} of {total}");
    let page = ada.get(&format!("/submissions/{id}"));
    assert!(page.body.contains("running: case "), "{}", page.body);
    assert!(page.body.contains(&format!(" of {total}")), "{}", page.body);
    assert_eq!(ada.wait_final(id)["status"], "graded");
}

/// The hourly limit holds under 40 uploads at once on PostgreSQL, whose transactions run side
/// by side: exactly the limit is taken.
#[test]
fn forty_uploads_at_once_take_exactly_the_hourly_limit_on_postgres() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let course = Course::new(&["ada"], &[&go_assignment("go", "per_hour = 6")]).on(&postgres.url);
    let tokens = course.tokens();
    let web = Server::start(&course, &["--jobs", "0"]);
    assert_eq!(
        crate::support::parallel_uploads(&web, &tokens["ada"], 40),
        6
    );
    assert_eq!(course.sql("SELECT COUNT(*) FROM submissions"), "6");
}

/// One web server per course database; workers join it.
#[test]
fn a_second_web_server_on_one_database_is_refused() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]).on(&postgres.url);
    let _web = Server::start(&course, &["--jobs", "0"]);
    let _worker = Server::worker(&course, &["--jobs", "1"]);
    let second = course
        .command()
        .args(["--listen", "127.0.0.1:0", "--jobs", "0"])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(4));
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("served already"), "{said}");
}
