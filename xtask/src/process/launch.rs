//! Starting a program directly (the trusted reference, or a target confined without
//! namespaces: its rlimits and Landlock ruleset applied in the child), the way `posix_spawn`
//! does and with less: a child that shares the harness's memory while the harness's thread
//! waits until it has called `exec` (`clone(CLONE_VM | CLONE_VFORK)`), on a stack kept for the
//! thread, from a command line and an environment prepared before the clone.
//!
//! glibc's `posix_spawn` asks the kernel about every signal's action in the child and sets each
//! back (126 system calls here, about 30 µs a case on this kind of machine, with the harness
//! waiting); the child here sets back only the signals whose action the harness changed,
//! looked up once per process (and always Ctrl-C's, SIGTERM's, SIGHUP's, SIGPIPE's, and the
//! runtime's SIGSEGV's and SIGBUS's). All signals stay blocked in the child until those are set
//! back, so no handler of the harness ever runs in it.
//!
//! The child never allocates: it makes system calls on what was prepared, and a failure is one
//! number written where the waiting harness reads it.

use std::ffi::{c_void, CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

use crate::confine::landlock;
use crate::confine::rlimits::{self, Rlimit};
use crate::sys::{self, Stack};
use crate::target::exec_candidates;

/// What the child needs, made before it is cloned.
pub(super) struct Launch {
    programs: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    _argv: Vec<CString>,
    cwd: Option<CString>,
    /// Its own environment; none: the harness's.
    env: Option<Environment>,
    /// The rlimits and the Landlock ruleset of an untrusted target started directly.
    rlimits: Vec<Rlimit>,
    ruleset: Option<OwnedFd>,
    /// The child's stdin, stdout and stderr.
    stdio: [RawFd; 3],
    /// The error of the failed step, written by the child (0: none).
    errno: libc::c_int,
}

/// An environment as `exec` takes it.
struct Environment {
    pointers: Vec<*const libc::c_char>,
    _owned: Vec<CString>,
}

// SAFETY: the pointers point into `_owned`, which is never changed after it is made.
unsafe impl Send for Environment {}
unsafe impl Sync for Environment {}

impl Environment {
    fn of(vars: impl Iterator<Item = (OsString, OsString)>) -> Environment {
        let owned: Vec<CString> = vars
            .filter_map(|(key, value)| {
                let mut entry = key.as_bytes().to_vec();
                entry.push(b'=');
                entry.extend_from_slice(value.as_bytes());
                CString::new(entry).ok()
            })
            .collect();
        let mut pointers: Vec<*const libc::c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        pointers.push(std::ptr::null());
        Environment {
            pointers,
            _owned: owned,
        }
    }
}

/// The harness's own environment, read once: the harness never changes it.
fn inherited() -> &'static Environment {
    static INHERITED: OnceLock<Environment> = OnceLock::new();
    INHERITED.get_or_init(|| Environment::of(std::env::vars_os()))
}

/// The signals whose action the child sets back to the default: every one the harness catches
/// and SIGPIPE, which the runtime ignores (others it ignores stay ignored, as with
/// `std::process::Command`).
fn caught() -> &'static [libc::c_int] {
    static CAUGHT: OnceLock<Vec<libc::c_int>> = OnceLock::new();
    CAUGHT.get_or_init(|| {
        let always = [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGPIPE,
            libc::SIGSEGV,
            libc::SIGBUS,
        ];
        let mut caught: Vec<libc::c_int> = always.to_vec();
        for signal in 1..=libc::SIGRTMAX() {
            // SAFETY: a query of the action, into a zeroed struct.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            let queried = unsafe { libc::sigaction(signal, std::ptr::null(), &mut action) };
            let default = action.sa_sigaction == libc::SIG_DFL;
            let ignored = action.sa_sigaction == libc::SIG_IGN;
            if queried == 0 && !default && !ignored && !caught.contains(&signal) {
                caught.push(signal);
            }
        }
        caught
    })
}

thread_local! {
    /// The stack children of this thread start on (one at a time: the thread waits for each).
    static STACK: std::cell::RefCell<Option<Stack>> = const { std::cell::RefCell::new(None) };
}

impl Launch {
    /// `program` with `args`, in `cwd` where given, with `env` (none: the harness's own);
    /// `program` is looked up on that environment's PATH when it names no folder, as `execvp`
    /// does.
    pub(super) fn new(
        program: &Path,
        args: &[OsString],
        cwd: Option<&Path>,
        env: Option<&[(OsString, OsString)]>,
    ) -> io::Result<Launch> {
        let cstring = |bytes: &[u8]| CString::new(bytes).map_err(io::Error::other);
        let argv_owned: Vec<CString> = std::iter::once(program.as_os_str())
            .chain(args.iter().map(|a| a.as_os_str()))
            .map(|a| cstring(a.as_bytes()))
            .collect::<io::Result<_>>()?;
        let mut argv: Vec<*const libc::c_char> = argv_owned.iter().map(|s| s.as_ptr()).collect();
        argv.push(std::ptr::null());
        let path = match env {
            Some(env) => env
                .iter()
                .find(|(k, _)| k == "PATH")
                .map(|(_, v)| v.clone()),
            None => std::env::var_os("PATH"),
        };
        let path = path.as_ref().map(|p| p.as_bytes());
        let programs = exec_candidates(program.as_os_str().as_bytes(), path)
            .iter()
            .map(|p| cstring(p))
            .collect::<io::Result<_>>()?;
        let cwd = cwd
            .map(|dir| cstring(dir.as_os_str().as_bytes()))
            .transpose()?;
        caught();
        inherited();
        Ok(Launch {
            programs,
            argv,
            _argv: argv_owned,
            cwd,
            env: env.map(|env| Environment::of(env.iter().cloned())),
            rlimits: Vec::new(),
            ruleset: None,
            stdio: [-1; 3],
            errno: 0,
        })
    }

