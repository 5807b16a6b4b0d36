//! Attacks on the course server, one test each, against a server on loopback (the others —
//! another student's submission on every route, CSRF, stored XSS through a program's output,
//! path names, an oversized body, link guessing — are in `server.rs`): a zip bomb and a sparse
//! file, markup in a file name, a zip entry's name and an id, session fixation, slow requests
//! that never finish (slowloris), and a student flooding the queue.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use crate::support::{go_assignment, go_c, Course, Server};

/// A zip whose one entry unpacks to `mib` MiB of zeros (deflate makes it about a thousandth
/// of that).
fn zip_bomb(mib: usize) -> Vec<u8> {
    let mut zipped = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut zipped);
        writer
            .start_file("go.c", zip::write::SimpleFileOptions::default())
            .unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..mib {
            writer.write_all(&zeros).unwrap();
        }
        writer.finish().unwrap();
    }
    zipped.into_inner()
}

#[test]
fn a_zip_bomb_is_refused_by_the_unpacker_and_the_server_goes_on() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let bomb = zip_bomb(200);
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("bomb.zip", &bomb)],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let graded = ada.wait_final(answer.json()["id"].as_i64().unwrap());
    assert_ne!(graded["status"], "graded", "{graded}");
    let error = graded["error"].as_str().unwrap_or_default();
    assert!(error.contains("MiB once unpacked"), "{graded}");
    // Nothing of it stays where submissions are unpacked, and the server grades the next one.
    ada.the_next_is_graded();
}

#[test]
fn a_sparse_file_in_a_tarball_is_refused_by_the_unpacker() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    // A 4 GiB file that holds no block, packed as GNU tar packs sparse files: a few bytes.
    let dir = tempfile::tempdir().unwrap();
    let sparse = dir.path().join("go.c");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let packed = std::process::Command::new("tar")
        .arg("-C")
        .arg(dir.path())
        .arg("--sparse")
        .arg("-czf")
        .arg(dir.path().join("sparse.tar.gz"))
        .arg("go.c")
        .status();
    if !packed.is_ok_and(|status| status.success()) {
        println!("skipped: GNU tar could not pack a sparse file");
        return;
    }
    let tarball = std::fs::read(dir.path().join("sparse.tar.gz")).unwrap();
    assert!(tarball.len() < 1 << 20, "{} bytes", tarball.len());
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("sparse.tar.gz", &tarball)],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let graded = ada.wait_final(answer.json()["id"].as_i64().unwrap());
    assert_ne!(graded["status"], "graded", "{graded}");
    let error = graded["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("sparse") || error.contains("MiB once unpacked"),
        "{graded}"
    );
}

#[test]
fn markup_in_a_file_name_a_zip_entry_or_an_id_is_text() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.login(&links["ada"]);
    let mut api = server.client();
    api.bearer = Some(tokens["ada"].clone());
    let named = api.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("<img src=x onerror=alert(1)>.c", &go_c())],
    );
    assert_eq!(named.status, 202, "{}", named.body);
    let mut zipped = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut zipped);
        writer
            .start_file(
                "<script>alert(2)</script>.c",
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
        writer.write_all(&go_c()).unwrap();
        writer.finish().unwrap();
    }
    let entry = api.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("mine.zip", zipped.get_ref())],
    );
    for answer in [&named, &entry] {
        let id = answer.json()["id"].as_i64().unwrap();
        api.wait_final(id);
        for path in [
            format!("/submissions/{id}"),
            format!("/submissions/{id}/report"),
            "/assignments/go".to_string(),
        ] {
            let page = ada.get(&path).body;
            assert!(!page.contains("<img src=x"), "{path}: {page}");
            assert!(!page.contains("<script>alert"), "{path}: {page}");
        }
    }
    // An id that is markup is refused without being written back as markup.
    for path in [
        "/submissions/%3Cscript%3Ealert(3)%3C%2Fscript%3E",
        "/submissions/1%3Cb%3E",
    ] {
        let answer = ada.get(path);
        assert!(answer.status >= 400, "{path}: {}", answer.status);
        assert!(
            !answer.body.contains("<script>alert"),
            "{path}: {}",
            answer.body
        );
        assert!(!answer.body.contains("<b>"), "{path}: {}", answer.body);
    }
}

#[test]
fn a_session_id_chosen_before_the_login_is_never_the_session() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let server = Server::start(&course, &[]);
    // The attacker plants a session id of their choosing in the victim's browser, who then
    // opens their link.
    let planted = "0123456789abcdef0123456789abcdef";
    let mut victim = server.client();
    victim.cookie = Some(planted.to_string());
    let answer = victim.login(&links["ada"]);
    assert_eq!(answer.status, 303, "{}", answer.body);
    let issued = victim.cookie.clone().unwrap();
    assert_ne!(issued, planted);
    assert!(victim.get("/").body.contains("ada"));
    // The planted id signs nobody in.
    let mut attacker = server.client();
    attacker.cookie = Some(planted.to_string());
    let page = attacker.get("/assignments/go");
    assert!(!page.body.contains("Student ada"), "{}", page.body);
    assert_ne!(page.status, 200, "{}", page.body);
}

