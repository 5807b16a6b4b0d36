//! The submissions folder: what each entry is. A folder is a submission; a `.zip`, `.tar.gz` or
//! `.tgz` file is one too, unpacked safely into a folder of its own ([`crate::submission`]: an
//! archive it refuses is a row with the reason); so is a lone source file (`alice.cpp`). Any
//! other entry is skipped, with why. A name that is not UTF-8 is graded under a lossless id
//! (`caf%E9` for the bytes `caf\xe9`), from a copy of its folder.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::corpus::Shard;
use crate::error::Error;
use crate::submission::{archive_extension, copy_folder, lone_source, unpack};

/// One submission of the folder: its id and its folder, or why it cannot be graded.
pub(super) type Found = (String, Result<PathBuf, String>);

/// What the submissions folder holds.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// The submissions of the shard, by id.
    pub found: Vec<Found>,
    /// Entries that are no submission: (name, why).
    pub skipped: Vec<(String, String)>,
    /// The submissions of every shard.
    pub total: usize,
    /// The file name of a submission that is a lone source file (the last one found).
    pub lone_source: Option<String>,
    /// How many submissions are lone source files.
    pub lone_sources: usize,
}

impl Scan {
    /// A sentence where every submission of `root` is a lone source file: likely one student's
    /// folder given where the class's is expected, each of its files taken for a student.
    pub(super) fn files_as_students(&self, root: &Path) -> Option<String> {
        (self.total >= 2 && self.lone_sources == self.total).then(|| {
            format!(
                "`{}` holds only source files ({}), and each counts as one student's \
                 submission: if they are one student's files, give the folder that holds one \
                 folder per student",
                root.display(),
                self.total
            )
        })
    }
}

/// A file name as an id: itself when it is UTF-8 without `%`, else with each byte that is not
/// (and `%` itself) written `%XX`, so that two names never share an id.
pub(super) fn lossless_id(name: &OsStr) -> String {
    match name.to_str() {
        Some(text) if !text.contains('%') => text.to_string(),
        _ => {
            let bytes = name.as_bytes();
            let mut id = String::new();
            let mut rest = bytes;
            while !rest.is_empty() {
                let valid = match std::str::from_utf8(rest) {
                    Ok(text) => text.len(),
                    Err(err) => err.valid_up_to(),
                };
                let text = std::str::from_utf8(&rest[..valid]).unwrap_or_default();
                id += &text.replace('%', "%25");
                if valid < rest.len() {
                    id += &format!("%{:02X}", rest[valid]);
                    rest = &rest[valid + 1..];
                } else {
                    rest = &[];
                }
            }
            id
        }
    }
}

/// Scans the submissions folder `root`, keeping the submissions of `shard`.
pub(super) fn scan(root: &Path, shard: Option<&Shard>) -> Result<Scan, Error> {
    let entries = std::fs::read_dir(root).map_err(|err| Error::io(root, err))?;
    let mut scan = Scan::default();
    let mut seen: Vec<String> = Vec::new();
    let mut entries: Vec<_> = entries
        .collect::<Result<_, _>>()
        .map_err(|err| Error::io(root, err))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let name = entry.file_name();
        let shown = lossless_id(&name);
        let path = entry.path();
        // `.git`, `.github`, editor files: no students.
        if name.as_bytes().starts_with(b".") {
            scan.skipped
                .push((shown, "a hidden entry (its name starts with a dot)".into()));
            continue;
        }
        let (id, found) = match kind(&path) {
            Kind::Folder if name.to_str().is_some() => (shown.clone(), Ok(path)),
            // A program is run by paths that must be text: a copy under a name that is.
            Kind::Folder => (shown.clone(), copy_folder(&path, &shown)),
            Kind::Archive(extension) => {
                let id = shown[..shown.len() - extension.len()].to_string();
                (id, unpack(&path, extension))
            }
            Kind::Source => {
                scan.lone_source = Some(shown.clone());
                scan.lone_sources += 1;
                let stem = path.file_stem().map(lossless_id).unwrap_or_default();
                (stem, lone_source(&path))
            }
            Kind::Other(why) => {
                scan.skipped.push((shown, why));
                continue;
            }
        };
        if seen.contains(&id) {
            scan.skipped
                .push((shown, format!("another entry is submission `{id}` already")));
            continue;
        }
        seen.push(id.clone());
        scan.total += 1;
        if shard.is_none_or(|shard| shard.contains(&id)) {
            scan.found.push((id, found));
        }
    }
    scan.found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(scan)
}

enum Kind {
    Folder,
    /// An archive, with the extension its id leaves out.
    Archive(&'static str),
    Source,
    Other(String),
}

fn kind(path: &Path) -> Kind {
    if path.is_dir() {
        return Kind::Folder;
    }
    if !path.is_file() {
        return Kind::Other("neither a folder nor a file".into());
    }
    if let Some(extension) = archive_extension(path) {
        return Kind::Archive(extension);
    }
    if crate::language::of_file(path).is_some() {
        return Kind::Source;
    }
    Kind::Other("not a folder, an archive (.zip, .tar.gz) or a source file".into())
}

/// A hint for a submission handed in one folder down (`ivan/project4/go.py` for `--run 'python3
/// go.py'`): a file the command names that is not in the submission but is in one of its
/// folders, said with the command that would run it. `None` when every named file is there.
pub(super) fn nested_program(dir: &Path, run: &[std::ffi::OsString]) -> Option<String> {
    for (k, word) in run.iter().enumerate() {
        let path = Path::new(word);
        let names_a_file = path.extension().is_some() || path.components().count() > 1;
        if (k == 0 && path.components().count() == 1) || !names_a_file || path.is_absolute() {
            continue;
        }
        if dir.join(path).exists() {
            continue;
        }
        let name = path.file_name()?;
        let found = walkdir::WalkDir::new(dir)
            .min_depth(2)
            .max_depth(3)
            .sort_by_file_name()
            .into_iter()
            .take(2000)
            .flatten()
            .find(|entry| entry.file_type().is_file() && entry.file_name() == name)?;
        let relative = found.path().strip_prefix(dir).ok()?.to_path_buf();
        let mut suggested: Vec<String> = run
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        suggested[k] = relative.display().to_string();
        return Some(format!(
            "no `{}` in the submission, but `{}` is there: pass --run '{}' or flatten the folder",
            path.display(),
            relative.display(),
            suggested.join(" ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_keeps_every_byte_of_its_name() {
        let id = |bytes: &[u8]| lossless_id(OsStr::from_bytes(bytes));
        assert_eq!(id(b"alice"), "alice");
        assert_eq!(id(b"caf\xc3\xa9"), "café");
        assert_eq!(id(b"caf\xe9"), "caf%E9");
        assert_eq!(id(b"100%"), "100%25");
        assert_ne!(id(b"caf%E9"), id(b"caf\xe9"));
    }
}
