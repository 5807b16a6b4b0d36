//! The shape of the harness's code, as ordinary tests (ARCHITECTURE.md, "Invariants"): its
//! stages as folders with a face each, imports that only run down, rooms of a bounded size.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `xtask/src`, as (path relative to it, text); `bin/` aside (programs
/// of their own, which reach the library as `xtask::`).
fn sources() -> Vec<(String, String)> {
    let src = src();
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        if path.extension().is_some_and(|ext| ext == "rs") && !name.starts_with("bin/") {
            files.push((name, std::fs::read_to_string(path).unwrap()));
        }
    }
    files
}

/// The code of `text` without its comments (line comments and doc lines).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names that follow `prefix` in `text`: `crate::judge::Run` gives `judge`.
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    text.match_indices(prefix)
        .filter(|(at, _)| {
            !text[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(at, _)| {
            text[at + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .filter(|name: &String| !name.is_empty())
        .collect()
}

/// A circle in `graph`, if it has one, as the rooms along it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        room: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(room) {
            Some(2) => return None,
            Some(1) => {
                let from = path.iter().position(|r| r == room).unwrap();
                return Some(path[from..].to_vec());
            }
            _ => {}
        }
        state.insert(room.to_string(), 1);
        path.push(room.to_string());
        for next in graph.get(room).into_iter().flatten() {
            if let Some(found) = visit(next, graph, state, path) {
                return Some(found);
            }
        }
        path.pop();
        state.insert(room.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    graph
        .keys()
        .find_map(|room| visit(room, graph, &mut state, &mut Vec::new()))
}

/// The room (a top-level file or folder) a source belongs to: `judge/run.rs` is `judge`.
fn room(name: &str) -> String {
    name.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

#[test]
fn the_stages_import_downward_and_never_in_a_circle() {
    let files = sources();
    let rooms: BTreeSet<String> = files.iter().map(|(name, _)| room(name)).collect();
    let mut between: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut within: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (name, text) in &files {
        let here = room(name);
        let code = code(text);
        for used in names_after(&code, "crate::") {
            if used != here && rooms.contains(&used) {
                between.entry(here.clone()).or_default().insert(used);
            }
        }
        // Inside a folder: a file's imports of its neighbours.
        if let Some((folder, file)) = name.split_once('/') {
            let file = file.trim_end_matches(".rs").to_string();
            let neighbours = names_after(&code, "super::")
                .into_iter()
                .chain(names_after(&code, &format!("crate::{folder}::")));
            for used in neighbours {
                let exists = src().join(folder).join(format!("{used}.rs")).is_file();
                if exists && used != file && file != "mod" {
                    let graph = within.entry(folder.to_string()).or_default();
                    graph.entry(file.clone()).or_default().insert(used);
                }
            }
        }
    }
    assert!(between.len() > 10, "too few imports found: {between:?}");
    if let Some(found) = circle(&between) {
        panic!("the stages import each other: {}", found.join(" -> "));
    }
    for (folder, graph) in &within {
        if let Some(found) = circle(graph) {
            panic!(
                "the files of `{folder}/` import each other: {}",
                found.join(" -> ")
            );
        }
    }
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let graph: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
        .collect();
    assert_eq!(circle(&graph).unwrap().len(), 3);
    let line: BTreeMap<String, BTreeSet<String>> =
        [("a".to_string(), BTreeSet::from(["b".to_string()]))].into();
    assert!(circle(&line).is_none());
}

#[test]
fn every_stage_is_a_folder_with_a_face() {
    let src = src();
    let mut problems = Vec::new();
    let entries: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    if entries.len() > 25 {
        problems.push(format!(
            "xtask/src has {} entries (at most 25)",
            entries.len()
        ));
    }
    for entry in &entries {
        if let Some(stem) = entry.strip_suffix(".rs") {
            if src.join(stem).is_dir() {
                problems.push(format!("`{entry}` beside a folder `{stem}/`"));
            }
        } else if src.join(entry).is_dir()
            && entry != "bin"
            && !src.join(entry).join("mod.rs").is_file()
        {
            problems.push(format!("`{entry}/` has no face (`mod.rs`)"));
        }
    }
    // A face: its doc, its modules, and what it hands on; nothing else.
    for (name, text) in sources() {
        if !name.ends_with("/mod.rs") {
            continue;
        }
        if !text.starts_with("//!") {
            problems.push(format!("{name}: no `//!` saying what the stage is"));
        }
        let mut in_use = false;
        for (k, line) in text.lines().enumerate() {
            let line = line.trim();
            let allowed = line.is_empty()
                || line.starts_with("//")
                || line.starts_with("#[cfg(")
                || line.starts_with("mod ")
                || line.starts_with("pub mod ")
                || line.starts_with("pub(crate) mod ")
                || line.starts_with("pub use ")
                || in_use;
            if !allowed {
                problems.push(format!("{name}:{}: `{line}` in a face", k + 1));
            }
            if line.starts_with("pub use ") || in_use {
                in_use = !line.ends_with(';');
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The functions of a file's `lines`: where each begins (from 0) and its length in lines,
/// counted from its `fn` line to the closing brace at its indentation.
fn functions(lines: &[&str]) -> Vec<(usize, usize)> {
    let prefixes = [
        "fn ",
        "pub fn ",
        "pub(crate) fn ",
        "pub(super) fn ",
        "unsafe fn ",
        "const fn ",
        "async fn ",
        "pub async fn ",
        "pub(crate) async fn ",
    ];
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if !prefixes.iter().any(|p| trimmed.starts_with(p)) || trimmed.ends_with(';') {
            continue;
        }
        let closing = format!("{}}}", &line[..line.len() - trimmed.len()]);
        if let Some(length) = lines[start..].iter().position(|l| *l == closing) {
            found.push((start, length + 1));
        }
    }
    found
}

/// The lines of a file that are its code: those before its test module (a `#[cfg(test)]` or
/// `#[cfg(all(test, ...))]` line at the left margin followed by `mod`). Unit tests grow with
/// the code they test, and a file's size is its code's.
fn code_length(lines: &[&str]) -> usize {
    lines
        .windows(2)
        .position(|pair| {
            (pair[0].starts_with("#[cfg(test)]") || pair[0].starts_with("#[cfg(all(test"))
                && pair[1].starts_with("mod ")
        })
        .unwrap_or(lines.len())
}

#[test]
fn a_file_s_size_stops_at_its_test_module() {
    let text = "fn a() {}\n\n#[cfg(test)]\nfn only_in_tests() {}\n\n#[cfg(test)]\nmod tests {\n}\n";
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(code_length(&lines), 5);
    let without: Vec<&str> = "fn a() {}\nfn b() {}\n".lines().collect();
    assert_eq!(code_length(&without), 2);
    let gated: Vec<&str> = "fn a() {}\n#[cfg(all(test, feature = \"x\"))]\nmod tests {}\n"
        .lines()
        .collect();
    assert_eq!(code_length(&gated), 1);
}

/// The size of the harness's rooms (the README's invariant): no file of `xtask/src` over 600
/// lines of code (its unit tests aside, [`code_length`]), none of `judge/` over 500, no
/// function over 100, no logic in a `mod.rs`. A function is counted from its `fn` line to the
/// closing brace at its indentation.
#[test]
fn the_harness_has_no_oversized_file_or_function() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut oversized = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        let most = if name.starts_with("judge/") { 500 } else { 600 };
        let length = code_length(&lines);
        if length > most {
            oversized.push(format!("{name}: {length} lines of code (at most {most})"));
        }
        for (start, length) in functions(&lines) {
            if length > 100 {
                oversized.push(format!(
                    "{name}:{}: a function of {length} lines",
                    start + 1
                ));
            }
            if name.ends_with("mod.rs") {
                oversized.push(format!("{name}:{}: logic in a mod.rs", start + 1));
            }
        }
    }
    assert!(oversized.is_empty(), "{}", oversized.join("\n"));
}

/// The other packages of the workspace: the reference (`src/`), the course server, the
/// similarity library and the student kit's program.
fn package_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    ["src", "server/src", "similarity/src", "kit/src"]
        .iter()
        .map(|dir| root.join(dir))
        .collect()
}

/// The reference, the course server, the similarity library and the kit keep the harness's
/// house rules: no file over 600 lines or function over 100, no file beside a folder of its
/// name, every folder a face, and modules that never import each other in a circle.
#[test]
fn every_package_keeps_the_house_rules() {
    let mut problems = Vec::new();
    for src in package_sources() {
        let package = src.parent().unwrap().file_name().unwrap().to_string_lossy();
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut rooms = BTreeSet::new();
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = path.strip_prefix(&src).unwrap().display().to_string();
            if entry.file_type().is_dir() && path != src && !name.starts_with("bin") {
                if path.with_extension("rs").is_file() {
                    problems.push(format!("{package}: `{name}.rs` beside a folder `{name}/`"));
                }
                if !path.join("mod.rs").is_file() {
                    problems.push(format!("{package}: `{name}/` has no face (`mod.rs`)"));
                }
            }
            if path.extension().is_some_and(|ext| ext == "rs") {
                rooms.insert(room(&name));
                files.push((name, std::fs::read_to_string(path).unwrap()));
            }
        }
        for (name, text) in &files {
            let lines: Vec<&str> = text.lines().collect();
            let length = code_length(&lines);
            if length > 600 {
                problems.push(format!("{package}: {name}: {length} lines of code"));
            }
            for (start, length) in functions(&lines) {
                if length > 100 {
                    let at = start + 1;
                    problems.push(format!(
                        "{package}: {name}:{at}: a function of {length} lines"
                    ));
                }
            }
            if name.ends_with("mod.rs") && !text.starts_with("//!") {
                problems.push(format!("{package}: {name}: no `//!` saying what it is"));
            }
            let here = room(name);
            for used in names_after(&code(text), "crate::") {
                if used != here && rooms.contains(&used) {
                    graph.entry(here.clone()).or_default().insert(used);
                }
            }
        }
        if let Some(found) = circle(&graph) {
            problems.push(format!(
                "{package}: modules import each other: {}",
                found.join(" -> ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
