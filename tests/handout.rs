//! Every handout example, reproduced byte for byte. `docs/specs/<spec>/` holds the handouts'
//! own examples as exact bytes (the ground truth); `cases/<spec>/handout/` must hold exactly
//! those pairs, and the reference must print each expected output.

use std::path::{Path, PathBuf};

use gridjudge::driver::run_bytes;
use gridjudge::spec::SPECS;

/// The `(input, expected output)` pairs of a folder, sorted by input name.
fn pairs(folder: &Path) -> Vec<(PathBuf, Vec<u8>, Vec<u8>)> {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|err| panic!("failed to read `{}`: {err}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "in"))
        .collect();
    inputs.sort();
    inputs
        .into_iter()
        .map(|input| {
            let expected = std::fs::read(input.with_extension("out"))
                .unwrap_or_else(|err| panic!("`{}` has no `.out`: {err}", input.display()));
            let bytes = std::fs::read(&input).unwrap();
            (input, bytes, expected)
        })
        .collect()
}

#[test]
fn every_handout_example_is_reproduced_byte_for_byte() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for spec in SPECS {
        let examples = pairs(&root.join("docs/specs").join(spec.name));
        let cases = pairs(&root.join("cases").join(spec.name).join("handout"));
        assert!(!examples.is_empty(), "no handout example for {}", spec.name);
        assert_eq!(
            examples.len(),
            cases.len(),
            "{}: the handout group holds other cases than the handout's examples",
            spec.name
        );
        for (path, input, expected) in &examples {
            assert!(
                cases.iter().any(|(_, i, e)| i == input && e == expected),
                "`{}` has no byte-identical case in `cases/{}/handout/`",
                path.display(),
                spec.name
            );
            let (output, result) = run_bytes(spec, input);
            let finished = result.unwrap();
            assert!(
                &output == expected,
                "`{}` differs:\n{}",
                path.display(),
                String::from_utf8_lossy(&output)
            );
            assert_eq!(finished.unspecified, None, "{}", path.display());
        }
    }
}
