//! `cargo xtask bench --server N`: N students hand in at once over loopback. The time until the
//! last result is set against `grade` of the same submissions with the same CPU seats, in the
//! same run (each with a cold build cache of its own); the time from submit to result is given
//! by its median and 99th percentile, and the server's peak memory by the kernel's high-water
//! mark. Loopback only; every loop is bounded.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;

#[derive(Parser)]
#[command(name = "cargo xtask bench --server")]
struct Args {
    /// Students handing in at once.
    students: usize,
    /// CPU seats of both the server and `grade` (default: the CPUs).
    #[arg(long)]
    jobs: Option<usize>,
}

/// Student `k`'s program: the C solution of Go, every fourth one wrong in one word, each with a
/// line of its own (no two students share a build).
fn program(k: usize) -> Vec<u8> {
    let root = xtask::workspace::root();
    let text =
        std::fs::read_to_string(root.join("xtask/tests/solutions/go/go.c")).unwrap_or_default();
    let text = match k % 4 {
        3 => text.replace("illegal character on line", "illegal character in line"),
        _ => text,
    };
    format!("/* student s{k:03} */\n{text}").into_bytes()
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let k = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(k).copied().unwrap_or(0.0)
}

fn run(args: &Args) -> Result<(), String> {
    let n = args.students.max(1);
    let jobs = args
        .jobs
        .unwrap_or_else(|| xtask::sys::allowed_cpus().len().max(1));
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let reference = xtask::workspace::build_reference().map_err(|e| e.to_string())?;
    let class = dir.path().join("class");
    for k in 0..n {
        let folder = class.join(format!("s{k:03}"));
        std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        std::fs::write(folder.join("go.c"), program(k)).map_err(|e| e.to_string())?;
    }
    println!("{n} submissions of the C solution of go (a quarter of them wrong), {jobs} CPU seats");

    // The baseline: grade, in a child process with a cold cache of its own.
    // Built beside this program (cargo xtask bench builds both).
    let xtask = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("xtask");
    let started = Instant::now();
    let graded = Command::new(&xtask)
        .args(["grade", "--spec", "go", "--submissions"])
        .arg(&class)
        .arg("--out")
        .arg(dir.path().join("grades"))
        .arg("--reference")
        .arg(&reference)
        .args(["--jobs", &jobs.to_string()])
        .env("GRIDJUDGE_CACHE", dir.path().join("cache-grade"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{}: {e}", xtask.display()))?;
    let grade_time = started.elapsed().as_secs_f64();
    if !graded.success() {
        return Err(format!("grade failed: {graded}"));
    }
    println!("grade: {grade_time:.1} s");

    // The server, on a course of the same students.
    let course = dir.path().join("course");
    std::fs::create_dir_all(&course).map_err(|e| e.to_string())?;
    std::fs::write(
        course.join("course.toml"),
        format!(
            "title = \"bench\"\n[[assignment]]\nname = \"go\"\nspec = \"go\"\ndeadline = \"2099-01-01T00:00:00+00:00\"\nper_hour = {}\n",
            n + 1
        ),
    )
    .map_err(|e| e.to_string())?;
    let mut roster = String::from("id,name,email\n");
    for k in 0..n {
        roster += &format!("s{k:03},Student {k},s{k:03}@example.edu\n");
    }
    std::fs::write(course.join("roster.csv"), roster).map_err(|e| e.to_string())?;
    let server_bin = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("gridjudge-server");
    let links = Command::new(&server_bin)
        .arg("--course")
        .arg(&course)
        .arg("--links")
        .output()
        .map_err(|e| e.to_string())?;
    let links = String::from_utf8_lossy(&links.stdout).to_string();
    let mut tokens: Vec<String> = links
        .lines()
        .skip(1)
        .map(|line| {
            line.rsplit("/login/")
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    // The last link is the instructor's.
    let instructor = tokens.pop().unwrap_or_default();
    let mut server = Command::new(&server_bin)
        .arg("--course")
        .arg(&course)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--jobs",
            &jobs.to_string(),
            "--reference",
        ])
        .arg(&reference)
        .env("GRIDJUDGE_CACHE", dir.path().join("cache-server"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut line = String::new();
    if let Some(stdout) = server.stdout.take() {
        let _ = BufReader::new(stdout).read_line(&mut line);
    }
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .ok_or_else(|| format!("the server did not start: {line:?}"))?
        .to_string();
    let pid = server.id();

    let started = Instant::now();
    let results: Vec<Result<(f64, f64), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(k, token)| {
                let base = &base;
                scope.spawn(move || student(base, token, &program(k), started))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a client panicked".into())))
            .collect()
    });
    let server_time = started.elapsed().as_secs_f64();
    let served_grades = ureq::get(format!("{base}/api/v1/grades.csv"))
        .header("Authorization", format!("Bearer {instructor}"))
        .call()
        .map_err(|e| e.to_string())
        .and_then(|mut answer| {
            answer
                .body_mut()
                .read_to_string()
                .map_err(|e| e.to_string())
        })?;
    let peak = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        .unwrap_or_default();
    let _ = server.kill();
    let _ = server.wait();
    let mut latencies = Vec::new();
    let mut last = 0.0f64;
    for result in &results {
        let (submitted, done) = result.clone()?;
        latencies.push(done - submitted);
        last = last.max(done);
    }
    latencies.sort_by(|a, b| a.total_cmp(b));
    // The server's own grades equal grade's.
    let grades = std::fs::read_to_string(dir.path().join("grades/grades.csv")).unwrap_or_default();
    println!("server: last result {last:.1} s after the first submission ({server_time:.1} s with the clients' last look)");
    println!(
        "ratio: {:.2}x grade's time (goal: at most 1.10x)",
        last / grade_time
    );
    println!(
        "submit to result: median {:.1} s, 99th percentile {:.1} s",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    println!("server peak memory (VmHWM): {peak}");
    println!(
        "the server's grades.csv {} grade's ({} rows)",
        match served_grades == grades {
            true => "equals",
            false => "DIFFERS FROM",
        },
        grades.lines().count().saturating_sub(1)
    );
    Ok(())
}

/// One student: hands in, then looks every 250 ms (at most 20 minutes) until the result; the
/// times of both, from `start`.
fn student(base: &str, token: &str, program: &[u8], start: Instant) -> Result<(f64, f64), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let boundary = "bench-boundary-91f2";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"go.c\"\r\n\r\n"
    )
    .into_bytes();
    body.extend(program);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    let submitted = start.elapsed().as_secs_f64();
    let mut answer = agent
        .post(format!("{base}/api/v1/assignments/go/submissions"))
        .header("Authorization", format!("Bearer {token}"))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .send(&body[..])
        .map_err(|e| e.to_string())?;
    let mut text = String::new();
    let _ = answer.body_mut().as_reader().read_to_string(&mut text);
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
    let id = json["id"]
        .as_i64()
        .ok_or_else(|| format!("no id: {text}"))?;
    let until = Instant::now() + Duration::from_secs(1200);
    while Instant::now() < until {
        let mut answer = agent
            .get(format!("{base}/api/v1/submissions/{id}"))
            .header("Authorization", format!("Bearer {token}"))
            .call()
            .map_err(|e| e.to_string())?;
        let mut text = String::new();
        let _ = answer.body_mut().as_reader().read_to_string(&mut text);
        let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        if ["graded", "could not build", "could not run"]
            .contains(&json["status"].as_str().unwrap_or_default())
        {
            return Ok((submitted, start.elapsed().as_secs_f64()));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    Err(format!("submission {id} was not graded in 20 minutes"))
}
