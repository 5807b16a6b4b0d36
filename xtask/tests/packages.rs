//! Problem packages: the test packages of `tests/packages/` (the default validator with a
//! float tolerance, a validator of the package's own, a scoring problem, an interactive one)
//! judged as the format
//! says, each submission getting its folder's verdict; the four exports read back by `check`
//! and, where it is installed, accepted by Kattis's verifyproblem with no error.

use std::path::{Path, PathBuf};
use std::process::Command;

use xtask::check::Options;
use xtask::corpus::CompareMode;
use xtask::target::Program;

fn packages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/packages")
}

/// Whether every tool `names` is installed; says which is not, for a test that skips.
fn installed(names: &[&str]) -> bool {
    match names
        .iter()
        .find(|name| !xtask::target::on_path(&name.into()))
    {
        None => true,
        Some(missing) => {
            eprintln!("skipped: `{missing}` is not installed");
            false
        }
    }
}

fn options(root: &Path) -> Options {
    let mut options = Options::new(root.to_path_buf(), PathBuf::new(), std::env::temp_dir());
    options.jobs = 2;
    options
}

#[test]
fn every_submission_of_the_test_packages_gets_its_folders_verdict() {
    if !installed(&["python3", "gcc"]) {
        return;
    }
    for name in ["halves", "sums", "steps", "doubles"] {
        let rows =
            xtask::check::verify::verify(&options(&packages()), &packages().join(name)).unwrap();
        assert!(rows.len() >= 2, "{name}: {rows:?}");
        for row in &rows {
            assert!(row.got.is_some(), "{name}: {row:?} was not judged");
            assert!(row.agrees(), "{name}: {row:?}");
        }
        // Every folder the package ships is among them.
        for (folder, verdict) in xtask::check::verify::FOLDERS {
            if packages()
                .join(name)
                .join("submissions")
                .join(folder)
                .is_dir()
            {
                assert!(
                    rows.iter().any(|r| r.expected == verdict),
                    "{name}: {folder}"
                );
            }
        }
    }
}

#[test]
fn a_package_is_read_with_its_groups_scores_limits_and_validator() {
    let halves = xtask::corpus::find(&packages(), "halves").unwrap();
    let CompareMode::Tokens(tokens) = halves.rules_of("secret").compare else {
        panic!("halves compares with the default validator");
    };
    assert_eq!((tokens.relative, tokens.absolute), (Some(1e-6), Some(1e-6)));
    assert_eq!(halves.file.limits.memory_mib, 256);
    assert!(halves.package.as_ref().unwrap().meta.time_limit.is_none());
    let sums = xtask::corpus::find(&packages(), "sums").unwrap();
    assert_eq!(sums.rules().compare, CompareMode::Validator);
    assert_eq!(sums.timeout().as_secs_f64(), 2.0);
    let steps = xtask::corpus::find(&packages(), "steps").unwrap();
    let points: Vec<(&str, f64)> = steps
        .file
        .groups
        .iter()
        .map(|(group, points)| (group.as_str(), *points))
        .collect();
    assert_eq!(
        points,
        [
            ("sample", 0.0),
            ("secret/easy", 20.0),
            ("secret/hard", 80.0)
        ]
    );
    let cases = xtask::corpus::discover(&steps).unwrap();
    let ids: Vec<String> = cases.iter().map(|case| case.id()).collect();
    assert_eq!(
        ids,
        [
            "steps/sample/1",
            "steps/secret/easy/1",
            "steps/secret/easy/2",
            "steps/secret/hard/1"
        ]
    );
}

#[test]
fn the_validators_say_what_is_wrong_in_the_report() {
    if !installed(&["python3"]) {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    crate::support::share(work.path());
    let run = |package: &str, program: &str| {
        let source = work.path().join(format!("{package}.py"));
        std::fs::write(&source, program).unwrap();
        let mut options = options(&packages());
        options.spec = Some(package.into());
        options.program = Program::Sources(source);
        options.timeout = Some(std::time::Duration::from_secs(5));
        xtask::check::check(&options, &|_| {}).unwrap()
    };
    // The default validator: the first token beyond the tolerance, where the program printed it.
    let halves = run(
        "halves",
        "n = int(input())\nprint('half:', n / 2 + 0.001)\n",
    );
    let failed = &halves.results[0].judgement;
    let difference = failed.difference.as_ref().unwrap();
    assert!(difference.cause.contains("token 1"), "{difference:?}");
    let halves = run("halves", "n = int(input())\nprint(n / 2 + 0.001)\n");
    let difference = halves.results[0].judgement.difference.clone().unwrap();
    assert!(
        difference.cause.contains("beyond the tolerance"),
        "{difference:?}"
    );
    // The package's own validator: its judgemessage.txt is the explanation.
    let sums = run("sums", "n = int(input())\nprint(2, n)\n");
    let difference = sums.results[0].judgement.difference.clone().unwrap();
    assert!(
        difference.cause.contains("2 + 5 is not 5"),
        "{difference:?}"
    );
}

#[test]
fn a_validator_that_breaks_is_the_packages_error_not_a_verdict() {
    if !installed(&["python3"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    copy(&packages().join("sums"), &corpus.join("sums"));
    std::fs::write(
        corpus.join("sums/output_validator/validate.py"),
        "import sys\nsys.exit(1)\n",
    )
    .unwrap();
    crate::support::share(dir.path());
    std::fs::create_dir(dir.path().join("program")).unwrap();
    crate::support::share(&dir.path().join("program"));
    let source = dir.path().join("program/first.py");
    std::fs::write(&source, "n = int(input())\nprint(1, n - 1)\n").unwrap();
    let mut options = options(&corpus);
    options.spec = Some("sums".into());
    options.program = Program::Sources(source);
    let err = xtask::check::check(&options, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("validate") || err.contains("output_validator"),
        "{err}"
    );
    assert!(
        err.contains("exited with status 1") && err.contains("package's fault"),
        "{err}"
    );
}

#[test]
fn what_the_harness_cannot_judge_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for (name, yaml, what) in [
        (
            "talk",
            "problem_format_version: 2023-07-draft\ntype: interactive\n",
            "interactive problem without its validator",
        ),
        (
            "passes",
            "problem_format_version: 2023-07-draft\ntype: [pass-fail, multi-pass]\n",
            "multi-pass",
        ),
        (
            "flags",
            "validator_flags: ignore_case_and_all\n",
            "ignore_case_and_all",
        ),
        ("later", "problem_format_version: 2031-01\n", "2031-01"),
    ] {
        let package = dir.path().join(name);
        std::fs::create_dir_all(package.join("data/secret")).unwrap();
        std::fs::write(package.join("problem.yaml"), yaml).unwrap();
        std::fs::write(package.join("data/secret/1.in"), "1\n").unwrap();
        std::fs::write(package.join("data/secret/1.ans"), "1\n").unwrap();
        let err = xtask::corpus::find(dir.path(), name)
            .unwrap_err()
            .to_string();
        assert!(err.contains(what) && err.contains("problem.yaml"), "{err}");
    }
}

/// The four exports, made once for the tests that read them.
fn exports() -> &'static Path {
    static EXPORTS: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    EXPORTS
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            for spec in ["columns", "collapse", "connect4", "go"] {
                xtask::kit::export(&xtask::workspace::cases(), spec, &dir.path().join(spec))
                    .unwrap();
            }
            crate::support::share(dir.path());
            dir
        })
        .path()
}

