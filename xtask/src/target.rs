//! What runs: a command line and its folder ([`Target`]), and whether the user asked for the
//! bundled reference or a program of their own ([`Program`]).
//!
//! A `Target` says nothing about trust: how it is confined is the [`crate::confine::Policy`]
//! every run is given alongside it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The program a task runs: the bundled reference (trusted), or a command line the user gave
/// (confined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    Reference,
    Command(Vec<OsString>),
}

impl Program {
    /// The reference for an empty command line, the command otherwise.
    pub fn from_argv(argv: Vec<OsString>) -> Program {
        if argv.is_empty() {
            Program::Reference
        } else {
            Program::Command(argv)
        }
    }

    /// How reports name it.
    pub fn display(&self) -> String {
        match self {
            Program::Reference => "the reference".into(),
            Program::Command(argv) => display_argv(argv),
        }
    }

    /// The command to run for a suite whose reference arguments are `args`.
    pub fn target(&self, reference: &Path, args: &[String], dir: &Path) -> Target {
        match self {
            Program::Reference => Target::reference(reference, args, dir),
            Program::Command(argv) => Target::command(argv, dir),
        }
    }
}

/// The command line a user meant by `argv`, typed in `dir`: a file with a known extension gets
/// its interpreter (`x.py` → `python3 x.py`, `x.jar` → `java -jar x.jar`, `x.js` → `node x.js`),
/// a path to an executable runs as is, a name on PATH too. Anything else is `Err` with a
/// one-line hint of the command that would work.
pub fn interpret(argv: Vec<OsString>, dir: &Path) -> Result<Vec<OsString>, String> {
    use std::os::unix::fs::PermissionsExt;
    let Some(first) = argv.first() else {
        return Ok(argv);
    };
    let shown = first.to_string_lossy().into_owned();
    let path = dir.join(first);
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let interpreter: &[&str] = match extension {
        "py" => &["python3"],
        "jar" => &["java", "-jar"],
        "js" => &["node"],
        _ => &[],
    };
    if path.is_file() {
        if !interpreter.is_empty() {
            let mut line: Vec<OsString> = interpreter.iter().map(OsString::from).collect();
            line.extend(argv);
            return Ok(line);
        }
        let executable =
            std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
        let is_path = Path::new(first).components().count() > 1;
        return match (executable, is_path) {
            (true, true) => Ok(argv),
            (true, false) if on_path(first) => Ok(argv),
            (true, false) => Err(format!(
                "`{shown}` is not a program on PATH; to run the file in this folder: \
                 cargo xtask check ./{shown}"
            )),
            (false, _) => Err(format!(
                "`{shown}` is not executable: make it so (chmod +x {shown}), or name its \
                 interpreter (cargo xtask check python3 {shown})"
            )),
        };
    }
    if Path::new(first).components().count() > 1 {
        return Err(format!(
            "`{shown}` does not exist (from `{}`)",
            dir.display()
        ));
    }
    if on_path(first) {
        return Ok(argv);
    }
    Err(format!(
        "`{shown}` is neither a file in `{}` nor a program on PATH",
        dir.display()
    ))
}

/// Whether `name` is an executable file in a folder of PATH.
fn on_path(name: &OsString) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).any(|dir| {
        std::fs::metadata(dir.join(name))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// A command line to run, and the folder to run it in.
#[derive(Debug, Clone)]
pub struct Target {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub dir: PathBuf,
}

impl Target {
    /// A command line given by the user (`python3 project4.py`). An empty one cannot be
    /// started, which the run reports as such.
    pub fn command(argv: &[OsString], dir: &Path) -> Target {
        let (program, args) = match argv.split_first() {
            Some((program, args)) => (program.clone(), args.to_vec()),
            None => (OsString::new(), Vec::new()),
        };
        Target {
            program,
            args,
            dir: dir.to_path_buf(),
        }
    }

    /// The reference binary with a suite's arguments.
    pub fn reference(binary: &Path, args: &[String], dir: &Path) -> Target {
        Target {
            program: binary.into(),
            args: args.iter().map(OsString::from).collect(),
            dir: dir.to_path_buf(),
        }
    }

    /// The command line as a user would type it.
    pub fn display(&self) -> String {
        let argv: Vec<OsString> = std::iter::once(&self.program)
            .chain(&self.args)
            .cloned()
            .collect();
        display_argv(&argv)
    }
}

/// A command line as a user would type it.
pub fn display_argv(argv: &[OsString]) -> String {
    argv.iter()
        .map(|word| word.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headline_forms_become_the_command_that_works() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, mode: u32| {
            std::fs::write(dir.path().join(name), "").unwrap();
            std::fs::set_permissions(dir.path().join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        };
        write("project4.py", 0o644);
        write("game.jar", 0o644);
        write("a.out", 0o755);
        write("notes", 0o644);
        let line = |words: &[&str]| {
            interpret(words.iter().map(OsString::from).collect(), dir.path())
                .map(|argv| display_argv(&argv))
        };
        assert_eq!(line(&["project4.py"]), Ok("python3 project4.py".into()));
        assert_eq!(line(&["game.jar", "x"]), Ok("java -jar game.jar x".into()));
        assert_eq!(line(&["./a.out"]), Ok("./a.out".into()));
        assert_eq!(line(&["sh", "-c", "true"]), Ok("sh -c true".into()));
        assert!(line(&["a.out"])
            .unwrap_err()
            .contains("cargo xtask check ./a.out"));
        assert!(line(&["notes"]).unwrap_err().contains("chmod +x notes"));
        assert!(line(&["./missing"]).unwrap_err().contains("does not exist"));
        assert!(line(&["no-such-program-here"])
            .unwrap_err()
            .contains("nor a program on PATH"));
    }
}
