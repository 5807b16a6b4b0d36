//! The student kit: one executable that checks a program against one spec's cases with no
//! toolchain, no checkout and no file beside it.
//!
//! The kit is the `gridjudge-kit` program (the harness without the reference) with a bundle
//! appended to its file: the spec's suite file, its public cases with the reference's trace of
//! each (what the location of a difference needs), and the instructor's hidden cases as masked
//! inputs and salted hashes of their expected outputs ([`crate::hidden`]). At start the kit
//! reads the bundle back from its own file, writes the cases into a private temporary folder,
//! and runs `check` on it as `cargo xtask check` would.
//!
//! The bundle's place in the file: `[program][deflated JSON][length: u64 LE][MAGIC]`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::corpus::discover;
use crate::error::Error;
use crate::files::{from_hex, to_hex};
use crate::judge::{mask, Hashes};

/// The last bytes of a kit's file.
pub(super) const MAGIC: &[u8; 8] = b"GJKIT01\n";

/// What a kit holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct Bundle {
    pub spec: String,
    /// A hash of every case's input and expected output, hidden ones included: the same cases
    /// give the same name, so an instructor can tell which corpus a student's kit holds.
    pub corpus: String,
    pub public: usize,
    pub hidden: usize,
    /// The text of the suite's `suite.toml`.
    pub suite: String,
    pub cases: Vec<BundleCase>,
}

impl Bundle {
    /// What the kit holds, in words: `168 public and 3 hidden cases of go, corpus 4c4c…`.
    pub fn summary(&self) -> String {
        format!(
            "{} public and {} hidden cases of {}, corpus {}",
            self.public, self.hidden, self.spec, self.corpus
        )
    }

    /// The points a perfect submission scores: every graded group the kit holds cases of
    /// (what Gradescope asks as the assignment's total).
    pub fn points(&self) -> f64 {
        let Ok(file) = toml::from_str::<crate::corpus::SuiteFile>(&self.suite) else {
            return 0.0;
        };
        file.groups
            .iter()
            .filter(|(group, _)| self.cases.iter().any(|case| &case.group == *group))
            .map(|(_, points)| points)
            .sum()
    }
}

/// One case of a kit.
#[derive(Debug, Serialize, Deserialize)]
pub struct BundleCase {
    pub group: String,
    pub name: String,
    /// A public case's input, expected output and trace.
    pub input: Option<String>,
    pub expected: Option<String>,
    pub trace: Option<String>,
    /// A hidden case's input, masked (hex), and its `.hidden` text.
    pub masked_input: Option<String>,
    pub hashes: Option<String>,
}

fn text(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|err| Error::io(path, err))?;
    String::from_utf8(bytes).map_err(|_| Error::corpus(path, "is not UTF-8 text"))
}

/// 16 random bytes: each kit's salt.
fn salt() -> Result<Vec<u8>, Error> {
    let mut salt = vec![0u8; 16];
    let path = Path::new("/dev/urandom");
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut salt))
        .map_err(|err| Error::io(path, err))?;
    Ok(salt)
}

