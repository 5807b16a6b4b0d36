//! The guide's examples, run: every `console` block of `docs/guide/src` is a command line and
//! what it prints, checked by trycmd against the workspace's binaries. A page's commands run
//! in a fresh copy of its fixture folder (`PAGE.in`, a link to `examples/`), outside the
//! checkout as a student's folder is, and leave the fixtures as they were (`PAGE.out`).
//! A message that changes fails here, naming the page, until the page is blessed:
//! `TRYCMD=overwrite cargo test -p xtask --test tests guide`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The guide's pages.
fn pages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/src")
}

/// The commands of the examples that are not the workspace's own, found on PATH.
const TOOLS: [&str; 2] = ["python3", "cat"];

#[test]
fn every_example_of_the_guide_runs_as_shown() {
    let Some(found) = TOOLS
        .iter()
        .map(|tool| xtask::target::find_on_path(&(*tool).into()).ok_or(*tool))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|tool| eprintln!("skipped: the guide's examples need `{tool}` on PATH"))
        .ok()
    else {
        return;
    };
    // Built before any example runs, so that no example shows cargo building it, nor waits
    // for it past its time (the course server's build, on a busy machine, takes minutes).
    let reference = xtask::workspace::build_reference().unwrap();
    let server = xtask::workspace::cargo()
        .args(["build", "--package", "gridjudge-server", "--bins"])
        .status()
        .unwrap();
    assert!(server.success(), "the course server did not build");
    let shims = tempfile::tempdir().unwrap();
    // `cargo xtask ARGS` as a user types it, without cargo's own lines: the harness itself.
    let cargo = shims.path().join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\n[ \"$1\" = xtask ] || {{ echo 'the guide runs `cargo xtask` only' >&2; exit 101; }}\n\
             shift\nexec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_xtask")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The student kit an example builds, run from the folder it was written to.
    let kit = shims.path().join("check-go");
    std::fs::write(&kit, "#!/bin/sh\nexec ./check-go \"$@\"\n").unwrap();
    std::fs::set_permissions(&kit, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("cargo", cargo.as_path())
        .register_bin("gridjudge", reference.as_path())
        .register_bin("./check-go", kit.as_path())
        // Outside a CI service, whatever runs the tests.
        .env("GITHUB_ACTIONS", "false")
        .timeout(std::time::Duration::from_secs(1800))
        .case(pages().join("*.md"));
    for (tool, path) in TOOLS.iter().zip(found) {
        cases.register_bin(*tool, path);
    }
    cases.run();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The guide's pages by name (`SUMMARY.md` aside), with their text.
fn texts() -> Vec<(String, String)> {
    let mut pages: Vec<(String, String)> = std::fs::read_dir(pages())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .filter(|path| !path.ends_with("SUMMARY.md"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, read(&path))
        })
        .collect();
    pages.sort();
    pages
}

/// The targets of a text's Markdown links (`[words](target)`), outside code blocks and spans.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        // Code spans hold no links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let Some(end) = tail.find(')') else { break };
            found.push(tail[..end].to_string());
            rest = &tail[end..];
        }
    }
    found
}

/// mdBook's anchor of a heading: lower case, spaces as `-`, other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.starts_with("```") {
                fenced = !fenced;
            }
            !fenced && line.starts_with('#')
        })
        .map(|line| anchor(line.trim_start_matches('#')))
        .collect()
}

/// Every relative link of `text` (a file in `dir`) names a file that exists, and an anchor
/// of a page a heading of that page.
fn check_links(name: &str, text: &str, dir: &Path) -> Vec<String> {
    let mut broken = Vec::new();
    for link in links(text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
        let target = if file.is_empty() {
            dir.join(name)
        } else {
            dir.join(file)
        };
        if !target.exists() {
            broken.push(format!("{name}: `{link}`: no such file"));
        } else if !fragment.is_empty() && !anchors(&read(&target)).iter().any(|a| a == fragment) {
            broken.push(format!("{name}: `{link}`: no such heading"));
        }
    }
    broken
}

#[test]
fn the_summary_lists_every_page_and_every_link_resolves() {
    let summary = read(&pages().join("SUMMARY.md"));
    let listed = links(&summary);
    let mut broken = check_links("SUMMARY.md", &summary, &pages());
    for (name, text) in texts() {
        assert!(listed.contains(&name), "`{name}` is not in SUMMARY.md");
        broken.extend(check_links(&name, &text, &pages()));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = read(&root.join("README.md"));
    broken.extend(check_links("README.md", &readme, &root));
    assert_eq!(broken, Vec::<String>::new());
    // The README names every page of the guide's first level.
    for line in summary.lines().filter(|line| line.starts_with("- [")) {
        let page = &links(line)[0];
        assert!(
            readme.contains(&format!("](docs/guide/src/{page})")),
            "the README does not link `{page}`"
        );
    }
}

#[test]
fn the_readme_is_one_screen_and_its_example_is_the_guides() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = read(&root.join("README.md"));
    let lines = readme.lines().count();
    assert!(lines <= 150, "the README has {lines} lines");
    // Its one example is a block of the guide's, where it runs.
    let block = |text: &str| {
        let start = text
            .find("```console\n$ cargo xtask check --spec go --filter liberties liberties.py")
            .unwrap();
        let end = start + text[start..].find("\n```\n").unwrap();
        text[start..end].to_string()
    };
    assert_eq!(block(&readme), block(&read(&pages().join("checking.md"))));
}

#[test]
fn the_guide_has_sixty_examples_and_says_why_one_does_not_run() {
    let (mut run, mut not_run) = (0, 0);
    for (name, text) in texts() {
        let mut before = String::new();
        for line in text.lines() {
            if line.starts_with("```console,ignore") {
                not_run += 1;
                assert!(
                    before.contains("not run"),
                    "{name}: a block not run says why in the words before it"
                );
            } else if line.starts_with("```console") {
                run += 1;
            }
            // The paragraph before the block.
            if line.is_empty() && !before.ends_with(':') {
                before.clear();
            } else {
                before.push_str(line);
            }
        }
    }
    assert!(run >= 60, "{run} examples run");
    assert!(
        not_run * 10 <= run + not_run,
        "{not_run} of {} not run",
        run + not_run
    );
}
