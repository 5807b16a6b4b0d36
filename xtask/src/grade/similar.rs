//! `cargo xtask similar`: similarity across a class, for the instructor. Each submission of the
//! folder (as `grade` finds them: folders, archives, lone sources, under the same ids) is read
//! for its source files, within a budget; with the folder of a grading of the same class
//! (`--grades`), each student's wrong outputs come from its result files. The `similarity`
//! crate ranks the pairs; `report` draws them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use similarity::{Grammar, Outputs, Source, Student, WrongOutput};

use super::cache::read_result;
use super::folder::scan;
use crate::corpus::Shard;
use crate::error::Error;
use crate::files::write_atomically;
use crate::report::{Similarity, WrongLine, SHOWN_PAIRS};

/// What a similarity check is asked.
#[derive(Debug, Clone)]
pub struct SimilarOptions {
    pub submissions: PathBuf,
    /// The output folder of a grading of the same submissions (its `results/`), if any.
    pub grades: Option<PathBuf>,
    /// The instructor's starter code: none of it counts.
    pub base: Option<PathBuf>,
    pub shard: Option<Shard>,
    /// A fingerprint held by more than this share of the class counts for nothing.
    pub common: f64,
}

/// The share of the class above which a fingerprint is common to the assignment, unless asked.
pub const COMMON: f64 = 0.2;

/// What one submission's sources may cost to read: a submission is the student's to fill.
const MOST_ENTRIES: usize = 2000;
const MOST_FILES: usize = 200;
const MOST_FILE_BYTES: u64 = 1 << 20;
const MOST_BYTES: u64 = 16 << 20;

/// The similarity report of the class of `options`.
pub fn similar(options: &SimilarOptions) -> Result<Similarity, Error> {
    let found = scan(&options.submissions, options.shard.as_ref())?;
    // No class, no report: the last one stays as it was.
    if found.found.is_empty() {
        return Err(Error::Usage(format!(
            "--submissions `{}` holds no submission (a folder, archive or source file per student)",
            options.submissions.display()
        )));
    }
    let mut notes: Vec<String> = found
        .skipped
        .iter()
        .map(|(name, why)| format!("`{name}` is not a submission: {why}"))
        .collect();
    notes.extend(found.files_as_students(&options.submissions));
    let mut students = Vec::new();
    for (id, folder) in &found.found {
        match folder {
            Ok(folder) => {
                let (sources, note) = read_sources(folder);
                notes.extend(note.map(|note| format!("`{id}`: {note}")));
                students.push(Student {
                    id: id.clone(),
                    sources,
                    outputs: None,
                });
            }
            Err(why) => notes.push(format!("`{id}` was not read: {why}")),
        }
    }
    let base = match &options.base {
        Some(base) if base.is_dir() => read_sources(base).0,
        Some(base) => {
            return Err(Error::Usage(format!(
                "--base `{}`: not a folder of starter code",
                base.display()
            )))
        }
        None => Vec::new(),
    };
    let results = match &options.grades {
        Some(out) => read_outputs(&out.join("results"), &mut students, &mut notes)?,
        None => {
            notes.push(
                "mistakes: not compared (give --grades OUT, the folder of a grading of this \
                 class, to compare the wrong outputs of its students)"
                    .into(),
            );
            BTreeMap::new()
        }
    };
    let settings = similarity::Options {
        settings: similarity::Settings {
            common: options.common,
            ..similarity::Settings::default()
        },
        detailed: SHOWN_PAIRS,
        ..similarity::Options::default()
    };
    let analysis = similarity::analyse(&students, &base, &settings);
    for summary in analysis.students.iter().filter(|s| s.files == 0) {
        notes.push(format!(
            "`{}`: no source file of a language gridjudge reads",
            summary.id
        ));
    }
    Ok(shown(analysis, &students, &results, notes))
}

