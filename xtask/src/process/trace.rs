//! The reference's trace of a case: after each input line, how many bytes of output exist, the
//! rule behind each span, and where each wrong variant parts from the reference. Made here, in
//! the stage that runs programs, by the reference's own engine in this process (a built-in
//! spec) or by running the reference binary with `--trace`; `judge` only reads it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{execute, Bounds};
use crate::confine::Policy;
use crate::corpus::Suite;
use crate::target::Target;

/// The trace of `suite`'s case `input`, for saying where a difference shows and which rule
/// decided it: a built-in spec's engine makes it, in this process; else the bundled
/// `reference` binary's `--trace` (it runs trusted, in `dir`); else the trace `stored` beside
/// the case when the student kit was built. An instructor's own reference cannot say: `None`.
pub fn case_trace(
    suite: &Suite,
    reference: &Path,
    dir: &Path,
    input: &[u8],
    stored: &Path,
) -> Option<Arc<String>> {
    if !suite.is_built_in() {
        return None;
    }
    reference_trace(suite, reference, dir, input)
        .or_else(|| std::fs::read_to_string(stored).ok().map(Arc::new))
}

/// The trace of the bundled reference for `suite`'s case `input`: made in this process for a
/// built-in spec, else by the `reference` binary's `--trace` (it runs trusted, in `dir`).
pub fn reference_trace(
    suite: &Suite,
    reference: &Path,
    dir: &Path,
    input: &[u8],
) -> Option<Arc<String>> {
    built_in_trace(suite.file.args.as_deref().unwrap_or_default(), input).or_else(|| {
        reference
            .is_file()
            .then(|| trace(&suite.reference_target(reference, dir), input).map(Arc::new))
            .flatten()
    })
}

/// How many bytes of a wrong variant's output a trace keeps from where it parts from the
/// reference's: enough to tell one misreading from another.
#[cfg(feature = "reference")]
const MISREADING_BYTES: usize = 128;

/// The trace of the bundled reference for `input`, computed in this process by the reference's
/// own engine, for the built-in spec among `args` (a suite's `args`): the reference's
/// `--trace` lines, and a misreading line (`? START END VARIANT HEX HASH WORDS`) for each
/// wrong variant that prints something else: where its output parts from the reference's, what
/// it prints there (its first bytes in hex, and the FNV-1a hash of all it prints from there),
/// so that a program printing the same is told which rule it misread.
/// `None` in a build without the reference (the student kit, which holds the traces written
/// when it was built).
pub fn built_in_trace(args: &[String], input: &[u8]) -> Option<Arc<String>> {
    #[cfg(feature = "reference")]
    return remembered(args, input);
    #[cfg(not(feature = "reference"))]
    {
        let _ = (args, input);
        None
    }
}

/// How many bytes of traces a process keeps, so that grading a class makes each case's trace
/// once and not once per submission that fails it.
#[cfg(feature = "reference")]
const REMEMBERED_BYTES: usize = 16 << 20;

/// The trace of `input` under `args`, made once per process (while the traces kept stay under
/// [`REMEMBERED_BYTES`]).
#[cfg(feature = "reference")]
fn remembered(args: &[String], input: &[u8]) -> Option<Arc<String>> {
    use sha2::{Digest, Sha256};
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    /// The traces kept, by the hash of their arguments and input, and their bytes in all.
    type Kept = (HashMap<Vec<u8>, Arc<String>>, usize);
    static KEPT: OnceLock<Mutex<Kept>> = OnceLock::new();
    let mut key = Sha256::new();
    for arg in args {
        key.update((arg.len() as u64).to_le_bytes());
        key.update(arg.as_bytes());
    }
    key.update(input);
    let key = key.finalize().to_vec();
    let kept = KEPT.get_or_init(Mutex::default);
    if let Some(trace) = kept.lock().ok()?.0.get(&key) {
        return Some(Arc::clone(trace));
    }
    let trace = Arc::new(make_trace(args, input)?);
    let mut kept = kept.lock().ok()?;
    if kept.1 + trace.len() <= REMEMBERED_BYTES {
        kept.1 += trace.len();
        kept.0.insert(key, Arc::clone(&trace));
    }
    Some(trace)
}

#[cfg(feature = "reference")]
fn make_trace(args: &[String], input: &[u8]) -> Option<String> {
    use std::fmt::Write as _;
    let spec = args.iter().find_map(|arg| gridjudge::spec::find(arg))?;
    let (mut trace, mut output) = (Vec::new(), Vec::new());
    // Input the reference refuses still has its trace up to there.
    let _ = gridjudge::driver::run(spec, input, &mut output, Some(&mut trace));
    let mut trace = String::from_utf8(trace).ok()?;
    for misreading in gridjudge::misread::misreadings(spec, input, &output) {
        let rest = &misreading.output[misreading.start..];
        let shows = &rest[..rest.len().min(MISREADING_BYTES)];
        let hex: String = shows.iter().map(|byte| format!("{byte:02x}")).collect();
        let variant = misreading.variant;
        let _ = writeln!(
            trace,
            "? {} {} {} {hex} {:016x} {} (the handout: {})",
            misreading.start,
            misreading.start + shows.len(),
            variant.name,
            crate::corpus::fnv1a(rest),
            variant.what,
            variant.rule
        );
    }
    Some(trace)
}

/// The trace the reference writes for `input`: the text of its `--trace` file.
fn trace(reference: &Target, input: &[u8]) -> Option<String> {
    let dir = tempfile::tempdir().ok()?;
    let trace_path = dir.path().join("trace");
    let mut traced = reference.clone();
    traced.args.push("--trace".into());
    traced.args.push(trace_path.clone().into());
    let bounds = Bounds {
        timeout: Duration::from_secs(30),
        wall: crate::process::backstop(Duration::from_secs(30)),
        asleep_after: None,
        stdout_cap: usize::MAX / 2,
        stderr_cap: 4096,
    };
    execute(&traced, input, &bounds, &Policy::trusted()).ok()?;
    std::fs::read_to_string(&trace_path).ok()
}