#[test]
fn requests_that_never_finish_do_not_keep_others_from_being_served() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let address = server.base.trim_start_matches("http://").to_string();
    // 200 connections that send half a request line and then nothing (slowloris), and 20 that
    // promise a large body and send a byte of it.
    let mut slow = Vec::new();
    for k in 0..220 {
        let mut stream = TcpStream::connect(&address).unwrap();
        let start: &[u8] = if k < 200 {
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "
        } else {
            b"POST /api/v1/assignments/go/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nx"
        };
        stream.write_all(start).unwrap();
        slow.push(stream);
    }
    // Another student is served as usual, and their work graded.
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let graded = ada.wait_final(answer.json()["id"].as_i64().unwrap());
    assert_eq!(graded["status"], "graded", "{graded}");
    for stream in &slow {
        let _ = stream.set_read_timeout(Some(Duration::from_millis(1)));
    }
    drop(slow);
}

#[test]
fn a_student_flooding_the_queue_delays_another_by_their_share_only() {
    // Eight submissions an hour each.
    let course = Course::new(&["flood", "ada"], &[&go_assignment("go", "per_hour = 8")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &["--jobs", "1"]);
    let mut flood = server.client();
    flood.bearer = Some(tokens["flood"].clone());
    for _ in 0..8 {
        let answer = flood.post_files(
            "/api/v1/assignments/go/submissions",
            &[],
            &[("go.c", &go_c())],
        );
        assert_eq!(answer.status, 202, "{}", answer.body);
    }
    // The ninth in the hour is refused, with when the next is allowed.
    let ninth = flood.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    assert_eq!(ninth.status, 429, "{}", ninth.body);
    assert!(ninth.headers.contains_key("retry-after"));
    // Ada hands in once, after all eight: hers is graded next, not after the flood.
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    ada.the_next_is_graded();
    let before: usize = course
        .sql("SELECT COUNT(*) FROM submissions WHERE student = 'flood' AND status = 'graded'")
        .parse()
        .unwrap();
    // Two gradings run at once: at most the two under way when she handed in, and the one
    // that finished while her result was looked for, go first (in arrival order: all eight).
    assert!(
        before <= 4,
        "{before} of the flood's 8 were graded before ada's one"
    );
}

/// An archive of empty folders is counted entry by entry (a zip of 2,001 folders is a few
/// hundred KiB): refused by the unpacker, nothing of it left where submissions are unpacked,
/// and the next submission graded. An upload of more than 2,000 parts is refused before
/// anything is stored.
#[test]
fn an_archive_of_folders_or_an_upload_of_many_parts_is_refused() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    let server = Server::start(&course, &[]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let mut zipped = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut zipped);
        for k in 0..2001 {
            let options = zip::write::SimpleFileOptions::default();
            writer.add_directory(format!("d{k}/"), options).unwrap();
        }
        writer.finish().unwrap();
    }
    let folders = zipped.into_inner();
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("folders.zip", &folders)],
    );
    assert_eq!(answer.status, 202, "{}", answer.body);
    let graded = ada.wait_final(answer.json()["id"].as_i64().unwrap());
    let error = graded["error"].as_str().unwrap_or_default();
    assert!(error.contains("files and folders"), "{graded}");
    let many: Vec<(String, Vec<u8>)> = (0..2001)
        .map(|k| (format!("f{k}.c"), b"int x;\n".to_vec()))
        .collect();
    let parts: Vec<(&str, &[u8])> = many
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let upload = ada.try_post_files("/api/v1/assignments/go/submissions", &[], &parts);
    crate::support::assert_refused(upload, 413);
    assert_eq!(course.sql("SELECT COUNT(*) FROM submissions"), "1");
    ada.the_next_is_graded();
}

/// The course's state is its owner's alone (no other user of the machine reads an upload),
/// and `--links` writes a name that begins like a formula as text.
#[test]
fn the_state_folder_is_private_and_links_hold_no_formula() {
    use std::os::unix::fs::PermissionsExt;
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    std::fs::write(
        course.path().join("roster.csv"),
        "id,name,email\nada,\"=HYPERLINK(\"\"http://evil.invalid\"\")\",ada@example.edu\n@bob,Bob,bob@example.edu\n",
    )
    .unwrap();
    let out = course.command().args(["--links"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ada,\"'=HYPERLINK("), "{text}");
    assert!(text.contains("\n'@bob,Bob,"), "{text}");
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let state = course.path().join(".gridjudge");
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&state.join("course.db")), 0o600);
    assert_eq!(mode(&state.join("queue.db")), 0o600);
    // Served once, every file of the state is private, the lock among them.
    drop(Server::start(&course, &[]));
    let files: Vec<_> = std::fs::read_dir(&state)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    assert!(
        files.iter().any(|path| path.ends_with("serve.lock")),
        "{files:?}"
    );
    for file in &files {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
}

