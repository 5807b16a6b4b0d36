//! The student kit and the Gradescope autograder: built by `cargo xtask kit` / `autograder`,
//! copied alone into an empty folder, run with no cargo on PATH; verdicts equal `cargo xtask
//! check`'s on the same cases, and nothing of a hidden expected output is in the file.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

use crate::support::share;

fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

fn cases() -> PathBuf {
    xtask::workspace::cases()
}

/// Hidden cases for `spec`, taken from its corpus: the first `n` cases of `group` with their
/// `.out`, and one more of `other` without it (the kit takes the reference's output).
struct Hidden {
    dir: tempfile::TempDir,
    /// The originals: group, file, and the name the hidden case has (the kit keeps it).
    taken: Vec<(String, PathBuf, String)>,
}

fn hidden(spec: &str, group: &str, n: usize, other: &str) -> Hidden {
    let dir = tempfile::tempdir().unwrap();
    let mut taken = Vec::new();
    let inputs = |group: &str| {
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(cases().join(spec).join(group))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        inputs.sort();
        inputs
    };
    let folder = dir.path().join(group);
    std::fs::create_dir_all(&folder).unwrap();
    for (k, input) in inputs(group).iter().take(n).enumerate() {
        // Named as an instructor might; the kit keeps the names.
        let name = format!("hidden-case{k}");
        std::fs::copy(input, folder.join(format!("{name}.in"))).unwrap();
        std::fs::copy(
            input.with_extension("out"),
            folder.join(format!("{name}.out")),
        )
        .unwrap();
        taken.push((group.to_string(), input.clone(), name));
    }
    let folder = dir.path().join(other);
    std::fs::create_dir_all(&folder).unwrap();
    let last = inputs(other).pop().unwrap();
    std::fs::copy(&last, folder.join("hidden-only-input.in")).unwrap();
    taken.push((other.to_string(), last, "hidden-only-input".to_string()));
    Hidden { dir, taken }
}

/// The corpus `cargo xtask check` is given to compare with the kit: the spec's suite with the
/// hidden cases in their groups, named as the kit names them.
fn corpus_with_hidden(spec: &str, hidden: &Hidden) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join(spec);
    for entry in walkdir::WalkDir::new(cases().join(spec)) {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(cases().join(spec)).unwrap();
        let to = suite.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    for (group, original, name) in &hidden.taken {
        let folder = suite.join(group);
        std::fs::copy(original, folder.join(format!("{name}.in"))).unwrap();
        std::fs::copy(
            original.with_extension("out"),
            folder.join(format!("{name}.out")),
        )
        .unwrap();
    }
    root
}

/// Builds the kit of `spec` into `out`.
fn build_kit(spec: &str, hidden: &Path, out: &Path) {
    xtask()
        .args(["kit", "--spec", spec, "--hidden"])
        .arg(hidden)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

/// A student's folder: an empty, shared temporary folder with the `mutant` program in it.
fn student_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    share(dir.path());
    std::fs::copy(env!("CARGO_BIN_EXE_mutant"), dir.path().join("mutant")).unwrap();
    dir
}

/// Each case's id and verdict, and for a public case its first difference, from a JSON report.
fn verdicts(report: &Path) -> Vec<(String, String, String)> {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            (
                case["id"].as_str().unwrap().to_string(),
                case["verdict"].as_str().unwrap().to_string(),
                case["first_difference"].to_string(),
            )
        })
        .collect()
}

