//! `cargo xtask similar` and the class report's similarity section: a copy is ranked first
//! with its shared fragments side by side, starter code counts for nothing, two students who
//! share a rare wrong output are flagged and a mistake half the class makes is not, and none of
//! it reaches what a student sees.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::{echo_class, fixture, reference};

/// The title of the report's section: what a student's output must never hold.
const TITLE: &str = "Similarity across the class";

fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A collapse solution; `alice`'s, whose copy `bob` hands in renamed and reordered.
const ALICE: &str = r#"import sys


def read_board():
    lines = sys.stdin.read().split("\n")
    rows, cols = map(int, lines[0].split())
    r, c = map(int, lines[1].split())
    return rows, cols, r, c, [list(lines[2 + i]) for i in range(rows)]


def region(board, r, c):
    colour = board[r][c]
    seen = {(r, c)}
    stack = [(r, c)]
    while stack:
        y, x = stack.pop()
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ny, nx = y + dy, x + dx
            if 0 <= ny < len(board) and 0 <= nx < len(board[0]):
                if (ny, nx) not in seen and board[ny][nx] == colour:
                    seen.add((ny, nx))
                    stack.append((ny, nx))
    return seen


def fall(board, rows, cols):
    for x in range(cols):
        column = [board[y][x] for y in range(rows) if board[y][x] != "."]
        column = ["."] * (rows - len(column)) + column
        for y in range(rows):
            board[y][x] = column[y]


def main():
    rows, cols, r, c, board = read_board()
    if board[r][c] != ".":
        group = region(board, r, c)
        if len(group) >= 4:
            for y, x in group:
                board[y][x] = "."
            fall(board, rows, cols)
    for line in board:
        print("".join(line))


main()
"#;

/// Alice's program, every name changed, the functions in another order, comments added.
const BOB: &str = r#"import sys


def drop_down(grid, height, width):
    # let the blocks fall
    for col in range(width):
        stackd = [grid[row][col] for row in range(height) if grid[row][col] != "."]
        stackd = ["."] * (height - len(stackd)) + stackd
        for row in range(height):
            grid[row][col] = stackd[row]


def flood(grid, sr, sc):
    kind = grid[sr][sc]
    found = {(sr, sc)}
    todo = [(sr, sc)]
    while todo:
        a, b = todo.pop()
        for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            na, nb = a + da, b + db
            if 0 <= na < len(grid) and 0 <= nb < len(grid[0]):
                if (na, nb) not in found and grid[na][nb] == kind:
                    found.add((na, nb))
                    todo.append((na, nb))
    return found


def load():
    text = sys.stdin.read().split("\n")
    height, width = map(int, text[0].split())
    sr, sc = map(int, text[1].split())
    return height, width, sr, sc, [list(text[2 + k]) for k in range(height)]


def main():
    height, width, sr, sc, grid = load()
    if grid[sr][sc] != ".":
        blob = flood(grid, sr, sc)
        if len(blob) >= 4:
            for a, b in blob:
                grid[a][b] = "."
            drop_down(grid, height, width)
    for row in grid:
        print("".join(row))


main()
"#;

/// A program written apart: another way of doing the same.
const CAROL: &str = r#"import sys
from collections import deque

data = sys.stdin.read().splitlines()
R, C = [int(v) for v in data[0].split()]
pr, pc = [int(v) for v in data[1].split()]
cells = [list(row) for row in data[2:2 + R]]
target = cells[pr][pc]
if target != '.':
    queue = deque([(pr, pc)])
    marked = set(queue)
    while queue:
        i, j = queue.popleft()
        for ni, nj in [(i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)]:
            if ni in range(R) and nj in range(C) and (ni, nj) not in marked and cells[ni][nj] == target:
                marked.add((ni, nj))
                queue.append((ni, nj))
    if len(marked) > 3:
        for i, j in marked:
            cells[i][j] = '.'
        for j in range(C):
            keep = ''.join(cells[i][j] for i in range(R)).replace('.', '')
            keep = keep.rjust(R, '.')
            for i in range(R):
                cells[i][j] = keep[i]
sys.stdout.write(''.join(''.join(row) + '\n' for row in cells))
"#;

/// Starter code the instructor hands out: reading the board and printing it.
const STARTER: &str = r#"import sys


def read_input():
    lines = sys.stdin.read().split("\n")
    rows, cols = map(int, lines[0].split())
    sel_r, sel_c = map(int, lines[1].split())
    board = [list(lines[2 + i]) for i in range(rows)]
    return rows, cols, sel_r, sel_c, board


def print_board(board):
    for row in board:
        print("".join(row))
"#;