/// Behind the trusted proxy, the limit on wrong links and wrong tokens counts each client's
/// own address, as the proxy forwards it (documentation addresses, in a header only); without
/// `--trusted-proxy`, the header is the client's word and counts for nothing.
#[test]
fn wrong_guesses_lock_out_their_own_address_only_behind_a_trusted_proxy() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let guess = |server: &Server, from: &str, k: usize| {
        let mut client = server.client();
        client.forwarded_for = Some(from.into());
        client.get(&format!("/login/{k:032x}")).status
    };
    let proxied = Server::start(&course, &["--jobs", "0", "--trusted-proxy", "127.0.0.1"]);
    let statuses: Vec<u16> = (0..11).map(|k| guess(&proxied, "192.0.2.1", k)).collect();
    assert_eq!(&statuses[..10], &[404; 10]);
    assert_eq!(statuses[10], 429);
    // Another client behind the same proxy is not held by them.
    assert_eq!(guess(&proxied, "198.51.100.2", 99), 404);
    // Wrong bearer tokens count too.
    let mut api = proxied.client();
    api.forwarded_for = Some("203.0.113.3".into());
    api.bearer = Some(format!("{:032x}", 7));
    let statuses: Vec<u16> = (0..11)
        .map(|_| api.get("/api/v1/submissions/1").status)
        .collect();
    assert_eq!(&statuses[..10], &[401; 10]);
    assert_eq!(statuses[10], 429);
    // A live link from a locked-out address still signs in.
    let mut ada = proxied.client();
    ada.forwarded_for = Some("192.0.2.1".into());
    assert_eq!(ada.get(&format!("/login/{}", links["ada"])).status, 303);
    drop(proxied);
    // Without a trusted proxy, the header is ignored: every guess counts for the peer.
    let direct = Server::start(&course, &["--jobs", "0"]);
    for k in 0..10 {
        assert_eq!(guess(&direct, &format!("192.0.2.{k}"), 100 + k), 404);
    }
    assert_eq!(guess(&direct, "198.51.100.2", 200), 429);
}

/// Event streams are capped per session: a page that opens hundreds of them gets four.
#[test]
fn a_session_holds_at_most_four_event_streams() {
    use std::io::{BufRead, BufReader};
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let tokens = course.tokens();
    // Nothing grades: the submission stays queued and its streams stay open.
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut ada = server.client();
    ada.bearer = Some(tokens["ada"].clone());
    let answer = ada.post_files(
        "/api/v1/assignments/go/submissions",
        &[],
        &[("go.c", &go_c())],
    );
    let id = answer.json()["id"].as_i64().unwrap();
    let address = server.base.trim_start_matches("http://").to_string();
    let open = || {
        let mut stream = TcpStream::connect(&address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            stream,
            "GET /submissions/{id}/events HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\r\n",
            tokens["ada"]
        )
        .unwrap();
        let mut status = String::new();
        BufReader::new(stream.try_clone().unwrap())
            .read_line(&mut status)
            .unwrap();
        (stream, status)
    };
    let held: Vec<_> = (0..4).map(|_| open()).collect();
    for (_, status) in &held {
        assert!(status.contains(" 200 "), "{status}");
    }
    let (_, fifth) = open();
    assert!(fifth.contains(" 429 "), "{fifth}");
}

/// A client that never finishes its request's headers is dropped once the header timeout has
/// passed, and the server answers others meanwhile.
#[test]
fn headers_that_never_end_are_cut_off() {
    use std::io::Read;
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let server = Server::start(&course, &["--jobs", "0", "--header-timeout", "1"]);
    let address = server.base.trim_start_matches("http://").to_string();
    let mut slow = TcpStream::connect(&address).unwrap();
    write!(slow, "GET / HTTP/1.1\r\nHost: {address}\r\nX-Slow: 1\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    assert_eq!(server.client().get("/static/live.js").status, 200);
    // The server ends the connection (an error answer, or none), well within the 30 s this
    // client waits: the read ends, rather than timing out.
    let mut answer = Vec::new();
    let ended = slow.read_to_end(&mut answer);
    assert!(ended.is_ok(), "the connection is still open: {ended:?}");
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
}

/// A session lasts a term at most: one opened longer ago signs no one in, and its cookie says
/// so by its age.
#[test]
fn a_session_lasts_a_term_at_most() {
    let course = Course::new(&["ada"], &[&go_assignment("go", "")]);
    let links = course.links();
    let server = Server::start(&course, &["--jobs", "0"]);
    let mut browser = server.client();
    let login = browser.login(&links["ada"]);
    let cookie = &login.headers["set-cookie"];
    assert!(
        cookie.contains(&format!("Max-Age={}", 120 * 24 * 3600)),
        "{cookie}"
    );
    assert_eq!(browser.get("/").status, 200);
    course.sql(&format!(
        "UPDATE sessions SET created_at = created_at - {} RETURNING hash",
        121 * 24 * 3600
    ));
    assert_eq!(browser.get("/").status, 401);
}
