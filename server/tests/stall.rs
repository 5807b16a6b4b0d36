//! Grading never stops without a word: a frozen worker's work is graded by another, and while
//! work waits with no grading moving, the students' and the instructor's pages say that
//! grading has stalled, never "yours is next". (A grading that stops moving inside a process
//! is given up by the watchdog: `watchdog`'s unit tests.)

use std::time::{Duration, Instant};

use crate::support::{checkout, go_assignment, go_c, Client, Course, Postgres, Server};

/// Linux's signal numbers: stop, continue.
const SIGSTOP: i32 = 19;
const SIGCONT: i32 = 18;

/// Submission `id`'s page once it says grading has stalled (or after two minutes, as it is).
fn once_stalled(client: &Client, id: i64) -> String {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let page = client.get(&format!("/submissions/{id}")).body;
        if page.contains("grading has stalled") || Instant::now() > deadline {
            return page;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A server that grades nothing: past `--stall-after`, a waiting submission's page says grading
/// has stalled, and so does the instructor's class page; before it, "yours is next".
#[test]
fn a_queue_where_nothing_moves_is_said_to_have_stalled_on_every_page() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0", "--stall-after", "2"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let id = answer.json()["id"].as_i64().unwrap();
    let page = ada.get(&format!("/submissions/{id}")).body;
    assert!(page.contains("queued: yours is next"), "{page}");
    let page = once_stalled(&ada, id);
    assert!(
        page.contains("queued: grading has stalled: no submission has moved for"),
        "{page}"
    );
    assert!(!page.contains("yours is next"), "{page}");
    let mut instructor = server.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    let class = instructor.get("/instructor").body;
    assert!(class.contains("Grading has stalled"), "{class}");
}

/// Several machines: a worker frozen (SIGSTOP) in the middle of its gradings. While nothing
/// moves and a submission waits, the web server's pages say grading has stalled; a worker that
/// joins takes the frozen one's work once its heartbeats have stopped, and every submission is
/// graded, each once, the frozen worker's late results (it is thawed) recording nothing.
#[test]
fn a_frozen_worker_is_noticed_and_its_work_graded_by_another() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let course = Course::new(&["ada", "bo", "cy"], &[&go_assignment("go", "")]).on(&postgres.url);
    let tokens = course.tokens();
    let python = std::fs::read(checkout("xtask/bench/go.py")).unwrap();
    let web = Server::start(&course, &["--jobs", "0", "--stall-after", "5"]);
    let frozen = Server::worker(&course, &["--jobs", "1"]);
    let hand_in = |student: &str| {
        let mut client = web.client();
        client.bearer = Some(tokens[student].clone());
        let answer = client.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.py", &python)],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
        (answer.json()["id"].as_i64().unwrap(), client)
    };
    let (first, ada) = hand_in("ada");
    ada.wait_running(first, 2);
    // Our own worker's pid.
    xtask::sys::kill(frozen.child.id() as i32, SIGSTOP);
    let (waiting, cy) = hand_in("cy");
    let page = once_stalled(&cy, waiting);
    assert!(page.contains("queued: grading has stalled"), "{page}");
    let _other = Server::worker(&course, &["--jobs", "1"]);
    let (last, bo) = hand_in("bo");
    for (id, client) in [(first, &ada), (waiting, &cy), (last, &bo)] {
        let graded = client.wait_final(id);
        assert_eq!(graded["status"], "graded", "{graded}");
    }
    // Thawed, the frozen worker finishes what it held: nothing more is recorded.
    xtask::sys::kill(frozen.child.id() as i32, SIGCONT);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(course.sql("SELECT COUNT(*) FROM gradings"), "3");
    assert_eq!(
        course.sql("SELECT COUNT(DISTINCT submission) FROM gradings"),
        "3"
    );
}
