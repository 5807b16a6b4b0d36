//! The course server over HTTP, on a free loopback port, in a temporary course folder: two
//! students graded as `grade` grades them, each seeing only their own work, forms refused
//! without their CSRF token, the hourly limit, late work, the upload cap, and a kill -9 in the
//! middle of grading.

use crate::support::{go_assignment, go_c, go_c_wrong, Client, Course, Server};

#[test]
fn two_students_are_graded_as_grade_grades_them_and_see_only_their_own_work() {
    let course = Course::new(
        &["ada", "alan"],
        &[&go_assignment(
            "go",
            "hidden = [\"error-character\", \"generated\"]\nlanguages = [\"c\"]",
        )],
    );
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let mut alan = server.client();
    alan.bearer = Some(tokens["alan"].clone());

    let a = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(a.status, 202, "{}", a.body);
    let a = a.json()["id"].as_i64().unwrap();
    let b = alan.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c_wrong())],
    );
    assert_eq!(b.status, 202, "{}", b.body);
    let b = b.json()["id"].as_i64().unwrap();

    let graded_a = ada.wait_final(a);
    let graded_b = alan.wait_final(b);
    assert_eq!(graded_a["status"], "graded");
    assert_eq!(graded_a["student"], "ada");
    assert_eq!(graded_a["score"], graded_a["max_score"]);
    assert_eq!(graded_b["status"], "graded");
    assert!(graded_b["score"].as_f64().unwrap() < graded_b["max_score"].as_f64().unwrap());

    // The grades are grade's, byte for byte, on the same files.
    let mut instructor = server.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    let csv = instructor.get("/api/v1/grades.csv");
    assert_eq!(csv.status, 200);
    let expected =
        crate::support::grade_csv(&[("ada", "go.c", &go_c()), ("alan", "go.c", &go_c_wrong())]);
    assert_eq!(csv.body, expected);

    // Alan's failing cases are in hidden groups: he sees their verdicts, not their lines; the
    // instructor sees everything.
    let failing = |report: &serde_json::Value| -> Vec<serde_json::Value> {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["verdict"] != "pass")
            .cloned()
            .collect()
    };
    let his = failing(&graded_b["report"]);
    assert!(!his.is_empty());
    assert!(
        his.iter().all(|c| ["error-character", "generated"]
            .contains(&c["group"].as_str().unwrap())
            && c["first_difference"].is_null()),
        "{his:?}"
    );
    let theirs = failing(&instructor.get(&format!("/api/v1/submissions/{b}")).json()["report"]);
    assert!(theirs
        .iter()
        .all(|c| c["first_difference"]["expected_line"].is_string()));
    // No student page names a path of the grader.
    let mut his_browser = server.client();
    his_browser.login(&links["alan"]);
    for page in [
        alan.get(&format!("/api/v1/submissions/{b}")).body,
        his_browser.get(&format!("/submissions/{b}")).body,
        his_browser.get(&format!("/submissions/{b}/report")).body,
    ] {
        assert!(page.len() > 1000);
        assert!(!page.contains(&course.path().display().to_string()));
        assert!(!page.contains(".cache/gridjudge"), "{page}");
    }

    // Another student's submission is not found, on every route that takes an id.
    for path in [
        format!("/api/v1/submissions/{a}"),
        format!("/submissions/{a}"),
        format!("/submissions/{a}/report"),
        format!("/submissions/{a}/events"),
    ] {
        // A link signs in once: each browser signs in by a link made in the first.
        let mut browser = server.client();
        assert_eq!(browser.login(&his_browser.device_link()).status, 303);
        assert_eq!(browser.get(&path).status, 404, "{path}");
        assert_eq!(alan.get(&path).status, 404, "{path}");
        assert_eq!(ada.get(&path).status, 200, "{path}");
    }
    assert_eq!(alan.get("/api/v1/submissions/999999").status, 404);
    // The instructor's routes are not found for a student.
    assert_eq!(alan.get("/api/v1/grades.csv").status, 404);
    assert_eq!(
        alan.get("/instructor/assignments/go/grades.csv").status,
        404
    );
    // A student's upload in a language the assignment does not take is refused.
    let python = alan.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.py", b"print(1)\n")],
    );
    assert_eq!(python.status, 422, "{}", python.body);
    // The same by the browser's form: a page with a heading in words and the way back.
    let mut browser = server.client();
    browser.login(&his_browser.device_link());
    let csrf = browser.csrf("/assignments/go");
    let page = browser.post_files(
        "/assignments/go/submissions",
        &[("csrf", &csrf)],
        &[("go.py", b"print(1)\n")],
    );
    assert_eq!(page.status, 422, "{}", page.body);
    assert!(page.body.contains("<h1>Not taken</h1>"), "{}", page.body);
    assert!(page.body.contains("href=\"/\""), "{}", page.body);
    // Every graded submission was recorded once.
    assert_eq!(course.sql("SELECT COUNT(*) FROM gradings"), "2");
}

