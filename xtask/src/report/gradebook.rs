//! The grade files: their model (`grades.json` is a [`Grades`], one [`Submission`] per student
//! with a [`CaseRow`] per case), a submission's row from its finished run, the writers of
//! `grades.csv` and `grades.json`, and [`merge`], which combines shards into the files one run
//! would have written. `grade` writes them, `merge` reads and writes them, `html` draws them.
//! The files hold no timings and are sorted by id: merged shards equal one run byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::Shard;
use crate::error::Error;
use crate::files::write_atomically;
use crate::judge::Run;
use crate::judge::Verdict;

/// One case of one submission, as the grade files keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRow {
    pub id: String,
    pub group: String,
    pub verdict: String,
    /// The cause in words that hold no case's input, and its stable id (see
    /// [`crate::judge::Judgement::cause_id`]).
    pub cause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause_id: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// One submission's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    pub id: String,
    pub score: f64,
    /// Score per graded group.
    pub groups: BTreeMap<String, f64>,
    /// Cases per verdict.
    pub verdicts: BTreeMap<String, usize>,
    /// Why the submission could not be graded at all.
    pub error: Option<String>,
    pub cases: Vec<CaseRow>,
}

impl Grades {
    /// How many submissions could not be graded at all.
    pub fn could_not_run(&self) -> usize {
        self.submissions
            .iter()
            .filter(|s| s.error.is_some())
            .count()
    }
}

/// One student whose score a regrade moved, and why: what `regrade.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub id: String,
    pub old_score: f64,
    pub new_score: f64,
    pub why: String,
}

/// The whole grading: what `grades.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grades {
    pub schema: u32,
    pub spec: String,
    pub run: String,
    /// Points per graded group.
    pub groups: BTreeMap<String, f64>,
    pub max_score: f64,
    /// The shard this file holds (`K/N`); absent for a whole class, and after a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub submissions: Vec<Submission>,
    /// Entries of the submissions folder that are no submission: (name, why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<(String, String)>,
}

/// Every verdict a case can end with, each counted 0: the columns of a row.
pub fn verdict_counts() -> BTreeMap<String, usize> {
    Verdict::ALL
        .iter()
        .filter(|v| **v != Verdict::Skipped)
        .map(|v| (v.slug().to_string(), 0))
        .collect()
}

/// The grade of one finished check of a submission.
pub fn submission_of(id: &str, run: &Run) -> Submission {
    let groups: BTreeMap<String, f64> = run
        .group_scores()
        .iter()
        .map(|g| (g.group.to_string(), g.score()))
        .collect();
    let mut verdicts = verdict_counts();
    for result in run.results.iter().filter(|r| r.case.graded) {
        *verdicts
            .entry(result.judgement.verdict.slug().to_string())
            .or_default() += 1;
    }
    let error = run
        .build
        .as_ref()
        .and_then(|build| build.failure())
        .map(|message| format!("could not build: {}", crate::judge::build_headline(message)));
    Submission {
        id: id.to_string(),
        score: groups.values().sum(),
        groups,
        verdicts,
        error,
        cases: run
            .results
            .iter()
            .map(|r| CaseRow {
                id: r.case.id(),
                group: r.case.group.clone(),
                verdict: r.judgement.verdict.slug().to_string(),
                cause: (!r.judgement.verdict.passed()).then(|| r.judgement.cause_text()),
                cause_id: (!r.judgement.verdict.passed()).then(|| r.judgement.cause_id()),
                line: r.judgement.difference.as_ref().map(|d| d.line),
                column: r.judgement.difference.as_ref().map(|d| d.column),
            })
            .collect(),
    }
}

/// Writes `grades.csv` and `grades.json` into `out`.
pub(super) fn write_outputs(grades: &Grades, out: &Path) -> Result<(), Error> {
    write_outputs_with(grades, out, &|submission| Ok(submission.clone()))
}