    /// Confines it as an untrusted target started directly: `rlimits`, then `ruleset`.
    pub(super) fn confine(&mut self, rlimits: &[Rlimit], ruleset: Option<OwnedFd>) {
        self.rlimits = rlimits.to_vec();
        self.ruleset = ruleset;
    }

    /// Starts it with `stdio` as its stdin, stdout and stderr, in a process group of its own;
    /// returns once it has called `exec`, or the error of the step that failed.
    pub(super) fn spawn(&mut self, stdio: [RawFd; 3]) -> io::Result<libc::pid_t> {
        self.stdio = stdio;
        self.errno = 0;
        STACK.with(|stack| {
            let mut stack = stack.borrow_mut();
            let stack = match &mut *stack {
                Some(stack) => stack,
                none => none.insert(Stack::new(64 << 10)?),
            };
            let all: u64 = !0;
            let mut before: u64 = 0;
            // SAFETY: every signal is blocked on this thread, so none is handled in the child
            // before it has set the harness's handlers back; the mask is restored below.
            unsafe {
                libc::syscall(
                    libc::SYS_rt_sigprocmask,
                    libc::SIG_BLOCK,
                    &all,
                    &mut before,
                    8,
                );
            }
            // SAFETY: the child runs `become_program` on its own stack, sharing this process's
            // memory while this thread waits (CLONE_VFORK); it reads `self` and writes only
            // `self.errno`, and `self` outlives it.
            let pid =
                unsafe { stack.clone_into(become_program, self as *mut Launch as *mut c_void, 0) };
            // SAFETY: restores the mask saved above.
            unsafe {
                libc::syscall(
                    libc::SYS_rt_sigprocmask,
                    libc::SIG_SETMASK,
                    &before,
                    std::ptr::null_mut::<u64>(),
                    8,
                );
            }
            let pid = pid?;
            if self.errno != 0 {
                // It has exited already (CLONE_VFORK returns at its exit too).
                sys::reap(pid);
                return Err(io::Error::from_raw_os_error(self.errno));
            }
            Ok(pid)
        })
    }
}

