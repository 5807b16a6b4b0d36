//! `cargo xtask bench --similar`: how well the similarity report tells copies from independent
//! work, against Dolos, one class of disguise at a time.
//!
//! The class is made of independently written solutions of each spec, in different styles
//! (`xtask/bench/similar/<spec>/*.py` and `xtask/bench/go.py`), and of a disguised copy of each,
//! made by `xtask/bench/similar/disguise.py` one disguise at a time (renamed identifiers,
//! reordered functions, changed comments and layout, dead code, loops rewritten, statements
//! split or joined, all of them). Each copy must print what its original prints on the spec's
//! handout inputs, or the bench stops. Per disguise and spec, each tool scores every pair of
//! the folder; the positives are an original and its copy, the negatives every other pair of
//! the same spec. The table gives, per disguise, each tool's area under the ROC curve (the
//! chance that a copy outscores an independent pair, ties counting half), its recall at the
//! highest score an independent pair reaches (the copies found with no false alarm), and the
//! time its analyses took in process. Dolos is its library, `@dodona/dolos-lib`, installed
//! with npm into the target folder and driven by `dolos.mjs` with its default settings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::rings;
use super::separation::{separation_of, DolosScores, Scores, Separation, DISGUISES};
use crate::error::Error;

/// The Dolos release measured against.
const DOLOS: &str = "@dodona/dolos-lib@3.5.1";

/// The figures of the bench, and whether gridjudge did worse than Dolos anywhere.
pub struct SimilarFigures {
    pub text: String,
    pub worse_than_dolos: bool,
}

/// Runs the bench: the classes are written under a temporary folder, Dolos into `target/`.
pub fn similar_bench() -> Result<SimilarFigures, Error> {
    let root = crate::workspace::root();
    let bench = root.join("xtask/bench/similar");
    let originals = originals(&root, &bench)?;
    let temporary = tempfile::tempdir().map_err(|err| Error::io(Path::new("/tmp"), err))?;
    let classes = temporary.path();
    disguise(&bench, &[classes.as_os_str()], &originals)?;
    check_behaviour(&root, classes, &originals)?;
    let specs: Vec<&str> = {
        let mut specs: Vec<&str> = originals.iter().map(|(s, _)| s.as_str()).collect();
        specs.dedup();
        specs
    };
    let folders: Vec<PathBuf> = DISGUISES
        .iter()
        .flat_map(|d| specs.iter().map(move |s| classes.join(d).join(s)))
        .collect();
    let rings = rings::write(classes, &classes.join("rings"), &originals)?;
    let ring_folders: Vec<PathBuf> = rings.iter().map(|r| r.folder.clone()).collect();
    let dolos = dolos_scores(&[folders.clone(), ring_folders.clone()].concat());
    let mut text = format!(
        "{} originals ({} specs), a disguised copy of each per disguise; AUC: the chance a copy \
         outscores an independent pair; recall: copies above every independent pair; margin: \
         the lowest copy's score less the highest independent pair's\n\n",
        originals.len(),
        specs.len()
    );
    text += &format!(
        "{:<11} {:>13} {:>7} {:>7} {:>9}   {:>9} {:>7} {:>7} {:>9}\n",
        "disguise",
        "gridjudge AUC",
        "recall",
        "margin",
        "time",
        "Dolos AUC",
        "recall",
        "margin",
        "time"
    );
    let (rows, worse, flagged, pairs) = table_rows(&folders, dolos.as_ref().ok())?;
    text += &rows;
    text += &format!(
        "\nflagged for their code by similar (at {}): {} of {} copies, {} of {} independent \
         pairs\n",
        similarity::Options::default().code_flag,
        flagged.0,
        pairs.0,
        flagged.1,
        pairs.1
    );
    let mut ours_rings = BTreeMap::new();
    for folder in &ring_folders {
        ours_rings.insert(folder.clone(), gridjudge_scores(&[folder])?);
    }
    let (ring_rows, ring_worse) = rings::rows(&rings, &ours_rings, dolos.as_ref().ok());
    text += &format!(
        "\nrings: an original and disguised copies of it in a class of independent work; the \
         positives are the pairs of a ring\n\n{:<40} {:>6} {:>7} {:>7} {:>9}   {:>6} {:>7} {:>7} {:>9}\n",
        "class", "AUC", "recall", "margin", "time", "Dolos", "recall", "margin", "time"
    );
    text += &ring_rows;
    let mut worse: Vec<String> = worse.iter().map(|d| d.to_string()).collect();
    worse.extend(ring_worse);
    text += &class_timings(&bench, &originals)?;
    match (&dolos, worse.is_empty()) {
        (Err(why), _) => text += &format!("\nDolos was not measured: {why}\n"),
        (Ok(_), true) => {
            text += "\ngridjudge separates copies from independent work at least as well as \
                     Dolos on every disguise and every ring class\n"
        }
        (Ok(_), false) => {
            text += &format!(
                "\ngridjudge separates worse than Dolos on: {}\n",
                worse.join(", ")
            )
        }
    }
    Ok(SimilarFigures {
        text,
        worse_than_dolos: !worse.is_empty(),
    })
}

