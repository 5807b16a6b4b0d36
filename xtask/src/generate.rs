//! `cargo xtask gen`: reproducible random cases inside the graded domain.
//!
//! Each case comes from one seed through [`Rng`], a SplitMix64 generator written out here so
//! that a seed gives the same bytes on every platform and with every dependency version. The
//! spec generators simulate with the reference's own engine and throw away any input that
//! reaches behaviour the handout leaves unspecified, so no generated case can fail a student
//! who follows the handout. This module (and the tests) are the only parts of the harness that
//! use the reference as a library.

mod collapse;
mod columns;
mod connect4;
mod go;

use std::path::Path;

use gridjudge::driver::run_bytes;
use gridjudge::spec;

use crate::error::{write_atomically, Error};

/// SplitMix64: tiny, fast, and fixed forever, so seeds stay reproducible.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        debug_assert!(low <= high);
        low + (self.next_u64() % (high - low + 1) as u64) as usize
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.next_u64() % denominator < numerator
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() - 1)]
    }
}

/// One generated input and a few words on its shape, for the file name.
pub struct Generated {
    pub input: String,
    pub shape: String,
}

/// The specs `gen` knows.
pub const SPECS: [&str; 4] = ["columns", "collapse", "connect4", "go"];

/// How many fresh draws one seed may take before giving up on staying in the graded domain.
const ATTEMPTS: usize = 1000;

/// A graded input for `spec_name` from `seed`, with the reference's output.
pub fn case(spec_name: &str, seed: u64) -> Result<(Generated, Vec<u8>), Error> {
    let spec = spec::find(spec_name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown spec `{spec_name}` (expected one of: {})",
            SPECS.join(", ")
        ))
    })?;
    let mut rng = Rng::new(seed);
    for _ in 0..ATTEMPTS {
        let generated = match spec_name {
            "columns" => columns::generate(&mut rng),
            "collapse" => collapse::generate(&mut rng),
            "connect4" => connect4::generate(&mut rng),
            "go" => go::generate(&mut rng),
            _ => unreachable!("every spec of the table has a generator"),
        };
        let (output, result) = run_bytes(spec, generated.input.as_bytes());
        if matches!(result, Ok(finished) if finished.unspecified.is_none()) {
            return Ok((generated, output));
        }
    }
    Err(Error::Command(format!(
        "seed {seed} found no graded {spec_name} input in {ATTEMPTS} draws"
    )))
}

/// Writes cases for seeds `seed..seed + count` into `dir` as `NNN-shape.in/.out`, where NNN is
/// the case's seed. Returns the paths written.
pub fn write(spec_name: &str, seed: u64, count: u64, dir: &Path) -> Result<Vec<String>, Error> {
    std::fs::create_dir_all(dir).map_err(|err| Error::io(dir, err))?;
    let mut written = Vec::new();
    for case_seed in seed..seed.saturating_add(count) {
        let (generated, output) = case(spec_name, case_seed)?;
        let stem = format!("{case_seed:03}-{}", generated.shape);
        // A case of this seed under an older shape name would be a duplicate.
        remove_other_shapes(dir, case_seed)?;
        write_atomically(&dir.join(format!("{stem}.in")), generated.input.as_bytes())?;
        write_atomically(&dir.join(format!("{stem}.out")), &output)?;
        written.push(stem);
    }
    Ok(written)
}

fn remove_other_shapes(dir: &Path, seed: u64) -> Result<(), Error> {
    let prefix = format!("{seed:03}-");
    for entry in std::fs::read_dir(dir).map_err(|err| Error::io(dir, err))? {
        let path = entry.map_err(|err| Error::io(dir, err))?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with(&prefix) {
            std::fs::remove_file(&path).map_err(|err| Error::io(&path, err))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_fixed_forever() {
        // SplitMix64's published first outputs for seed 0.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn a_seed_gives_the_same_case_every_time() {
        for spec in SPECS {
            for seed in 0..20 {
                let (first, out_first) = case(spec, seed).unwrap();
                let (second, out_second) = case(spec, seed).unwrap();
                assert_eq!(first.input, second.input);
                assert_eq!(out_first, out_second);
            }
        }
    }

    #[test]
    fn generated_cases_reach_the_extremes_of_each_spec() {
        let shapes = |spec| -> Vec<String> {
            (0..200)
                .map(|seed| case(spec, seed).unwrap().0.shape)
                .collect()
        };
        let has = |shapes: &[String], pattern: &str| shapes.iter().any(|s| s.contains(pattern));
        let columns = shapes("columns");
        assert!(has(&columns, "game-over") && columns.iter().any(|s| !s.contains("game-over")));
        assert!(
            columns.iter().any(|s| s.starts_with("4x3-")),
            "the smallest field"
        );
        assert!(columns
            .iter()
            .any(|s| s.split('x').next().unwrap().parse::<usize>().unwrap() >= 20));
        let collapse = shapes("collapse");
        assert!(
            collapse.iter().any(|s| s.starts_with("1x")),
            "a one-row board"
        );
        assert!(
            collapse.iter().any(|s| s.ends_with("x2")),
            "a two-column board"
        );
        let connect4 = shapes("connect4");
        assert!(has(&connect4, "-tie") && has(&connect4, "7-moves-0-invalid-win"));
        let go = shapes("go");
        for pattern in ["9-board", "13-board", "19-board", "illegal-size"] {
            assert!(has(&go, pattern), "{pattern}");
        }
        assert!(
            go.iter().any(|s| s.ends_with("-line-1")),
            "an error on the first board line"
        );
    }
}