#[test]
fn a_kit_alone_judges_as_check_does_public_and_hidden() {
    for (spec, group, other, bug) in [
        ("go", "size-9", "size-13", "go-diagonal-liberties"),
        ("columns", "handout", "generated", "columns-holes-stay"),
    ] {
        let hidden = hidden(spec, group, 4, other);
        let student = student_folder();
        let kit = student.path().join(format!("check-{spec}"));
        build_kit(spec, hidden.dir.path(), &kit);
        let corpus = corpus_with_hidden(spec, &hidden);
        share(corpus.path());
        let reports = tempfile::tempdir().unwrap();
        for variant in ["none", bug] {
            let from_check = reports.path().join(format!("check-{variant}.json"));
            let from_kit = reports.path().join(format!("kit-{variant}.json"));
            let check = xtask()
                .current_dir(student.path())
                .args(["check", "--spec", spec, "--cases"])
                .arg(corpus.path())
                .arg("--json")
                .arg(&from_check)
                .args(["--", "./mutant", variant, spec])
                .output()
                .unwrap();
            // The kit alone, with no cargo or rustc to be found.
            let kit_run = Process::new(&kit)
                .current_dir(student.path())
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .arg("--json")
                .arg(&from_kit)
                .args(["--", "./mutant", variant, spec])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&kit_run.stdout);
            assert_eq!(
                kit_run.status.code(),
                check.status.code(),
                "{spec} {variant}: {stdout}{}",
                String::from_utf8_lossy(&kit_run.stderr)
            );
            let (check_verdicts, kit_verdicts) = (verdicts(&from_check), verdicts(&from_kit));
            assert_eq!(check_verdicts.len(), kit_verdicts.len(), "{spec} {variant}");
            let mut hidden_seen = 0;
            for (c, k) in check_verdicts.iter().zip(&kit_verdicts) {
                assert_eq!((&c.0, &c.1), (&k.0, &k.1), "{spec} {variant}");
                if k.0.contains("/hidden-") {
                    hidden_seen += 1;
                    // Nothing about where or how a hidden case's output differs.
                    assert_eq!(k.2, "null", "{spec} {variant} {}", k.0);
                } else {
                    // The place of a public difference, from the trace the kit holds.
                    assert_eq!(c.2, k.2, "{spec} {variant} {}", k.0);
                }
            }
            assert_eq!(hidden_seen, hidden.taken.len(), "{spec}");
            if variant == bug {
                assert!(kit_run.status.code() == Some(1), "{stdout}");
                // A failing hidden case is one line: its verdict, never a diff.
                for block in stdout.split("FAIL ").filter(|b| b.contains("/hidden-")) {
                    let first_line = block.lines().next().unwrap();
                    assert!(
                        !block.contains("first difference") && !block.contains("expected:"),
                        "{first_line}"
                    );
                }
            }
        }
    }
}

/// Three go boards of 19 no public case has (stones from a fixed pseudo-random sequence), as
/// hidden cases of `size-19` without their `.out`; their expected outputs, from the reference.
fn fresh_go_boards() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("size-19");
    std::fs::create_dir_all(&folder).unwrap();
    let reference = xtask::workspace::build_reference().unwrap();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut outputs = Vec::new();
    for k in 0..3 {
        let mut input = String::from("19\n");
        for _ in 0..19 {
            for _ in 0..19 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                input.push(['.', '.', 'B', 'W'][(state >> 62) as usize]);
            }
            input.push('\n');
        }
        let path = folder.join(format!("board{k}.in"));
        std::fs::write(&path, &input).unwrap();
        let output = Process::new(&reference)
            .arg("go")
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        outputs.push(String::from_utf8(output.stdout).unwrap());
    }
    (dir, outputs)
}