/// The bundle of spec `spec` of the corpus at `cases_root`, with the hidden cases under
/// `hidden` (`GROUP/NAME.in`, with `NAME.out` or, without it, the reference's output).
/// `reference` writes the traces and the missing expected outputs.
pub(super) fn bundle(
    cases_root: &Path,
    spec: &str,
    hidden: Option<&Path>,
    reference: &Path,
) -> Result<Bundle, Error> {
    let suite = crate::corpus::find(cases_root, spec)?;
    if suite.package.is_some() {
        return Err(Error::Usage(format!(
            "--spec {spec} is a problem package: the kit bundles suites of `suite.toml` only \
             (students check against a package with `cargo xtask check --cases`)"
        )));
    }
    let suite_text = text(&suite.dir.join("suite.toml"))?;
    let dir = std::env::temp_dir();
    let target = suite.reference_target(reference, &dir);
    let mut corpus = Sha256::new();
    corpus.update(suite_text.as_bytes());
    let mut cases = Vec::new();
    for case in discover(&suite)? {
        let input = text(&case.input)?;
        let expected = text(&case.expected)?;
        let trace = suite
            .is_built_in()
            .then(|| crate::process::reference_trace(&suite, reference, &dir, input.as_bytes()))
            .flatten()
            .map(|trace| trace.to_string());
        hash_case(&mut corpus, [&case.group, &case.name, &input, &expected]);
        cases.push(BundleCase {
            group: case.group,
            name: case.name,
            input: Some(input),
            expected: Some(expected),
            trace,
            masked_input: None,
            hashes: None,
        });
    }
    let public = cases.len();
    if let Some(hidden) = hidden {
        let salt = salt()?;
        let mode = suite.rules().compare;
        for (group, inputs) in hidden_cases(hidden, &suite)? {
            for path in &inputs {
                // Named as the instructor named it, so that a student's report maps back.
                let name = path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                if cases.iter().any(|c| c.group == group && c.name == name) {
                    return Err(Error::corpus(
                        path,
                        format!("has the name of a public case of `{group}`: rename it"),
                    ));
                }
                let input = text(path)?;
                let out = path.with_extension("out");
                let expected = if out.is_file() {
                    text(&out)?
                } else {
                    reference_output(&target, &input, path)?
                };
                hash_case(&mut corpus, [&group, &name, &input, &expected]);
                cases.push(BundleCase {
                    group: group.clone(),
                    name,
                    input: None,
                    expected: None,
                    trace: None,
                    masked_input: Some(to_hex(&mask(&salt, input.as_bytes()))),
                    hashes: Some(Hashes::of(mode, &salt, expected.as_bytes()).to_text()),
                });
            }
        }
    }
    let digest: [u8; 32] = corpus.finalize().into();
    Ok(Bundle {
        spec: suite.name.clone(),
        corpus: to_hex(&digest[..6]),
        public,
        hidden: cases.len() - public,
        suite: suite_text,
        cases,
    })
}

/// Adds a case (group, name, input, expected output) to the corpus's hash, each part
/// length-prefixed so that no two cases collide by concatenation.
fn hash_case(corpus: &mut Sha256, parts: [&str; 4]) {
    for part in parts {
        corpus.update((part.len() as u64).to_le_bytes());
        corpus.update(part.as_bytes());
    }
}

/// The hidden cases under `dir`: its folders are groups of the suite, each with `.in` files.
fn hidden_cases(
    dir: &Path,
    suite: &crate::corpus::Suite,
) -> Result<Vec<(String, Vec<PathBuf>)>, Error> {
    let mut groups = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|err| Error::io(dir, err))?;
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let group = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if suite.is_graded(&group) != Some(true) {
            let groups = suite.file.groups.keys().map(String::as_str);
            return Err(Error::corpus(
                &folder,
                format!(
                    "is no graded group of the {} suite{}: hidden cases count in one of its \
                     groups ({})",
                    suite.name,
                    crate::error::did_you_mean(&group, groups.clone()),
                    groups.collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(&folder)
            .map_err(|err| Error::io(&folder, err))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|ext| ext == "in"))
            .collect();
        inputs.sort();
        if !inputs.is_empty() {
            groups.push((group, inputs));
        }
    }
    if groups.is_empty() {
        return Err(Error::corpus(dir, "holds no `GROUP/NAME.in` hidden case"));
    }
    Ok(groups)
}

/// The reference's output for a hidden input that came without its `.out`.
fn reference_output(
    target: &crate::target::Target,
    input: &str,
    path: &Path,
) -> Result<String, Error> {
    let bounds = crate::process::Bounds {
        timeout: std::time::Duration::from_secs(30),
        wall: crate::process::backstop(std::time::Duration::from_secs(30)),
        asleep_after: None,
        stdout_cap: 64 << 20,
        stderr_cap: 4096,
    };
    let execution = crate::process::execute(
        target,
        input.as_bytes(),
        &bounds,
        &crate::confine::Policy::trusted(),
    )
    .map_err(|err| Error::Reference(format!("the reference did not run: {err}")))?;
    String::from_utf8(execution.stdout)
        .map_err(|_| Error::corpus(path, "the reference's output for it is not UTF-8"))
}

/// `program` with `bundle` appended: the kit's file.
pub(super) fn attach(mut program: Vec<u8>, bundle: &Bundle) -> Result<Vec<u8>, Error> {
    let json = serde_json::to_vec(bundle).map_err(|err| Error::Write(err.to_string()))?;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(&json)
        .map_err(|err| Error::Write(err.to_string()))?;
    let deflated = encoder
        .finish()
        .map_err(|err| Error::Write(err.to_string()))?;
    program.extend_from_slice(&deflated);
    program.extend_from_slice(&(deflated.len() as u64).to_le_bytes());
    program.extend_from_slice(MAGIC);
    Ok(program)
}

