//! `cargo xtask export --spec S --out DIR`: a built-in suite as a problem package
//! (`2023-07-draft`, a scoring problem) that Kattis's verifyproblem accepts.
//!
//! - `problem.yaml`, with a uuid fixed per spec, and `statement/problem.en.md` from
//!   `docs/specs/S.md`;
//! - `data/sample` from the handout group, `data/secret/<group>` from every graded group (the
//!   handout again among them), each group's points its score, all or nothing as the format
//!   scores a group (gridjudge scores the fraction of a group's cases that pass);
//! - an output validator enforcing the suite's compare rule (`exact` or
//!   `ignore_trailing_spaces`), stricter than the format's default validator, which ignores
//!   all spacing;
//! - an input validator per spec (`export/input/S.py`): every graded input passes it, the
//!   malformed ones the spec leaves unspecified do not;
//! - `submissions/accepted` (an independent Python solution) and `submissions/wrong_answer`
//!   (misreadings of the handout made from it, see [`super::programs`]).
//!
//! The package is written beside `DIR` and renamed into place: never a partial one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::Digest;

use super::programs;
use crate::corpus::{discover, CompareMode, Suite};
use crate::error::Error;

const VALIDATOR: &str = include_str!("../../export/validate.cpp");

/// The first line of every exported `problem.yaml`: what `export` may replace.
const MARK: &str = "# Exported by gridjudge";

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct Exported {
    pub dir: PathBuf,
    pub samples: usize,
    pub secret: usize,
    pub wrong: usize,
}

/// Writes the built-in suite `spec` of the corpus at `root` as a package at `out`.
pub fn export(root: &Path, spec: &str, out: &Path) -> Result<Exported, Error> {
    let suite = crate::corpus::find(root, spec)?;
    let programs = programs::of(spec)
        .filter(|_| suite.is_built_in())
        .ok_or_else(|| {
            Error::Usage(format!(
            "--spec {spec}: export writes the built-in specs whose solutions, wrong programs and \
             input validators it ships ({})",
            programs::specs().join(", ")
        ))
        })?;
    refuse_foreign(out)?;
    let statement = crate::workspace::root()
        .join("docs/specs")
        .join(format!("{spec}.md"));
    let statement =
        std::fs::read_to_string(&statement).map_err(|err| Error::io(&statement, err))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|err| Error::io(&parent, err))?;
    let work = tempfile::Builder::new()
        .prefix(".export-")
        .tempdir_in(&parent)
        .map_err(|err| Error::io(&parent, err))?;
    let dir = work.path();
    let write = |path: &str, text: &[u8]| -> Result<(), Error> {
        let path = dir.join(path);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|err| Error::io(folder, err))?;
        }
        std::fs::write(&path, text).map_err(|err| Error::io(&path, err))
    };
    let (samples, secret, yamls) = data(&suite)?;
    for (path, bytes) in samples.iter().chain(&secret) {
        write(path, bytes)?;
    }
    for (path, text) in yamls {
        write(&path, text.as_bytes())?;
    }
    write("problem.yaml", problem_yaml(&suite, &statement).as_bytes())?;
    write(
        "statement/problem.en.md",
        without_tables(&statement).as_bytes(),
    )?;
    write("output_validator/validate.cpp", VALIDATOR.as_bytes())?;
    write(
        &format!("input_validators/{spec}/validate.py"),
        programs.input_validator.as_bytes(),
    )?;
    let fixed = programs::source(programs.solution, programs.fixes)?;
    write(
        &format!("submissions/accepted/{}", programs.name),
        fixed.as_bytes(),
    )?;
    for (name, misreading, edits) in programs.wrong {
        let text = format!(
            "# A wrong {spec}: {misreading}.\n{}",
            programs::source(&fixed, edits)?
        );
        write(
            &format!("submissions/wrong_answer/{name}.py"),
            text.as_bytes(),
        )?;
    }
    let kept = work.keep();
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|err| Error::io(out, err))?;
    }
    std::fs::rename(&kept, out).map_err(|err| Error::io(out, err))?;
    Ok(Exported {
        dir: out.to_path_buf(),
        samples: samples.len() / 2,
        secret: secret.len() / 2,
        wrong: programs.wrong.len(),
    })
}

/// `out` must be absent, empty, or an earlier export.
fn refuse_foreign(out: &Path) -> Result<(), Error> {
    let empty = std::fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none());
    let ours = std::fs::read_to_string(out.join("problem.yaml")).is_ok_and(|t| t.starts_with(MARK));
    if out.exists() && !empty && !ours {
        return Err(Error::Usage(format!(
            "--out `{}` exists and is not a package gridjudge exported: choose another folder",
            out.display()
        )));
    }
    Ok(())
}

/// Files of `data/`: (path in the package, contents).
type Files = Vec<(String, Vec<u8>)>;

/// The files of `data/`: samples, secret cases, and each `testdata.yaml`.
type Data = (Files, Files, Vec<(String, String)>);