/// The child: its process group, stdio, signals and folder, then `exec`. Returns only on
/// failure, with the error in the launch's `errno`.
extern "C" fn become_program(arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Launch` that `spawn` passed, alive while this process runs; the
    // harness's thread waits, so nothing else reads or writes it meanwhile.
    let launch = unsafe { &mut *(arg as *mut Launch) };
    launch.errno = match steps(launch) {
        Err(errno) => errno.max(1),
        Ok(never) => match never {},
    };
    127
}

fn steps(launch: &Launch) -> Result<std::convert::Infallible, libc::c_int> {
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL)
    };
    // SAFETY: each call takes integers or data prepared before the clone.
    unsafe {
        if libc::setpgid(0, 0) < 0 {
            return Err(errno());
        }
        for (k, &fd) in launch.stdio.iter().enumerate() {
            let k = k as RawFd;
            // An fd already in its place only loses close-on-exec.
            let done = if fd == k {
                libc::fcntl(fd, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, k)
            };
            if done < 0 {
                return Err(errno());
            }
        }
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        for &signal in caught() {
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
        if let Some(cwd) = &launch.cwd {
            if libc::chdir(cwd.as_ptr()) < 0 {
                return Err(errno());
            }
        }
        let failed = |err: io::Error| err.raw_os_error().unwrap_or(libc::EINVAL);
        rlimits::apply(&launch.rlimits).map_err(failed)?;
        if let Some(ruleset) = &launch.ruleset {
            landlock::restrict(ruleset.as_raw_fd()).map_err(failed)?;
        }
        let none: u64 = 0;
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &none,
            std::ptr::null_mut::<u64>(),
            8,
        );
        // As `execvp`: a program not found in one folder is looked for in the next; the
        // error kept is the first other than "not found".
        let mut kept = libc::ENOENT;
        for program in &launch.programs {
            let env = launch.env.as_ref().unwrap_or_else(|| inherited());
            libc::execve(
                program.as_ptr(),
                launch.argv.as_ptr(),
                env.pointers.as_ptr(),
            );
            let failed = errno();
            if kept == libc::ENOENT {
                kept = failed;
            }
        }
        Err(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Launches `program` with `args` and returns its exit status, stdout and pid.
    fn run(
        program: &str,
        args: &[&str],
        cwd: Option<&Path>,
        env: Option<&[(OsString, OsString)]>,
    ) -> io::Result<(libc::c_int, String, libc::pid_t)> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let mut launch = Launch::new(Path::new(program), &args, cwd, env)?;
        let (stdin_theirs, stdin_ours) = sys::pipe()?;
        let (stdout_ours, stdout_theirs) = sys::pipe()?;
        let pid = launch.spawn([
            stdin_theirs.as_raw_fd(),
            stdout_theirs.as_raw_fd(),
            stdout_theirs.as_raw_fd(),
        ])?;
        drop((stdin_theirs, stdout_theirs, stdin_ours));
        let mut out = String::new();
        std::fs::File::from(stdout_ours).read_to_string(&mut out)?;
        let (status, _) = sys::wait4(pid)?;
        Ok((status, out, pid))
    }

    #[test]
    fn the_program_starts_with_no_signal_blocked_and_sigpipe_not_ignored() {
        // The harness's runtime ignores SIGPIPE and catches SIGSEGV; the test's thread blocks
        // SIGUSR1 besides, which the program must not inherit either.
        let mut blocked: libc::sigset_t = unsafe { std::mem::zeroed() };
        unsafe {
            libc::sigemptyset(&mut blocked);
            libc::sigaddset(&mut blocked, libc::SIGUSR1);
            libc::pthread_sigmask(libc::SIG_BLOCK, &blocked, std::ptr::null_mut());
        }
        let (status, out, _) = run("/bin/cat", &["/proc/self/status"], None, None).unwrap();
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &blocked, std::ptr::null_mut()) };
        assert_eq!(status, 0);
        let mask = |name: &str| {
            let line = out.lines().find(|l| l.starts_with(name)).expect(name);
            u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{out}");
        assert_eq!(mask("SigIgn:") & (1 << (libc::SIGPIPE - 1)), 0, "{out}");
    }

    #[test]
    fn it_runs_in_a_process_group_of_its_own_in_its_folder_with_its_environment() {
        let dir = tempfile::tempdir().unwrap();
        let env = [
            (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
            (OsString::from("ONLY"), OsString::from("this")),
        ];
        // The shell's own pid and process group (the fifth field of its stat), folder, variables.
        let script = "echo $$ $(cut -d' ' -f5 /proc/$$/stat); pwd; env | sort";
        let (status, out, pid) = run("sh", &["-c", script], Some(dir.path()), Some(&env)).unwrap();
        assert_eq!(status, 0, "{out}");
        let mut lines = out.lines();
        let ids: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        assert_eq!(ids, [pid.to_string(), pid.to_string()], "{out}");
        let pwd = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(lines.next(), pwd.to_str(), "{out}");
        // Besides what the shell sets itself.
        let own = ["PWD=", "OLDPWD=", "SHLVL=", "_="];
        let vars: Vec<&str> = lines
            .filter(|l| !own.iter().any(|o| l.starts_with(o)))
            .collect();
        assert_eq!(vars, ["ONLY=this", "PATH=/usr/bin:/bin"], "{out}");
    }

    #[test]
    fn a_program_is_looked_up_on_path_and_a_missing_one_is_an_error_of_its_own() {
        let (status, out, _) = run("echo", &["found"], None, None).unwrap();
        assert_eq!((status, out.as_str()), (0, "found\n"));
        let missing = run("no-such-program-here", &[], None, None).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound, "{missing}");
        let dir = tempfile::tempdir().unwrap();
        let gone = run("/bin/true", &[], Some(&dir.path().join("gone")), None).unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::NotFound, "{gone}");
        // A file that is no program: the error `exec` gave, not "not found".
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "text").unwrap();
        let denied = run(plain.to_str().unwrap(), &[], None, None).unwrap_err();
        assert_eq!(denied.kind(), io::ErrorKind::PermissionDenied, "{denied}");
    }

    #[test]
    fn rlimits_reach_the_program() {
        let args: Vec<OsString> = ["-c", "ulimit -n"].iter().map(OsString::from).collect();
        let mut launch = Launch::new(Path::new("/bin/sh"), &args, None, None).unwrap();
        launch.confine(
            &[Rlimit {
                resource: libc::RLIMIT_NOFILE as _,
                soft: 17,
                hard: 17,
            }],
            None,
        );
        let (stdout_ours, stdout_theirs) = sys::pipe().unwrap();
        let fd = stdout_theirs.as_raw_fd();
        let pid = launch.spawn([fd, fd, fd]).unwrap();
        drop(stdout_theirs);
        let mut out = String::new();
        std::fs::File::from(stdout_ours)
            .read_to_string(&mut out)
            .unwrap();
        sys::wait4(pid).unwrap();
        assert_eq!(out, "17\n");
        // The harness's own limit is untouched.
        let mut own: libc::rlimit = unsafe { std::mem::zeroed() };
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut own) };
        assert_ne!(own.rlim_cur, 17);
    }
}