#[test]
fn the_kit_holds_no_hidden_output_and_no_part_of_the_reference() {
    let (hidden, outputs) = fresh_go_boards();
    let dir = tempfile::tempdir().unwrap();
    let kit = dir.path().join("check-go");
    build_kit("go", hidden.path(), &kit);
    let file = std::fs::read(&kit).unwrap();
    // The cases are compressed in the file: search the bundle as the kit reads it back too.
    let bundle = xtask::kit::attached(&kit).unwrap();
    let json = serde_json::to_string(&bundle).unwrap();
    let contains =
        |haystack: &[u8], needle: &[u8]| haystack.windows(needle.len()).any(|w| w == needle);
    let public: String = bundle
        .cases
        .iter()
        .filter_map(|c| c.expected.clone())
        .collect();
    let mut searched = 0;
    for expected in &outputs {
        assert!(!contains(&file, expected.as_bytes()));
        assert!(!json.contains(expected.as_str()));
        for line in expected.lines().filter(|l| l.trim().len() >= 6) {
            // Lines that a public case prints too are in the kit for that case's sake.
            if public.contains(line) {
                continue;
            }
            searched += 1;
            assert!(!contains(&file, line.as_bytes()), "`{line}` is in the kit");
            assert!(!json.contains(line), "`{line}` is in the kit's cases");
        }
    }
    assert!(searched > 0, "no hidden line was searched for");
    // Nor the reference: its crate, its modules, its source files; nor the class's similarity
    // report, nor the parsers behind it.
    for needle in [
        "Similarity across the class",
        "tree_sitter",
        "tree-sitter",
        "gridjudge::",
        "src/go.rs",
        "src/columns/field.rs",
        "src/driver.rs",
        "src/mutant.rs",
    ] {
        assert!(
            !contains(&file, needle.as_bytes()),
            "`{needle}` is in the kit"
        );
    }
    // One file, linked statically: it runs on an older distribution or Gradescope's image.
    match Process::new("ldd").arg(&kit).output() {
        Ok(ldd) => {
            let said = String::from_utf8_lossy(&ldd.stdout).to_string()
                + &String::from_utf8_lossy(&ldd.stderr);
            assert!(
                said.contains("not a dynamic executable") || said.contains("statically linked"),
                "{said}"
            );
        }
        Err(err) => println!("skipped the ldd check: ldd does not run here ({err})"),
    }
    // Its version names the corpus.
    let version = Process::new(&kit).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(
        version.contains(&format!("corpus {}", bundle.corpus)),
        "{version}"
    );
    assert!(version.contains("3 hidden"), "{version}");
}

/// Runs the autograder in `zip` for the submission folder `submission` as Gradescope would:
/// `/autograder` is a temporary folder bind-mounted in a private mount namespace. Returns the
/// results.json.
fn run_autograder(zip: &Path, submission: &Path) -> serde_json::Value {
    let root = tempfile::tempdir().unwrap();
    share(root.path());
    let source = root.path().join("source");
    std::fs::create_dir_all(&source).unwrap();
    let status = Process::new("unzip")
        .arg("-q")
        .arg(zip)
        .arg("-d")
        .arg(&source)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        // No unzip program: read the zip with the crate Gradescope's format is written by.
        let mut archive = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
        archive.extract(&source).unwrap();
    }
    let copy = root.path().join("submission");
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(submission).unwrap().flatten() {
        // A link is handed in as a link (it may point where only the grader has files).
        match std::fs::read_link(entry.path()) {
            Ok(target) => std::os::unix::fs::symlink(target, copy.join(entry.file_name())),
            Err(_) => std::fs::copy(entry.path(), copy.join(entry.file_name())).map(drop),
        }
        .unwrap();
    }
    let script = format!(
        "mount --bind {} /autograder && bash /autograder/source/setup.sh >/dev/null && \
         /autograder/source/run_autograder",
        root.path().display()
    );
    let output = Process::new("unshare")
        // Builds of submissions are kept with this grading's files, not the machine's cache.
        .env("GRIDJUDGE_CACHE", root.path().join("cache"))
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = root.path().join("results/results.json");
    // Should it ever be missing, the failure says what the script said and what is there.
    let text = std::fs::read(&results).unwrap_or_else(|err| {
        let listing: Vec<String> = walkdir::WalkDir::new(root.path())
            .max_depth(2)
            .into_iter()
            .flatten()
            .map(|entry| entry.path().display().to_string())
            .collect();
        panic!(
            "no results.json ({err}); run_autograder's stdout:\n{}\nstderr:\n{}\nfiles: {listing:#?}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    serde_json::from_slice(&text).unwrap()
}

/// The autograder zip of the go suite with three hidden cases, built in `dir` (as an instructor
/// builds it); `None` where this machine cannot run it as Gradescope does.
fn autograder_zip(dir: &Path) -> Option<PathBuf> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !Path::new("/usr/bin/unshare").exists() {
        println!("skipped: the autograder test mounts /autograder in a private mount namespace, which needs root and unshare");
        return None;
    }
    // The mount point Gradescope's image has; made here (empty) when missing.
    if !Path::new("/autograder").exists() && std::fs::create_dir("/autograder").is_err() {
        println!("skipped: cannot make the mount point /autograder");
        return None;
    }
    let hidden = hidden("go", "size-9", 3, "liberties");
    let zip = dir.join("autograder.zip");
    xtask()
        .args([
            "autograder",
            "--spec",
            "go",
            "--run",
            "python3 go.py",
            "--hidden",
        ])
        .arg(hidden.dir.path())
        .arg("--out")
        .arg(&zip)
        .assert()
        .success();
    Some(zip)
}

/// A submission folder holding `files`.
fn submission(files: &[(&str, String)]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(folder.path().join(name), text).unwrap();
    }
    folder
}

