//! Submissions in their own languages: the go assignment solved in C, C++, Java, C#, Rust,
//! Python and JavaScript (`tests/solutions/go/`, and the bench's Python one), each checked as a
//! student hands it in (a source file, or a folder of sources): the right one passes every
//! case, a wrong one fails with the right first difference, and one that does not compile is
//! "could not build" with the compiler's message. A language whose tool is not installed is
//! skipped with a printed reason (CI installs them all).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::share;

struct Solution {
    /// The file under `tests/solutions/go/` (or the bench's `go.py`).
    file: &'static str,
    /// The title the build line gives it.
    title: &'static str,
    /// The program that must be installed.
    tool: &'static str,
    /// A line that breaks the build, appended; `None` for a language run from its sources.
    broken: Option<&'static str>,
    /// Hand in the folder rather than the file.
    as_folder: bool,
}

const SOLUTIONS: &[Solution] = &[
    Solution {
        file: "go.c",
        title: "C",
        tool: "gcc",
        broken: Some("int broken(void) { return undeclared_name; }\n"),
        as_folder: false,
    },
    Solution {
        file: "go.cpp",
        title: "C++",
        tool: "g++",
        broken: Some("int broken() { return undeclared_name; }\n"),
        as_folder: false,
    },
    Solution {
        file: "Go.java",
        title: "Java",
        tool: "javac",
        broken: Some("class Broken { int x = undeclared_name; }\n"),
        as_folder: true,
    },
    Solution {
        file: "Go.cs",
        title: "C#",
        tool: "mcs",
        broken: Some("class Broken { int x = undeclared_name; }\n"),
        as_folder: false,
    },
    Solution {
        file: "go.rs",
        title: "Rust",
        tool: "rustc",
        broken: Some("fn broken() -> i32 { undeclared_name }\n"),
        as_folder: false,
    },
    Solution {
        file: "go.py",
        title: "Python",
        tool: "python3",
        // Byte-compiled first: a file that does not parse does not build.
        broken: Some("undeclared_name = (\n"),
        as_folder: true,
    },
    Solution {
        file: "go.js",
        title: "JavaScript",
        tool: "node",
        broken: None,
        as_folder: true,
    },
];

fn source(file: &str) -> String {
    let root = xtask::workspace::root();
    let path = match file {
        "go.py" => root.join("xtask/bench/go.py"),
        _ => root.join("xtask/tests/solutions/go").join(file),
    };
    std::fs::read_to_string(path).unwrap()
}

fn installed(tool: &str) -> bool {
    xtask::target::on_path(&tool.into())
}

/// Writes a zip at `path` holding `entries` (path in the zip, bytes), deflated.
fn write_zip(path: &Path, entries: &[(&str, &[u8])]) {
    use std::io::Write;
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap();
}

/// A student's folder holding `file` with `text`, readable by the sandbox's user.
fn submission(file: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    std::fs::write(dir.path().join(file), text).unwrap();
    dir
}