#[test]
fn a_renamed_and_reordered_copy_is_ranked_first_with_its_fragments_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    write(&class.join("alice/collapse.py"), ALICE);
    write(&class.join("bob/collapse.py"), BOB);
    write(&class.join("carol/collapse.py"), CAROL);
    write(&class.join("dave/notes.txt"), "no code here\n");
    let out = dir.path().join("report");
    xtask()
        .args(["similar", "--submissions"])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(
            predicate::str::is_match(
                r"(?m)^  1\. alice and bob: 0\.\d\d \(code 0\.\d\d, mistakes 0\.00; code\)$",
            )
            .unwrap(),
        )
        .stdout(predicate::str::contains("note: `dave`: no source file"))
        .stdout(predicate::str::contains("mistakes: not compared"));
    let html = std::fs::read_to_string(out.join("similarity.html")).unwrap();
    let page = scraper::Html::parse_document(&html);
    let select = |css: &str| scraper::Selector::parse(css).unwrap();
    let section = page
        .select(&select("section[data-pair=\"alice bob\"]"))
        .next()
        .expect("the pair's section");
    let sides: Vec<String> = section
        .select(&select("div.side div.at"))
        .map(|e| e.text().collect())
        .collect();
    assert!(sides.len() >= 2, "{sides:?}");
    // Each fragment names both files with their lines: Alice's region() is Bob's flood().
    assert!(
        sides
            .iter()
            .any(|s| s.starts_with("alice/collapse.py lines ")),
        "{sides:?}"
    );
    assert!(
        sides
            .iter()
            .any(|s| s.starts_with("bob/collapse.py lines ")),
        "{sides:?}"
    );
    let shared: String = section
        .select(&select("pre .shared"))
        .map(|e| e.text().collect::<String>())
        .collect();
    assert!(shared.contains("stack.append((ny, nx))"), "{shared}");
    assert!(shared.contains("todo.append((na, nb))"), "{shared}");
    // The CSV and the JSON rank the same pair first; carol is not flagged with anyone.
    let csv = std::fs::read_to_string(out.join("similarity.csv")).unwrap();
    let first = csv.lines().nth(1).unwrap();
    assert!(first.starts_with("1,alice,bob,"), "{csv}");
    assert!(
        !csv.lines()
            .any(|l| l.contains("carol") && !l.contains(",not flagged,")),
        "{csv}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("similarity.json")).unwrap())
            .unwrap();
    assert_eq!(json["analysis"]["pairs"][0]["evidence"], "code");
    assert!(
        json["analysis"]["pairs"][0]["code"]["fragments"]
            .as_array()
            .unwrap()
            .len()
            >= 2
    );
}

#[test]
fn starter_code_given_to_the_class_counts_for_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    // Two students who share only the starter code, each finishing it their own way.
    write(
        &class.join("erin/collapse.py"),
        &format!("{STARTER}\n{}", CAROL.replace("import sys\n", "")),
    );
    write(
        &class.join("frank/collapse.py"),
        &format!("{STARTER}\n\nprint_board(read_input()[4])\n"),
    );
    let score = |base: Option<&str>| -> f64 {
        let out = dir.path().join(format!("out-{}", base.is_some()));
        let mut command = xtask();
        command
            .args(["similar", "--submissions"])
            .arg(&class)
            .arg("--out")
            .arg(&out);
        if let Some(starter) = base {
            write(&dir.path().join("starter/collapse.py"), starter);
            command.arg("--base").arg(dir.path().join("starter"));
        }
        command.assert().code(0);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("similarity.json")).unwrap())
                .unwrap();
        json["analysis"]["pairs"]
            .as_array()
            .unwrap()
            .first()
            .map_or(0.0, |p| p["code"]["score"].as_f64().unwrap_or(0.0))
    };
    let without = score(None);
    let with = score(Some(STARTER));
    assert!(
        without > 0.2,
        "the starter code alone makes them alike: {without}"
    );
    assert_eq!(with, 0.0, "with --base, nothing they share is theirs");
}

