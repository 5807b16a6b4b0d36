//! Submissions handed in as files: a `.zip`, `.tar.gz` or `.tgz` unpacked safely into a folder
//! of its own (no path out of it, no link, at most [`MAX_FILES`] files and [`MAX_BYTES`] bytes,
//! whatever its headers claim), a lone source file given a folder, and a folder whose name is
//! not text copied under one that is. Each goes under the build cache, named by a hash of what
//! it holds, outside `--out` and the corpus (which no program may see); each error is a
//! sentence for the submission's row.

use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::digest::{Digest, MAX_BYTES, MAX_FILES};
use super::names::inside;

/// The archive extension the name of `path` ends with (in any case), if any.
pub fn extension(path: &Path) -> Option<&'static str> {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    [".zip", ".tar.gz", ".tgz"]
        .into_iter()
        .find(|extension| name.ends_with(extension) && name.len() > extension.len())
}

/// The folder a submission's file is unpacked into: named by a hash of its name and bytes
/// (read as a stream, within the cap), under the build cache, outside `--out` and the corpus
/// (which no program may see).
fn unpacked_folder(path: &Path) -> Result<PathBuf, String> {
    // The name counts: two students' equal files are two folders.
    let mut digest = Digest::new(path.file_name().unwrap_or_default().as_bytes());
    digest.file(path)?;
    Ok(crate::files::cache_root()
        .join("unpacked")
        .join(digest.finish()))
}

/// A lone source file as a submission: a folder holding a copy of it.
pub fn lone_source(path: &Path) -> Result<PathBuf, String> {
    let folder = unpacked_folder(path)?;
    let name = path.file_name().unwrap_or_default();
    if !folder.join(name).is_file() {
        make_folder(&folder)?;
        std::fs::copy(path, folder.join(name)).map_err(|err| format!("cannot copy it: {err}"))?;
    }
    Ok(folder)
}

/// A copy of the submission at `path`, a folder or one source file, in a folder of its own
/// (out of the corpus, which no program may see): the copied folder, or the copied file in
/// its folder. `id` salts a folder's copy.
pub fn copy_out(path: &Path, id: &str) -> Result<PathBuf, String> {
    match path.is_dir() {
        true => copy_folder(path, id),
        false => Ok(lone_source(path)?.join(path.file_name().unwrap_or_default())),
    }
}

/// A copy of the folder at `path` (its regular files, links left out, within the caps) in a
/// folder of its own, for a submission whose name is not text.
pub fn copy_folder(path: &Path, id: &str) -> Result<PathBuf, String> {
    let (files, key) = listing(path, id.as_bytes())?;
    let folder = crate::files::cache_root().join("copied").join(key);
    let done = folder.with_extension("done");
    if done.exists() {
        return Ok(folder);
    }
    let _ = std::fs::remove_dir_all(&folder);
    if let Err(why) = copy_files(path, &files, &folder) {
        let _ = std::fs::remove_dir_all(&folder);
        return Err(format!("the folder was not copied: {why}"));
    }
    std::fs::write(&done, b"").map_err(|err| format!("cannot copy it: {err}"))?;
    Ok(folder)
}

/// The regular files under `path` (relative, sorted; links left out) and a key naming them:
/// a hash of `salt` and every entry's path and content, within the caps.
pub(super) fn listing(path: &Path, salt: &[u8]) -> Result<(Vec<PathBuf>, String), String> {
    let mut digest = Digest::new(salt);
    let files = digest.folder(path)?;
    Ok((files, digest.finish()))
}

/// Copies `files` (relative to `from`) into `to`, within the caps.
pub(super) fn copy_files(from: &Path, files: &[PathBuf], to: &Path) -> Result<(), String> {
    make_folder(to)?;
    let mut budget = Budget { files: 0, bytes: 0 };
    for relative in files {
        let target = inside(to, relative)?;
        let mut file = std::fs::File::open(from.join(relative)).map_err(|err| err.to_string())?;
        write_entry(&target, &mut file, &mut budget)?;
    }
    Ok(())
}

