//! How the workspace builds: `cargo xtask check` (the main job), `cargo xtask serve` (the course
//! server) and `cargo test` build every dependency they share with the same features, so that
//! none of them compiles one a second time (the workspace-hack crate, which `cargo hakari generate` keeps, makes them
//! alike; a dependency added with other features breaks this test until it is run again).

use std::collections::{BTreeMap, BTreeSet};

/// Each package of a `cargo tree` over `args`, with every set of features it is built with.
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let output = xtask::workspace::cargo()
        .args([
            "tree",
            "--locked",
            "--offline",
            "--prefix",
            "none",
            "-f",
            "{p}|{f}",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // `name vX.Y.Z`, without a path, `(proc-macro)` or `(*)`.
        let package: Vec<&str> = package.split_whitespace().take(2).collect();
        let features = features.trim_end_matches(" (*)").to_string();
        packages
            .entry(package.join(" "))
            .or_default()
            .insert(features);
    }
    packages
}

/// The packages `main` builds that `test` builds with other features, each as
/// `name version: main's / test's`.
fn built_otherwise(
    main: &BTreeMap<String, BTreeSet<String>>,
    test: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    main.iter()
        .filter(|(package, features)| test.get(*package).is_some_and(|t| t != *features))
        .map(|(package, features)| format!("{package}: {features:?} / {:?}", test[package]))
        .collect()
}

/// `cargo xtask serve` builds the server's binaries (`cargo build -p gridjudge-server --bins`):
/// after `cargo test`, nothing of it is compiled again.
#[test]
fn the_course_server_and_the_tests_build_every_dependency_they_share_alike() {
    let serve = features(&["--package", "gridjudge-server", "--edges", "normal,build"]);
    let test = features(&["--workspace", "--edges", "normal,build,dev"]);
    assert!(serve.len() > 100, "too few packages read: {serve:?}");
    let differ = built_otherwise(&serve, &test);
    assert!(
        differ.is_empty(),
        "built with other features by `cargo test` than by `cargo xtask serve` (give the \
         server the test's features of each):\n{}",
        differ.join("\n")
    );
}

#[test]
fn the_main_job_and_the_tests_build_every_dependency_they_share_alike() {
    let check = features(&["--package", "xtask", "--edges", "normal,build"]);
    let test = features(&["--workspace", "--edges", "normal,build,dev"]);
    assert!(check.len() > 50, "too few packages read: {check:?}");
    let differ = built_otherwise(&check, &test);
    assert!(
        differ.is_empty(),
        "built with other features by `cargo test` than by `cargo xtask check` (run `cargo \
         hakari generate`):\n{}",
        differ.join("\n")
    );
}