#[test]
fn the_autograder_zip_grades_right_and_buggy_submissions_as_gradescope_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some(zip) = autograder_zip(dir.path()) else {
        return;
    };
    let source =
        std::fs::read_to_string(xtask::workspace::root().join("xtask/bench/go.py")).unwrap();
    let suite: toml::Value =
        toml::from_str(&std::fs::read_to_string(cases().join("go/suite.toml")).unwrap()).unwrap();
    let max: f64 = suite["groups"]
        .as_table()
        .unwrap()
        .iter()
        .map(|(_, points)| {
            points
                .as_float()
                .or(points.as_integer().map(|p| p as f64))
                .unwrap()
        })
        .sum();

    let right = run_autograder(&zip, submission(&[("go.py", source.clone())]).path());
    assert_eq!(right["output_format"], "text", "{right}");
    let tests = right["tests"].as_array().unwrap();
    assert!(right["execution_time"].is_u64(), "{right}");
    let total: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    // Every group holds graded cases but `found`, which may be empty: its points are not at stake.
    assert!(total <= max + 1e-9 && total > 0.0, "{total} of {max}");
    assert!(
        (right["score"].as_f64().unwrap() - total).abs() < 1e-9,
        "{right}"
    );
    for test in tests {
        for field in ["name", "score", "max_score", "status", "output"] {
            assert!(!test[field].is_null(), "{field} missing in {test}");
        }
        assert_eq!(test["status"], "passed");
    }
    assert!(tests
        .iter()
        .any(|t| t["name"].as_str().unwrap().contains("hidden-")));

    let buggy_source = source.replace("\"The Stones\"", "\"The stones\"");
    let buggy = run_autograder(&zip, submission(&[("go.py", buggy_source)]).path());
    let score = buggy["score"].as_f64().unwrap();
    assert!(score > 0.0 && score < total, "{buggy}");
    let failed_hidden = buggy["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["status"] == "failed" && t["name"].as_str().unwrap().contains("hidden-"))
        .expect("a failing hidden test");
    assert_eq!(
        failed_hidden["output"].as_str().unwrap().trim(),
        "wrong output"
    );
    println!(
        "results.json of the buggy submission (a failing public test and a failing hidden one):\n{}",
        serde_json::to_string_pretty(&serde_json::json!({
            "score": buggy["score"],
            "execution_time": buggy["execution_time"],
            "output": buggy["output"],
            "tests": buggy["tests"].as_array().unwrap().iter().filter(|t| t["status"] == "failed").take(1).chain([failed_hidden]).collect::<Vec<_>>(),
        }))
        .unwrap()
    );
}

