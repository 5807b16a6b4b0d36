//! The sandbox helper as a program of its own, for the harness's tests (the `xtask` binary is
//! its own helper, as `xtask __sandbox-helper`). See `xtask::sandbox`.

fn main() -> std::process::ExitCode {
    xtask::sandbox::helper_main()
}