/// The bundle appended to the file at `exe`.
pub fn attached(exe: &Path) -> Result<Bundle, Error> {
    let bytes = std::fs::read(exe).map_err(|err| Error::io(exe, err))?;
    let damaged = || {
        Error::corpus(
            exe,
            "holds no cases (not a gridjudge kit, or a damaged one)",
        )
    };
    let body = bytes.strip_suffix(MAGIC.as_slice()).ok_or_else(damaged)?;
    let (body, length) = body
        .split_at_checked(body.len().wrapping_sub(8))
        .ok_or_else(damaged)?;
    let length = u64::from_le_bytes(length.try_into().map_err(|_| damaged())?) as usize;
    let deflated = body
        .get(body.len().checked_sub(length).ok_or_else(damaged)?..)
        .ok_or_else(damaged)?;
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(deflated)
        .read_to_end(&mut json)
        .map_err(|_| damaged())?;
    serde_json::from_slice(&json).map_err(|_| damaged())
}

/// Writes the bundle's cases as a corpus under `root`: `root/<spec>/suite.toml` and
/// `root/<spec>/<group>/<name>.{in,out,trace,hidden}`. Returns `root`.
pub fn extract(bundle: &Bundle, root: &Path) -> Result<PathBuf, Error> {
    let suite = root.join(&bundle.spec);
    let write = |path: &Path, bytes: &[u8]| -> Result<(), Error> {
        std::fs::write(path, bytes).map_err(|err| Error::io(path, err))
    };
    std::fs::create_dir_all(&suite).map_err(|err| Error::io(&suite, err))?;
    write(&suite.join("suite.toml"), bundle.suite.as_bytes())?;
    let mut made: Option<&str> = None;
    for case in &bundle.cases {
        let group = suite.join(&case.group);
        if made != Some(case.group.as_str()) {
            std::fs::create_dir_all(&group).map_err(|err| Error::io(&group, err))?;
            made = Some(&case.group);
        }
        let path = |ext: &str| group.join(format!("{}.{ext}", case.name));
        match (&case.input, &case.masked_input, &case.hashes) {
            (Some(input), _, _) => {
                write(&path("in"), input.as_bytes())?;
                write(
                    &path("out"),
                    case.expected.as_deref().unwrap_or_default().as_bytes(),
                )?;
                if let Some(trace) = &case.trace {
                    write(&path("trace"), trace.as_bytes())?;
                }
            }
            (None, Some(masked), Some(hashes)) => {
                let text = path("hidden");
                let salt = Hashes::parse(hashes, &text)?.salt;
                let input = from_hex(masked).ok_or_else(|| Error::corpus(&text, "is damaged"))?;
                write(&path("in"), &mask(&salt, &input))?;
                write(&text, hashes.as_bytes())?;
            }
            _ => return Err(Error::corpus(&path("in"), "is damaged in the kit")),
        }
    }
    Ok(root.to_path_buf())
}

/// Builds the kit's program, statically linked (it runs on any Linux of its architecture,
/// Gradescope's images included) and stripped; its path.
pub(super) fn build_program() -> Result<PathBuf, Error> {
    let triple = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    // With `--target`, the flags reach the kit's crates only, not build scripts or macros.
    let mut command = crate::workspace::cargo();
    command
        .args(["build", "--release", "--package", "gridjudge-kit"])
        .args(["--target", &triple])
        .env("RUSTFLAGS", "-C target-feature=+crt-static")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "symbols");
    crate::workspace::build(command, "the kit's program (static)")?;
    Ok(crate::workspace::target_dir()
        .join(triple)
        .join("release")
        .join("gridjudge-kit"))
}

/// What `cargo xtask kit` made.
pub struct Built {
    pub path: PathBuf,
    pub bytes: u64,
    pub bundle: Bundle,
}

/// What building a kit needs: the corpus root, the reference, the spec, the hidden folder and
/// where to write it.
#[derive(Debug, Clone)]
pub struct Plan {
    pub cases_root: PathBuf,
    pub reference: PathBuf,
    pub spec: String,
    pub hidden: Option<PathBuf>,
    pub out: PathBuf,
}

