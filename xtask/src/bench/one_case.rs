//! `bench --one-case`: a check of one handout case, as a student runs it in a loop while fixing
//! a bug, timed as a whole process (start-up, planning, the sandbox, the case, the report)
//! against one plain run of the same program on the same input; the two alternate, and each is
//! the median of its runs. Confined, and with `--no-sandbox`, to tell the sandbox's start apart;
//! and confined after a pause before each run, as a student runs it between edits: a check
//! right after another finds the kernel's cgroup and RCU state warm from the last one, and a
//! cost that only a check after a quiet spell pays (a cgroup move by pid once took 5 to 17 ms
//! more there) shows only in that row.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::figures::{median, outside_checkout, Figures};
use crate::error::Error;

/// The case checked: the go handout's example.
const CASE: &str = "handout/001-example";

/// Pairs of runs per figure (and two more first, to warm the caches).
const PAIRS: usize = 31;

/// The quiet spell before each run of the row that has one.
const PAUSE: Duration = Duration::from_millis(250);

fn timed(command: &mut Command) -> Result<Duration, Error> {
    let start = Instant::now();
    let status = command
        .status()
        .map_err(|err| Error::Measure(err.to_string()))?;
    let took = start.elapsed();
    match status.success() {
        true => Ok(took),
        false => Err(Error::Measure(format!("{command:?} ended with {status}"))),
    }
}

/// The figures of a one-case check of the native program (a copy of `reference` outside the
/// checkout, run as `gridjudge go`) on the go suite of `cases_root`.
pub(super) fn one_case(cases_root: &Path, reference: &Path) -> Result<Figures, Error> {
    let (dir, native) = outside_checkout(reference, "gridjudge")?;
    let input_path = cases_root.join("go").join(format!("{CASE}.in"));
    let harness = std::env::current_exe().map_err(|err| Error::Measure(err.to_string()))?;
    let check = |sandbox: bool| {
        let mut command = Command::new(&harness);
        command.args(["check", "--spec", "go", "--filter", CASE]);
        command.arg("--cases").arg(cases_root);
        command.arg("--reference").arg(reference);
        if !sandbox {
            command.arg("--no-sandbox");
        }
        command.arg(&native).arg("go");
        command
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    };
    let plain = || -> Result<Command, Error> {
        let input = std::fs::File::open(&input_path).map_err(|err| Error::io(&input_path, err))?;
        let mut command = Command::new(&native);
        command.arg("go").stdin(input).stdout(Stdio::null());
        Ok(command)
    };
    let mut text = format!(
        "one case ({CASE} of go), the whole `check` process against one plain run of the same \
         program on the same input, alternating, medians of {PAIRS} (after a pause: {} ms of \
         quiet before each run)\n",
        PAUSE.as_millis()
    );
    let mut rows = Vec::new();
    let kinds = [
        ("confined", true, Duration::ZERO),
        ("--no-sandbox", false, Duration::ZERO),
        ("confined, after a pause", true, PAUSE),
    ];
    for (label, sandbox, pause) in kinds {
        let (mut checks, mut plains) = (Vec::new(), Vec::new());
        for k in 0..PAIRS + 2 {
            std::thread::sleep(pause);
            let took = timed(&mut check(sandbox))?;
            std::thread::sleep(pause);
            let ran = timed(&mut plain()?)?;
            if k >= 2 {
                checks.push(took);
                plains.push(ran);
            }
        }
        let (check_ms, plain_ms) = (
            median(checks).as_secs_f64() * 1000.0,
            median(plains).as_secs_f64() * 1000.0,
        );
        text += &format!(
            "  one-case check, {label:<23} {check_ms:7.2} ms; the plain run {plain_ms:6.2} ms; \
             above it {:6.2} ms ({:.1}x)\n",
            check_ms - plain_ms,
            check_ms / plain_ms
        );
        rows.push(serde_json::json!({
            "what": format!("one-case check, {label}"),
            "check_ms": check_ms,
            "plain_ms": plain_ms,
            "above_ms": check_ms - plain_ms,
        }));
    }
    Ok(Figures { text, rows })
}
