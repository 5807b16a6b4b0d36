//! The environment layer: a target sees PATH, LANG, HOME and TMPDIR (its private temporary
//! folder) and the variables the user passed with `--pass-env`, nothing else of the harness's
//! environment (tokens, keys, the CI's secrets).

use std::ffi::OsString;

/// The environment of a target, but for HOME and TMPDIR (see [`with_temp`]).
pub(crate) fn scrubbed(pass_env: &[String]) -> Vec<(OsString, OsString)> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), path),
        (
            "LANG".into(),
            std::env::var_os("LANG").unwrap_or_else(|| "C.UTF-8".into()),
        ),
    ];
    for name in pass_env {
        if let Some(value) = std::env::var_os(name) {
            env.retain(|(key, _)| key != name.as_str());
            env.push((name.into(), value));
        }
    }
    env
}

/// `env` with HOME and TMPDIR set to the case's temporary folder `temp`.
pub(crate) fn with_temp(
    env: &[(OsString, OsString)],
    temp: &std::path::Path,
) -> Vec<(OsString, OsString)> {
    let mut env = env.to_vec();
    env.retain(|(key, _)| key != "HOME" && key != "TMPDIR");
    env.push(("HOME".into(), temp.into()));
    env.push(("TMPDIR".into(), temp.into()));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_variables_pass() {
        let env = with_temp(
            &scrubbed(&["NO_SUCH_VARIABLE_HERE".into()]),
            std::path::Path::new("/tmp"),
        );
        let keys: Vec<&str> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(keys, ["PATH", "LANG", "HOME", "TMPDIR"]);
    }
}
