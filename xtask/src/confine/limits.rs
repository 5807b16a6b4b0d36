//! Per-case resource limits: the one type for them, whether they come from a suite file's
//! `[limits]`, from the command line, or reach the confinement of a case.

use std::time::Duration;

/// Per-case resource limits; `None` leaves a resource unlimited (or, as command-line
/// overrides, keeps the suite's value).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ResourceLimits {
    pub cpu: Option<Duration>,
    /// Bytes.
    pub memory: Option<u64>,
    /// Processes and threads at once.
    pub processes: Option<u64>,
    /// Bytes one file may grow to.
    pub file_size: Option<u64>,
    pub open_files: Option<u64>,
}

impl ResourceLimits {
    /// These limits where set, `base`'s elsewhere.
    pub fn or(self, base: ResourceLimits) -> ResourceLimits {
        ResourceLimits {
            cpu: self.cpu.or(base.cpu),
            memory: self.memory.or(base.memory),
            processes: self.processes.or(base.processes),
            file_size: self.file_size.or(base.file_size),
            open_files: self.open_files.or(base.open_files),
        }
    }
}

/// The longest time a case may be given (a day): longer is surely a typo, and it keeps every
/// deadline far from overflowing.
const MAX_SECONDS: f64 = 86_400.0;

/// The largest memory or file size a case may be given, in MiB (1 TiB).
const MAX_MIB: u64 = 1 << 20;

/// The most processes or open files a case may be given.
const MAX_COUNT: u64 = 1 << 20;

/// A number of seconds as a duration: positive, finite, at most a day.
pub(crate) fn seconds(value: f64) -> Result<Duration, String> {
    if !(value > 0.0 && value <= MAX_SECONDS) {
        return Err(format!(
            "`{value:?}` is not a number of seconds above 0 and up to {MAX_SECONDS:?} (a day)"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// A number of MiB as bytes: from 1 to 1 TiB.
pub(crate) fn mebibytes(value: u64) -> Result<u64, String> {
    if !(1..=MAX_MIB).contains(&value) {
        return Err(format!(
            "`{value}` is not a size in MiB from 1 to {MAX_MIB}"
        ));
    }
    Ok(value << 20)
}

/// A count of processes or files: from 1 to about a million.
pub(crate) fn count(value: u64) -> Result<u64, String> {
    if !(1..=MAX_COUNT).contains(&value) {
        return Err(format!("`{value}` is not a count from 1 to {MAX_COUNT}"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_win_where_given() {
        let base = ResourceLimits {
            cpu: Some(Duration::from_secs(10)),
            memory: Some(1 << 30),
            processes: Some(256),
            file_size: Some(64 << 20),
            open_files: Some(256),
        };
        let overrides = ResourceLimits {
            memory: Some(1 << 20),
            ..ResourceLimits::default()
        };
        let merged = overrides.or(base);
        assert_eq!(merged.memory, Some(1 << 20));
        assert_eq!(merged.cpu, base.cpu);
        assert_eq!(merged.open_files, Some(256));
    }

    #[test]
    fn out_of_range_numbers_are_refused_not_wrapped() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds(1.5), Ok(Duration::from_millis(1500)));
        assert!(mebibytes(0).is_err() && mebibytes(u64::MAX >> 10).is_err());
        assert_eq!(mebibytes(2), Ok(2 << 20));
        assert!(count(0).is_err() && count(u64::MAX).is_err());
    }
}
