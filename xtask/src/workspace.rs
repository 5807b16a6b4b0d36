//! Where things are: the workspace root, the bundled corpus, the reference binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;

/// The gridjudge checkout this xtask was built from.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The bundled corpus.
pub fn cases() -> PathBuf {
    root().join("cases")
}

/// Builds the reference binary in release mode and returns its path.
pub fn build_reference() -> Result<PathBuf, Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "--package",
            "gridjudge",
            "--bin",
            "gridjudge",
        ])
        .current_dir(root())
        .status()
        .map_err(|err| {
            Error::Command(format!("failed to run cargo to build the reference: {err}"))
        })?;
    if !status.success() {
        return Err(Error::Command(format!(
            "building the reference failed ({status})"
        )));
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let target_dir = if target_dir.is_relative() {
        root().join(target_dir)
    } else {
        target_dir
    };
    Ok(target_dir.join("release").join("gridjudge"))
}