/// Unpacks the archive at `path` (by `extension`) into its own folder, or says why not.
pub fn unpack(path: &Path, extension: &str) -> Result<PathBuf, String> {
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

/// What an archive may hold once unpacked: [`MAX_FILES`] entries (files, folders and anything
/// else, each counted), [`MAX_BYTES`], and paths [`MAX_DEPTH`] folders deep.
struct Budget {
    files: usize,
    bytes: u64,
}

/// How deep a path inside an archive may go: each folder on the way is made, so a deep path is
/// many entries.
const MAX_DEPTH: usize = 32;

impl Budget {
    /// One more entry at `path` (relative to the archive's folder), of any kind.
    fn count(&mut self, name: &Path) -> Result<(), String> {
        self.files += 1;
        if self.files > MAX_FILES {
            return Err(format!("more than {MAX_FILES} files and folders"));
        }
        if name.components().count() > MAX_DEPTH {
            return Err(format!(
                "`{}` is more than {MAX_DEPTH} folders deep",
                name.display()
            ));
        }
        Ok(())
    }
}

/// Removes a folder [`unpack`] made (and its mark of being whole), once what it held is graded.
pub fn remove_unpacked(folder: &Path) {
    let _ = std::fs::remove_file(folder.with_extension("done"));
    let _ = std::fs::remove_dir_all(folder);
}

/// Writes one entry's bytes at `path`, within the budget.
fn write_entry(path: &Path, reader: &mut dyn Read, budget: &mut Budget) -> Result<(), String> {
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
    // A zip says how many entries it holds before any is read.
    if archive.len() > MAX_FILES {
        return Err(format!("more than {MAX_FILES} files and folders"));
    }
    for k in 0..archive.len() {
        let mut entry = archive.by_index(k).map_err(|err| err.to_string())?;
        let name = PathBuf::from(entry.name().map_err(|err| err.to_string())?.into_owned());
        let path = inside(folder, &name)?;
        budget.count(&name)?;
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
        let kind = entry.header().entry_type();
        // Headers that only carry names and times for the entries after them are not entries.
        if !matches!(
            kind,
            tar::EntryType::XHeader
                | tar::EntryType::XGlobalHeader
                | tar::EntryType::GNULongName
                | tar::EntryType::GNULongLink
        ) {
            budget.count(&name)?;
        }
        match kind {
            tar::EntryType::Directory => make_folder(&path)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                write_entry(&path, &mut entry, budget)?
            }
            // PAX and GNU headers carry names and times for the entries after them.
            tar::EntryType::XHeader | tar::EntryType::XGlobalHeader => {}
            tar::EntryType::GNULongName | tar::EntryType::GNULongLink => {}
            tar::EntryType::GNUSparse => {
                return Err(format!("`{}` is a sparse file", name.display()))
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparse_archive_past_the_cap_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.zip");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(6 << 30)
            .unwrap();
        let why = unpack(&path, ".zip").unwrap_err();
        assert!(why.contains("larger than 64 MiB"), "{why}");
        let why = lone_source(&path).unwrap_err();
        assert!(why.contains("larger than 64 MiB"), "{why}");
    }

    /// A `.tar.gz` of `entries` (name, folder or a file of one byte).
    fn tarball(path: &Path, entries: &[(String, bool)]) {
        let file = std::fs::File::create(path).unwrap();
        let encoder = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        let mut builder = tar::Builder::new(encoder);
        for (name, folder) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_mode(0o755);
            match folder {
                true => {
                    header.set_entry_type(tar::EntryType::Directory);
                    header.set_size(0);
                    builder
                        .append_data(&mut header, name, std::io::empty())
                        .unwrap();
                }
                false => {
                    header.set_entry_type(tar::EntryType::Regular);
                    header.set_size(1);
                    builder.append_data(&mut header, name, &b"x"[..]).unwrap();
                }
            }
        }
        builder.into_inner().unwrap().finish().unwrap();
    }

    /// Folders count as entries: an archive of thousands of empty folders is refused, zip or
    /// tar, and so is a path many folders deep; an archive within the caps unpacks.
    #[test]
    fn every_entry_counts_against_the_caps_folders_too() {
        let dir = tempfile::tempdir().unwrap();
        let folders: Vec<(String, bool)> = (0..MAX_FILES + 1)
            .map(|k| (format!("d{k}/"), true))
            .collect();
        let tar_path = dir.path().join("folders.tar.gz");
        tarball(&tar_path, &folders);
        let why = unpack(&tar_path, ".tar.gz").unwrap_err();
        assert!(why.contains("files and folders"), "{why}");
        let zip_path = dir.path().join("folders.zip");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        for (name, _) in &folders {
            zip.add_directory(name.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
        }
        zip.finish().unwrap();
        let why = unpack(&zip_path, ".zip").unwrap_err();
        assert!(why.contains("files and folders"), "{why}");
        let deep = vec![("d/".repeat(MAX_DEPTH) + "go.c", false)];
        let deep_path = dir.path().join("deep.tar.gz");
        tarball(&deep_path, &deep);
        let why = unpack(&deep_path, ".tar.gz").unwrap_err();
        assert!(why.contains("folders deep"), "{why}");
        // Within the caps: unpacked, and removed once graded.
        let fine = vec![("src/".into(), true), ("src/go.c".into(), false)];
        let fine_path = dir.path().join("fine.tar.gz");
        tarball(&fine_path, &fine);
        let folder = unpack(&fine_path, ".tar.gz").unwrap();
        assert!(folder.join("src/go.c").is_file());
        remove_unpacked(&folder);
        assert!(!folder.exists() && !folder.with_extension("done").exists());
    }
}
