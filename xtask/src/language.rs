//! The language table (`xtask/languages.toml`, data compiled in) and what a submission's
//! sources are: which language, which files, which entry point.
//!
//! A submission handed in as sources is recognised by its files' extensions; within its
//! language, the entry point is the file with a `main` (C, C++, Rust, C#), the class with a
//! `main` method (Java), or the one script (Python, JavaScript). A suite may pin what it
//! expects (`[build]` in its suite.toml): an allow-list of languages, the main file or class.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;
use walkdir::WalkDir;

/// One row of the table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    /// Its one spelling in suites and reports: `cpp`, `java`, ...
    pub name: String,
    /// How people write it: `C++`.
    pub title: String,
    pub extensions: Vec<String>,
    /// The program that must be installed (the compiler, or the interpreter).
    pub tool: String,
    /// The Debian packages that install it.
    #[serde(default)]
    pub debian: Vec<String>,
    /// The build command, if it has one.
    #[serde(default)]
    pub build: Option<String>,
    /// A command that checks the sources without building them (Python's byte-compile), for a
    /// language without a build: a failure is "could not build", and the program then runs
    /// from its sources.
    #[serde(default)]
    pub check: Option<String>,
    pub run: String,
    /// Text only the file holding the program's entry point holds (`main(`).
    #[serde(default)]
    pub main: Vec<String>,
    /// Whether the program runs by its main file's class, with its package (Java).
    #[serde(default)]
    pub class: bool,
    /// Program files of an extension that run under a command: `py` → `python3`.
    #[serde(default)]
    pub interpreters: std::collections::BTreeMap<String, String>,
    /// How its runtime reports an uncaught exception or a panic on stderr.
    #[serde(default)]
    pub crashes: Vec<Crash>,
    /// The errors of a failed build that are told with their line.
    #[serde(default)]
    pub syntax: Option<Syntax>,
}

/// How a runtime reports an uncaught exception or a panic on stderr (see `languages.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crash {
    /// Text only such a report holds.
    pub sign: String,
    /// The line naming the exception begins with this...
    #[serde(default)]
    pub starts: Option<String>,
    /// ... or holds this.
    #[serde(default)]
    pub within: Option<String>,
    /// What of that line, or after it, names the exception.
    #[serde(default)]
    pub take: Take,
}

/// What of the line that names an exception is its name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Take {
    /// The line itself.
    #[default]
    Line,
    /// The line past the text it begins with, a quoted thread name dropped.
    Rest,
    /// The next non-empty line.
    Next,
    /// The rest, or the next non-empty line where the rest is empty.
    RestOrNext,
    /// The next non-empty line, or the line itself at the end.
    NextOrLine,
}

/// The errors of a failed build that are told with their line: `SyntaxError at line 3: ...`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Syntax {
    /// The kinds of error a message ends with (`SyntaxError`), each followed by `:`.
    pub kinds: Vec<String>,
    /// The text its line number follows, on the first line of the message holding it.
    pub line: String,
}

#[derive(Deserialize)]
struct Table {
    language: Vec<Language>,
}

/// The table, as compiled in.
pub fn table() -> &'static [Language] {
    static TABLE: OnceLock<Vec<Language>> = OnceLock::new();
    TABLE.get_or_init(|| {
        // A test parses the same text: a broken table never ships.
        parse(include_str!("../languages.toml")).unwrap_or_default()
    })
}

/// A table's text (`languages.toml`'s) as its rows.
pub fn parse(text: &str) -> Result<Vec<Language>, String> {
    toml::from_str::<Table>(text)
        .map(|table| table.language)
        .map_err(|err| err.to_string())
}

/// The command a program file of `extension` runs under (`py`: `python3`), as words; empty
/// for a file that runs by itself.
pub fn interpreter(extension: &str) -> Vec<String> {
    interpreter_in(table(), extension)
}