/// Each student's wrong outputs, from the grading's result files, by (student, case).
fn read_outputs(
    results_dir: &Path,
    students: &mut [Student],
    notes: &mut Vec<String>,
) -> Result<BTreeMap<(String, String), WrongLine>, Error> {
    if !results_dir.is_dir() {
        return Err(Error::Usage(format!(
            "--grades: `{}` holds no results/ folder: give the --out folder of `grade`",
            results_dir.parent().unwrap_or(results_dir).display()
        )));
    }
    let mut lines = BTreeMap::new();
    for student in students.iter_mut() {
        let Ok(file) = read_result(results_dir, &student.id) else {
            notes.push(format!(
                "`{}`: no result in the grading, so its mistakes are not compared",
                student.id
            ));
            continue;
        };
        let mut outputs = Outputs::default();
        for (case, wrong) in file.outputs {
            // An output cut short says nothing of its author but where the program stopped.
            if wrong.cut_short {
                continue;
            }
            outputs.wrong.push(WrongOutput {
                case: case.clone(),
                output: wrong.digest,
                common: wrong.misread,
                wrong_bytes: wrong.wrong_bytes,
            });
            let line = WrongLine {
                line: wrong.line,
                expected: wrong.expected,
                actual: wrong.actual,
            };
            lines.insert((student.id.clone(), case), line);
        }
        student.outputs = Some(outputs);
    }
    Ok(lines)
}

/// The report, with the sources and wrong lines its shown pairs point at.
fn shown(
    analysis: similarity::Analysis,
    students: &[Student],
    results: &BTreeMap<(String, String), WrongLine>,
    notes: Vec<String>,
) -> Similarity {
    let by_id: BTreeMap<&str, &Student> = students.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut sources = BTreeMap::new();
    let mut wrong = BTreeMap::new();
    for pair in analysis.pairs.iter().take(SHOWN_PAIRS) {
        for id in [&pair.left, &pair.right] {
            for source in by_id.get(id.as_str()).map_or(&[][..], |s| &s.sources[..]) {
                sources.insert((id.clone(), source.path.clone()), source.text.clone());
            }
        }
        for case in pair.behaviour.iter().flat_map(|b| &b.cases) {
            let key = (pair.left.clone(), case.case.clone());
            if let Some(line) = results.get(&key) {
                wrong.insert(key, line.clone());
            }
        }
    }
    Similarity {
        analysis,
        sources,
        wrong,
        notes,
    }
}

/// The source files under `folder` of a language the parsers read, within the budget; and a
/// note if the budget left some out.
fn read_sources(folder: &Path) -> (Vec<Source>, Option<String>) {
    let mut sources = Vec::new();
    let mut bytes = 0;
    let walk = walkdir::WalkDir::new(folder)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for (seen, entry) in walk.enumerate() {
        let Ok(entry) = entry else { continue };
        if seen >= MOST_ENTRIES || sources.len() >= MOST_FILES {
            return (
                sources,
                Some("more files than are read; the rest left out".into()),
            );
        }
        let grammar = crate::language::of_file(entry.path())
            .and_then(|language| Grammar::named(&language.name));
        let size = entry.metadata().map_or(u64::MAX, |m| m.len());
        let (Some(grammar), true) = (grammar, entry.file_type().is_file()) else {
            continue;
        };
        if size > MOST_FILE_BYTES || bytes + size > MOST_BYTES {
            continue;
        }
        let Ok(content) = std::fs::read(entry.path()) else {
            continue;
        };
        bytes += content.len() as u64;
        let relative = entry.path().strip_prefix(folder).unwrap_or(entry.path());
        sources.push(Source {
            path: relative.display().to_string(),
            grammar,
            text: String::from_utf8_lossy(&content).into_owned(),
        });
    }
    (sources, None)
}

/// Writes `similarity.html`, `similarity.csv` and `similarity.json` into `out`; their paths.
/// Where `similar` writes its report by default: a folder of its own under the current one,
/// named so as never to be a source folder.
pub const SIMILARITY_OUT: &str = "similarity-report";

/// The files of a similarity report.
const REPORT_FILES: [&str; 3] = ["similarity.html", "similarity.csv", "similarity.json"];

/// Refuses a report folder `out` that holds anything but an earlier report (a source folder
/// named by mistake would be written into).
pub fn report_folder(out: &Path) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !REPORT_FILES.contains(&name.as_str()) {
            return Err(Error::Usage(format!(
                "--out `{}` holds `{name}`, which is not part of a similarity report: name an empty folder, or an earlier report's",
                out.display()
            )));
        }
    }
    Ok(())
}

pub fn write_similarity(report: &Similarity, out: &Path) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(out).map_err(|err| Error::io(out, err))?;
    let files = [
        (
            "similarity.html",
            crate::report::similarity_page(report).into_bytes(),
        ),
        ("similarity.csv", crate::report::similarity_csv(report)?),
        (
            "similarity.json",
            crate::report::similarity_json(report)?.into_bytes(),
        ),
    ];
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = out.join(name);
        write_atomically(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}
