//! The student kit's program. `cargo xtask kit` appends a spec's cases to this file; see
//! `xtask::kit`. The program is its own sandbox helper, as `PROGRAM __sandbox-helper`.

fn main() -> std::process::ExitCode {
    xtask::sys::return_large_buffers();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|arg| arg == xtask::sandbox::HELPER_ARG)
    {
        return xtask::sandbox::helper_main();
    }
    xtask::sandbox::helper_is_self();
    xtask::kit::student_main(args)
}
