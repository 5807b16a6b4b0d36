//! What runs: a command line and its folder ([`Target`]), and whether the user asked for the
//! bundled reference or a program of their own ([`Program`]).
//!
//! A `Target` says nothing about trust: how it is confined is the `confine::Policy`
//! every run is given alongside it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The program a task runs: the bundled reference (trusted), or a command line the user gave
/// (confined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    Reference,
    Command(Vec<OsString>),
    /// Sources to build first (a folder, or one source file): `check` builds them and runs
    /// the result as a command (see [`crate::compile`]).
    Sources(PathBuf),
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
            Program::Sources(path) => path.display().to_string(),
        }
    }

    /// The command to run in `dir`; `reference` is what runs for [`Program::Reference`] (a
    /// suite's, see `Suite::reference_target`).
    pub fn target(&self, reference: Target, dir: &Path) -> Target {
        match self {
            Program::Reference => reference,
            Program::Command(argv) => Target::command(argv, dir),
            // Never run as they are: planned once built, as a command.
            Program::Sources(path) => Target::command(&[path.clone().into_os_string()], dir),
        }
    }
}

/// The command line a user meant by `argv`, typed in `dir`: a file with a known extension gets
/// its interpreter (`x.py` → `python3 x.py`, `x.jar` → `java -jar x.jar`, `x.js` → `node x.js`),
/// a path to an executable runs as is, a name on PATH too. Anything else is `Err` with a
/// one-line hint of the command that would work.
/// Why the executable file at `path` cannot be run as it is, if it cannot: a program for
/// another machine, or a script without a `#!` line (which `exec` would hand to `/bin/sh`).
fn cannot_exec(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 20];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let head = &head[..n];
    if head.starts_with(b"\x7fELF") {
        // e_machine, little-endian at byte 18: what the program was built for.
        let machine = u16::from_le_bytes([*head.get(18)?, *head.get(19)?]);
        let here: u16 = match std::env::consts::ARCH {
            "x86_64" => 62,
            "aarch64" => 183,
            "riscv64" => 243,
            _ => return None,
        };
        return (machine != here).then(|| {
            format!(
                "is a program for another kind of machine (ELF machine {machine}; this one is \
                 {}): build it here",
                std::env::consts::ARCH
            )
        });
    }
    (!head.starts_with(b"#!")).then(|| {
        "is no program this machine can start (no `#!` line and no machine code): name its \
         interpreter before it (python3 FILE, sh FILE), or add a `#!` line"
            .to_string()
    })
}

pub fn interpret(argv: Vec<OsString>, dir: &Path) -> Result<Vec<OsString>, String> {
    use std::os::unix::fs::PermissionsExt;
    let Some(first) = argv.first() else {
        return Ok(argv);
    };
    let shown = first.to_string_lossy().into_owned();
    let path = dir.join(first);
    if shown.starts_with('-') && !path.exists() {
        return Err(format!(
            "`{shown}` is no option of this command (see --help), and no program either"
        ));
    }
    if path.is_dir() {
        return Err(format!(
            "`{shown}` is a folder: name the program in it (`{shown}/main.py`, `{shown}/a.out`, \
             ...)"
        ));
    }
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let interpreter = crate::language::interpreter(extension);
    if path.is_file() {
        if !interpreter.is_empty() {
            let mut line: Vec<OsString> = interpreter.iter().map(OsString::from).collect();
            line.extend(argv);
            return Ok(line);
        }
        let executable =
            std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
        if let (true, Some(problem)) = (executable, cannot_exec(&path)) {
            return Err(format!("`{shown}` {problem}"));
        }
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
pub fn on_path(name: &OsString) -> bool {
    find_on_path(name).is_some()
}

/// Where `name` is found on `PATH`: the first executable file of that name.
pub fn find_on_path(name: &OsString) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(name))
        .find(|path| {
            std::fs::metadata(path)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The paths `execvp` would try for `program`: itself when it names a folder, else each
/// folder of `path` (the default `/bin:/usr/bin` without one; an empty entry is the folder
/// the target runs in): what the sandbox and a target started directly try in turn.
pub fn exec_candidates(program: &[u8], path: Option<&[u8]>) -> Vec<Vec<u8>> {
    if program.contains(&b'/') {
        return vec![program.to_vec()];
    }
    path.unwrap_or(b"/bin:/usr/bin")
        .split(|&b| b == b':')
        .map(|dir| match dir {
            b"" => program.to_vec(),
            dir => [dir, b"/", program].concat(),
        })
        .collect()
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
    fn the_program_is_looked_up_as_execvp_does() {
        let words = |list: Vec<Vec<u8>>| {
            list.into_iter()
                .map(|w| String::from_utf8(w).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words(exec_candidates(b"./main", Some(b"/usr/bin"))),
            ["./main"]
        );
        assert_eq!(
            words(exec_candidates(
                b"python3",
                Some(b"/usr/local/bin:/usr/bin")
            )),
            ["/usr/local/bin/python3", "/usr/bin/python3"]
        );
        assert_eq!(
            words(exec_candidates(b"java", None)),
            ["/bin/java", "/usr/bin/java"]
        );
        assert_eq!(words(exec_candidates(b"a", Some(b":/x"))), ["a", "/x/a"]);
    }

    #[test]
    fn the_headline_forms_become_the_command_that_works() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let write_bytes = |name: &str, bytes: &[u8], mode: u32| {
            std::fs::write(dir.path().join(name), bytes).unwrap();
            std::fs::set_permissions(dir.path().join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        };
        let write = |name: &str, mode: u32| write_bytes(name, b"", mode);
        // The start of an ELF file: the magic, then e_machine at byte 18.
        let elf = |machine: u16| {
            let mut head = b"\x7fELF".to_vec();
            head.resize(18, 0);
            head.extend(machine.to_le_bytes());
            head
        };
        let here = match std::env::consts::ARCH {
            "aarch64" => 183,
            "riscv64" => 243,
            _ => 62,
        };
        write("project4.py", 0o644);
        write("game.jar", 0o644);
        write_bytes("a.out", &elf(here), 0o755);
        write_bytes(
            "foreign.out",
            &elf(if here == 62 { 183 } else { 62 }),
            0o755,
        );
        write_bytes("run.sh", b"echo hi\n", 0o755);
        write("notes", 0o644);
        std::fs::create_dir(dir.path().join("src")).unwrap();
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
        // The simple mistakes, each said in words.
        assert!(line(&["src"]).unwrap_err().contains("is a folder"));
        assert!(line(&["--spce", "go"])
            .unwrap_err()
            .contains("is no option"));
        assert!(line(&["./foreign.out"])
            .unwrap_err()
            .contains("another kind of machine"));
        assert!(line(&["./run.sh"]).unwrap_err().contains("no `#!` line"));
    }
}
