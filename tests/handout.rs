//! Every handout example, reproduced byte for byte. The files in `cases/*/handout/` are exact
//! copies of the handouts' own examples.

use std::path::Path;

use gridjudge::driver::run_bytes;
use gridjudge::spec::SPECS;

#[test]
fn every_handout_example_is_reproduced_byte_for_byte() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
    let mut n_checked = 0;
    for spec in SPECS {
        let folder = root.join(spec.name).join("handout");
        let mut inputs: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|err| panic!("failed to read `{}`: {err}", folder.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "in"))
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "no handout example for {}", spec.name);
        for input in inputs {
            let expected = std::fs::read(input.with_extension("out")).unwrap();
            let (output, result) = run_bytes(spec, &std::fs::read(&input).unwrap());
            let finished = result.unwrap();
            assert!(
                output == expected,
                "`{}` differs:\n{}",
                input.display(),
                String::from_utf8_lossy(&output)
            );
            assert_eq!(finished.unspecified, None, "{}", input.display());
            n_checked += 1;
        }
    }
    assert_eq!(n_checked, 6, "the four handouts have six examples");
}