#[test]
fn a_rare_shared_wrong_output_is_flagged_and_a_mistake_half_the_class_makes_is_not() {
    let dir = tempfile::tempdir().unwrap();
    // Ten students: two shout (the same wrong output on every case, and nobody else prints
    // it), five add a trailing space (half the class), three are right.
    let modes = [
        "shout",
        "shout",
        "trailing-space",
        "trailing-space",
        "trailing-space",
        "trailing-space",
        "trailing-space",
        "echo",
        "echo",
        "echo",
    ];
    echo_class(dir.path(), &modes);
    let out = dir.path().join("graded");
    xtask()
        .args(["grade", "--spec", "echo", "--cases"])
        .arg(dir.path().join("cases"))
        .arg("--submissions")
        .arg(dir.path().join("class"))
        .arg("--run")
        .arg(format!("{} by-folder", fixture().to_string_lossy()))
        .arg("--out")
        .arg(&out)
        .arg("--reference")
        .arg(reference())
        .args(["--html", "--gradescope", "--timeout", "5"])
        .assert()
        .code(0);
    xtask()
        .args(["similar", "--submissions"])
        .arg(dir.path().join("class"))
        .arg("--grades")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("  1. s00 and s01: "))
        .stdout(predicate::str::contains("; mistakes)"))
        .stdout(predicate::str::contains("1 flagged"));
    let csv = std::fs::read_to_string(out.join("similarity.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        2,
        "only the shouting pair shares anything: {csv}"
    );
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(&row[..5], &["1", "s00", "s01", row[3], "mistakes"]);
    assert_eq!(row[9], "5", "five cases: {csv}");
    assert_eq!(row[10], "2", "printed by the two of them only: {csv}");
    // The class report holds the section, with the shared wrong output beside the expected.
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    let page = scraper::Html::parse_document(&report);
    let select = |css: &str| scraper::Selector::parse(css).unwrap();
    assert!(report.contains(TITLE));
    let row = page
        .select(&select(
            "section[data-pair=\"s00 s01\"] tr[data-case=\"echo/alpha/001-line\"]",
        ))
        .next()
        .expect("the shared case's row");
    let cells: Vec<String> = row
        .select(&select("td"))
        .map(|e| e.text().collect())
        .collect();
    assert_eq!(cells[1], "2 of 10");
    assert_eq!(cells[3], "alpha case 1");
    assert_eq!(cells[4], "ALPHA CASE 1");
    // What students see holds none of it.
    for entry in walkdir::WalkDir::new(out.join("gradescope")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            assert!(
                !text.contains(TITLE) && !text.contains("similar"),
                "{}",
                entry.path().display()
            );
        }
    }
    let student = dir.path().join("class/s00");
    let check_out = dir.path().join("check");
    std::fs::create_dir_all(&check_out).unwrap();
    xtask()
        .current_dir(&student)
        .args(["check", "--spec", "echo", "--cases"])
        .arg(dir.path().join("cases"))
        .arg("--html")
        .arg(check_out.join("report.html"))
        .arg("--json")
        .arg(check_out.join("report.json"))
        .arg(fixture())
        .arg("shout")
        .assert()
        .code(1);
    for name in ["report.html", "report.json"] {
        let text = std::fs::read_to_string(check_out.join(name)).unwrap();
        assert!(!text.contains(TITLE) && !text.contains("s01"), "{name}");
    }
}

/// The report goes to a folder of its own, never into a source folder: by default
/// `similarity-report` under the current folder; a folder holding anything but an earlier
/// report is refused; an empty class is a usage error that leaves the last report as it was.
#[test]
fn the_report_is_written_only_where_a_report_belongs() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    write(&class.join("alice/collapse.py"), ALICE);
    write(&class.join("bob/collapse.py"), BOB);
    xtask()
        .current_dir(dir.path())
        .args(["similar", "--submissions"])
        .arg(&class)
        .assert()
        .code(0);
    let report = dir.path().join("similarity-report");
    assert!(report.join("similarity.html").is_file());
    // Again over it: an earlier report is replaced.
    xtask()
        .current_dir(dir.path())
        .args(["similar", "--submissions"])
        .arg(&class)
        .assert()
        .code(0);
    // A source folder named as --out is refused, and nothing is written into it.
    let sources = dir.path().join("similarity");
    write(&sources.join("Cargo.toml"), "[package]\n");
    xtask()
        .args(["similar", "--submissions"])
        .arg(&class)
        .arg("--out")
        .arg(&sources)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds `Cargo.toml`"));
    assert!(!sources.join("similarity.html").exists());
    // An empty class: exit 2, the last report kept whole.
    let before = std::fs::read(report.join("similarity.html")).unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    xtask()
        .current_dir(dir.path())
        .args(["similar", "--submissions"])
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds no submission"));
    assert_eq!(
        std::fs::read(report.join("similarity.html")).unwrap(),
        before
    );
}

/// One student's folder given where the class's is expected: every entry a source file, each
/// taken for a student; said, not silently ranked.
#[test]
fn one_students_files_given_as_a_class_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("alice");
    write(&folder.join("collapse.py"), ALICE);
    write(&folder.join("board.py"), BOB);
    write(&folder.join("helpers.py"), CAROL);
    xtask()
        .args(["similar", "--submissions"])
        .arg(&folder)
        .arg("--out")
        .arg(dir.path().join("report"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "holds only source files (3), and each counts as one student's submission",
        ));
}