/// Per disguise, a row of the table; the disguises where gridjudge did worse than Dolos; and
/// the copies and the independent pairs flagged, of how many, over all disguises.
#[allow(clippy::type_complexity)] // The bench's own tallies, read once by its caller.
fn table_rows(
    folders: &[PathBuf],
    dolos: Option<&DolosScores>,
) -> Result<(String, Vec<&'static str>, (usize, usize), (usize, usize)), Error> {
    let mut text = String::new();
    let mut worse = Vec::new();
    let (mut flagged, mut pairs) = ((0, 0), (0, 0));
    for disguise in DISGUISES {
        let ours_folders: Vec<&PathBuf> = folders
            .iter()
            .filter(|f| f.parent().is_some_and(|p| p.ends_with(disguise)))
            .collect();
        let (ours_scores, seconds) = gridjudge_scores(&ours_folders)?;
        let ours = separation(&ours_scores, seconds);
        flagged = (flagged.0 + ours.flagged.0, flagged.1 + ours.flagged.1);
        pairs = (pairs.0 + ours.pairs.0, pairs.1 + ours.pairs.1);
        let theirs = dolos.map(|(scores, times)| {
            let scores: Scores = ours_folders
                .iter()
                .flat_map(|f| scores.get(*f).cloned().unwrap_or_default())
                .collect();
            let seconds = ours_folders.iter().filter_map(|f| times.get(*f)).sum();
            separation(&scores, seconds)
        });
        text += &format!(
            "{:<11} {:>13.3} {:>7.2} {:>+7.2} {:>7.3} s",
            disguise, ours.auc, ours.recall, ours.margin, ours.seconds
        );
        match theirs {
            Some(theirs) => {
                text += &format!(
                    "   {:>9.3} {:>7.2} {:>+7.2} {:>7.3} s\n",
                    theirs.auc, theirs.recall, theirs.margin, theirs.seconds
                );
                if ours.auc < theirs.auc || ours.recall < theirs.recall {
                    worse.push(disguise);
                }
            }
            None => text += "   (not measured)\n",
        }
    }
    Ok((text, worse, flagged, pairs))
}

/// The class sizes timed, and the seconds `similar`'s analysis takes on each.
const CLASS_SIZES: [usize; 3] = [125, 250, 500];