fn interpreter_in(rows: &[Language], extension: &str) -> Vec<String> {
    rows.iter()
        .find_map(|language| language.interpreters.get(extension))
        .map(|line| line.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// The check of a command line that runs one source file of the folder `dir` under its
/// language's interpreter (`python3 go.py`, as `grade --run` names it), where that language
/// checks its sources before they run (Python's byte-compile): the check's command line for
/// that file, its cache in `cache`. `None` for any other command.
pub fn check_of_command(dir: &Path, run: &[OsString], cache: &Path) -> Option<Vec<OsString>> {
    check_of_command_in(table(), dir, run, cache)
}

fn check_of_command_in(
    rows: &'static [Language],
    dir: &Path,
    run: &[OsString],
    cache: &Path,
) -> Option<Vec<OsString>> {
    rows.iter()
        .filter(|language| language.build.is_none() && language.check.is_some())
        .find_map(|language| {
            language.interpreters.iter().find_map(|(extension, line)| {
                let words: Vec<&str> = line.split_whitespace().collect();
                let file = run.get(words.len())?;
                let path = Path::new(file);
                let named = words.iter().zip(run).all(|(word, given)| given == *word);
                let ours = path.extension().is_some_and(|e| e == extension.as_str())
                    && path.components().count() == 1
                    && dir.join(path).is_file();
                (named && ours).then(|| {
                    Recipe {
                        language,
                        sources: vec![path.to_path_buf()],
                        main: path.to_path_buf(),
                        main_class: None,
                    }
                    .check_line(cache)
                })?
            })
        })
}

/// Whether `stderr` holds a runtime's report of an uncaught exception or a panic.
pub fn crashed(stderr: &str) -> bool {
    crashed_in(table(), stderr)
}

fn crashed_in(rows: &[Language], stderr: &str) -> bool {
    rows.iter()
        .flat_map(|language| &language.crashes)
        .any(|crash| stderr.contains(&crash.sign))
}

/// The exception such a report on `stderr` names, as its runtime words it (Java's
/// `java.lang.ArrayIndexOutOfBoundsException: ...`, not the stack's last frame): the first line
/// a row of the table names it on. `None` where no row names one (Python's traceback, which
/// its last line tells).
pub fn exception(stderr: &str) -> Option<String> {
    exception_in(table(), stderr)
}

fn exception_in(rows: &[Language], stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    let after = |k: usize| lines[k + 1..].iter().find(|line| !line.is_empty()).copied();
    let crashes: Vec<&Crash> = rows.iter().flat_map(|l| &l.crashes).collect();
    let named = lines.iter().enumerate().find_map(|(k, line)| {
        crashes.iter().find_map(|crash| {
            let rest = match (&crash.starts, &crash.within) {
                (Some(start), _) => line.strip_prefix(start.as_str())?,
                (None, Some(within)) if line.contains(within.as_str()) => "",
                _ => return None,
            };
            match crash.take {
                Take::Line => Some(*line),
                // `"main" java.lang.X: message`: the thread's quoted name, then the exception.
                Take::Rest => Some(
                    rest.strip_prefix('"')
                        .and_then(|r| r.split_once("\" "))
                        .map_or(rest, |(_, exception)| exception),
                ),
                Take::Next => after(k),
                Take::RestOrNext if rest.trim().is_empty() => after(k),
                Take::RestOrNext => Some(rest.trim()),
                Take::NextOrLine => after(k).or(Some(*line)),
            }
        })
    });
    named.map(String::from)
}

/// A failed build's error as one line with its line number, for a language whose errors the
/// table says are told so: `SyntaxError at line 3: invalid syntax`, from the message's last
/// line of that kind and the number after `", line "` on its first line holding that.
pub fn syntax_error(message: &str) -> Option<String> {
    syntax_error_in(table(), message)
}

fn syntax_error_in(rows: &[Language], message: &str) -> Option<String> {
    rows.iter().find_map(|language| {
        let syntax = language.syntax.as_ref()?;
        let last = message.lines().map(str::trim).find(|line| {
            syntax
                .kinds
                .iter()
                .any(|kind| line.starts_with(&format!("{kind}:")))
        })?;
        let (kind, words) = last.split_once(':')?;
        let line = message.lines().find_map(|l| {
            let (_, rest) = l.trim().split_once(syntax.line.as_str())?;
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<u32>()
                .ok()
        })?;
        Some(format!("{kind} at line {line}:{words}"))
    })
}

/// What a suite pins of the table (`[build]` in its suite.toml).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// The languages a submission may be in (default: any of the table).
    #[serde(default)]
    pub languages: Option<Vec<String>>,
    /// The entry point's file, relative to the submission (`project4.py`).
    #[serde(default)]
    pub main: Option<String>,
    /// The Java class with `main` (`Go`, or `edu.uci.Go`).
    #[serde(default)]
    pub main_class: Option<String>,
}

impl Pin {
    /// Names in `languages` the table does not know.
    pub fn unknown_languages(&self) -> Vec<String> {
        self.languages
            .iter()
            .flatten()
            .filter(|name| !table().iter().any(|l| &l.name == *name))
            .cloned()
            .collect()
    }
}

/// A submission's sources, recognised: enough to build and run it.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub language: &'static Language,
    /// The language's source files, relative to the submission's folder, sorted.
    pub sources: Vec<PathBuf>,
    /// The entry point's file, relative.
    pub main: PathBuf,
    /// The Java class with `main`, with its package.
    pub main_class: Option<String>,
}

