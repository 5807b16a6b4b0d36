//! The rings of `cargo xtask bench --similar`: classes where several students share one
//! source. A ring of `r` is an original and `r - 1` disguised copies of it (each by another
//! disguise, in `disguise.py`'s order, the last ones with every disguise at once); the rest of
//! the class is independent work. Per spec, a ring of 2, 3, 5 and 8 beside the spec's other
//! originals; then one class of every spec's originals with a ring of each size at once (the
//! rings on different specs). The positives are the pairs inside a ring, the negatives every
//! other pair; each tool's AUC, recall with no false alarm, margin and time, as for the
//! disguises.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::separation::{separation_of, DolosScores, Scores, DISGUISES};
use crate::error::Error;

/// The ring sizes measured.
pub(super) const RINGS: [usize; 4] = [2, 3, 5, 8];

/// A class of the ring bench: its folder and what the table calls it.
pub(super) struct RingClass {
    pub(super) folder: PathBuf,
    pub(super) label: String,
}

/// Writes the ring classes under `out` from the disguised classes under `classes`, for the
/// `originals` (spec, path), sorted by spec.
pub(super) fn write(
    classes: &Path,
    out: &Path,
    originals: &[(String, PathBuf)],
) -> Result<Vec<RingClass>, Error> {
    let mut by_spec: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (spec, path) in originals {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        by_spec.entry(spec).or_default().push(stem.into_owned());
    }
    let mut written = Vec::new();
    let pooled = out.join("all-specs");
    for (s, (spec, stems)) in by_spec.iter().enumerate() {
        for &r in &RINGS {
            let folder = out.join(format!("{spec}-ring-{r}"));
            let size = ring(classes, &folder, spec, &stems[0], r, "a")?;
            let solo = solos(classes, &folder, spec, &stems[1..])?;
            written.push(RingClass {
                folder,
                label: format!("{spec}: ring of {r}, class of {}", size + solo),
            });
        }
        // The pooled class: this spec's ring is the s-th size.
        ring(
            classes,
            &pooled,
            spec,
            &stems[0],
            RINGS[s % RINGS.len()],
            spec,
        )?;
        solos(classes, &pooled, spec, &stems[1..])?;
    }
    let size = std::fs::read_dir(&pooled)
        .map_err(|err| Error::io(&pooled, err))?
        .count();
    written.push(RingClass {
        label: format!("all specs: rings of 2, 3, 5, 8, class of {size}"),
        folder: pooled,
    });
    Ok(written)
}

/// Copies a ring of `r` made from original `stem` of `spec` into `folder` as
/// `ring<id>-<disguise>.py`; how many files.
fn ring(
    classes: &Path,
    folder: &Path,
    spec: &str,
    stem: &str,
    r: usize,
    id: &str,
) -> Result<usize, Error> {
    std::fs::create_dir_all(folder).map_err(|err| Error::io(folder, err))?;
    let original = classes
        .join(DISGUISES[0])
        .join(spec)
        .join(format!("{stem}.orig.py"));
    copy(&original, &folder.join(format!("ring{id}-original.py")))?;
    // The copies: each disguise once, the last ones carrying all of them.
    for disguise in DISGUISES.iter().rev().take(r - 1) {
        let from = classes.join(disguise).join(spec).join(format!("{stem}.py"));
        copy(&from, &folder.join(format!("ring{id}-{disguise}.py")))?;
    }
    Ok(r)
}

/// Copies the independent originals `stems` of `spec` into `folder` as `solo-<stem>.py`.
fn solos(classes: &Path, folder: &Path, spec: &str, stems: &[String]) -> Result<usize, Error> {
    for stem in stems {
        let original = classes
            .join(DISGUISES[0])
            .join(spec)
            .join(format!("{stem}.orig.py"));
        copy(&original, &folder.join(format!("solo-{spec}-{stem}.py")))?;
    }
    Ok(stems.len())
}

fn copy(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::copy(from, to).map_err(|err| Error::io(from, err))?;
    Ok(())
}

/// Whether two files of a ring class are of one ring.
pub(super) fn same_ring((a, b): &(String, String)) -> bool {
    let ring = |path: &str| {
        let name = Path::new(path).file_name()?.to_str()?.to_string();
        let (prefix, _) = name.split_once('-')?;
        prefix.starts_with("ring").then_some(prefix.to_string())
    };
    ring(a).is_some() && ring(a) == ring(b)
}

/// The table's rows for the ring classes; the classes where gridjudge did worse than Dolos.
pub(super) fn rows(
    classes: &[RingClass],
    ours: &BTreeMap<PathBuf, (Scores, f64)>,
    dolos: Option<&DolosScores>,
) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut worse = Vec::new();
    for class in classes {
        let Some((scores, seconds)) = ours.get(&class.folder) else {
            continue;
        };
        let mine = separation_of(scores, *seconds, same_ring);
        text += &format!(
            "{:<40} {:>6.3} {:>7.2} {:>+7.2} {:>7.3} s",
            class.label, mine.auc, mine.recall, mine.margin, mine.seconds
        );
        let theirs = dolos.and_then(|(scores, times)| {
            let scores = scores.get(&class.folder)?;
            let seconds = times.get(&class.folder).copied().unwrap_or(0.0);
            Some(separation_of(scores, seconds, same_ring))
        });
        match theirs {
            Some(theirs) => {
                text += &format!(
                    "   {:>6.3} {:>7.2} {:>+7.2} {:>7.3} s\n",
                    theirs.auc, theirs.recall, theirs.margin, theirs.seconds
                );
                if mine.auc < theirs.auc || mine.recall < theirs.recall {
                    worse.push(class.label.clone());
                }
            }
            None => text += "   (not measured)\n",
        }
    }
    (text, worse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_files_are_of_one_ring_by_their_prefix() {
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert!(same_ring(&pair(
            "/x/ringgo-original.py",
            "/x/ringgo-mix.py"
        )));
        assert!(!same_ring(&pair(
            "/x/ringgo-original.py",
            "/x/ringcollapse-mix.py"
        )));
        assert!(!same_ring(&pair("/x/solo-go-a.py", "/x/solo-go-b.py")));
        assert!(!same_ring(&pair(
            "/x/ringgo-original.py",
            "/x/solo-go-b.py"
        )));
    }
}
