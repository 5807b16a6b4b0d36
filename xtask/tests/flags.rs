//! No input to any numeric flag or suite-file field panics or wraps: each absurd value is one
//! `error:` line naming the flag or field, and exit status 2.

use assert_cmd::Command;

use crate::support::{fixture, reference, Corpus};

/// Values no numeric flag may take (a seed may be 0, so 0 is left out for seeds).
const ABSURD: [&str; 5] = ["1e300", "nan", "-1", "0", "123456789012345678901234567890"];

const CONFINE: [&str; 5] = [
    "--cpu",
    "--memory",
    "--processes",
    "--file-size",
    "--open-files",
];

/// Every numeric flag of every task.
fn numeric_flags() -> Vec<(&'static str, &'static str)> {
    let mut flags = Vec::new();
    for task in ["check", "grade"] {
        for flag in ["--jobs", "--timeout", "--shard"]
            .into_iter()
            .chain(CONFINE)
        {
            flags.push((task, flag));
        }
    }
    for flag in [
        "--seed",
        "--time",
        "--runs",
        "--jobs",
        "--timeout",
        "--max-shrink-runs",
    ]
    .into_iter()
    .chain(CONFINE)
    {
        flags.push(("fuzz", flag));
    }
    for flag in CONFINE {
        flags.push(("bless", flag));
    }
    flags.extend([("gen", "--seed"), ("gen", "--count")]);
    flags.extend([("bench", "--jobs"), ("bench", "--repeats")]);
    flags
}

fn assert_one_error_line(output: &std::process::Output, naming: &str, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: not one line:\n{stderr}");
    assert!(lines[0].starts_with("error: "), "{what}: {stderr}");
    assert!(
        lines[0].contains(naming),
        "{what}: does not name `{naming}`: {stderr}"
    );
}

#[test]
fn bench_s_job_counts_leave_the_next_flag_alone() {
    // `--jobs 2 --repeats 1` once took `--repeats` for a job count.
    let output = Command::cargo_bin("xtask")
        .unwrap()
        .args(["bench", "--jobs", "2", "--repeats", "0"])
        .output()
        .unwrap();
    assert_one_error_line(&output, "'0' for '--repeats", "bench --jobs 2 --repeats 0");
}

#[test]
fn every_numeric_flag_refuses_absurd_values_in_one_line() {
    let mut n_checked = 0;
    for (task, flag) in numeric_flags() {
        for value in ABSURD {
            if flag == "--seed" && value == "0" {
                continue;
            }
            let output = Command::cargo_bin("xtask")
                .unwrap()
                .args([task, &format!("{flag}={value}")])
                .output()
                .unwrap();
            assert_one_error_line(&output, flag, &format!("{task} {flag} {value}"));
            // The spaced form, where a leading `-` must not make the value a flag.
            let output = Command::cargo_bin("xtask")
                .unwrap()
                .args([task, flag, value])
                .output()
                .unwrap();
            assert_one_error_line(&output, flag, &format!("{task} {flag} {value}"));
            n_checked += 1;
        }
    }
    assert!(n_checked >= 150, "{n_checked}");
}

/// `check` of the fixture on `corpus` with `suite` as its suite file.
fn check_with_suite(corpus: &Corpus, suite: &str) -> std::process::Output {
    std::fs::write(corpus.root().join("demo/suite.toml"), suite).unwrap();
    Command::cargo_bin("xtask")
        .unwrap()
        .args(["check", "--no-sandbox", "--spec", "demo", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(reference())
        .arg("--")
        .arg(fixture())
        .arg("right")
        .arg(corpus.expected_path())
        .output()
        .unwrap()
}

#[test]
fn every_numeric_suite_field_refuses_absurd_values_in_one_line() {
    let fields = [
        ("", "timeout"),
        ("[limits]\n", "cpu"),
        ("[limits]\n", "memory_mib"),
        ("[limits]\n", "processes"),
        ("[limits]\n", "file_size_mib"),
        ("[limits]\n", "open_files"),
    ];
    for (table, field) in fields {
        for value in ABSURD {
            let corpus = Corpus::new(b"x\n", true);
            let base = "args = [\"demo\"]\ncompare = \"exact\"\ngrade_exit_status = true\n";
            let text = if table.is_empty() {
                format!("{base}timeout = {value}\n[groups]\nbasic = 4\n")
            } else {
                format!("{base}timeout = 5.0\n[groups]\nbasic = 4\n{table}{field} = {value}\n")
            };
            let output = check_with_suite(&corpus, &text);
            assert_one_error_line(&output, "suite.toml", &format!("{field} = {value}"));
        }
    }
    for value in ["1e300", "nan", "-1"] {
        let corpus = Corpus::new(b"x\n", true);
        let text = format!(
            "args = [\"demo\"]\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 5.0\n\
             [groups]\nbasic = {value}\n"
        );
        let output = check_with_suite(&corpus, &text);
        assert_one_error_line(&output, "basic", &format!("points = {value}"));
    }
}

/// The course server builds `grade`'s options through the typed constructor, never a command
/// line: what it builds is what `cargo xtask grade` parses, flag for flag, and each setter
/// changes what its flag changes.
#[test]
fn the_typed_grade_options_are_the_command_lines() {
    use clap::Parser;
    #[derive(Parser)]
    struct Grade {
        #[command(flatten)]
        grade: xtask::cli::GradeArgs,
    }
    let dir = tempfile::tempdir().unwrap();
    let (class, out) = (dir.path().join("class"), dir.path().join("out"));
    std::fs::create_dir(&class).unwrap();
    let parse = |more: &[&str]| {
        let mut argv = vec!["grade", "--spec", "go", "--submissions"];
        argv.push(class.to_str().unwrap());
        argv.extend(["--out", out.to_str().unwrap()]);
        let reference = reference();
        argv.extend(["--reference", reference.to_str().unwrap()]);
        argv.extend(more);
        format!(
            "{:?}",
            Grade::try_parse_from(argv)
                .unwrap()
                .grade
                .options()
                .unwrap()
        )
    };
    let typed = || {
        let check = xtask::check::Options::new(
            xtask::workspace::cases(),
            std::path::PathBuf::from(reference()),
            std::path::PathBuf::new(),
        );
        xtask::grade::Options::new(check, "go", &class, out.clone()).unwrap()
    };
    assert_eq!(format!("{:?}", typed()), parse(&[]));
    let set = typed()
        .jobs(3)
        .timeout(2.5)
        .unwrap()
        .hide(dir.path().join("course"));
    let hide = dir.path().join("course");
    assert_eq!(
        format!("{set:?}"),
        parse(&[
            "--jobs",
            "3",
            "--timeout",
            "2.5",
            "--hide",
            hide.to_str().unwrap()
        ])
    );
    // And the typed constructor refuses what the command line refuses.
    let missing = dir.path().join("nobody");
    let check = xtask::check::Options::new(
        xtask::workspace::cases(),
        std::path::PathBuf::from(reference()),
        missing.clone(),
    );
    assert!(xtask::grade::Options::new(check, "go", &missing, out.clone()).is_err());
}