/// Four students hand in one source (renamed, reordered, re-laid-out), a fifth her own work:
/// the ring is most of the class, and its shared code still counts; the report names the ring
/// as one group, with its members and the source they share.
#[test]
fn a_ring_that_is_most_of_the_class_is_found_and_named_as_one_group() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    write(&class.join("alice/collapse.py"), ALICE);
    write(&class.join("bob/collapse.py"), BOB);
    let erin = ALICE
        .replace("board", "grid")
        .replace("colour", "shade")
        .replace("\n\n\n", "\n\n");
    write(&class.join("erin/collapse.py"), &erin);
    let frank = ALICE
        .replace("stack", "pending")
        .replace("seen", "visited")
        .replace("    ", "  ");
    write(&class.join("frank/collapse.py"), &frank);
    write(&class.join("carol/collapse.py"), CAROL);
    let out = dir.path().join("report");
    let output = xtask()
        .args(["similar", "--submissions"])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("ring of 4: "))
        .unwrap_or_else(|| panic!("no ring: {stdout}"));
    for member in ["alice", "bob", "erin", "frank"] {
        assert!(line.contains(member), "{line}");
    }
    assert!(!line.contains("carol"), "{line}");
    let html = std::fs::read_to_string(out.join("similarity.html")).unwrap();
    let page = scraper::Html::parse_document(&html);
    let ring = scraper::Selector::parse("section.ring").unwrap();
    let sections: Vec<_> = page.select(&ring).collect();
    assert_eq!(sections.len(), 1, "{html}");
    let members = sections[0].value().attr("data-ring").unwrap();
    let mut members: Vec<&str> = members.split(' ').collect();
    members.sort_unstable();
    assert_eq!(members, ["alice", "bob", "erin", "frank"]);
    // Every pair of the ring is flagged; carol with no one.
    let csv = std::fs::read_to_string(out.join("similarity.csv")).unwrap();
    let flagged = csv.lines().skip(1).filter(|l| !l.contains(",not flagged,"));
    assert_eq!(flagged.clone().count(), 6, "{csv}");
    assert!(flagged.clone().all(|l| !l.contains("carol")), "{csv}");
}

/// Two students whose programs crash halfway through every case print the same output, cut
/// short (a prefix of the expected one): that says where they stopped, not that they copied,
/// and no pair is flagged by it.
#[test]
fn outputs_cut_short_by_a_crash_are_no_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let modes = [
        "echo-crash",
        "echo-crash",
        "echo",
        "echo",
        "echo",
        "echo",
        "echo",
        "echo",
        "echo",
        "echo",
    ];
    echo_class(dir.path(), &modes);
    let out = dir.path().join("graded");
    xtask()
        .args(["grade", "--spec", "echo", "--cases"])
        .arg(dir.path().join("cases"))
        .arg("--submissions")
        .arg(dir.path().join("class"))
        .arg("--run")
        .arg(format!("{} by-folder", fixture().to_string_lossy()))
        .arg("--out")
        .arg(&out)
        .arg("--reference")
        .arg(reference())
        .args(["--timeout", "5"])
        .assert()
        .code(0);
    // The grading kept their outputs, marked cut short.
    let result = std::fs::read_to_string(out.join("results/s00.json")).unwrap();
    assert!(result.contains("\"cut_short\": true"), "{result}");
    xtask()
        .args(["similar", "--submissions"])
        .arg(dir.path().join("class"))
        .arg("--grades")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 flagged"));
}

/// Two students who make the same known misreading of the handout (rotation the other way)
/// print the same wrong outputs, which no one else prints: a mistake students make on their
/// own, so no evidence that they copied.
#[test]
fn a_known_misreading_two_students_make_is_no_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for (k, variant) in [
        "columns-rotate-backwards",
        "columns-rotate-backwards",
        "none",
        "none",
        "none",
        "none",
    ]
    .iter()
    .enumerate()
    {
        write(
            &class.join(format!("s{k:02}/mutant")),
            &format!("{variant} columns"),
        );
    }
    let out = dir.path().join("graded");
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    xtask()
        .args(["grade", "--spec", "columns", "--cases"])
        .arg(&cases)
        .arg("--submissions")
        .arg(&class)
        .arg("--run")
        .arg(format!("{} by-folder", crate::support::mutant().display()))
        .arg("--out")
        .arg(&out)
        .arg("--reference")
        .arg(reference())
        .assert()
        .code(0);
    let result = std::fs::read_to_string(out.join("results/s00.json")).unwrap();
    assert!(result.contains("\"misread\": true"), "{result}");
    xtask()
        .args(["similar", "--submissions"])
        .arg(&class)
        .arg("--grades")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 flagged"));
}
