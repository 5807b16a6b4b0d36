//! A throw-away corpus of one case, and the fixture program that misbehaves on purpose.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use xtask::check::Options;

pub const EXPECTED: &str = "The Stones\n   ABC\n 1 ..B\n--- the end ---\n";

/// A corpus folder with one suite `demo` and one case `basic/001-case`.
pub struct Corpus {
    pub dir: tempfile::TempDir,
}

impl Corpus {
    pub fn new(input: &[u8], grade_exit_status: bool) -> Corpus {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("demo");
        std::fs::create_dir_all(suite.join("basic")).unwrap();
        std::fs::write(
            suite.join("suite.toml"),
            format!(
                "args = [\"demo\"]\ncompare = \"exact\"\ngrade_exit_status = {grade_exit_status}\n\
                 timeout = 5.0\n[groups]\nbasic = 4\n"
            ),
        )
        .unwrap();
        std::fs::write(suite.join("basic/001-case.in"), input).unwrap();
        std::fs::write(suite.join("basic/001-case.out"), EXPECTED).unwrap();
        Corpus { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn expected_path(&self) -> PathBuf {
        self.root().join("demo/basic/001-case.out")
    }

    /// Adds a case to `demo/basic`.
    pub fn add(&self, name: &str, input: &[u8], expected: &[u8]) {
        let base = self.root().join("demo/basic").join(name);
        std::fs::write(base.with_extension("in"), input).unwrap();
        std::fs::write(base.with_extension("out"), expected).unwrap();
    }
}

pub fn fixture() -> OsString {
    env!("CARGO_BIN_EXE_fixture").into()
}

/// Options that run the fixture in `mode` on the corpus, with no reference to localise with.
pub fn options(corpus: &Corpus, mode: &str, timeout: Duration) -> Options {
    Options {
        cases_root: corpus.root().to_path_buf(),
        spec: Some("demo".into()),
        filter: None,
        jobs: 2,
        timeout: Some(timeout),
        fail_fast: false,
        include_unspecified: false,
        target: Some(vec![fixture(), mode.into(), corpus.expected_path().into()]),
        reference: PathBuf::from("/nonexistent/reference"),
        dir: corpus.root().to_path_buf(),
        progress: false,
        // The fixture reads its expected output from the corpus, which the sandbox forbids.
        sandbox: false,
        limits: Default::default(),
        pass_env: Vec::new(),
        shard: None,
    }
}
