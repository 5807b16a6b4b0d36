//! The command-line contract of the reference binary: usage errors, malformed input, the
//! strict mode, and a reader that goes away early.

use std::io::{Read, Write};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use predicates::prelude::*;

fn gridjudge() -> Command {
    Command::cargo_bin("gridjudge").unwrap()
}

#[test]
fn help_lists_every_spec() {
    let output = gridjudge().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for spec in gridjudge::spec::SPECS {
        assert!(
            help.contains(&format!("  {:<10}{}", spec.name, spec.summary)),
            "{help}"
        );
    }
}

#[test]
fn unknown_spec_prints_usage_on_stderr_and_exits_2() {
    gridjudge()
        .arg("tetris")
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("unknown spec `tetris`")
                .and(predicate::str::contains("usage:")),
        );
}

#[test]
fn missing_spec_exits_2() {
    gridjudge()
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no spec given"));
}

#[test]
fn malformed_input_names_the_line_and_exits_2() {
    let cases = [
        ("columns", "3\n3\nEMPTY\n", "input line 1", "at least 4"),
        (
            "columns",
            "4\n3\nCONTENTS\nSTV\nSTQ\n",
            "input line 5",
            "`Q` is not a jewel colour",
        ),
        (
            "columns",
            "4\n3\nCONTENTS\nST\n",
            "input line 4",
            "exactly 3 characters",
        ),
        (
            "columns",
            "4\n3\nEMPTY\nF 4 X Y Z\n",
            "input line 4",
            "not a column number",
        ),
        (
            "columns",
            "4\n3\nEMPTY\nJ\n",
            "input line 4",
            "expected an empty line",
        ),
        ("collapse", "2 3\n0 0\n", "input line 1", "C even"),
        (
            "collapse",
            "2 2\n0 0\n1a\n",
            "input line 3",
            "`a` is neither a digit",
        ),
        (
            "collapse",
            "2 2\n5 0\n11\n11\n",
            "input line 2",
            "0 <= r < 2",
        ),
        (
            "collapse",
            "2 2\n0 0\n11\n",
            "input line 4",
            "board line 2 of 2",
        ),
        (
            "collapse",
            "2 2\n0 0\n1.\n..\n",
            "input line 3",
            "empty cell under it",
        ),
    ];
    for (spec, input, line, what) in cases {
        gridjudge()
            .arg(spec)
            .write_stdin(input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(line).and(predicate::str::contains(what)));
    }
}

#[test]
fn what_was_displayed_before_a_bad_line_stays_displayed() {
    let empty_field = "|         |\n".repeat(4) + " --------- \n";
    gridjudge()
        .arg("columns")
        .write_stdin("4\n3\nEMPTY\nbogus\n")
        .assert()
        .code(2)
        .stdout(empty_field);
}

#[test]
fn strict_mode_exits_3_on_unspecified_behaviour() {
    gridjudge()
        .args(["--strict", "connect4"])
        .write_stdin("3\n")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "input line 2: unspecified behaviour",
        ));
    gridjudge()
        .args(["--strict", "go"])
        .write_stdin("8\n")
        .assert()
        .success();
}

#[test]
fn trace_maps_input_lines_to_output_offsets() {
    let dir = std::env::temp_dir().join(format!("gridjudge-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.txt");
    gridjudge()
        .args(["--trace", trace.to_str().unwrap(), "connect4"])
        .write_stdin("9\n")
        .assert()
        .success();
    let first_turn = 1 + 9 + 5 * 9 + 9 + "X's turn\n".len() + "Enter a column: ".len();
    let invalid = "Invalid move. Enter a column number (0-7).\nEnter a column: ".len();
    let expected = format!("0 {first_turn}\n1 {}\n", first_turn + invalid);
    let text = std::fs::read_to_string(&trace).unwrap();
    let offsets: String = text
        .lines()
        // Spans, rules' words and sections, and commands aside: the offsets.
        .filter(|line| {
            !["@ ", "= ", ": ", "! ", "> "]
                .iter()
                .any(|p| line.starts_with(p))
        })
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(offsets, expected);
    // Each part of the output is credited to the rule that decided it: the first turn line to
    // X moving first, the message after `9` to the rule that makes `8` and `9` invalid. Spans
    // are `@ GAP LENGTH RULE`, each start relative to the previous one's.
    let mut spans = Vec::new();
    let mut last = 0i64;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("@ ") {
            let words: Vec<&str> = rest.split(' ').collect();
            let start = last + words[0].parse::<i64>().unwrap();
            let end = start + words[1].parse::<i64>().unwrap();
            spans.push((start as usize, end as usize, words[2].to_string()));
            last = start;
        }
    }
    let turn_line = first_turn - "X's turn\n".len() - "Enter a column: ".len();
    let message = "Invalid move. Enter a column number (0-7).\n".len();
    for span in [
        (turn_line, turn_line + 9, "x-first".to_string()),
        (first_turn, first_turn + message, "invalid-8-9".to_string()),
    ] {
        assert!(spans.contains(&span), "{span:?}\n{text}");
    }
    for words in [
        "= x-first X moves first",
        "= invalid-8-9 ruled: `8` and `9` are invalid",
    ] {
        assert!(text.lines().any(|line| line == words), "{words}\n{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reader_that_goes_away_ends_the_program_quietly() {
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_gridjudge"))
        .arg("columns")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // About 6 MB of displays: far more than a pipe holds.
    let input = format!("100\n100\nEMPTY\n{}Q\n", "\n".repeat(200));
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The program may stop reading once its output is gone.
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(output.status.success(), "{:?}", output.status);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn interactive_specs_show_each_display_before_reading_the_next_line() {
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_gridjudge"))
        .arg("connect4")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buffer) {
            if n == 0 || sender.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    // Reads until `ending` arrives; a program that buffered its prompt would never send it.
    let read_until = |ending: &str| {
        let mut text = Vec::new();
        while !String::from_utf8_lossy(&text).ends_with(ending) {
            let chunk = receiver
                .recv_timeout(std::time::Duration::from_secs(10))
                .expect("the display arrives while stdin is still open");
            text.extend(chunk);
        }
        String::from_utf8(text).unwrap()
    };
    assert!(read_until("X's turn\nEnter a column: ").starts_with("\n01234567\n"));
    stdin.write_all(b"3\n").unwrap();
    stdin.flush().unwrap();
    assert!(read_until("O's turn\nEnter a column: ").contains("...X....\n"));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
