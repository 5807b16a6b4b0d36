//! What each wrong variant of the reference prints where it parts from the reference: the
//! misreadings a harness's trace offers, so that a wrong program printing the same is told
//! which rule it misread. Only a build with the `mutants` feature has them.

use crate::driver::run_bytes;
use crate::mutant::{with, Info, MUTANTS};
use crate::spec::Spec;

/// What one variant prints where its output first parts from the reference's: the output of
/// a misreading of the variant's rule, so that a wrong program printing the same is told which
/// rule it misread.
#[derive(Debug, Clone)]
pub struct Misreading {
    pub variant: &'static Info,
    /// The first byte where the variant's output differs from the reference's.
    pub start: usize,
    /// The variant's whole output.
    pub output: Vec<u8>,
}

/// Runs every variant of `spec` on `input`, whose right output is `reference`: where each
/// that prints something else parts from it, and what it prints there. A variant that panics
/// is left out, silently.
pub fn misreadings(spec: &Spec, input: &[u8], reference: &[u8]) -> Vec<Misreading> {
    let mut found = Vec::new();
    for variant in MUTANTS.iter().filter(|variant| variant.spec == spec.name) {
        let run = quietly(|| with(variant.mutant, || run_bytes(spec, input).0));
        let Some(output) = run else { continue };
        let start = output
            .iter()
            .zip(reference)
            .take_while(|(a, b)| a == b)
            .count();
        if start == output.len() && start == reference.len() {
            continue;
        }
        found.push(Misreading {
            variant,
            start,
            output,
        });
    }
    found
}

/// What the variant named `name` prints on `input`, and whether it finished without an input
/// error: `None` for a variant of another spec, an unknown name, or one that panics.
pub fn run_variant(spec: &Spec, name: &str, input: &[u8]) -> Option<(Vec<u8>, bool)> {
    let variant = MUTANTS
        .iter()
        .find(|variant| variant.spec == spec.name && variant.name == name)?;
    quietly(|| {
        let (output, result) = with(variant.mutant, || run_bytes(spec, input));
        (output, result.is_ok())
    })
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `work`, catching a panic without printing it: `None` if it panicked.
fn quietly<R>(work: impl FnOnce() -> R) -> Option<R> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|quiet| quiet.get()) {
                previous(info);
            }
        }));
    });
    QUIET.with(|quiet| quiet.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).ok();
    QUIET.with(|quiet| quiet.set(false));
    result
}
