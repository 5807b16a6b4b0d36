//! The value parsers every flag goes through, written once: durations are positive, finite
//! and at most a day, job counts and sizes positive and bounded, a `--run` command has a word.
//! So no input to a flag can panic or wrap further in, and a bad one is one error line naming
//! the flag, exit 2.

use std::ffi::OsString;
use std::time::Duration;

use crate::confine::limits;

/// The most jobs (targets at once) anyone can mean.
const MAX_JOBS: usize = 1024;

/// A number of seconds (`2`, `0.5`): positive, finite, at most a day.
pub fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    limits::seconds(value)
}

/// A duration like `60s`, `2m`, `1h` or `90` (seconds), at most a day.
pub fn duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 60s or 2m"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("`{text}`: the unit must be s, m or h")),
    };
    limits::seconds(value * scale)
        .map_err(|_| format!("`{text}` is not a duration above 0 and up to a day"))
}

/// A whole number from 1 to `max`.
fn positive(text: &str, max: u64) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(value) if (1..=max).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a whole number from 1 to {max}")),
    }
}

/// How many targets run at once: 1 to 1024.
pub fn jobs(text: &str) -> Result<usize, String> {
    positive(text, MAX_JOBS as u64).map(|n| n as usize)
}

/// A count of runs, cases or repeats: 1 to a billion.
pub fn runs(text: &str) -> Result<u64, String> {
    positive(text, 1_000_000_000)
}

/// The size of a synthetic class: 1 to 100,000 submissions.
pub fn class_size(text: &str) -> Result<usize, String> {
    positive(text, 100_000).map(|n| n as usize)
}

/// A share of a class: a number above 0 and at most 1.
pub fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value > 0.0 && value <= 1.0 => Ok(value),
        _ => Err(format!(
            "`{text}` is not a share above 0 and at most 1 (0.2: a fifth)"
        )),
    }
}

/// A size in MiB, as bytes.
pub fn mebibytes(text: &str) -> Result<u64, String> {
    let value = text
        .parse::<u64>()
        .map_err(|_| format!("`{text}` is not a whole number of MiB"))?;
    limits::mebibytes(value)
}

/// A count of processes or open files.
pub fn count(text: &str) -> Result<u64, String> {
    let value = text
        .parse::<u64>()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    limits::count(value)
}

/// A seed: any whole number that fits in 64 bits.
pub fn seed(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u64::MAX))
}

/// A command line given as one string (`--run 'python3 project4.py'`), split on spaces.
#[derive(Debug, Clone)]
pub struct CommandLine(pub Vec<String>);

impl CommandLine {
    pub fn words(&self) -> Vec<OsString> {
        self.0.iter().map(OsString::from).collect()
    }
}

/// A command line such as `python3 project4.py`: at least one word.
pub fn command_line(text: &str) -> Result<CommandLine, String> {
    let words: Vec<String> = text.split_whitespace().map(String::from).collect();
    if words.is_empty() {
        return Err("needs a command".into());
    }
    Ok(CommandLine(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_and_refuse_the_absurd() {
        assert_eq!(duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(duration("1.5h"), Ok(Duration::from_secs(5400)));
        for bad in ["0", "-1", "1e300", "nan", "2d", "", "99999999999999999999h"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_are_positive_and_bounded() {
        assert_eq!(jobs("2"), Ok(2));
        for bad in [
            "0",
            "-1",
            "1e300",
            "nan",
            "100000",
            "999999999999999999999999999999",
        ] {
            assert!(jobs(bad).is_err(), "{bad}");
        }
        assert_eq!(mebibytes("3"), Ok(3 << 20));
        assert!(mebibytes("0").is_err() && seconds("inf").is_err());
        assert_eq!(seed("0"), Ok(0));
    }
}