#[test]
fn forms_are_refused_without_their_csrf_token_and_pages_carry_the_policy() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut browser = server.client();
    let login = browser.login(&links["ada"]);
    assert_eq!(login.status, 303);
    let cookie = &login.headers["set-cookie"];
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let page = browser.get("/assignments/go");
    assert_eq!(page.status, 200);
    let policy = &page.headers["content-security-policy"];
    assert!(
        policy.contains("script-src 'self'") && !policy.contains("unsafe-eval"),
        "{policy}"
    );
    let forged = browser.post_files(
        "/assignments/go/submissions",
        &[("csrf", "00000000000000000000000000000000")],
        &[("go.c", &go_c())],
    );
    assert_eq!(forged.status, 403, "{}", forged.body);
    let missing = browser.post_files("/assignments/go/submissions", &[], &[("go.c", &go_c())]);
    assert_eq!(missing.status, 403);
    assert_eq!(course.sql("SELECT COUNT(*) FROM submissions"), "0");
    let csrf = browser.csrf("/assignments/go");
    let taken = browser.post_files(
        "/assignments/go/submissions",
        &[("csrf", &csrf)],
        &[("go.c", &go_c())],
    );
    assert_eq!(taken.status, 303, "{}", taken.body);
    assert_eq!(course.sql("SELECT COUNT(*) FROM submissions"), "1");
    // A link for another device, made before signing out.
    let second = browser.device_link();
    // Sign out needs the token too; after it, the cookie opens nothing.
    assert_ne!(
        browser.post_form("/logout", &[("csrf", "nope")]).status,
        200
    );
    assert_eq!(browser.post_form("/logout", &[("csrf", &csrf)]).status, 200);
    assert_eq!(browser.get("/assignments/go").status, 401);
    // A link guessed wrong is counted against the address, and then refused outright.
    let guesser = server.client();
    let mut statuses = Vec::new();
    for k in 0..12 {
        statuses.push(guesser.get(&format!("/login/{k:032x}")).status);
    }
    assert_eq!(&statuses[..10], &[404; 10]);
    assert_eq!(statuses[11], 429);
    // A live link is never refused for the wrong guesses of its address: behind a proxy or a
    // campus network, a whole class shares one.
    assert_eq!(guesser.get(&format!("/login/{second}")).status, 303);
}

#[test]
fn the_hourly_limit_holds_and_says_when_the_next_submission_is_allowed() {
    let course = Course::new(&["ada", "alan"], &[&go_assignment("go", "per_hour = 2")]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    for _ in 0..2 {
        let answer = ada.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.c", &go_c())],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
    }
    let third = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(third.status, 429, "{}", third.body);
    let retry: i64 = third.headers["retry-after"].parse().unwrap();
    assert!((3500..=3600).contains(&retry), "{retry}");
    assert!(
        third.body.contains("next submission is allowed at"),
        "{}",
        third.body
    );
    // Another student is not held by Ada's limit.
    let mut alan = server.client();
    alan.bearer = Some(tokens["alan"].clone());
    assert_eq!(
        alan.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.c", &go_c())]
        )
        .status,
        202
    );
    let mut browser = server.client();
    browser.login(&links["ada"]);
    let page = browser.get("/assignments/go").body;
    assert!(
        page.contains("your next submission is allowed at"),
        "{page}"
    );
    assert!(!page.contains("type=\"file\""));
}

