//! Hygiene of the bundled corpus and the project, as ordinary tests.
//!
//! The corpus is the product: every `.in` has its `.out`, names follow `NNN-what-it-tests`,
//! every group is known to its suite file, no graded case repeats another, the counts the
//! project promises hold, every `.out` is what the reference prints, and (the strongest check)
//! every graded case stays inside the determined and ruled domain while every case of an
//! `unspecified` group really touches unspecified behaviour.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use gridjudge::driver::run_bytes;
use xtask::corpus::discover;
use xtask::corpus::load_all;

fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases")
}

fn is_case_name(stem: &str) -> bool {
    let Some((number, what)) = stem.split_once('-') else {
        return false;
    };
    number.len() >= 3
        && number.bytes().all(|b| b.is_ascii_digit())
        && !what.is_empty()
        && what.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

#[test]
fn case_names_follow_the_pattern() {
    assert!(
        is_case_name("013-match-horizontal") && !is_case_name("13-x") && !is_case_name("013-Bad")
    );
    for entry in walkdir::WalkDir::new(cases_root())
        .min_depth(3)
        .max_depth(3)
    {
        let path = entry.unwrap().into_path();
        let stem = path.file_stem().unwrap().to_string_lossy();
        let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
        assert!(
            matches!(ext.as_deref(), Some("in" | "out")),
            "`{}`: neither .in nor .out",
            path.display()
        );
        assert!(
            is_case_name(&stem),
            "`{}`: not NNN-what-it-tests",
            path.display()
        );
        let twin = path.with_extension(if ext.as_deref() == Some("in") {
            "out"
        } else {
            "in"
        });
        assert!(
            twin.is_file(),
            "`{}` has no twin `{}`",
            path.display(),
            twin.display()
        );
    }
}

#[test]
fn the_corpus_is_valid_and_big_enough() {
    let suites = load_all(&cases_root()).unwrap();
    let mut names: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
    let mut specs: Vec<&str> = gridjudge::spec::SPECS.iter().map(|s| s.name).collect();
    names.sort();
    specs.sort();
    assert_eq!(names, specs, "one suite per spec of the reference's table");
    for suite in &suites {
        let cases = discover(suite).unwrap();
        let graded: Vec<_> = cases.iter().filter(|c| c.graded).collect();
        assert!(
            suite.file.min_graded_cases > 0,
            "{}: the suite file promises no `min_graded_cases`",
            suite.name
        );
        assert!(
            graded.len() >= suite.file.min_graded_cases,
            "{}: {} graded cases",
            suite.name,
            graded.len()
        );
        let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
        for case in &cases {
            *per_group.entry(&case.group).or_default() += 1;
        }
        // `found` fills up as fuzzing finds bugs; every other group has cases.
        let groups = suite.file.groups.keys().chain(suite.file.ungraded.keys());
        for group in groups.filter(|g| *g != "found") {
            assert!(
                per_group.contains_key(group.as_str()),
                "{}: group `{group}` has no case",
                suite.name
            );
        }
        if suite.name == "columns" {
            for feature in 1..=20 {
                let prefix = format!("{feature:02}-");
                let count: usize = per_group
                    .iter()
                    .filter(|(g, _)| g.starts_with(&prefix))
                    .map(|(_, n)| n)
                    .sum();
                assert!(
                    count >= 5,
                    "columns checklist feature {feature}: {count} cases"
                );
            }
        }
        let mut seen: HashMap<Vec<u8>, &str> = HashMap::new();
        for case in &graded {
            let input = std::fs::read(&case.input).unwrap();
            if let Some(first) = seen.insert(input, &case.name) {
                panic!(
                    "{}: `{}` repeats `{first}` byte for byte",
                    suite.name,
                    case.id()
                );
            }
        }
    }
}

#[test]
fn every_case_is_graded_exactly_when_the_spec_determines_it() {
    for suite in load_all(&cases_root()).unwrap() {
        let spec = gridjudge::spec::find(&suite.name).unwrap();
        for case in discover(&suite).unwrap() {
            let input = std::fs::read(&case.input).unwrap();
            let (output, result) = run_bytes(spec, &input);
            let finished = result.unwrap_or_else(|err| panic!("{}: {err}", case.id()));
            match (case.graded, &finished.unspecified) {
                (true, Some((line, what))) => panic!(
                    "{}: graded, but line {line} touches unspecified behaviour: {what}",
                    case.id()
                ),
                (false, None) => panic!(
                    "{}: in `{}` but touches nothing unspecified",
                    case.id(),
                    case.group
                ),
                _ => {}
            }
            let expected = std::fs::read(&case.expected).unwrap();
            assert!(
                output == expected,
                "{}: `.out` is not the reference's output: run `cargo xtask bless`",
                case.id()
            );
        }
    }
}

#[test]
fn every_assignment_has_every_piece() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = xtask::tools::missing(gridjudge::spec::SPECS, xtask::tools::TOOLS);
    for spec in gridjudge::spec::SPECS {
        missing.extend(xtask::workspace::missing_pieces(&root, spec.name));
        if !gridjudge::mutant::MUTANTS
            .iter()
            .any(|m| m.spec == spec.name)
        {
            missing.push(format!(
                "spec `{}` has no wrong variant in `src/mutant.rs`",
                spec.name
            ));
        }
    }
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn nothing_reads_the_shared_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in [
        "src",
        "xtask/src",
        "tests",
        "xtask/tests",
        "benches",
        ".ci",
        ".cargo",
    ] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let path = entry.unwrap().into_path();
            if path.is_file() {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let needle = ["..", "/shared"].concat();
                assert!(
                    !text.contains(&needle),
                    "`{}` refers to the shared folder",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn the_readme_names_the_two_set_up_commands() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    assert!(readme.contains("cargo xtask check   # the main job"));
    assert!(readme.contains("cargo test          # the test suite"));
    // The architecture has its own file, linked from the README.
    assert!(readme.contains("[ARCHITECTURE.md](ARCHITECTURE.md)"));
    let architecture =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md"))
            .unwrap();
    for section in ["## Bird's-eye view", "## Codemap", "## Invariants"] {
        assert!(architecture.contains(section), "{section}");
    }
}

#[test]
fn every_wrong_variant_is_killed_by_a_hand_written_case() {
    let report = xtask::adequacy::measure(&cases_root(), 2).unwrap();
    let survivors: Vec<&str> = report.survivors().map(|k| k.variant.name).collect();
    assert_eq!(
        survivors,
        Vec::<&str>::new(),
        "corpus gaps: run `cargo xtask adequacy`"
    );
    assert!(report.kills.len() >= 60, "{} variants", report.kills.len());
    // What check tells a program behaving like a variant: at most 2 causes, and never the
    // cause of a variant that breaks another rule. Held out (its own misreading and its twins'
    // unknown, as for a bug nobody listed): at most 2 causes, and no misreading named that
    // the variant's own run refutes.
    let problems = report.cause_problems(2);
    assert!(problems.is_empty(), "{problems:#?}");
    for held_out in [false, true] {
        let single = report
            .kills
            .iter()
            .filter(|k| if held_out { k.held_out.len() } else { k.causes.len() } == 1)
            .count();
        assert!(2 * single > report.kills.len(), "median above 1 cause");
    }
    // Refutation is what keeps them few: without it, many failures would be told a
    // misreading their run refutes.
    let told: usize = report.kills.iter().map(|k| k.refuted_told).sum();
    assert!(told > 100, "{told}");
    let table = std::fs::read_to_string(cases_root().join("../docs/adequacy.md")).unwrap();
    assert!(
        table == report.table(),
        "docs/adequacy.md is stale: run `cargo xtask adequacy --table > docs/adequacy.md`"
    );
}

/// No message of the workspace has a run of spaces in mid-sentence: a string broken over two
/// lines without its `\` printed the next line's indentation (four messages did).
#[test]
fn no_message_holds_a_lines_indentation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for dir in [
        "src",
        "xtask/src",
        "server/src",
        "similarity/src",
        "kit/src",
    ] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let path = entry.unwrap().into_path();
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Unit tests below their module hold fixtures, not messages.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (n, line) in code.lines().enumerate() {
                let bytes = line.as_bytes();
                let mut at = line.len() - line.trim_start().len();
                while at < bytes.len() {
                    let run = bytes[at..].iter().take_while(|&&b| b == b' ').count();
                    if run >= 8 && at > 0 && at + run < bytes.len() {
                        let (before, after) = (bytes[at - 1], bytes[at + run]);
                        let quotes = bytes[..at].iter().filter(|&&b| b == b'"').count();
                        // After a `\n`: a program's text, indented on purpose.
                        let escaped = at >= 2 && bytes[at - 2] == b'\\';
                        if quotes % 2 == 1
                            && !escaped
                            && (before.is_ascii_lowercase() || b",;:)".contains(&before))
                            && (after.is_ascii_lowercase() || after == b'(')
                        {
                            found.push(format!("{}:{}", path.display(), n + 1));
                        }
                    }
                    at += run.max(1);
                }
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}