/// How many source files a submission may hold before it is refused (a student's project has a
/// handful; this keeps a huge folder from being read).
const MAX_SOURCES: usize = 500;

/// The language file `path` is written in, by its extension.
pub fn of_file(path: &Path) -> Option<&'static Language> {
    of_file_in(table(), path)
}

fn of_file_in(rows: &'static [Language], path: &Path) -> Option<&'static Language> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    rows.iter()
        .find(|language| language.extensions.contains(&extension))
}

/// Recognises the sources under `root` (a folder, or one source file): `Err` says in a
/// sentence why they cannot be built as they are.
pub fn recognise(root: &Path, pin: &Pin) -> Result<Recipe, String> {
    recognise_in(table(), root, pin)
}

/// [`recognise`] by the table `rows`.
fn recognise_in(rows: &'static [Language], root: &Path, pin: &Pin) -> Result<Recipe, String> {
    let (folder, files) = if root.is_file() {
        let name = root.file_name().map(PathBuf::from).unwrap_or_default();
        (root.parent().unwrap_or(Path::new(".")), vec![name])
    } else {
        (root, source_files(rows, root)?)
    };
    let allowed = |language: &Language| {
        pin.languages
            .as_ref()
            .is_none_or(|names| names.contains(&language.name))
    };
    let mut found: Vec<(&'static Language, Vec<PathBuf>)> = Vec::new();
    for file in files {
        let Some(language) = of_file_in(rows, &file) else {
            continue;
        };
        match found.iter_mut().find(|(l, _)| l.name == language.name) {
            Some((_, list)) => list.push(file),
            None => found.push((language, vec![file])),
        }
    }
    if found.is_empty() {
        return Err(format!(
            "no source file of a language gridjudge knows ({}) in `{}`: name the program to \
             run instead (`{}/a.out`, `python3 {}/main.py`, ...)",
            known_extensions(rows),
            root.display(),
            root.display(),
            root.display()
        ));
    }
    let refused: Vec<String> = found
        .iter()
        .filter(|(l, _)| !allowed(l))
        .map(|(l, _)| l.title.clone())
        .collect();
    found.retain(|(l, _)| allowed(l));
    if found.is_empty() {
        return Err(format!(
            "the sources are in {}, which this assignment does not take (it takes {})",
            refused.join(" and "),
            pin.languages
                .as_ref()
                .map(|l| l.join(", "))
                .unwrap_or_default()
        ));
    }
    // Several languages: the ones with a written entry point decide (a Python helper script
    // beside a Java program does not make it a Python program).
    let mut recipes: Vec<Result<(Recipe, bool), String>> = found
        .into_iter()
        .map(|(language, mut sources)| {
            sources.sort();
            entry_point(folder, language, sources, pin)
        })
        .collect();
    let written = |r: &Result<(Recipe, bool), String>| r.as_ref().is_ok_and(|(_, w)| *w);
    if recipes.len() > 1 && recipes.iter().filter(|r| written(r)).count() == 1 {
        recipes.retain(written);
    }
    match recipes.len() {
        1 => recipes.remove(0).map(|(recipe, _)| recipe),
        _ => {
            let titles: Vec<String> = recipes
                .iter()
                .map(|recipe| match recipe {
                    Ok((recipe, _)) => {
                        format!("{} ({})", recipe.language.title, recipe.main.display())
                    }
                    Err(_) => "another".into(),
                })
                .collect();
            Err(format!(
                "sources in more than one language: {}; keep one, or say how to run it with \
                 --run",
                titles.join(", ")
            ))
        }
    }
}

fn known_extensions(rows: &[Language]) -> String {
    rows.iter()
        .map(|l| format!(".{}", l.extensions[0]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The files under `folder`, relative, sorted, at most 3 folders deep, hidden folders and
/// links left out.
fn source_files(rows: &'static [Language], folder: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let walk = WalkDir::new(folder)
        .max_depth(4)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0 || !entry.file_name().to_string_lossy().starts_with('.')
        });
    for entry in walk.flatten() {
        if !entry.file_type().is_file() || of_file_in(rows, entry.path()).is_none() {
            continue;
        }
        if files.len() == MAX_SOURCES {
            return Err(format!(
                "more than {MAX_SOURCES} source files in `{}`",
                folder.display()
            ));
        }
        if let Ok(relative) = entry.path().strip_prefix(folder) {
            files.push(relative.to_path_buf());
        }
    }
    Ok(files)
}

/// The recipe of `sources` in `language`, with its entry point found, and whether the entry
/// point is written in it (a `main`) or pinned, rather than guessed from a lone file's name.
fn entry_point(
    folder: &Path,
    language: &'static Language,
    sources: Vec<PathBuf>,
    pin: &Pin,
) -> Result<(Recipe, bool), String> {
    let read = |file: &PathBuf| {
        use std::io::Read;
        let mut text = Vec::new();
        let _ = std::fs::File::open(folder.join(file))
            .and_then(|f| f.take(1 << 20).read_to_end(&mut text));
        String::from_utf8_lossy(&text).into_owned()
    };
    let recipe = |main: PathBuf, main_class: Option<String>| Recipe {
        language,
        sources: sources.clone(),
        main,
        main_class,
    };
    if let Some(main) = &pin.main {
        let main = PathBuf::from(main);
        if !sources.contains(&main) {
            return Err(format!(
                "the assignment's main file `{}` is missing",
                main.display()
            ));
        }
        let class = class_of(language, &main, &read(&main));
        return Ok((recipe(main, pin.main_class.clone().or(class)), true));
    }
    let marker = &language.main;
    let with_main: Vec<&PathBuf> = sources
        .iter()
        .filter(|file| {
            let text = read(file);
            marker.iter().any(|m| text.contains(m))
        })
        .collect();
    let single = (sources.len() == 1).then(|| &sources[0]);
    let by_name = sources.iter().find(|file| {
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        ["main", "Main", "index"].contains(&stem.as_ref())
    });
    let (main, written) = match (with_main.as_slice(), single, by_name) {
        ([one], _, _) => ((*one).clone(), true),
        (_, Some(one), _) => (one.clone(), false),
        (_, _, Some(named)) => (named.clone(), false),
        ([], _, _) => {
            return Err(format!(
                "no {} file with an entry point (`{}`) among {}",
                language.title,
                marker.first().map_or("main", String::as_str),
                list(&sources)
            ))
        }
        (many, _, _) => {
            let many: Vec<PathBuf> = many.iter().map(|p| (*p).clone()).collect();
            return Err(format!(
                "more than one {} entry point: {}; say which with --run",
                language.title,
                list(&many)
            ));
        }
    };
    let class = match &pin.main_class {
        Some(class) => Some(class.clone()),
        None => class_of(language, &main, &read(&main)),
    };
    Ok((recipe(main, class.filter(|_| language.class)), written))
}

fn list(files: &[PathBuf]) -> String {
    let names: Vec<String> = files.iter().map(|f| format!("`{}`", f.display())).collect();
    names.join(", ")
}

/// The class a file of a `language` that runs by class declares, with its package: `edu.Go`
/// for `package edu;` in `Go.java`; `None` for a language that runs otherwise.
fn class_of(language: &Language, file: &Path, text: &str) -> Option<String> {
    if !language.class {
        return None;
    }
    let stem = file.file_stem()?.to_string_lossy().into_owned();
    let package = text.lines().find_map(|line| {
        let line = line.trim();
        let rest = line.strip_prefix("package ")?;
        Some(rest.trim_end_matches(';').trim().to_string())
    });
    Some(match package {
        Some(package) => format!("{package}.{stem}"),
        None => stem,
    })
}

impl Recipe {
    /// The build command, `{build}` being `build`; `None` for a language run from its sources.
    pub fn build_line(&self, build: &Path) -> Option<Vec<OsString>> {
        self.language
            .build
            .as_ref()
            .map(|line| self.expand(line, build))
    }

    /// The command that checks the sources of a language without a build, `{build}` being
    /// `build`.
    pub fn check_line(&self, build: &Path) -> Option<Vec<OsString>> {
        self.language
            .check
            .as_ref()
            .map(|line| self.expand(line, build))
    }

    /// The command that runs the built program (or the script), `{build}` being `build`.
    pub fn run_line(&self, build: &Path) -> Vec<OsString> {
        self.expand(&self.language.run, build)
    }

    fn expand(&self, line: &str, build: &Path) -> Vec<OsString> {
        let build = build.to_string_lossy();
        let mut words = Vec::new();
        for word in line.split_whitespace() {
            if word == "{sources}" {
                words.extend(self.sources.iter().map(|s| s.clone().into_os_string()));
                continue;
            }
            let class = self.main_class.clone().unwrap_or_default();
            let word = word
                .replace("{build}", &build)
                .replace("{main_class}", &class)
                .replace("{main}", &self.main.to_string_lossy());
            words.push(OsString::from(word));
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_row_is_complete() {
        let table: Table = toml::from_str(include_str!("../languages.toml")).unwrap();
        let names: Vec<&str> = table.language.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["c", "cpp", "java", "csharp", "rust", "python", "javascript"]
        );
        assert_eq!(super::table().len(), names.len());
        for language in table.language {
            assert!(!language.extensions.is_empty() && !language.run.is_empty());
        }
    }

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn sources_are_recognised_by_extension_and_entry_point() {
        let any = Pin::default();
        let java = folder(&[
            (
                "src/edu/Go.java",
                "package edu;\nclass Go { public static void main(String[] a) {} }",
            ),
            ("src/edu/Board.java", "package edu;\nclass Board {}"),
            ("tools/plot.py", "print(1)"),
        ]);
        let recipe = recognise(java.path(), &any).unwrap();
        assert_eq!(recipe.language.name, "java");
        assert_eq!(recipe.main_class.as_deref(), Some("edu.Go"));
        assert_eq!(recipe.sources.len(), 2);
        let line = recipe.build_line(Path::new("/b")).unwrap();
        assert_eq!(
            line,
            [
                "javac",
                "-encoding",
                "UTF-8",
                "-d",
                "/b",
                "src/edu/Board.java",
                "src/edu/Go.java"
            ]
            .map(OsString::from)
        );
        assert_eq!(recipe.run_line(Path::new("/b")).last().unwrap(), "edu.Go");

        let cpp = folder(&[("go.cpp", "int main() {}"), ("board.h", "")]);
        let recipe = recognise(cpp.path(), &any).unwrap();
        assert_eq!(
            (recipe.language.name.as_str(), recipe.main.to_str()),
            ("cpp", Some("go.cpp"))
        );
        assert_eq!(
            recipe.run_line(Path::new("/b")),
            [OsString::from("/b/main")]
        );

        let python = folder(&[("project4.py", "import game\n"), ("game.py", "")]);
        let err = recognise(python.path(), &any).unwrap_err();
        assert!(err.contains("no Python file with an entry point"), "{err}");
        let pinned = Pin {
            main: Some("project4.py".into()),
            ..Pin::default()
        };
        assert_eq!(
            recognise(python.path(), &pinned).unwrap().main,
            PathBuf::from("project4.py")
        );

        let only_java = Pin {
            languages: Some(vec!["java".into(), "cpp".into()]),
            ..Pin::default()
        };
        let err = recognise(python.path(), &only_java).unwrap_err();
        assert!(
            err.contains("Python, which this assignment does not take"),
            "{err}"
        );
        let empty = folder(&[("notes.txt", "")]);
        assert!(recognise(empty.path(), &any)
            .unwrap_err()
            .contains("no source file"));
        let two = folder(&[
            ("a.c", "int main(){}"),
            ("b.py", "if __name__ == '__main__': pass"),
        ]);
        assert!(recognise(two.path(), &any)
            .unwrap_err()
            .contains("more than one language"));
    }

    /// A command that runs a source file of the folder under its interpreter is checked as
    /// the file would be; a file elsewhere, another interpreter, or a built language is not.
    #[test]
    fn a_command_that_runs_a_python_file_of_the_folder_is_checked_as_the_file() {
        let dir = folder(&[("go.py", "print(1)\n"), ("main.c", "int main(){}")]);
        let words =
            |line: &str| -> Vec<OsString> { line.split_whitespace().map(OsString::from).collect() };
        let check = check_of_command(dir.path(), &words("python3 go.py 3"), Path::new("/c"));
        assert_eq!(
            check,
            Some(words("python3 -X pycache_prefix=/c -m py_compile go.py"))
        );
        for other in [
            "python3 other.py",
            "python3 -u go.py",
            "python3 ../go.py",
            "pypy3 go.py",
            "./main.c",
            "go.py",
        ] {
            assert_eq!(
                check_of_command(dir.path(), &words(other), Path::new("/c")),
                None,
                "{other}"
            );
        }
    }

    /// A language the table gains as a row and nothing else (no Rust code names it): its
    /// sources recognised by its extension, a file of it run by its interpreter, its check and
    /// its run as the row says, for real, its crash named as its runtime words it, and a
    /// failed build told with its line.
    #[test]
    fn a_row_alone_is_a_language() {
        let row = r#"
[[language]]
name = "perl"
title = "Perl"
extensions = ["pl"]
tool = "perl"
check = "perl -c {sources}"
run = "perl {main}"
interpreters = { pl = "perl" }
crashes = [{ sign = "Died at ", starts = "Died at ", take = "line" }]
syntax = { kinds = ["syntax error"], line = " line " }
"#;
        let text = format!("{}{row}", include_str!("../languages.toml"));
        let rows: &'static [Language] = Box::leak(parse(&text).unwrap().into_boxed_slice());
        let dir = folder(&[
            ("main.pl", "print \"hello\\n\";\ndie;\n"),
            ("notes.txt", ""),
        ]);
        let recipe = recognise_in(rows, dir.path(), &Pin::default()).unwrap();
        assert_eq!(recipe.language.name, "perl");
        assert_eq!(recipe.main, PathBuf::from("main.pl"));
        assert_eq!(interpreter_in(rows, "pl"), ["perl"]);
        assert_eq!(
            syntax_error_in(rows, "the build failed\n$ perl -c main.pl\nsyntax error: at main.pl line 4, near \"}\"\n"),
            Some("syntax error at line 4: at main.pl line 4, near \"}\"".into())
        );
        let perl = std::process::Command::new("perl").arg("-v").output();
        if perl.is_err() {
            eprintln!("skipped: the row is not run: perl is not installed");
            return;
        }
        let build = tempfile::tempdir().unwrap();
        let run = |line: Vec<OsString>| {
            std::process::Command::new(&line[0])
                .args(&line[1..])
                .current_dir(dir.path())
                .output()
                .unwrap()
        };
        let checked = run(recipe.check_line(build.path()).unwrap());
        assert!(checked.status.success(), "{checked:?}");
        let ran = run(recipe.run_line(build.path()));
        assert_eq!(ran.stdout, b"hello\n");
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert!(crashed_in(rows, &stderr), "{stderr}");
        assert_eq!(
            exception_in(rows, &stderr).as_deref(),
            Some("Died at main.pl line 2.")
        );
        // The table as shipped knows no such language.
        assert!(exception(&stderr).is_none() && !crashed(&stderr));
    }
}
