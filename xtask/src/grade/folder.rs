//! The submissions folder: what each entry is. A folder is a submission; a `.zip`, `.tar.gz` or
//! `.tgz` file is one too, unpacked safely into a folder of its own (no path out of it, no
//! link, at most [`MAX_FILES`] files and [`MAX_BYTES`] bytes: an archive over them is a row with
//! the reason); so is a lone source file (`alice.cpp`). Any other entry is skipped, with why.
//! A name that is not UTF-8 is graded under a lossless id (`caf%E9` for the bytes `caf\xe9`).

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use super::options::Options;
use crate::error::Error;

/// The most files an archive may unpack to.
pub const MAX_FILES: usize = 2000;
/// The most bytes an archive may unpack to.
pub const MAX_BYTES: u64 = 64 << 20;

/// One submission of the folder: its id and its folder, or why it cannot be graded.
pub type Found = (String, Result<PathBuf, String>);

/// What the submissions folder holds.
#[derive(Debug, Default)]
pub struct Scan {
    /// The submissions of the shard, by id.
    pub found: Vec<Found>,
    /// Entries that are no submission: (name, why).
    pub skipped: Vec<(String, String)>,
}

/// A file name as an id: itself when it is UTF-8 without `%`, else with each byte that is not
/// (and `%` itself) written `%XX`, so that two names never share an id.
pub fn lossless_id(name: &OsStr) -> String {
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

/// Scans the submissions folder of `options`.
pub fn scan(options: &Options) -> Result<Scan, Error> {
    let root = &options.submissions;
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
        if options.shard.is_none_or(|shard| shard.contains(&id)) {
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
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    if path.is_dir() {
        return Kind::Folder;
    }
    if !path.is_file() {
        return Kind::Other("neither a folder nor a file".into());
    }
    for extension in [".zip", ".tar.gz", ".tgz"] {
        if name.ends_with(extension) && name.len() > extension.len() {
            return Kind::Archive(extension);
        }
    }
    if crate::language::of_file(path).is_some() {
        return Kind::Source;
    }
    Kind::Other("not a folder, an archive (.zip, .tar.gz) or a source file".into())
}

/// The folder a submission's file is unpacked into: named by a hash of its bytes, under the
/// build cache, outside `--out` and the corpus (which no program may see).
fn unpacked_folder(path: &Path) -> Result<PathBuf, String> {
    let bytes = std::fs::read(path).map_err(|err| format!("cannot read it: {err}"))?;
    let mut hash = Sha256::new();
    // The name counts: two students' equal files are two folders.
    hash.update(path.file_name().unwrap_or_default().as_bytes());
    hash.update([0]);
    hash.update(&bytes);
    let digest: [u8; 32] = hash.finalize().into();
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    Ok(crate::compile::cache_root().join("unpacked").join(name))
}

/// A lone source file as a submission: a folder holding a copy of it.
fn lone_source(path: &Path) -> Result<PathBuf, String> {
    let folder = unpacked_folder(path)?;
    let name = path.file_name().unwrap_or_default();
    if !folder.join(name).is_file() {
        make_folder(&folder)?;
        std::fs::copy(path, folder.join(name)).map_err(|err| format!("cannot copy it: {err}"))?;
    }
    Ok(folder)
}

/// A copy of the folder at `path` (its regular files, links left out, within the caps) in a
/// folder of its own, for a submission whose name is not text.
fn copy_folder(path: &Path, id: &str) -> Result<PathBuf, String> {
    let mut hash = Sha256::new();
    hash.update(id.as_bytes());
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(path)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if entry.file_type().is_file() && files.len() <= MAX_FILES {
            let relative = entry
                .path()
                .strip_prefix(path)
                .unwrap_or(entry.path())
                .to_path_buf();
            let meta = entry.metadata().map_err(|err| err.to_string())?;
            hash.update(relative.as_os_str().as_bytes());
            hash.update(meta.len().to_le_bytes());
            hash.update(meta.mtime().to_le_bytes());
            files.push(relative);
        }
    }
    let digest: [u8; 32] = hash.finalize().into();
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    let folder = crate::compile::cache_root().join("copied").join(name);
    let done = folder.with_extension("done");
    if done.exists() {
        return Ok(folder);
    }
    let _ = std::fs::remove_dir_all(&folder);
    make_folder(&folder)?;
    let mut budget = Budget { files: 0, bytes: 0 };
    for relative in files {
        let target = inside(&folder, &relative)?;
        let mut file = std::fs::File::open(path.join(&relative)).map_err(|err| err.to_string())?;
        if let Err(why) = write_entry(&target, &mut file, &mut budget) {
            let _ = std::fs::remove_dir_all(&folder);
            return Err(format!("the folder was not copied: {why}"));
        }
    }
    std::fs::write(&done, b"").map_err(|err| format!("cannot copy it: {err}"))?;
    Ok(folder)
}

/// Unpacks the archive at `path` (by `extension`) into its own folder, or says why not.
fn unpack(path: &Path, extension: &str) -> Result<PathBuf, String> {
    let folder = unpacked_folder(path)?;
    let done = folder.with_extension("done");
    if done.exists() {
        return Ok(folder);
    }
    let _ = std::fs::remove_dir_all(&folder);
    make_folder(&folder)?;
    let file = std::fs::File::open(path).map_err(|err| format!("cannot read it: {err}"))?;
    let mut budget = Budget { files: 0, bytes: 0 };
    let unpacked = match extension {
        ".zip" => unzip(file, &folder, &mut budget),
        _ => untar(file, &folder, &mut budget),
    };
    match unpacked {
        Ok(()) => {
            std::fs::write(&done, b"").map_err(|err| format!("cannot unpack it: {err}"))?;
            Ok(folder)
        }
        Err(why) => {
            let _ = std::fs::remove_dir_all(&folder);
            Err(format!("the archive was not unpacked: {why}"))
        }
    }
}

struct Budget {
    files: usize,
    bytes: u64,
}

/// The path of an archive entry inside `folder`, if it stays there.
fn inside(folder: &Path, name: &Path) -> Result<PathBuf, String> {
    let stays = name
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !stays || name.as_os_str().is_empty() {
        return Err(format!("`{}` would leave its folder", name.display()));
    }
    Ok(folder.join(name))
}

/// Writes one entry's bytes at `path`, within the budget.
fn write_entry(path: &Path, reader: &mut dyn Read, budget: &mut Budget) -> Result<(), String> {
    budget.files += 1;
    if budget.files > MAX_FILES {
        return Err(format!("more than {MAX_FILES} files"));
    }
    if let Some(parent) = path.parent() {
        make_folder(parent)?;
    }
    let left = MAX_BYTES - budget.bytes;
    let mut file = std::fs::File::create(path).map_err(|err| err.to_string())?;
    // One byte past what is left tells a file over the cap, whatever its header says.
    let copied =
        std::io::copy(&mut reader.take(left + 1), &mut file).map_err(|err| err.to_string())?;
    budget.bytes += copied;
    if budget.bytes > MAX_BYTES {
        return Err(format!("more than {} MiB once unpacked", MAX_BYTES >> 20));
    }
    Ok(())
}

fn unzip(file: std::fs::File, folder: &Path, budget: &mut Budget) -> Result<(), String> {
    let mut archive = zip::ZipArchive::new(file).map_err(|err| format!("not a zip file: {err}"))?;
    for k in 0..archive.len() {
        let mut entry = archive.by_index(k).map_err(|err| err.to_string())?;
        let name = PathBuf::from(entry.name().map_err(|err| err.to_string())?.into_owned());
        let path = inside(folder, &name)?;
        if entry.is_symlink() {
            return Err(format!("`{}` is a link", name.display()));
        }
        if entry.is_dir() {
            make_folder(&path)?;
            continue;
        }
        write_entry(&path, &mut entry, budget)?;
    }
    Ok(())
}

fn untar(file: std::fs::File, folder: &Path, budget: &mut Budget) -> Result<(), String> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let entries = archive
        .entries()
        .map_err(|err| format!("not a .tar.gz file: {err}"))?;
    for entry in entries {
        let mut entry = entry.map_err(|err| format!("not a .tar.gz file: {err}"))?;
        let name = entry.path().map_err(|err| err.to_string())?.into_owned();
        let path = inside(folder, &name)?;
        match entry.header().entry_type() {
            tar::EntryType::Directory => make_folder(&path)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                write_entry(&path, &mut entry, budget)?
            }
            // PAX and GNU headers carry names and times for the entries after them.
            tar::EntryType::XHeader | tar::EntryType::XGlobalHeader => {}
            tar::EntryType::GNULongName | tar::EntryType::GNULongLink => {}
            _ => return Err(format!("`{}` is a link or a device", name.display())),
        }
    }
    Ok(())
}

/// A folder the sandbox's user can read.
fn make_folder(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(path)
        .map_err(|err| format!("cannot make `{}`: {err}", path.display()))
}

/// A hint for a submission handed in one folder down (`ivan/project4/go.py` for `--run 'python3
/// go.py'`): a file the command names that is not in the submission but is in one of its
/// folders, said with the command that would run it. `None` when every named file is there.
pub fn nested_program(dir: &Path, run: &[std::ffi::OsString]) -> Option<String> {
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
