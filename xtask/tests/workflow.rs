//! The guide's GitHub Actions workflow (on grading a class), run here: its YAML is parsed, each `run:` step of the
//! `grade` job runs once per matrix value (what `upload-artifact` and `download-artifact` do is
//! done by hand between them), then the `merge` job's steps; the merged grades must equal one
//! grading of the whole class, byte for byte.

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use crate::support::reference;

/// The YAML block that follows "A GitHub Actions matrix:" in the guide's page on grading.
fn readme_workflow() -> Yaml {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/src/grading.md"),
    )
    .unwrap();
    let after = readme
        .split_once("A GitHub Actions matrix:")
        .expect("the guide shows a workflow")
        .1;
    let block = after
        .split_once("```yaml\n")
        .unwrap()
        .1
        .split_once("```")
        .unwrap()
        .0;
    YamlLoader::load_from_str(block).unwrap().remove(0)
}

/// The `run:` steps of a job.
fn run_steps(job: &Yaml) -> Vec<String> {
    job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|step| step["run"].as_str().map(String::from))
        .collect()
}

/// Runs a step in `dir` with `sh`, `cargo xtask` being the harness built for these tests, with
/// a stand-in reference and a corpus of the columns handout cases only (building the real
/// reference and running 400 cases per student are not what this test is about).
fn run_step(step: &str, dir: &Path, cases: &Path) {
    let xtask = env!("CARGO_BIN_EXE_xtask");
    let command = step
        .replace(
            "cargo xtask grade",
            &format!(
                "{xtask} grade --reference {} --cases {}",
                reference().to_string_lossy(),
                cases.display()
            ),
        )
        .replace("cargo xtask merge", &format!("{xtask} merge"));
    let status = std::process::Command::new("sh")
        .args(["-c", &command])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "`{command}` failed");
}

#[test]
fn the_readme_workflow_grades_a_class_in_shards_and_merges_to_one_run() {
    let workflow = readme_workflow();
    let grade_job = &workflow["jobs"]["grade"];
    let shards: Vec<i64> = grade_job["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(shards, [1, 2, 3, 4]);
    // The checkout of gridjudge, with a class beside it: each student's project4.py plays
    // columns with a wrong variant or none, through the `mutant` program in its folder.
    let root = tempfile::tempdir().unwrap();
    crate::support::share(root.path());
    let cases = root.path().join("cases");
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/columns");
    std::fs::create_dir_all(cases.join("columns/handout")).unwrap();
    std::fs::copy(bundled.join("suite.toml"), cases.join("columns/suite.toml")).unwrap();
    for entry in std::fs::read_dir(bundled.join("handout"))
        .unwrap()
        .flatten()
    {
        std::fs::copy(
            entry.path(),
            cases.join("columns/handout").join(entry.file_name()),
        )
        .unwrap();
    }
    let submissions = root.path().join("submissions");
    let variants = [
        "none",
        "columns-rotate-backwards",
        "none",
        "columns-no-vertical",
        "none",
        "columns-one-run",
    ];
    for (k, variant) in variants.iter().cycle().take(10).enumerate() {
        let student = submissions.join(format!("student-{k:02}"));
        std::fs::create_dir_all(&student).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_mutant"), student.join("mutant")).unwrap();
        std::fs::write(
            student.join("project4.py"),
            format!(
                "import subprocess, sys\nsys.exit(subprocess.call(['./mutant', '{variant}', 'columns']))\n"
            ),
        )
        .unwrap();
    }
    for k in shards.iter() {
        for step in run_steps(grade_job) {
            let step = step.replace("${{ matrix.shard }}", &k.to_string());
            run_step(&step, root.path(), &cases);
        }
        // upload-artifact named grades-K, then (in the merge job) download-artifact into shards/.
        let artifact = root.path().join(format!("shards/grades-{k}"));
        std::fs::create_dir_all(&artifact).unwrap();
        std::fs::rename(
            root.path().join("out/grades.json"),
            artifact.join("grades.json"),
        )
        .unwrap();
        std::fs::remove_dir_all(root.path().join("out")).unwrap();
    }
    for step in run_steps(&workflow["jobs"]["merge"]) {
        run_step(&step, root.path(), &cases);
    }
    // One grading of the whole class, the same way.
    let whole = grade_job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|s| s.contains("grade"))
        .unwrap()
        .replace(" --shard ${{ matrix.shard }}/4", "")
        .replace("--out out", "--out whole");
    run_step(&whole, root.path(), &cases);
    for file in ["grades.csv", "grades.json"] {
        let merged = std::fs::read(root.path().join("grades").join(file)).unwrap();
        let one = std::fs::read(root.path().join("whole").join(file)).unwrap();
        assert!(
            merged == one,
            "{file}: the merged shards differ from one run:\n{}\n---\n{}",
            String::from_utf8_lossy(&merged),
            String::from_utf8_lossy(&one)
        );
    }
    let csv = std::fs::read_to_string(root.path().join("grades/grades.csv")).unwrap();
    assert_eq!(csv.lines().count(), 11, "{csv}");
}
