//! `cargo xtask fuzz` against deliberately wrong variants of the reference, built here from a
//! patched copy of its source: each bug is found within 60 s and shrunk to a small input that
//! still fails; the same seed finds the same input; the unpatched copy raises no false alarm.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use xtask::fuzz::{fuzz, Budget, Event, Found, Options, Outcome};

use crate::support::fuzz_options;

/// Builds the reference from a copy of its source with `patches` (file, text, replacement)
/// applied, and returns the binary. A patch whose text is missing fails the test: the variant
/// must really differ from the reference.
fn build_variant(name: &str, patches: &[(&str, &str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::Builder::new()
        .prefix(&format!("variant-{name}-"))
        .tempdir()
        .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            dir.path().join("src").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    for (file, text, replacement) in patches {
        let path = dir.path().join("src").join(file);
        let source = std::fs::read_to_string(&path).unwrap();
        assert!(
            source.contains(text),
            "{name}: `{text}` is not in src/{file}"
        );
        std::fs::write(&path, source.replacen(text, replacement, 1)).unwrap();
    }
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"gridjudge\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--offline", "--bin", "gridjudge"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .env_remove("RUSTFLAGS")
        .status()
        .unwrap();
    assert!(status.success(), "{name}: the variant does not build");
    let binary = dir.path().join("target/debug/gridjudge");
    (dir, binary)
}

fn options(spec: &str, binary: &Path, budget: Budget, seed: u64) -> Options {
    fuzz_options(spec, vec![binary.into(), spec.into()], binary, budget, seed)
}

fn quiet(_: Event) {}

fn find(spec: &str, binary: &Path, seed: u64) -> Found {
    match fuzz(
        &options(spec, binary, Budget::Time(Duration::from_secs(60)), seed),
        &quiet,
    )
    .unwrap()
    {
        Outcome::Found(found) => *found,
        Outcome::Clean { runs, .. } => panic!("{spec}: no failure in 60 s ({runs} runs)"),
    }
}

/// Finds the variant's bug and checks the shrunk input: it still fails, and it is small.
fn check_variant(
    name: &str,
    spec: &str,
    patches: &[(&str, &str, &str)],
    max_lines: usize,
) -> Found {
    let (_dir, binary) = build_variant(name, patches);
    let found = find(spec, &binary, 1);
    let output = Command::new(&binary)
        .arg(spec)
        .stdin(std::fs::File::open(write_temp(&found.shrunk)).unwrap())
        .output()
        .unwrap();
    assert_ne!(
        output.stdout, found.judgement.expected,
        "{name}: the shrunk input no longer fails"
    );
    assert!(
        xtask::tools::find(spec)
            .unwrap()
            .graded_output(&found.shrunk)
            .is_some(),
        "{name}: the shrunk input left the graded domain"
    );
    let lines = found.shrunk.lines().count();
    eprintln!(
        "{name}: found after {} runs in {:.2} s; shrunk in {} steps ({} runs, {:.2} s) from {} to {lines} lines, {} bytes:\n{}",
        found.runs,
        found.time_to_find.as_secs_f64(),
        found.shrink_steps,
        found.shrink_runs,
        found.shrink_time.as_secs_f64(),
        found.original.lines().count(),
        found.shrunk.len(),
        found.shrunk
    );
    assert!(
        lines <= max_lines,
        "{name}: shrunk to {lines} lines:\n{}",
        found.shrunk
    );
    found
}

fn write_temp(text: &str) -> PathBuf {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    file.into_temp_path().keep().unwrap()
}

#[test]
fn columns_without_diagonal_matching() {
    check_variant(
        "no-diagonals",
        "columns",
        &[(
            "columns.rs",
            "const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];",
            "const DIRECTIONS: [(isize, isize); 2] = [(0, 1), (1, 0)];",
        )],
        12,
    );
}

#[test]
fn columns_rotating_the_wrong_way() {
    check_variant(
        "wrong-rotation",
        "columns",
        &[(
            "columns.rs",
            "faller.jewels = [bottom, top, middle];",
            "faller.jewels = [middle, bottom, top];",
        )],
        12,
    );
}

#[test]
fn columns_freezing_in_the_tick_that_lands() {
    check_variant(
        "early-freeze",
        "columns",
        &[(
            "columns.rs",
            "        fallen.landed = self.supported(&fallen);\n        self.faller = Some(fallen);",
            "        fallen.landed = self.supported(&fallen);\n        if fallen.landed {\n            return self.freeze(fallen);\n        }\n        self.faller = Some(fallen);",
        )],
        12,
    );
}

#[test]
fn connect4_without_diagonal_wins() {
    check_variant(
        "no-diagonal-wins",
        "connect4",
        &[(
            "connect4.rs",
            "[(0, 1), (1, 0), (1, 1), (1, -1)]",
            "[(0, 1), (1, 0)]",
        )],
        40,
    );
}

#[test]
fn go_counting_liberties_per_stone() {
    check_variant(
        "liberties-per-stone",
        "go",
        &[(
            "go.rs",
            "            liberties[index] = n_liberties;",
            "            let _ = n_liberties;\n            let (row, col) = (index / size, index % size);\n            let own = [(row > 0).then(|| index - size), (row + 1 < size).then(|| index + size), (col > 0).then(|| index - 1), (col + 1 < size).then(|| index + 1)];\n            liberties[index] = own.into_iter().flatten().filter(|&n| cells[n] == b'.').count();",
        )],
        20,
    );
}

#[test]
fn collapse_with_8_connectivity() {
    check_variant(
        "8-connected",
        "collapse",
        &[(
            "collapse.rs",
            "                (c + 1 < self.cols).then(|| index + 1),\n            ];",
            "                (c + 1 < self.cols).then(|| index + 1),\n                (r > 0 && c > 0).then(|| index - self.cols - 1),\n                (r > 0 && c + 1 < self.cols).then(|| index - self.cols + 1),\n                (r + 1 < self.rows && c > 0).then(|| index + self.cols - 1),\n                (r + 1 < self.rows && c + 1 < self.cols).then(|| index + self.cols + 1),\n            ];",
        )],
        12,
    );
}

#[test]
fn the_same_seed_finds_and_shrinks_the_same_input() {
    let patches = [(
        "columns.rs",
        "faller.jewels = [bottom, top, middle];",
        "faller.jewels = [middle, bottom, top];",
    )];
    let (_dir, binary) = build_variant("wrong-rotation-again", &patches);
    let first = find("columns", &binary, 7);
    let second = find("columns", &binary, 7);
    assert_eq!(
        (first.case_seed, &first.original, &first.shrunk),
        (second.case_seed, &second.original, &second.shrunk)
    );
}

#[test]
fn no_false_alarm_against_the_reference_itself() {
    let (_dir, binary) = build_variant("unchanged", &[]);
    let mut total = 0;
    for spec in ["columns", "collapse", "connect4", "go"] {
        match fuzz(&options(spec, &binary, Budget::Runs(2500), 3), &quiet).unwrap() {
            Outcome::Clean { runs, .. } => total += runs,
            Outcome::Found(found) => panic!("{spec}: false alarm on\n{}", found.shrunk),
        }
    }
    assert!(total >= 10_000, "{total} runs");
}