/// Checks the submission in `dir` against the go cases (`filter`: only those), with builds
/// kept in `cache`; the exit status and the JSON report.
fn check(
    solution: &Solution,
    dir: &Path,
    cache: &Path,
    filter: Option<&str>,
) -> (i32, serde_json::Value) {
    let report = dir.join("report.json");
    let handed_in: PathBuf = if solution.as_folder {
        dir.to_path_buf()
    } else {
        dir.join(solution.file)
    };
    let mut command = Command::cargo_bin("xtask").unwrap();
    command
        .env("GRIDJUDGE_CACHE", cache)
        .args(["check", "--spec", "go", "--json"])
        .arg(&report)
        .args(filter.map(|f| ["--filter", f]).into_iter().flatten())
        .arg(&handed_in);
    let output = command.output().unwrap();
    let code = output.status.code().unwrap_or(-1);
    let json = std::fs::read(&report).unwrap_or_else(|_| {
        panic!(
            "{}: no report; exit {code}\n{}",
            solution.file,
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (code, serde_json::from_slice(&json).unwrap())
}

/// The right, wrong and broken submissions of the solution in `file`.
fn check_language(file: &str) {
    let solution = SOLUTIONS.iter().find(|s| s.file == file).unwrap();
    if !installed(solution.tool) {
        println!(
            "skipped {}: `{}` is not installed",
            solution.title, solution.tool
        );
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let text = source(solution.file);

    let right = submission(solution.file, &text);
    let (code, json) = check(solution, right.path(), cache.path(), None);
    assert_eq!(code, 0, "{}: {json}", solution.file);
    assert_eq!(json["failed"], 0, "{}", solution.file);
    assert_eq!(json["passed"].as_u64(), Some(164), "{}", solution.file);
    if solution.broken.is_some() {
        assert_eq!(json["build"]["language"], solution.title, "{json}");
        assert_eq!(json["build"]["status"], "built", "{}", json["build"]);
        // The command as it ran: its output folder filled in.
        let command = json["build"]["command"].as_str().unwrap_or_default();
        assert!(
            !command.contains('{') && command.contains(&*cache.path().to_string_lossy()),
            "{command}"
        );
        // Checked again unchanged: the build is reused.
        let (_, again) = check(solution, right.path(), cache.path(), Some("handout"));
        assert_eq!(again["build"]["status"], "reused", "{}", again["build"]);
    }

    // One wrong character in the heading: the handout case fails at line 1, column 5.
    let wrong = submission(solution.file, &text.replace("The Stones", "The stones"));
    let (code, json) = check(solution, wrong.path(), cache.path(), Some("handout"));
    assert_eq!(code, 1, "{}: {json}", solution.file);
    let case = &json["cases"][0];
    assert_eq!(case["verdict"], "wrong-output", "{case}");
    assert_eq!(case["first_difference"]["line"], 1, "{case}");
    assert_eq!(case["first_difference"]["column"], 5, "{case}");

    if let Some(broken) = solution.broken {
        let broken = submission(solution.file, &format!("{text}\n{broken}"));
        let (code, json) = check(solution, broken.path(), cache.path(), Some("handout"));
        assert_eq!(code, 1, "{}: {json}", solution.file);
        assert_eq!(json["build"]["status"], "failed", "{json}");
        let message = json["build"]["message"].as_str().unwrap();
        assert!(message.contains("undeclared_name"), "{message}");
        // The submission's own file names, never the grader's folders.
        assert!(
            !message.contains(&*broken.path().to_string_lossy()),
            "{message}"
        );
        let case = &json["cases"][0];
        assert_eq!(case["verdict"], "could-not-build", "{case}");
        if solution.file == "go.py" {
            let line = text.lines().count() + 2;
            assert_eq!(
                case["cause"],
                format!("could not build: SyntaxError at line {line}: '(' was never closed"),
                "{case}"
            );
        }
        assert!(
            case["cause"]
                .as_str()
                .unwrap()
                .starts_with("could not build: "),
            "{case}"
        );
    }
}

#[test]
fn c() {
    check_language("go.c");
}

#[test]
fn cpp() {
    check_language("go.cpp");
}

#[test]
fn java_handed_in_as_a_folder() {
    check_language("Go.java");
}

#[test]
fn csharp() {
    check_language("Go.cs");
}

#[test]
fn rust() {
    check_language("go.rs");
}

#[test]
fn python_handed_in_as_a_folder() {
    check_language("go.py");
}

#[test]
fn javascript_handed_in_as_a_folder() {
    check_language("go.js");
}

/// A class as it is handed in: folders of sources in several languages, a zip, a tar.gz, a
/// lone source file, a zip with a path out of its folder, a zip bomb, a folder whose name is
/// not UTF-8, a broken build and a stray file; graded with no --run, each row as it should be.
#[test]
fn a_class_of_folders_archives_and_odd_names_is_graded_whole() {
    use std::os::unix::ffi::OsStrExt;
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let class = dir.path().join("class");
    let add = |folder: &Path, file: &str, text: &str| {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join(file), text).unwrap();
    };
    let c = source("go.c");
    add(&class.join("ana"), "go.c", &c);
    add(&class.join("cy"), "go.py", &source("go.py"));
    add(
        &class.join("dee"),
        "go.c",
        &format!("{c}\nint broken(void) {{ return undeclared_name; }}\n"),
    );
    let odd = class.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    add(&odd, "go.py", &source("go.py"));
    std::fs::write(class.join("notes.txt"), "the class\n").unwrap();
    std::fs::write(class.join("hal.c"), &c).unwrap();
    let zip = |name: &str, entries: &[(&str, &[u8])]| write_zip(&class.join(name), entries);
    zip("dan.zip", &[("project/go.c", c.as_bytes())]);
    zip(
        "fay.zip",
        &[("../evil.c", b"int main(void) { return 0; }\n")],
    );
    // 100 MiB of zeros, a few hundred kB zipped.
    zip("gus.zip", &[("go.c", &vec![0u8; 100 << 20])]);
    {
        let file = std::fs::File::create(class.join("eve.tar.gz")).unwrap();
        let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_size(c.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, "go.c", c.as_bytes()).unwrap();
        tar.into_inner().unwrap().finish().unwrap();
    }
    let out = dir.path().join("grades");
    let cache = dir.path().join("cache");
    let output = Command::cargo_bin("xtask")
        .unwrap()
        .env("GRIDJUDGE_CACHE", &cache)
        .args(["grade", "--spec", "go", "--submissions"])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("skipped `notes.txt`"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("grades.json")).unwrap()).unwrap();
    let max = json["max_score"].as_f64().unwrap();
    let row = |id: &str| -> (f64, String) {
        let row = json["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no row `{id}` in {json}"));
        (
            row["score"].as_f64().unwrap(),
            row["error"].as_str().unwrap_or_default().to_string(),
        )
    };
    for id in ["ana", "cy", "caf%E9", "dan", "eve", "hal"] {
        assert_eq!(row(id), (max, String::new()), "{id}");
    }
    let (score, why) = row("dee");
    assert!(
        score == 0.0 && why.starts_with("could not build: "),
        "{why}"
    );
    assert!(why.contains("undeclared_name"), "{why}");
    let (score, why) = row("fay");
    assert!(
        score == 0.0 && why.contains("`../evil.c` would leave its folder"),
        "{why}"
    );
    let (score, why) = row("gus");
    assert!(
        score == 0.0 && why.contains("more than 64 MiB once unpacked"),
        "{why}"
    );
    assert_eq!(json["submissions"].as_array().unwrap().len(), 9);
    assert_eq!(json["skipped"][0][0], "notes.txt", "{}", json["skipped"]);
    // Nothing was unpacked outside the cache.
    assert!(!dir.path().join("evil.c").exists() && !class.join("evil.c").exists());
}

/// A zip of sources is checked as the folder it unpacks to, and named as given; one holding a
/// path out of its folder is refused, naming that path.
#[test]
fn a_zip_is_checked_as_its_sources() {
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let go = source("go.py");
    write_zip(
        &dir.path().join("submission.zip"),
        &[("project/go.py", go.as_bytes())],
    );
    write_zip(&dir.path().join("evil.zip"), &[("../go.py", go.as_bytes())]);
    let check = |name: &str| {
        Command::cargo_bin("xtask")
            .unwrap()
            .current_dir(dir.path())
            .env("GRIDJUDGE_CACHE", dir.path().join("cache"))
            .args(["check", "--spec", "go", "--filter", "handout", name])
            .output()
            .unwrap()
    };
    let right = check("submission.zip");
    assert!(
        right.status.success(),
        "{}",
        String::from_utf8_lossy(&right.stderr)
    );
    let said = String::from_utf8_lossy(&right.stdout);
    assert!(said.contains(" passed, 0 failed"));
    // Named as it was given, not by the folder it was unpacked into.
    assert!(said.contains(" cases of submission.zip in "), "{said}");
    assert!(!said.contains("unpacked"), "{said}");
    let evil = check("evil.zip");
    assert_eq!(evil.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&evil.stderr).contains("`../go.py` would leave its folder"),
        "{}",
        String::from_utf8_lossy(&evil.stderr)
    );
}