/// Builds the kit `plan` describes.
pub fn build(plan: &Plan) -> Result<Built, Error> {
    let bundle = bundle(
        &plan.cases_root,
        &plan.spec,
        plan.hidden.as_deref(),
        &plan.reference,
    )?;
    let program_path = build_program()?;
    let program = std::fs::read(&program_path).map_err(|err| Error::io(&program_path, err))?;
    let file = attach(program, &bundle)?;
    crate::files::write_atomically_with_mode(&plan.out, &file, 0o755)?;
    Ok(Built {
        path: plan.out.clone(),
        bytes: file.len() as u64,
        bundle,
    })
}

/// A private folder for the kit's cases: in memory (`/dev/shm`, then `XDG_RUNTIME_DIR`) where
/// the machine has one, since writing a thousand small files to a disk can take half a second;
/// else in the temporary folder.
pub fn case_folder() -> Result<tempfile::TempDir, Error> {
    let in_memory = [
        "/dev/shm".into(),
        std::env::var_os("XDG_RUNTIME_DIR").unwrap_or_default(),
    ];
    for dir in in_memory.iter().map(Path::new).filter(|d| d.is_dir()) {
        if let Ok(folder) = tempfile::Builder::new()
            .prefix("gridjudge-kit-")
            .tempdir_in(dir)
        {
            return Ok(folder);
        }
    }
    tempfile::Builder::new()
        .prefix("gridjudge-kit-")
        .tempdir()
        .map_err(|err| Error::io(&std::env::temp_dir(), err))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Bundle {
        Bundle {
            spec: "go".into(),
            corpus: "abc".into(),
            public: 1,
            hidden: 1,
            suite: "args = [\"go\"]\n[groups]\nhandout = 1\n".into(),
            cases: vec![
                BundleCase {
                    group: "handout".into(),
                    name: "001".into(),
                    input: Some("9\n".into()),
                    expected: Some("out\n".into()),
                    trace: Some("1 4\n".into()),
                    masked_input: None,
                    hashes: None,
                },
                BundleCase {
                    group: "handout".into(),
                    name: "hidden-01".into(),
                    input: None,
                    expected: None,
                    trace: None,
                    masked_input: Some(to_hex(&mask(b"s", b"13\n"))),
                    hashes: Some(
                        Hashes::of(crate::corpus::CompareMode::Exact, b"s", b"x").to_text(),
                    ),
                },
            ],
        }
    }

    #[test]
    fn a_bundle_comes_back_from_the_file_it_was_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("kit");
        std::fs::write(
            &exe,
            attach(b"\x7fELF program".to_vec(), &sample()).unwrap(),
        )
        .unwrap();
        let back = attached(&exe).unwrap();
        assert_eq!(format!("{back:?}"), format!("{:?}", sample()));
        let root = extract(&back, &dir.path().join("cases")).unwrap();
        let group = root.join("go/handout");
        assert_eq!(std::fs::read(group.join("001.out")).unwrap(), b"out\n");
        assert_eq!(std::fs::read(group.join("hidden-01.in")).unwrap(), b"13\n");
        assert!(!group.join("hidden-01.out").exists());
    }

    /// A hidden folder whose name is a typo of a graded group is told the group it meant.
    #[test]
    fn a_mistyped_hidden_group_is_refused_with_the_group_it_meant() {
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let suite = crate::corpus::find(&cases, "go").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("liberteis")).unwrap();
        std::fs::write(dir.path().join("liberteis/a.in"), "x\n").unwrap();
        let err = hidden_cases(dir.path(), &suite).unwrap_err().to_string();
        assert!(err.contains("liberteis"), "{err}");
        assert!(err.contains("(did you mean `liberties`?)"), "{err}");
    }

    #[test]
    fn a_file_without_a_bundle_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("plain");
        for bytes in [
            &b""[..],
            b"GJKIT01\n",
            b"\x7fELF and more bytes than eight GJKIT01\n",
        ] {
            std::fs::write(&exe, bytes).unwrap();
            let err = attached(&exe).unwrap_err().to_string();
            assert!(err.contains("plain") && err.contains("no cases"), "{err}");
        }
    }
}