/// Writes `grades.csv` and `grades.json` into `out`, where `grades` may hold rows without their
/// cases and `full(row)` gives each submission whole, one at a time: `grades.json` is written
/// as it is read, never held whole. The bytes are those of `serde_json::to_string_pretty`.
pub fn write_outputs_with(
    grades: &Grades,
    out: &Path,
    full: &dyn Fn(&Submission) -> Result<Submission, Error>,
) -> Result<(), Error> {
    crate::files::write_atomically_streamed(&out.join("grades.json"), &mut |writer| {
        let mut serializer = serde_json::Serializer::with_formatter(
            &mut *writer,
            serde_json::ser::PrettyFormatter::new(),
        );
        Streamed { grades, full }
            .serialize(&mut serializer)
            .map_err(std::io::Error::other)?;
        writer.write_all(b"\n")
    })?;
    write_atomically(&out.join("grades.csv"), &csv(grades)?)?;
    Ok(())
}

/// [`Grades`] serialised with each submission read whole only while it is written.
struct Streamed<'a> {
    grades: &'a Grades,
    full: &'a dyn Fn(&Submission) -> Result<Submission, Error>,
}

impl Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let grades = self.grades;
        // The fields of `Grades`, in its order, as its derived implementation writes them.
        let mut fields = serializer.serialize_struct("Grades", 8)?;
        fields.serialize_field("schema", &grades.schema)?;
        fields.serialize_field("spec", &grades.spec)?;
        fields.serialize_field("run", &grades.run)?;
        fields.serialize_field("groups", &grades.groups)?;
        fields.serialize_field("max_score", &grades.max_score)?;
        match &grades.shard {
            Some(shard) => fields.serialize_field("shard", shard)?,
            None => fields.skip_field("shard")?,
        }
        fields.serialize_field("submissions", &Whole(self))?;
        match grades.skipped.is_empty() {
            true => fields.skip_field("skipped")?,
            false => fields.serialize_field("skipped", &grades.skipped)?,
        }
        fields.end()
    }
}

/// The submissions of a [`Streamed`], each made whole as it is written.
struct Whole<'a>(&'a Streamed<'a>);

impl Serialize for Whole<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let rows = &self.0.grades.submissions;
        let mut seq = serializer.serialize_seq(Some(rows.len()))?;
        for row in rows {
            let submission = (self.0.full)(row).map_err(S::Error::custom)?;
            seq.serialize_element(&submission)?;
        }
        seq.end()
    }
}

/// A cell a spreadsheet shows as text, never evaluates: one that begins as a formula would (`=`,
/// `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, as OWASP advises for CSV
/// files opened in a spreadsheet. Ids come from folder and file names students chose.
pub fn as_text(cell: &str) -> String {
    match cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{cell}"),
        false => cell.to_string(),
    }
}