/// `--build CMD` builds a submission the instructor's (or student's) way, in a copy of its
/// folder, where the command then runs: `check --build make ./go` and `grade --build make
/// --run ./go`; a failed build is "could not build" with make's message.
#[test]
fn a_build_command_of_ones_own_builds_in_a_copy_of_the_folder() {
    if !installed("make") || !installed("gcc") {
        println!("skipped: `make` or `gcc` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let class = dir.path().join("class");
    let makefile = "go: go.c\n\tgcc -O2 -o go go.c -lm\n";
    for (id, source) in [
        ("ana", source("go.c")),
        (
            "ben",
            source("go.c") + "\nint broken(void) { return undeclared_name; }\n",
        ),
    ] {
        std::fs::create_dir_all(class.join(id)).unwrap();
        std::fs::write(class.join(id).join("go.c"), source).unwrap();
        std::fs::write(class.join(id).join("Makefile"), makefile).unwrap();
    }
    let cache = dir.path().join("cache");
    let checked = Command::cargo_bin("xtask")
        .unwrap()
        .current_dir(class.join("ana"))
        .env("GRIDJUDGE_CACHE", &cache)
        .args(["check", "--spec", "go", "--build", "make", "./go"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&checked.stdout);
    assert!(
        checked.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(stdout.contains("built with `make`"), "{stdout}");
    // The submission's own folder is left as it was: the build ran in a copy.
    assert!(!class.join("ana/go").exists());
    let out = dir.path().join("grades");
    let graded = Command::cargo_bin("xtask")
        .unwrap()
        .env("GRIDJUDGE_CACHE", &cache)
        .args([
            "grade",
            "--spec",
            "go",
            "--build",
            "make",
            "--run",
            "./go",
            "--submissions",
        ])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        graded.status.success(),
        "{}",
        String::from_utf8_lossy(&graded.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("grades.json")).unwrap()).unwrap();
    let rows = json["submissions"].as_array().unwrap();
    assert_eq!(rows[0]["score"], json["max_score"], "{}", rows[0]["error"]);
    assert_eq!(rows[1]["score"].as_f64(), Some(0.0));
    let why = rows[1]["error"].as_str().unwrap();
    assert!(
        why.starts_with("could not build: ") && why.contains("undeclared_name"),
        "{why}"
    );
}

/// `grade --run 'python3 go.py'` checks the file as a Python submission is checked: a syntax
/// error is one failed build, told with its line, and no case runs; a right program is
/// graded as before.
#[test]
fn a_run_command_of_a_python_file_is_checked_before_its_cases() {
    if !installed("python3") {
        println!("skipped: `python3` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let class = dir.path().join("class");
    for (id, text) in [
        ("ana", source("go.py")),
        (
            "ben",
            format!("def broken(:\n    pass\n{}", source("go.py")),
        ),
    ] {
        std::fs::create_dir_all(class.join(id)).unwrap();
        std::fs::write(class.join(id).join("go.py"), text).unwrap();
    }
    let out = dir.path().join("grades");
    let graded = Command::cargo_bin("xtask")
        .unwrap()
        .env("GRIDJUDGE_CACHE", dir.path().join("cache"))
        .args([
            "grade",
            "--spec",
            "go",
            "--run",
            "python3 go.py",
            "--submissions",
        ])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        graded.status.success(),
        "{}",
        String::from_utf8_lossy(&graded.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("grades.json")).unwrap()).unwrap();
    let rows = json["submissions"].as_array().unwrap();
    assert_eq!(rows[0]["score"], json["max_score"], "{}", rows[0]["error"]);
    assert_eq!(rows[1]["score"].as_f64(), Some(0.0));
    let why = rows[1]["error"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("could not build: ")
            && why.contains("SyntaxError")
            && why.contains("line 1"),
        "{}",
        rows[1]
    );
    // Not one case of the broken program ran: each is "could not build".
    let verdicts = &rows[1]["verdicts"];
    let ran: u64 = verdicts
        .as_object()
        .unwrap()
        .iter()
        .filter(|(verdict, _)| *verdict != "could-not-build")
        .map(|(_, n)| n.as_u64().unwrap())
        .sum();
    assert_eq!(ran, 0, "{verdicts}");
    assert!(verdicts["could-not-build"].as_u64() > Some(0), "{verdicts}");
    // The students' folders are left as they were: the check ran in a copy.
    let left: Vec<_> = std::fs::read_dir(class.join("ana")).unwrap().collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

/// A program that diverges and then crashes (a Python one that prints a wrong heading and then
/// raises at the end of its input) fails by the divergence: the same cause id as the same bug
/// without the crash, the crash told as what followed.
#[test]
fn a_crash_after_a_divergence_is_a_consequence_not_a_cause_of_its_own() {
    if !installed("python3") {
        println!("skipped: `python3` is not installed");
        return;
    }
    let wrong = source("go.py").replace("\"The Stones\"", "\"The stones\"");
    let crashing = format!("{wrong}\nraise EOFError('EOF when reading a line')\n");
    let cause_ids = |text: &str| -> (i32, Vec<(String, String, String, String)>) {
        let dir = submission("go.py", text);
        let cache = tempfile::tempdir().unwrap();
        let python = SOLUTIONS.iter().find(|s| s.file == "go.py").unwrap();
        let (code, json) = check(python, dir.path(), cache.path(), Some("size-9"));
        let causes = json["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|case| {
                (
                    case["verdict"].as_str().unwrap().to_string(),
                    case["cause_id"].as_str().unwrap_or_default().to_string(),
                    case["cause"].as_str().unwrap_or_default().to_string(),
                    case["consequence"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        (code, causes)
    };
    let (code, plain) = cause_ids(&wrong);
    assert_eq!(code, 1);
    let (code, then_crashed) = cause_ids(&crashing);
    assert_eq!(code, 1);
    assert_eq!(plain.len(), then_crashed.len());
    for (plain, crashed) in plain.iter().zip(&then_crashed) {
        assert_eq!(plain.0, "wrong-output");
        assert_eq!(crashed.0, "runtime-error", "{crashed:?}");
        assert_eq!(plain.1, crashed.1, "one cause: {plain:?} {crashed:?}");
        // One text per cause; the crash is this case's own consequence.
        assert_eq!(plain.2, crashed.2, "{crashed:?}");
        assert!(crashed.3.starts_with("then it crashed ("), "{crashed:?}");
    }
}

/// Two students hand in the same `main.c`, which includes a data file that differs: each is
/// built and graded with their own data (a build key of sources and headers alone gave the
/// second student the first one's binary). An unchanged second check reuses the build.
#[test]
fn two_students_with_the_same_source_and_other_data_get_their_own_builds() {
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let cache = dir.path().join("cache");
    let main = "#include <stdio.h>\nint main(void) {\n    fputs(\n#include \"ans.txt\"\n    , stdout);\n    return 0;\n}\n";
    let mut builds = Vec::new();
    for (student, answer) in [("ana", "AMY"), ("bob", "BOB"), ("ana", "AMY")] {
        let folder = dir.path().join(student);
        std::fs::create_dir_all(&folder).unwrap();
        share(&folder);
        std::fs::write(folder.join("main.c"), main).unwrap();
        std::fs::write(folder.join("ans.txt"), format!("\"{answer}\\n\"\n")).unwrap();
        let solution = Solution {
            file: "main.c",
            title: "C",
            tool: "gcc",
            broken: None,
            as_folder: true,
        };
        let (_, json) = check(&solution, &folder, &cache, Some("handout/001"));
        let first = &json["cases"][0]["first_difference"];
        assert_eq!(first["actual_line"], answer, "{student}: {json:#}");
        builds.push(json["build"]["status"].as_str().unwrap().to_string());
    }
    assert_eq!(builds, ["built", "built", "reused"]);
}

/// Two programs in one folder, checked one after the other, are two builds: each check runs
/// the program it names (the key once named only the folder's files, and the second check
/// ran the first one's build).
#[test]
fn two_programs_of_one_folder_get_their_own_builds() {
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let cache = dir.path().join("cache");
    let folder = dir.path().join("ana");
    std::fs::create_dir_all(&folder).unwrap();
    share(&folder);
    for (file, answer) in [("first.c", "FIRST"), ("second.c", "SECOND")] {
        let text =
            format!("#include <stdio.h>\nint main(void) {{ puts(\"{answer}\"); return 0; }}\n");
        std::fs::write(folder.join(file), text).unwrap();
    }
    for (file, answer) in [
        ("first.c", "FIRST"),
        ("second.c", "SECOND"),
        ("first.c", "FIRST"),
    ] {
        let solution = Solution {
            file,
            title: "C",
            tool: "gcc",
            broken: None,
            as_folder: false,
        };
        let (_, json) = check(&solution, &folder, &cache, Some("handout/001"));
        let first = &json["cases"][0]["first_difference"];
        assert_eq!(first["actual_line"], answer, "{file}: {json:#}");
    }
}

/// Two checks of the same sources at once in one process (a test binary, the course server's
/// two gradings) build them side by side without spoiling each other: each build has a folder
/// of its own (both once took the process's, one removed the other's half-made folder, and a
/// compiler failure was kept for good).
#[test]
fn two_builds_of_the_same_sources_at_once_in_one_process_both_succeed() {
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    let folder = dir.path().join("ana");
    std::fs::create_dir_all(&folder).unwrap();
    share(&folder);
    // Sources of their own (a fresh build key), slow enough to compile that the two overlap.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let text = format!(
        "/* {nonce} */\n#include <stdio.h>\n#include <math.h>\nint main(void) {{ printf(\"%d\\n\", (int)sqrt(16.0)); return 0; }}\n"
    );
    std::fs::write(folder.join("main.c"), text).unwrap();
    let run = |_| {
        let mut options = xtask::check::Options::new(
            xtask::workspace::cases(),
            PathBuf::new(),
            std::env::temp_dir(),
        );
        options.spec = Some("go".into());
        options.filter = Some("handout/001".into());
        options.program = xtask::target::Program::Sources(folder.join("main.c"));
        let run = xtask::check::check(&options, &|_| {}).unwrap();
        let case = &run.results[0];
        format!("{:?}", case.judgement.verdict)
    };
    let verdicts: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2).map(|i| scope.spawn(move || run(i))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for verdict in &verdicts {
        assert!(!verdict.contains("Build"), "{verdicts:?}");
    }
}

/// A finished build is the harness's and nobody's to write; one changed since (here by its
/// owner, who alone could) is built again, not run.
#[test]
fn a_finished_build_is_sealed_and_a_changed_one_is_built_again() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if !installed("gcc") {
        println!("skipped: `gcc` is not installed");
        return;
    }
    let solution = &SOLUTIONS[0];
    let dir = submission(solution.file, &source(solution.file));
    let cache = tempfile::tempdir().unwrap();
    let (_, json) = check(solution, dir.path(), cache.path(), Some("handout/001"));
    assert_eq!(json["build"]["status"], "built", "{json:#}");
    let builds = cache.path().join("builds");
    let entries: Vec<walkdir::DirEntry> = walkdir::WalkDir::new(&builds)
        .min_depth(1)
        .into_iter()
        .map(Result::unwrap)
        .filter(|entry| !entry.path_is_symlink())
        .collect();
    let binary = entries
        .iter()
        .find(|entry| entry.file_type().is_file())
        .expect("a built file")
        .path()
        .to_path_buf();
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    for entry in &entries {
        let meta = entry.metadata().unwrap();
        assert_eq!(meta.uid(), uid, "{}", entry.path().display());
        assert_eq!(
            meta.mode() & 0o222,
            0,
            "{} is writable",
            entry.path().display()
        );
    }
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(&binary, "#!/bin/sh\necho forged\n").unwrap();
    let (_, json) = check(solution, dir.path(), cache.path(), Some("handout/001"));
    assert_eq!(json["build"]["status"], "built", "{json:#}");
    assert_ne!(std::fs::read(&binary).unwrap(), b"#!/bin/sh\necho forged\n");
}