/// How the analysis's time grows with the class: a class of disguised copies of the originals
/// (every combination of the disguises), timed in process at each of [`CLASS_SIZES`].
fn class_timings(bench: &Path, originals: &[(String, PathBuf)]) -> Result<String, Error> {
    let temporary = tempfile::tempdir().map_err(|err| Error::io(Path::new("/tmp"), err))?;
    let largest = CLASS_SIZES[CLASS_SIZES.len() - 1].to_string();
    let leading = [
        "--class".as_ref(),
        temporary.path().as_os_str(),
        largest.as_ref(),
    ];
    disguise(bench, &leading, originals)?;
    let files = python_files(temporary.path())?;
    let mut text = String::from(
        "
the analysis of a class (its files read, every pair scored):",
    );
    for size in CLASS_SIZES {
        let started = Instant::now();
        let students = files
            .iter()
            .take(size)
            .map(|path| {
                let id = path.file_name().unwrap_or_default().to_string_lossy();
                student(path, id.into_owned())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let analysis = similarity::analyse(&students, &[], &similarity::Options::default());
        text += &format!(
            " {size} submissions {:.2} s ({} pairs);",
            started.elapsed().as_secs_f64(),
            analysis.pairs.len()
        );
    }
    text.pop();
    text.push('\n');
    Ok(text)
}

/// Runs `disguise.py` with `leading` arguments, then each original as `SPEC:PATH`.
fn disguise(
    bench: &Path,
    leading: &[&std::ffi::OsStr],
    originals: &[(String, PathBuf)],
) -> Result<(), Error> {
    let mut command = Command::new("python3");
    command.arg(bench.join("disguise.py")).args(leading);
    command.args(
        originals
            .iter()
            .map(|(spec, path)| format!("{spec}:{}", path.display())),
    );
    run_quietly(&mut command, "python3 disguise.py")
}

/// A student whose one file is the Python file at `path`, named `id`.
fn student(path: &Path, id: String) -> Result<similarity::Student, Error> {
    let text = std::fs::read_to_string(path).map_err(|err| Error::io(path, err))?;
    Ok(similarity::Student {
        sources: vec![similarity::Source {
            path: id.clone(),
            grammar: similarity::Grammar::Python,
            text,
        }],
        id,
        outputs: None,
    })
}

/// The originals, as (spec, path), sorted by spec.
fn originals(root: &Path, bench: &Path) -> Result<Vec<(String, PathBuf)>, Error> {
    let mut found = vec![("go".to_string(), root.join("xtask/bench/go.py"))];
    for entry in walkdir::WalkDir::new(bench).min_depth(2).max_depth(2) {
        let entry = entry.map_err(|err| Error::io(bench, err.into()))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "py") {
            let spec = path
                .parent()
                .and_then(|p| p.file_name())
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            found.push((spec, path.to_path_buf()));
        }
    }
    found.sort();
    Ok(found)
}

/// Every copy prints what its original prints on its spec's handout inputs.
fn check_behaviour(
    root: &Path,
    classes: &Path,
    originals: &[(String, PathBuf)],
) -> Result<(), Error> {
    for (spec, path) in originals {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let inputs: Vec<PathBuf> = std::fs::read_dir(root.join("cases").join(spec).join("handout"))
            .map_err(|err| Error::io(&root.join("cases").join(spec), err))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        for disguise in DISGUISES {
            let folder = classes.join(disguise).join(spec);
            let (original, copy) = (
                folder.join(format!("{stem}.orig.py")),
                folder.join(format!("{stem}.py")),
            );
            for input in &inputs {
                if python_output(&original, input)? != python_output(&copy, input)? {
                    return Err(Error::Measure(format!(
                        "the {disguise} copy of `{}` prints something else on `{}`",
                        path.display(),
                        input.display()
                    )));
                }
            }
        }
    }
    Ok(())
}

fn python_output(program: &Path, input: &Path) -> Result<Vec<u8>, Error> {
    let stdin = std::fs::File::open(input).map_err(|err| Error::io(input, err))?;
    let output = Command::new("python3")
        .arg(program)
        .stdin(stdin)
        .stderr(Stdio::null())
        .output()
        .map_err(|err| Error::io(program, err))?;
    Ok(output.stdout)
}

fn run_quietly(command: &mut Command, what: &str) -> Result<(), Error> {
    let output = command
        .output()
        .map_err(|err| Error::Measure(format!("could not start {what}: {err}")))?;
    if !output.status.success() {
        return Err(Error::Measure(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(())
}

/// gridjudge's scores of every pair of each folder (each file a student), and the seconds
/// its analyses took, reading the files included.
fn gridjudge_scores(folders: &[&PathBuf]) -> Result<(Scores, f64), Error> {
    let mut scores = Scores::new();
    let mut seconds = 0.0;
    for folder in folders {
        let started = Instant::now();
        let students = python_files(folder)?
            .iter()
            .map(|path| student(path, path.display().to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let options = similarity::Options {
            detailed: 0,
            ..similarity::Options::default()
        };
        let analysis = similarity::analyse(&students, &[], &options);
        seconds += started.elapsed().as_secs_f64();
        let mut these = all_pairs(&students.iter().map(|s| s.id.clone()).collect::<Vec<_>>());
        for pair in analysis.pairs {
            these.insert(
                key(&pair.left, &pair.right),
                pair.code.map_or(0.0, |c| c.score),
            );
        }
        scores.extend(these);
    }
    Ok((scores, seconds))
}

fn python_files(folder: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|err| Error::io(folder, err))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    Ok(files)
}

/// Every pair of `ids`, scored 0: a pair a tool does not list shares nothing.
fn all_pairs(ids: &[String]) -> Scores {
    let mut pairs = Scores::new();
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            pairs.insert(key(a, b), 0.0);
        }
    }
    pairs
}

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Dolos's scores per folder, and the seconds each analysis took; or why Dolos could not run.
fn dolos_scores(folders: &[PathBuf]) -> Result<DolosScores, String> {
    let place = crate::workspace::target_dir()
        .join("bench-similar")
        .join("dolos");
    if !place.join("node_modules/@dodona/dolos-lib").is_dir() {
        std::fs::create_dir_all(&place).map_err(|err| err.to_string())?;
        let mut install = Command::new("npm");
        install.current_dir(&place).args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            DOLOS,
        ]);
        run_quietly(&mut install, &format!("npm install {DOLOS}")).map_err(|e| e.to_string())?;
    }
    let script = place.join("dolos.mjs");
    let source = crate::workspace::root().join("xtask/bench/similar/dolos.mjs");
    std::fs::copy(&source, &script).map_err(|err| err.to_string())?;
    let output = Command::new("node")
        .arg(&script)
        .args(folders)
        .stderr(Stdio::piped())
        .output()
        .map_err(|err| format!("could not start node: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "node dolos.mjs failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let (mut scores, mut times) = (BTreeMap::new(), BTreeMap::new());
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|err| format!("dolos.mjs printed `{line}`: {err}"))?;
        let folder = PathBuf::from(value["folder"].as_str().unwrap_or_default());
        let files = python_files(&folder).map_err(|e| e.to_string())?;
        let ids: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let mut these = all_pairs(&ids);
        for pair in value["pairs"].as_array().into_iter().flatten() {
            let (left, right) = (
                pair["left"].as_str().unwrap_or_default(),
                pair["right"].as_str().unwrap_or_default(),
            );
            these.insert(key(left, right), pair["similarity"].as_f64().unwrap_or(0.0));
        }
        times.insert(folder.clone(), value["seconds"].as_f64().unwrap_or(0.0));
        scores.insert(folder, these);
    }
    Ok((scores, times))
}

/// The separation of `scores`: a pair is a copy when one file is the other's `.orig.py`.
fn separation(scores: &Scores, seconds: f64) -> Separation {
    let is_copy = |(a, b): &(String, String)| {
        a.strip_suffix(".orig.py") == b.strip_suffix(".py")
            || b.strip_suffix(".orig.py") == a.strip_suffix(".py")
    };
    separation_of(scores, seconds, is_copy)
}
