//! Adding an assignment, proven with a toy one that is never shipped: `echo` (each input line is
//! printed back; a line with a tab is unspecified). It is registered only through the same two
//! tables' types a real assignment uses (a `gridjudge::spec::Spec` row and an
//! `xtask::tools::Tools` row) and the same files, and then generated, checked and fuzzed like
//! the bundled ones.

use std::path::Path;

use crate::support::check;
use gridjudge::program::{Flow, InputError, Program, Unspecified};
use gridjudge::spec::Spec;
use xtask::check::Options;
use xtask::target::Program as Run;
use xtask::tools::{missing, Assignment, Tools};
use xtask::tools::{Generated, Rng};

use crate::support::fixture;

#[derive(Default)]
struct Echo {
    unspecified: Unspecified,
}

impl Program for Echo {
    fn feed(&mut self, line_no: usize, line: &[u8], out: &mut Vec<u8>) -> Result<Flow, InputError> {
        if line.contains(&b'\t') {
            self.unspecified.note(line_no, "a tab");
        }
        out.extend_from_slice(line);
        out.push(b'\n');
        Ok(Flow::Continue)
    }

    fn finish(&mut self, _last_line: usize, _out: &mut Vec<u8>) -> Result<(), InputError> {
        Ok(())
    }

    fn unspecified(&self) -> Option<&(usize, String)> {
        self.unspecified.get()
    }
}

static ECHO: Spec = Spec {
    name: "echo",
    summary: "print every line back",
    interactive: false,
    program: || Box::new(Echo::default()),
};

fn generate(rng: &mut Rng) -> Generated {
    let n_lines = rng.range(1, 6);
    let mut input = String::new();
    for _ in 0..n_lines {
        input.push(*rng.pick(&['a', 'b', 'c']));
        for _ in 0..rng.range(0, 8) {
            input.push(*rng.pick(&['a', 'b', 'c', ' ', '\t']));
        }
        input.push('\n');
    }
    Generated {
        input,
        shape: format!("{n_lines}-lines"),
    }
}

fn shrink(lines: &[&str]) -> Vec<String> {
    xtask::tools::drop_chunks(lines, 0, lines.len())
}

static ECHO_TOOLS: Tools = Tools {
    name: "echo",
    grid: None,
    generate,
    shrink,
};

const ECHO_ASSIGNMENT: Assignment<'static> = Assignment {
    reference: &ECHO,
    tools: &ECHO_TOOLS,
};

/// Lays out every file an assignment has, for `echo`, under `root`.
fn lay_out(root: &Path) {
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "docs/specs/echo.md",
        "# echo\n\nEvery input line is printed back.\n",
    );
    write("docs/specs/echo/handout-example.in", "hello\n");
    write("docs/specs/echo/handout-example.out", "hello\n");
    write(
        "cases/echo/suite.toml",
        "args = [\"echo\"]\ncompare = \"exact\"\ngrade_exit_status = true\ntimeout = 5.0\n\
         min_graded_cases = 10\n[groups]\nhandout = 1\ngenerated = 9\n",
    );
    write("cases/echo/handout/001-example.in", "hello\n");
    write("cases/echo/handout/001-example.out", "hello\n");
    write(
        "tests/echo.rs",
        "// the rules of echo, tested against the reference\n",
    );
    write("tests/tests.rs", "mod echo;\n");
}

#[test]
fn a_toy_assignment_registers_through_the_same_tables() {
    assert_eq!(
        missing(
            std::slice::from_ref(&ECHO),
            std::slice::from_ref(&ECHO_TOOLS)
        ),
        Vec::<String>::new()
    );
    let without_tools = missing(std::slice::from_ref(&ECHO), &[]);
    assert!(
        without_tools[0].contains("`echo` has no row"),
        "{without_tools:?}"
    );

    let root = tempfile::tempdir().unwrap();
    lay_out(root.path());
    assert_eq!(
        xtask::workspace::missing_pieces(root.path(), "echo"),
        Vec::<String>::new()
    );
    for (piece, named) in [
        ("docs/specs/echo.md", "spec document"),
        ("cases/echo/suite.toml", "suite file"),
        ("tests/echo.rs", "rule tests"),
        ("tests/tests.rs", "`mod` line"),
    ] {
        let scratch = tempfile::tempdir().unwrap();
        lay_out(scratch.path());
        std::fs::remove_file(scratch.path().join(piece)).unwrap();
        let found = xtask::workspace::missing_pieces(scratch.path(), "echo");
        assert!(
            found.len() == 1 && found[0].contains(named),
            "without `{piece}`: {found:?}"
        );
    }

    // Generated cases stay in the graded domain (no tab), with the reference's output.
    let generated = root.path().join("cases/echo/generated");
    let written = xtask::tools::write(
        &xtask::tools::Oracle::BuiltIn(ECHO_ASSIGNMENT),
        1,
        12,
        &generated,
    )
    .unwrap();
    assert_eq!(written.len(), 12);
    for stem in &written {
        let input = std::fs::read_to_string(generated.join(format!("{stem}.in"))).unwrap();
        assert!(!input.contains('\t'), "{stem}: a tab is unspecified");
        let output = std::fs::read_to_string(generated.join(format!("{stem}.out"))).unwrap();
        assert_eq!(input, output);
    }

    // `check` grades a right and a wrong program on it like any suite.
    let cases_root = root.path().join("cases");
    let options = |mode: &str| {
        let mut options = Options::new(
            cases_root.clone(),
            "/nonexistent/reference".into(),
            root.path().to_path_buf(),
        );
        options.spec = Some("echo".into());
        options.program = Run::Command(vec![fixture(), mode.into(), "unused".into()]);
        options
    };
    let right = check(&options("echo")).unwrap();
    assert_eq!((right.totals().passed, right.totals().failed), (13, 0));
    let wrong = check(&options("shout")).unwrap();
    assert_eq!(wrong.totals().passed, 0);

    // `fuzz` finds the wrong program and shrinks its input to one line.
    let suite = xtask::corpus::find(&cases_root, "echo").unwrap();
    let fuzz_options = xtask::tools::Options {
        oracle: xtask::tools::Oracle::BuiltIn(ECHO_ASSIGNMENT),
        suite,
        cases_root: cases_root.clone(),
        confine: xtask::confine::Settings::default(),
        seed: 1,
        budget: xtask::tools::Budget::Runs(50),
        jobs: 2,
        target: vec![fixture(), "shout".into(), "unused".into()],
        dir: root.path().to_path_buf(),
        timeout: std::time::Duration::from_secs(10),
        max_shrink_runs: 200,
        reference: "/nonexistent/reference".into(),
        out: root.path().join("found"),
    };
    match xtask::tools::fuzz(&fuzz_options, &|_| {}).unwrap() {
        xtask::tools::Outcome::Found(found) => {
            assert_eq!(found.shrunk.lines().count(), 1, "{}", found.shrunk)
        }
        xtask::tools::Outcome::Clean { .. } => panic!("fuzz missed a program that shouts"),
    }
}