#[test]
fn the_autograder_zip_gives_0_and_why_to_submissions_that_crash_pry_or_are_missing() {
    let dir = tempfile::tempdir().unwrap();
    let Some(zip) = autograder_zip(dir.path()) else {
        return;
    };
    let crashing = run_autograder(
        &zip,
        submission(&[(
            "go.py",
            "import sys\nprint(sys.stdin.readline().strip())\n1 / 0\n".into(),
        )])
        .path(),
    );
    assert_eq!(crashing["score"].as_f64().unwrap(), 0.0, "{crashing}");
    assert!(crashing["tests"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["output"].as_str().unwrap().contains("ZeroDivisionError")));

    assert_eq!(crashing["output_format"], "text", "{crashing}");

    // A submission that looks for the kit and its hidden cases finds nothing there.
    let nosy = run_autograder(
        &zip,
        submission(&[(
            "go.py",
            "import os, sys\n\
             try:\n    print('LEAK', os.listdir('/autograder/source'), file=sys.stderr)\n\
             except OSError:\n    print('SEALED', file=sys.stderr)\n"
                .into(),
        )])
        .path(),
    );
    let nosy_text = nosy.to_string();
    assert!(
        nosy_text.contains("SEALED") && !nosy_text.contains("LEAK"),
        "{nosy}"
    );
    // One that links to the kit's folder is refused, and the reason shows no grader path.
    let linked = submission(&[]);
    std::os::unix::fs::symlink(
        "/autograder/source/run_autograder",
        linked.path().join("go.py"),
    )
    .unwrap();
    let linked = run_autograder(&zip, linked.path());
    assert_eq!(linked["score"].as_f64().unwrap(), 0.0, "{linked}");
    let output = linked["output"].as_str().unwrap();
    assert!(output.contains("links outside the submission"), "{linked}");
    assert!(!output.contains("/autograder/source"), "{linked}");

    let missing = run_autograder(&zip, submission(&[("README", "no code".into())]).path());
    assert_eq!(missing["score"].as_f64().unwrap(), 0.0, "{missing}");
    assert!(
        missing["output"].as_str().unwrap().contains("go.py"),
        "{missing}"
    );
}

/// Without `--run`, the autograder builds each submission's sources as `check src/` does: a
/// right C submission scores full marks, one that does not compile scores 0 with the compiler's
/// message.
#[test]
fn the_autograder_zip_builds_sources_when_no_command_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !Path::new("/usr/bin/unshare").exists() {
        println!("skipped: the autograder test mounts /autograder in a private mount namespace, which needs root and unshare");
        return;
    }
    if !xtask::target::on_path(&"gcc".into()) {
        println!("skipped: `gcc` is not installed");
        return;
    }
    if !Path::new("/autograder").exists() && std::fs::create_dir("/autograder").is_err() {
        println!("skipped: cannot make the mount point /autograder");
        return;
    }
    let zip = dir.path().join("autograder.zip");
    let made = xtask()
        .args(["autograder", "--spec", "go", "--languages", "c", "--out"])
        .arg(&zip)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&made.get_output().stdout).into_owned();
    let points: f64 = said
        .lines()
        .find_map(|line| line.strip_prefix("total points: "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no points total: {said}"));
    let source =
        std::fs::read_to_string(xtask::workspace::root().join("xtask/tests/solutions/go/go.c"))
            .unwrap();
    let right = run_autograder(&zip, submission(&[("go.c", source.clone())]).path());
    let tests = right["tests"].as_array().unwrap();
    let total: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert!(total > 0.0, "{right}");
    // The total said when the zip was made is what a perfect submission scores.
    assert!(
        (points - total).abs() < 1e-9,
        "{points} said, {total} scored"
    );
    assert!(
        (right["score"].as_f64().unwrap() - total).abs() < 1e-9,
        "{right}"
    );
    let broken = run_autograder(
        &zip,
        submission(&[(
            "go.c",
            format!("{source}\nint broken(void) {{ return nope; }}\n"),
        )])
        .path(),
    );
    assert_eq!(broken["score"].as_f64().unwrap(), 0.0, "{broken}");
    let output = broken["tests"][0]["output"].as_str().unwrap_or_default();
    assert!(
        output.contains("could not build") && output.contains("nope"),
        "{broken}"
    );
}