#[test]
fn late_work_is_marked_and_counted_with_its_penalty_or_refused() {
    let course = Course::new(
        &["ada"],
        &[
            "name = \"late\"\nspec = \"go\"\ndeadline = \"2020-01-01T00:00:00+00:00\"\nlate = \"accept\"\nlate_penalty = 0.25",
            "name = \"closed\"\nspec = \"go\"\ndeadline = \"2020-01-01T00:00:00+00:00\"\nlate = \"refuse\"",
        ],
    );
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let refused = ada.post_files(
        "/api/v1/assignments/closed/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("deadline"));
    let late = ada.post_files(
        "/api/v1/assignments/late/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(late.status, 202);
    let graded = ada.wait_final(late.json()["id"].as_i64().unwrap());
    assert_eq!(graded["late"], true);
    assert_eq!(graded["score"], graded["max_score"]);
    let max = graded["max_score"].as_f64().unwrap();
    let mut instructor = server.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    let csv = instructor.get("/api/v1/grades.csv?assignment=late").body;
    let row = csv.lines().nth(1).unwrap();
    // 75% of the points: the late penalty of a quarter.
    assert!(
        row.starts_with(&format!("ada,{:.2},{max:.2},", max * 0.75)),
        "{csv}"
    );
    let mut browser = server.client();
    browser.login(&links["instructor"]);
    let class = browser.get("/instructor").body;
    assert!(class.contains("class=\"late\""), "{class}");
}

#[test]
fn an_upload_over_the_cap_is_refused_and_nothing_is_stored() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &["--max-upload", "1", "--jobs", "0"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let big = vec![b'x'; 3 << 20];
    let upload = ada.try_post_files("/api/v1/assignments/go/submissions", &[], &[("go.c", &big)]);
    crate::support::assert_refused(upload, 413);
    // One just over the cap, whose answer is read: it names the cap.
    let over = vec![b'x'; (1 << 20) + 1];
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &over)],
    );
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert!(answer.body.contains("(1 MiB in all)"), "{}", answer.body);
    // A body that is no multipart form is told so, as JSON like every error of the API.
    let answer = ada.post_form("/api/v1/assignments/go/submissions", &[("file", "x")]);
    assert_eq!(answer.status, 400, "{}", answer.body);
    let error: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("multipart/form-data"),
        "{}",
        answer.body
    );
    assert_eq!(course.sql("SELECT COUNT(*) FROM submissions"), "0");
    assert_eq!(course.sql("SELECT COUNT(*) FROM files"), "0");
    let store = course.path().join(".gridjudge/store");
    let stored = walk(&store);
    assert!(stored.is_empty(), "{stored:?}");
    // Names that try to leave the folder keep their last part only.
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("../../escape.c", &go_c())],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    assert_eq!(course.sql("SELECT name FROM files"), "escape.c");
    // A folder's upload keeps its inner paths, leaves its hidden files out and drops its own
    // name.
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[
            ("project/src/go.c", &go_c()),
            ("project/.git/config", b"[core]\n"),
        ],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let id = answer.json()["id"].as_i64().unwrap();
    let names = course.sql(&format!(
        "SELECT group_concat(name) FROM files WHERE submission = {id}"
    ));
    assert_eq!(names, "src/go.c");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            match entry.path().is_dir() {
                true => found.extend(walk(&entry.path())),
                false => found.push(entry.path()),
            }
        }
    }
    found
}