#[test]
fn every_export_read_back_passes_the_reference_on_every_graded_case() {
    if !installed(&["g++"]) {
        return;
    }
    let reference = crate::support::outside_checkout(&xtask::workspace::build_reference().unwrap());
    for spec in ["columns", "collapse", "connect4", "go"] {
        let graded = xtask::corpus::discover(
            &xtask::corpus::find(&xtask::workspace::cases(), spec).unwrap(),
        )
        .unwrap()
        .iter()
        .filter(|case| case.graded)
        .count();
        let mut options = options(exports());
        options.spec = Some(spec.into());
        options.program = Program::Command(vec![reference.clone().into(), spec.into()]);
        let run = xtask::check::check(&options, &|_| {}).unwrap();
        let handout = run
            .results
            .iter()
            .filter(|r| r.case.group == "sample")
            .count();
        assert_eq!(run.results.len(), graded + handout, "{spec}");
        let failed: Vec<String> = run
            .results
            .iter()
            .filter(|r| !r.judgement.verdict.passed())
            .map(|r| r.case.id())
            .collect();
        assert!(failed.is_empty(), "{spec}: {failed:?}");
    }
}

#[test]
fn an_exports_wrong_programs_fail_and_its_solution_passes() {
    if !installed(&["g++", "python3"]) {
        return;
    }
    let rows =
        xtask::check::verify::verify(&options(exports()), &exports().join("connect4")).unwrap();
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(
        rows.iter().all(|row| row.got.is_some() && row.agrees()),
        "{rows:?}"
    );
}

/// Kattis's verifyproblem in the venv `.ci/run` makes (`target/verify-venv`), with Python run
/// by CPython (its own table runs `pypy3`).
fn verifyproblem() -> Option<(PathBuf, tempfile::TempDir)> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| xtask::workspace::root().join("target"));
    let tool = target.join("verify-venv/bin/verifyproblem");
    if !tool.is_file() {
        eprintln!(
            "skipped: no `{}` (.ci/run installs problemtools there)",
            tool.display()
        );
        return None;
    }
    if !installed(&["pandoc", "lualatex", "g++", "python3"]) {
        return None;
    }
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("problemtools")).unwrap();
    std::fs::write(
        config.path().join("problemtools/languages.yaml"),
        "python3:\n    compile: 'python3 -m py_compile {files}'\n    run: 'python3 \"{mainfile}\"'\n",
    )
    .unwrap();
    Some((tool, config))
}

#[test]
fn verifyproblem_accepts_every_export_with_no_error() {
    let Some((tool, config)) = verifyproblem() else {
        return;
    };
    for spec in ["columns", "collapse", "connect4", "go"] {
        let output = Command::new(&tool)
            .args(["-j", "2", "--"])
            .arg(exports().join(spec))
            .env("XDG_CONFIG_HOME", config.path())
            .current_dir(exports())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(
            text.contains(&format!("{spec} tested: 0 errors")),
            "{spec}:\n{text}"
        );
        // Every wrong program was judged wrong, and the solution accepted.
        assert!(text.contains("OK: AC"), "{spec}:\n{text}");
        assert_eq!(text.matches("OK: WA").count(), 4, "{spec}:\n{text}");
    }
}

fn copy(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn the_tasks_that_need_a_reference_refuse_a_package_by_name() {
    for task in ["bless", "gen"] {
        let output = assert_cmd::Command::cargo_bin("xtask")
            .unwrap()
            .args([task, "--cases"])
            .arg(packages())
            .args(["--spec", "halves"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{task}: {stderr}");
        assert!(
            stderr.contains("`halves` is a problem package"),
            "{task}: {stderr}"
        );
    }
}
