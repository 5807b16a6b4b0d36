//! A target that floods: its home past the temporary folder's cap, its stdout past the output
//! limit, a huge line and escape sequences: the harness's memory and report stay bounded.

use crate::hostile::{attack, MARGIN};
use crate::support::check;
use crate::support::{fixture, Corpus};
use std::time::Instant;

#[test]
fn filling_home_stops_at_the_temporary_folder_cap() {
    if xtask::sandbox::available().is_err() {
        eprintln!("skipped: no capped temporary folder without the sandbox here");
        return;
    }
    let (_corpus, options) = attack("fill-home", &[], "x\n");
    let start = Instant::now();
    let run = check(&options).unwrap();
    let stdout = &run.results[0].judgement.execution.as_ref().unwrap().stdout;
    let text = String::from_utf8_lossy(stdout);
    let mib: u64 = text
        .trim()
        .strip_prefix("wrote ")
        .and_then(|t| t.strip_suffix(" MiB"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        mib <= 16,
        "{text}: the cap is the file-size limit, 16 MiB here"
    );
    assert!(start.elapsed() < MARGIN);
}

#[test]
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped with wait4, for its resource usage"
)]
fn a_flooding_target_cannot_exhaust_the_harness() {
    // 396 cases (the size of the columns suite), each flooding stdout to the 16 MiB cap: kept
    // whole, that is over 6 GB; the harness keeps a bounded excerpt of each.
    let corpus = Corpus::new(b"x\n", true);
    for k in 2..=396 {
        corpus.add(
            &format!("{k:03}-flood"),
            b"x\n",
            crate::support::EXPECTED.as_bytes(),
        );
    }
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .args(["check", "--spec", "demo", "--timeout", "20", "--cases"])
        .arg(corpus.root())
        .arg("--reference")
        .arg(crate::support::reference())
        .arg("--")
        .arg(fixture())
        .arg("flood")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = command.spawn().unwrap();
    let mut status = 0;
    // SAFETY: wait4 writes into `status` and `usage`, both owned here.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32);
    assert_eq!(libc::WEXITSTATUS(status), 1, "every case fails");
    let peak_mib = usage.ru_maxrss as u64 / 1024;
    eprintln!("harness peak resident memory over 396 flooding cases: {peak_mib} MiB");
    assert!(peak_mib < 300, "{peak_mib} MiB");
}

#[test]
fn a_huge_line_and_escape_sequences_reach_the_report_cut_and_escaped() {
    for (mode, wanted) in [("huge-line", "more bytes"), ("escapes", "␛[2J")] {
        let corpus = Corpus::new(b"x\n", true);
        // `escapes` prints the right output after its stderr: make it fail to be reported.
        std::fs::write(corpus.expected_path(), "something else\n").unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
            .env("NO_COLOR", "1")
            .args(["check", "--spec", "demo", "--cases"])
            .arg(corpus.root())
            .arg("--reference")
            .arg(crate::support::reference())
            .arg("--")
            .arg(fixture())
            .arg(mode)
            .arg(corpus.expected_path())
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{mode}: {report}");
        assert!(report.contains(wanted), "{mode}: {report}");
        assert!(
            !report.contains('\x1b') && !report.contains('\x07'),
            "{mode}: a control character reached the terminal"
        );
        let longest = report.lines().map(str::len).max().unwrap_or(0);
        assert!(longest < 4000, "{mode}: a report line of {longest} bytes");
    }
}
