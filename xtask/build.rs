//! Names the harness's sources for the sandbox helper's handshake: the helper says which
//! sources it was built from when it is ready, and the harness refuses a helper built from
//! others (the `sandbox` program beside the test programs, left over from before a change).
//! Links the programs at a fixed address (see `main`).

use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn main() {
    // The harness and its helper linked at a fixed address: a position-independent build
    // starts by writing the address of each of its ~31,000 pointers in constants (the dynamic
    // loader's relative relocations, over 112 pages), which cost a one-case `check` about
    // half a millisecond (the harness's start and its helper's). The code is ours and
    // trusted; what a target runs is a fresh `exec`, with its own layout.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let mut files = Vec::new();
    collect(Path::new("src"), &mut files);
    files.push(PathBuf::from("Cargo.toml"));
    files.sort();
    // SipHash with fixed keys: the same sources give the same name on every build.
    #[allow(deprecated)]
    let mut hasher = std::hash::SipHasher::new();
    for file in &files {
        hasher.write(file.to_string_lossy().as_bytes());
        hasher.write_u8(0);
        hasher.write(&std::fs::read(file).unwrap_or_default());
        hasher.write_u8(0);
    }
    println!("cargo:rustc-env=GRIDJUDGE_BUILD={:016x}", hasher.finish());
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