/// A stopping worker lets the gradings under way finish without ending the transaction its last
/// poll of the queue may have begun: on SQLite that transaction held the write lock of the
/// queue's file for a minute, and when the queue shared the course's file, the grading could
/// not record its result. The queue has a file of its own; here the test holds its lock.
#[test]
fn sigterm_while_the_queue_is_locked_still_records_the_grading_under_way() {
    let course = Course::new(&["s1"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let python = std::fs::read(crate::support::checkout("xtask/bench/go.py")).unwrap();
    let server = Server::start(&course, &[]);
    let mut client = server.client();
    client.bearer = Some(tokens["s1"].clone());
    let answer = client.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.py", &python)],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let id = answer.json()["id"].as_i64().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    client.wait_running(id, 1);
    let lock = crate::support::WriteLock::take(&course.path().join(".gridjudge/queue.db"));
    // The pid is our own child's, not yet waited for.
    xtask::sys::kill(server.child.id() as i32, 15);
    let status = loop {
        let status = course.sql(&format!("SELECT status FROM submissions WHERE id = {id}"));
        if status != "running" || std::time::Instant::now() > deadline {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status, "graded", "submission {id} with the queue locked");
    drop(lock);
    assert!(server.terminate().success());
}

#[test]
fn a_server_killed_in_the_middle_of_grading_grades_everything_once_after_a_restart() {
    let course = Course::new(&["s1", "s2", "s3"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let python = std::fs::read(crate::support::checkout("xtask/bench/go.py")).unwrap();
    let server = Server::start(&course, &[]);
    let mut ids = Vec::new();
    for student in ["s1", "s2", "s3"] {
        let mut client = server.client();
        client.bearer = Some(tokens[student].clone());
        let answer = client.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.py", &python)],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
        ids.push(answer.json()["id"].as_i64().unwrap());
    }
    // Killed once the first submission is well into its cases.
    let mut watcher = server.client();
    watcher.bearer = Some(tokens["s1"].clone());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    watcher.wait_running(ids[0], 5);
    server.kill();
    assert_eq!(course.sql("SELECT COUNT(*) FROM gradings"), "0");
    // Restarted; SIGTERM while a submission is graded: that one finishes, then the server stops.
    let server = Server::start(&course, &[]);
    let mut instructor = server.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    // One this server is grading: its cases counted (a status the killed server left in the
    // database counts none).
    let running = 'found: loop {
        for id in &ids {
            let json = instructor.get(&format!("/api/v1/submissions/{id}")).json();
            if json["status"] == "running" && json["cases_done"].as_i64().unwrap_or(0) > 0 {
                break 'found *id;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nothing graded after the restart"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(server.terminate().success());
    let status = course.sql(&format!(
        "SELECT status FROM submissions WHERE id = {running}"
    ));
    assert_eq!(status, "graded", "submission {running} after SIGTERM");
    let server = Server::start(&course, &[]);
    let mut max = None;
    for (student, id) in ["s1", "s2", "s3"].iter().zip(&ids) {
        let mut client: Client = server.client();
        client.bearer = Some(tokens[*student].clone());
        let graded = client.wait_final(*id);
        assert_eq!(graded["status"], "graded", "{graded}");
        assert_eq!(graded["score"], graded["max_score"], "{student}");
        max = Some(graded["max_score"].clone());
    }
    assert!(max.is_some());
    for id in &ids {
        assert_eq!(
            course.sql(&format!(
                "SELECT COUNT(*) FROM gradings WHERE submission = {id}"
            )),
            "1"
        );
    }
    // SIGTERM stops it cleanly.
    assert!(server.terminate().success());
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        match entry.path().is_dir() {
            true => copy_tree(&entry.path(), &target),
            false => {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}

#[test]
fn regrade_all_after_the_cases_changed_says_whose_score_moved_and_why() {
    let course = Course::new(
        &["ada", "alan"],
        &[&go_assignment("go", "cases = \"cases\"")],
    );
    copy_tree(
        &crate::support::checkout("cases/go"),
        &course.path().join("cases/go"),
    );
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ids = Vec::new();
    for (student, program) in [("ada", go_c()), ("alan", go_c_wrong())] {
        let mut client = server.client();
        client.bearer = Some(tokens[student].clone());
        let answer = client.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.c", &program)],
        );
        ids.push(answer.json()["id"].as_i64().unwrap());
    }
    let mut instructor = server.client();
    instructor.bearer = Some(tokens["instructor"].clone());
    let before: Vec<f64> = ids
        .iter()
        .map(|id| instructor.wait_final(*id)["score"].as_f64().unwrap())
        .collect();
    // The handout example's expected output changes by one character: both students now fail it.
    let expected = course.path().join("cases/go/handout/001-example.out");
    let text = std::fs::read_to_string(&expected).unwrap();
    std::fs::write(&expected, text.replacen("The Stones", "The stones", 1)).unwrap();
    let mut browser = server.client();
    browser.login(&links["instructor"]);
    let csrf = browser.csrf("/instructor");
    assert_eq!(
        browser
            .post_form("/instructor/assignments/go/regrade", &[("csrf", "forged")])
            .status,
        403
    );
    let answer = browser.post_form("/instructor/assignments/go/regrade", &[("csrf", &csrf)]);
    assert_eq!(answer.status, 303, "{}", answer.body);
    let after: Vec<f64> = ids
        .iter()
        .map(|id| instructor.wait_final(*id)["score"].as_f64().unwrap())
        .collect();
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(*new, old - 10.0, "the handout group is worth 10 points");
    }
    let audit = browser.get("/instructor/assignments/go/regrades").body;
    for student in ["ada", "alan"] {
        assert!(audit.contains(&format!("<td>{student}</td>")), "{audit}");
    }
    assert!(
        audit.contains("go/handout/001-example: pass → wrong-output"),
        "{audit}"
    );
    // Each generation of each submission was recorded once.
    assert_eq!(course.sql("SELECT COUNT(*) FROM gradings"), "4");
}

#[test]
fn what_a_program_prints_is_shown_as_text_and_a_zip_is_unpacked() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let hostile = b"print('<script>alert(1)</script><img src=x onerror=alert(2)>')\n";
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.py", hostile)],
    );
    let id = answer.json()["id"].as_i64().unwrap();
    let graded = ada.wait_final(id);
    assert_eq!(graded["status"], "graded", "{graded}");
    let mut browser = server.client();
    browser.login(&links["ada"]);
    for path in [
        format!("/submissions/{id}"),
        format!("/submissions/{id}/report"),
    ] {
        let page = browser.get(&path).body;
        assert!(
            page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}: {page}"
        );
        assert!(!page.contains("<script>alert"), "{path}");
        assert!(!page.contains("<img src=x"), "{path}");
    }
    // A zip of the sources is unpacked by the harness's bounded code, as grade unpacks one.
    let mut zipped = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut zipped);
        writer
            .start_file("project/go.c", zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut writer, &go_c()).unwrap();
        writer.finish().unwrap();
    }
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("mine.zip", zipped.get_ref())],
    );
    let graded = ada.wait_final(answer.json()["id"].as_i64().unwrap());
    assert_eq!(graded["status"], "graded", "{graded}");
    assert_eq!(graded["score"], graded["max_score"]);
}