/// One row per submission: id, score, each group's score, each verdict's count, the error:
/// `grades.csv`, which the course server's grades download repeats.
pub fn csv(grades: &Grades) -> Result<Vec<u8>, Error> {
    let to_error = |err: csv::Error| Error::Write(format!("failed to write CSV: {err}"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    let verdicts = verdict_counts();
    let mut header = vec!["id".to_string(), "score".into(), "max_score".into()];
    header.extend(grades.groups.keys().cloned());
    header.extend(verdicts.keys().cloned());
    header.push("error".into());
    writer.write_record(&header).map_err(to_error)?;
    for submission in &grades.submissions {
        let mut row = vec![
            as_text(&submission.id),
            format!("{:.2}", submission.score),
            format!("{:.2}", grades.max_score),
        ];
        row.extend(
            grades
                .groups
                .keys()
                .map(|g| format!("{:.2}", submission.groups.get(g).copied().unwrap_or(0.0))),
        );
        row.extend(
            verdicts
                .keys()
                .map(|v| submission.verdicts.get(v).copied().unwrap_or(0).to_string()),
        );
        row.push(as_text(submission.error.as_deref().unwrap_or_default()));
        writer.write_record(&row).map_err(to_error)?;
    }
    writer
        .into_inner()
        .map_err(|err| Error::Write(format!("failed to write CSV: {err}")))
}

/// Combines the `grades.json` of several shards into the outputs one run would have written.
/// Refuses an incomplete set of shards unless `allow_partial`.
pub fn merge(files: &[PathBuf], out: &Path, allow_partial: bool) -> Result<Grades, Error> {
    let mut merged: Option<Grades> = None;
    let mut shards: Vec<(u64, u64)> = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).map_err(|err| Error::io(path, err))?;
        let grades: Grades = serde_json::from_slice(&bytes)
            .map_err(|err| Error::corpus(path, format!("not a grades.json: {err}")))?;
        if let Some(shard) = &grades.shard {
            let parsed: Shard = shard
                .parse()
                .map_err(|err: String| Error::corpus(path, err))?;
            shards.push((parsed.index, parsed.count));
        }
        match &mut merged {
            None => merged = Some(grades),
            Some(all) => {
                if (&all.spec, &all.run, &all.groups) != (&grades.spec, &grades.run, &grades.groups)
                {
                    return Err(Error::corpus(
                        path,
                        "graded another spec, command or suite than the first file",
                    ));
                }
                all.submissions.extend(grades.submissions);
            }
        }
    }
    let mut merged =
        merged.ok_or_else(|| Error::Usage("merge needs at least one grades.json".into()))?;
    if let Some(&(_, count)) = shards.first() {
        let missing: Vec<String> = (1..=count)
            .filter(|k| !shards.contains(&(*k, count)))
            .map(|k| format!("{k}/{count}"))
            .collect();
        let mixed = shards.iter().any(|&(_, n)| n != count);
        if (mixed || !missing.is_empty()) && !allow_partial {
            return Err(Error::Usage(format!(
                "merging {} of {count} shards: missing {}; pass --allow-partial to merge anyway",
                shards.len(),
                if mixed {
                    "(shards of different splits)".to_string()
                } else {
                    missing.join(", ")
                }
            )));
        }
    }
    merged.shard = None;
    merged.submissions.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(pair) = merged.submissions.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(Error::Usage(format!(
            "submission `{}` is in more than one file",
            pair[0].id
        )));
    }
    std::fs::create_dir_all(out).map_err(|err| Error::io(out, err))?;
    write_outputs(&merged, out)?;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_that_looks_like_a_formula_is_written_as_text() {
        let ids = [
            "=HYPERLINK(\"http://x\")",
            "+cmd|' /C calc'!A0",
            "@SUM(1+1)",
            "-1+2",
            "\tx",
            "alice",
        ];
        let grades = Grades {
            schema: 1,
            spec: "echo".into(),
            run: "sh solution.sh".into(),
            groups: BTreeMap::new(),
            max_score: 0.0,
            shard: None,
            submissions: ids
                .iter()
                .map(|id| Submission {
                    id: id.to_string(),
                    score: 0.0,
                    groups: BTreeMap::new(),
                    verdicts: BTreeMap::new(),
                    error: Some("=1+2".into()),
                    cases: Vec::new(),
                })
                .collect(),
            skipped: Vec::new(),
        };
        let bytes = csv(&grades).unwrap();
        let mut reader = ::csv::Reader::from_reader(bytes.as_slice());
        let rows: Vec<::csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), ids.len());
        for (row, id) in rows.iter().zip(ids) {
            let expected = match id {
                "alice" => "alice".to_string(),
                id => format!("'{id}"),
            };
            assert_eq!(&row[0], expected);
            assert_eq!(row.iter().next_back(), Some("'=1+2"));
        }
    }

    #[test]
    fn a_score_read_back_from_json_is_the_same_to_the_last_bit() {
        // Found merging shards: read back with serde_json's default float parsing, this score
        // came back one unit in the last place off, and the merged grades.json differed.
        let score = 110.811_416_408_668_73_f64;
        let text = serde_json::to_string(&score).unwrap();
        let back: f64 = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_bits(), score.to_bits(), "{text}");
    }
}
