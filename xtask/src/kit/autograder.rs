//! `cargo xtask autograder`: a Gradescope autograder, as the zip Gradescope takes.
//!
//! The zip holds the student kit of the spec ([`crate::kit`]), `setup.sh` (which installs the
//! compilers and runtimes of the languages the instructor names, from Debian packages; the kit
//! itself is one static file) and `run_autograder`, which grades `/autograder/submission` with
//! the kit under `--require-isolation` and writes `/autograder/results/results.json`: it runs
//! the instructor's command, or, without one, builds the submission's sources as `check src/`
//! does. Whatever happens, a results.json is written: a submission that cannot start or build
//! scores 0 with the reason.

use std::io::Write;
use std::path::Path;

use crate::error::Error;

/// A word for bash, single-quoted.
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The `setup.sh` of the autograder: installs `packages` (Debian's), checks the kit starts.
pub(super) fn setup_script(kit: &str, packages: &[String]) -> String {
    let install = match packages.is_empty() {
        true => "# Nothing to install: the checker is one static file.\n".to_string(),
        false => format!(
            "# The compilers and runtimes of the languages submissions are in.\n\
             apt-get update -qq\n\
             DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends {}\n",
            packages.join(" ")
        ),
    };
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope runs this once, to build the image.\n\
         set -eu\n\
         {install}\
         chmod 755 /autograder/source/{kit}\n\
         /autograder/source/{kit} --version\n"
    )
}

/// The `run_autograder` of the autograder: runs `run` (the submission's command line; empty:
/// its sources, built) in the submission's folder through the kit.
pub(super) fn run_script(kit: &str, run: &[String]) -> String {
    let mut command: Vec<String> = run.iter().map(|word| quoted(word)).collect();
    if command.is_empty() {
        command.push("/autograder/submission".into());
    }
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope runs this for each submission: the gridjudge kit grades it against the\n\
         # public and hidden cases and writes Gradescope's results.json.\n\
         set -u\n\
         results=/autograder/results/results.json\n\
         mkdir -p /autograder/results\n\
         rm -f \"$results\"\n\
         # The submission runs as an unprivileged user, who must be able to read it.\n\
         chmod -R a+rX /autograder/submission 2>/dev/null\n\
         cd /autograder/submission 2>/dev/null || cd /\n\
         # The submission's folder is where it runs; the kit and its hidden cases are not shown.\n\
         /autograder/source/{kit} --require-isolation --cwd /autograder/submission \\\n\
         \x20 --hide /autograder/source --gradescope \"$results\" -- {command}\n\
         status=$?\n\
         # A checker that could not start at all still leaves a score of 0, and why.\n\
         if [ ! -s \"$results\" ]; then\n\
         \x20 printf '{{\"score\": 0, \"execution_time\": 0, \"output\": \"the checker could not start (exit status %s)\", \"tests\": []}}\\n' \"$status\" > \"$results\"\n\
         fi\n\
         exit 0\n",
        command = command.join(" ")
    )
}

/// The autograder zip: the kit at `kit_path` (named `kit_name` inside), `setup.sh` and
/// `run_autograder`, executable.
pub(super) fn zip(
    kit_path: &Path,
    kit_name: &str,
    run: &[String],
    packages: &[String],
) -> Result<Vec<u8>, Error> {
    let kit = std::fs::read(kit_path).map_err(|err| Error::io(kit_path, err))?;
    let to_error =
        |err: zip::result::ZipError| Error::Write(format!("failed to write the zip: {err}"));
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let executable = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o755);
    for (name, bytes) in [
        ("setup.sh", setup_script(kit_name, packages).into_bytes()),
        ("run_autograder", run_script(kit_name, run).into_bytes()),
        (kit_name, kit),
    ] {
        writer.start_file(name, executable).map_err(to_error)?;
        writer
            .write_all(&bytes)
            .map_err(|err| Error::Write(format!("failed to write the zip: {err}")))?;
    }
    let cursor = writer.finish().map_err(to_error)?;
    Ok(cursor.into_inner())
}

/// What `cargo xtask autograder` made: the zip's size and the kit inside it.
pub struct Built {
    pub bytes: usize,
    pub kit: super::bundle::Built,
}

/// Builds the kit `plan` describes (its `out` is where the zip goes) and the zip around it,
/// for submissions run as `run` (empty: built from their sources), with the Debian `packages`
/// installed.
pub fn build_autograder(
    plan: &super::bundle::Plan,
    run: &[String],
    packages: &[String],
) -> Result<Built, Error> {
    let folder = tempfile::tempdir().map_err(|err| Error::io(&std::env::temp_dir(), err))?;
    let kit_name = format!("check-{}", plan.spec);
    let kit = super::bundle::build(&super::bundle::Plan {
        out: folder.path().join(&kit_name),
        ..plan.clone()
    })?;
    let zip = zip(&kit.path, &kit_name, run, packages)?;
    crate::files::write_atomically(&plan.out, &zip)?;
    Ok(Built {
        bytes: zip.len(),
        kit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_reaches_bash_word_for_word() {
        let script = run_script("check-go", &["python3".into(), "it's.py".into()]);
        assert!(script.contains("-- 'python3' 'it'\\''s.py'\n"), "{script}");
        assert!(script.contains("--cwd /autograder/submission"), "{script}");
        assert!(script.contains("--hide /autograder/source"), "{script}");
        // bash parses it (`-n`: reads, runs nothing).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run_autograder");
        std::fs::write(&path, &script).unwrap();
        let parsed = std::process::Command::new("bash")
            .arg("-n")
            .arg(&path)
            .status();
        assert!(parsed.is_ok_and(|status| status.success()), "{script}");
    }

    /// Parses `script` with bash without running it.
    fn parses(script: &str) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script");
        std::fs::write(&path, script).unwrap();
        std::process::Command::new("bash")
            .arg("-n")
            .arg(&path)
            .status()
            .is_ok_and(|status| status.success())
    }

    #[test]
    fn the_named_languages_are_installed_and_sources_built_without_a_command() {
        let packages = ["default-jdk-headless".to_string(), "g++".to_string()];
        let setup = setup_script("check-go", &packages);
        assert!(
            setup.contains(
                "apt-get install -y -qq --no-install-recommends default-jdk-headless g++\n"
            ),
            "{setup}"
        );
        assert!(parses(&setup), "{setup}");
        assert!(!setup_script("check-go", &[]).contains("apt-get"));
        let run = run_script("check-go", &[]);
        assert!(run.contains("-- /autograder/submission\n"), "{run}");
        assert!(parses(&run), "{run}");
    }
}