fn data(suite: &Suite) -> Result<Data, Error> {
    let cases: Vec<_> = discover(suite)?
        .into_iter()
        .filter(|case| case.graded && !case.hidden)
        .collect();
    let read = |path: &Path| std::fs::read(path).map_err(|err| Error::io(path, err));
    let (mut samples, mut secret) = (Vec::new(), Vec::new());
    for case in &cases {
        let (input, answer) = (read(&case.input)?, read(&case.expected)?);
        if case.group == "handout" {
            samples.push((format!("data/sample/{}.in", case.name), input.clone()));
            samples.push((format!("data/sample/{}.ans", case.name), answer.clone()));
        }
        let stem = format!("data/secret/{}/{}", case.group, case.name);
        secret.push((format!("{stem}.in"), input));
        secret.push((format!("{stem}.ans"), answer));
    }
    let flag = match suite.file.compare {
        CompareMode::IgnoreTrailingSpaces => "ignore_trailing_spaces",
        _ => "exact",
    };
    let groups: Vec<(&String, f64)> = suite
        .file
        .groups
        .iter()
        .filter(|(group, _)| cases.iter().any(|case| &case.group == *group))
        .map(|(group, points)| (group, *points))
        .collect();
    let total: f64 = groups.iter().map(|(_, points)| points).sum();
    let mut yamls = vec![
        (
            "data/testdata.yaml".to_string(),
            format!(
                "on_reject: continue\nrange: 0 {total}\ngrader_flags: ignore_sample\n\
                 output_validator_flags: {flag}\n"
            ),
        ),
        (
            "data/sample/testdata.yaml".to_string(),
            "on_reject: continue\nrange: 0 0\naccept_score: 0\ngrader_flags: first_error\n".into(),
        ),
        (
            "data/secret/testdata.yaml".to_string(),
            format!("on_reject: continue\nrange: 0 {total}\ngrader_flags: first_error\n"),
        ),
    ];
    for (group, points) in groups {
        yamls.push((
            format!("data/secret/{group}/testdata.yaml"),
            format!(
                "# gridjudge group `{group}`: {points} points when every case passes\n\
                 on_reject: break\naccept_score: {points}\nrange: 0 {points}\ngrader_flags: min\n"
            ),
        ));
    }
    Ok((samples, secret, yamls))
}

/// `problem.yaml`: the spec's title, a uuid fixed per spec, the suite's limits.
fn problem_yaml(suite: &Suite, statement: &str) -> String {
    let title = statement
        .lines()
        .find_map(|line| line.strip_prefix("# "))
        .unwrap_or(&suite.name)
        .replace(['"', '\\'], "");
    let origin = statement
        .lines()
        .find_map(|line| line.strip_prefix("Origin: "))
        .unwrap_or("a course handout")
        .replace(['"', '\\'], "");
    let mut yaml = String::new();
    let _ = writeln!(yaml, "{MARK} from its suite `{}`.", suite.name);
    let _ = writeln!(yaml, "problem_format_version: 2023-07-draft");
    let _ = writeln!(yaml, "uuid: {}", uuid(&suite.name));
    let _ = writeln!(yaml, "type: scoring");
    let _ = writeln!(yaml, "name:\n  en: \"{title}\"");
    let _ = writeln!(yaml, "source: \"{origin}\"");
    // The handouts are the courses'; the statement is gridjudge's account of them.
    let _ = writeln!(yaml, "license: unknown");
    let _ = writeln!(yaml, "limits:");
    let _ = writeln!(yaml, "  time_limit: {}", suite.file.timeout);
    let _ = writeln!(yaml, "  memory: {}", suite.file.limits.memory_mib);
    yaml
}

/// A uuid that is the same at every export of `spec` (a hash, with the version-8 bits).
fn uuid(spec: &str) -> String {
    let hash = sha2::Sha256::digest(format!("gridjudge export {spec}").as_bytes());
    let mut bytes: [u8; 16] = hash[..16].try_into().unwrap_or_default();
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = crate::files::to_hex(&bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The statement with each Markdown table written as a list, one item per row: the LaTeX that
/// problemtools makes of a table with long cells (through pandoc) does not compile in its
/// template.
fn without_tables(markdown: &str) -> String {
    let mut out = String::new();
    let mut header = true;
    for line in markdown.lines() {
        let Some(row) = line.trim().strip_prefix('|') else {
            header = true;
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let cells: Vec<&str> = row
            .trim_end_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        let rule = cells
            .iter()
            .all(|cell| cell.chars().all(|c| matches!(c, '-' | ':')));
        if !std::mem::take(&mut header) && !rule {
            out.push_str(&format!("- {}\n", cells.join(": ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_becomes_a_list_and_the_rest_stays() {
        let text = "Files:\n\n| file | what |\n|---|---|\n| `a.in` | the first |\n| `b.in` | \
                    the second |\n\nAfter.\n";
        assert_eq!(
            without_tables(text),
            "Files:\n\n- `a.in`: the first\n- `b.in`: the second\n\nAfter.\n"
        );
    }

    #[test]
    fn the_uuid_is_fixed_per_spec_and_well_formed() {
        let (go, columns) = (uuid("go"), uuid("columns"));
        assert_eq!(go, uuid("go"));
        assert_ne!(go, columns);
        let parts: Vec<usize> = go.split('-').map(str::len).collect();
        assert_eq!(parts, [8, 4, 4, 4, 12]);
        assert_eq!(&go[14..15], "8");
    }
}
