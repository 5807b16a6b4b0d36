//! `cargo xtask gen`: reproducible random cases inside the graded domain.
//!
//! Each case comes from one seed through [`Rng`] and the spec's generator (`tools`). The
//! generators simulate with the reference's own engine, and every input is checked against the
//! graded domain before it is kept: any input that reaches behaviour the handout leaves
//! unspecified is thrown away, so no generated case can fail a student who follows the handout.
//! Generation, shrinking and fuzzing (through `tools`) and the tests are the only parts of the
//! harness that use the reference as a library.

use std::path::Path;

use super::oracle::Oracle;
use crate::error::Error;
use crate::files::write_atomically;

/// Writes cases for seeds `seed..seed + count` into `dir` as `NNN-shape.in/.out`, where NNN is
/// the case's seed. Returns the paths written. A generator that gives the first seed two
/// different inputs is refused: its cases could not be made again.
pub fn write(oracle: &Oracle, seed: u64, count: u64, dir: &Path) -> Result<Vec<String>, Error> {
    std::fs::create_dir_all(dir).map_err(|err| Error::io(dir, err))?;
    let mut written = Vec::new();
    for case_seed in seed..seed.saturating_add(count) {
        let (generated, output) = oracle.case(case_seed)?;
        if case_seed == seed && oracle.case(case_seed)?.0.input != generated.input {
            return Err(Error::Reference(format!(
                "the generator of `{}` gave seed {seed} two different inputs: derive every \
                 random choice from the seed it is given",
                oracle.name()
            )));
        }
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
    use crate::tools::random::Generated;
    use crate::tools::table::{find, TOOLS};

    fn case(
        assignment: crate::tools::table::Assignment<'static>,
        seed: u64,
    ) -> Result<(Generated, Vec<u8>), Error> {
        Oracle::BuiltIn(assignment).case(seed)
    }

    #[test]
    fn a_seed_gives_the_same_case_every_time() {
        for tools in TOOLS {
            let assignment = find(tools.name).unwrap();
            for seed in 0..20 {
                let (first, out_first) = case(assignment, seed).unwrap();
                let (second, out_second) = case(assignment, seed).unwrap();
                assert_eq!(first.input, second.input);
                assert_eq!(out_first, out_second);
            }
        }
    }

    #[test]
    fn generated_cases_reach_the_extremes_of_each_spec() {
        let shapes = |spec| -> Vec<String> {
            (0..200)
                .map(|seed| case(find(spec).unwrap(), seed).unwrap().0.shape)
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
