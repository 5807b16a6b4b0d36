//! The pump: one thread multiplexes a running case with `poll(2)`. It feeds stdin (a target
//! that exits early or never reads is normal), reads stdout and stderr (capped), watches for
//! the end (a pidfd, or the helper's report), the time limit (the case's CPU time where it is
//! measured, else its wall time), the wall-clock backstop (or, sooner, a confined case asleep
//! for as long as its time limit), Ctrl-C and the process limit;
//! whatever happens, the whole case is killed (its PID namespace, or its process group) before
//! it is reaped. Each turn of the loop is four steps: [`Pump::check_end`], [`Pump::watch_list`],
//! `poll`, [`Pump::serve`].

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::execution::{kept_waiting, Bounds, Limit};
use super::running::{Pumped, Running};
use crate::sandbox::Activity;
use crate::sys::{self, Read};

/// The longest `poll` sleeps, so that an interrupt or a limit is seen in time.
const TICK: Duration = Duration::from_millis(50);

/// How often a case's activity is looked at, for the idle span and its CPU seat.
const LOOK: Duration = Duration::from_millis(20);

/// How long a case is quiet before its CPU seat goes to the next case (see
/// [`super::gate`]): far below the idle span, since a case that wakes up again only shares
/// its CPU for a while.
const SEAT_AFTER: Duration = Duration::from_millis(20);

/// How often a running case's limits (processes, a direct target's memory) are looked at:
/// not at every wake-up for its output, which a chatty program makes thousands of.
const LIMITS_EVERY: Duration = Duration::from_millis(5);

/// How long output is still collected after a direct target exits, from processes that
/// escaped its process group (a sandboxed case has none: its namespace dies with it).
const DRAIN: Duration = Duration::from_millis(200);

/// How many times its wall-clock backstop a case the machine keeps waiting for a CPU may run
/// on (in the harness's own time) before it is stopped all the same.
const STARVED_AT_MOST: u32 = 10;

/// How long the end of a killed case may take to be reported before the harness stops waiting
/// (generous: a loaded machine can take seconds to tear a namespace down).
const HARD_DEADLINE: Duration = Duration::from_secs(30);

/// What a polled descriptor is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
    End,
}

/// Feeds stdin, collects stdout and stderr, and watches the deadline, Ctrl-C and the limits,
/// until the case has ended and its output is drained. Kills the whole case on the way out.
pub(super) fn pump(
    running: &mut Running,
    ours: [OwnedFd; 3],
    input: &[u8],
    bounds: &Bounds,
    start: Instant,
) -> io::Result<Pumped> {
    let [stdin, stdout, stderr] = ours;
    for fd in [&stdin, &stdout, &stderr] {
        sys::set_nonblocking(fd.as_raw_fd())?;
    }
    let mut pump = Pump {
        direct: matches!(running, Running::Direct { .. }),
        running,
        stdin: (!input.is_empty()).then_some(stdin),
        stdout: Some(stdout),
        stderr: Some(stderr),
        input,
        written: 0,
        bounds,
        start,
        deadline: start + bounds.timeout,
        backstop: start + bounds.wall,
        limits_due: start + LIMITS_EVERY,
        still: None,
        last: None,
        quiet_since: None,
        asleep_due: start + (bounds.asleep_after.unwrap_or_default() / 10).min(LOOK),
        cpu_measured: None,
        killed_at: None,
        ended_at: None,
        pumped: Pumped::default(),
        buffer: BUFFER.with(|kept| kept.take()),
    };
    if pump.buffer.is_empty() {
        pump.buffer = vec![0u8; 64 * 1024];
    }
    let pumped = pump.run();
    BUFFER.with(|kept| kept.set(std::mem::take(&mut pump.buffer)));
    pumped
}

thread_local! {
    /// The pump's read buffer, kept by each thread for its next case.
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Whether a case did something between two looks at its activity: used or waited for a CPU
/// for `at_least`, or started a thread.
fn active(before: Activity, now: Activity, at_least: Duration) -> bool {
    now.busy.saturating_sub(before.busy) >= at_least || now.threads != before.threads
}

/// One case being pumped.
struct Pump<'r, 'a, 'i> {
    running: &'r mut Running<'a>,
    /// A target started directly (its escaped processes may hold the pipes open).
    direct: bool,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    input: &'i [u8],
    written: usize,
    bounds: &'i Bounds,
    start: Instant,
    /// When the time limit passes in wall time (used where CPU time is not measured).
    deadline: Instant,
    /// When the wall-clock backstop stops the case whatever its CPU time.
    backstop: Instant,
    /// When the case's limits are next looked at.
    limits_due: Instant,
    /// When the case was last seen active (using or waiting for a CPU, starting a thread, or
    /// printing), how much activity it had then and how much it had printed; `None` until
    /// first looked at.
    still: Option<(Instant, Activity, usize)>,
    /// The last look at its activity: when, and how much.
    last: Option<(Instant, Activity)>,
    /// Since when it has been quiet at every look (for its CPU seat).
    quiet_since: Option<Instant>,
    /// When the case's activity is next looked at.
    asleep_due: Instant,
    /// Whether the case's CPU time can be measured, once known.
    cpu_measured: Option<bool>,
    killed_at: Option<Instant>,
    ended_at: Option<Instant>,
    pumped: Pumped,
    buffer: Vec<u8>,
}

impl Pump<'_, '_, '_> {
    fn run(&mut self) -> io::Result<Pumped> {
        loop {
            let now = Instant::now();
            if self.check_end(now)? {
                break;
            }
            let (mut fds, streams) = self.watch_list();
            let wait_ms = self.wait(now);
            // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the whole call.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
            if ready < 0 {
                let error = io::Error::last_os_error();
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                self.running.kill();
                return Err(error);
            }
            let mut just_ended = self.serve(&fds, &streams);
            if self.ended_at.is_none() && self.running.end_fd().is_none() {
                just_ended = self.running.has_ended();
            }
            if just_ended && self.running.has_ended() {
                self.note_end();
            }
        }
        if self.ended_at.is_none() {
            self.pumped.elapsed = self.start.elapsed();
        }
        Ok(std::mem::take(&mut self.pumped))
    }

    /// Whether the pump is done (the case ended and its output is drained); before that, kills
    /// the case at the deadline, on Ctrl-C or at a limit.
    fn check_end(&mut self, now: Instant) -> io::Result<bool> {
        if let Some(ended) = self.ended_at {
            // A sandboxed case leaves nothing behind: its pipes close. A direct one may have
            // left a process outside its group that holds them: wait only briefly.
            let drained = self.stdout.is_none() && self.stderr.is_none();
            return Ok(drained
                || (self.direct && now >= ended + DRAIN)
                || now >= ended + HARD_DEADLINE);
        }
        if let Some(killed) = self.killed_at {
            if now >= killed + HARD_DEADLINE {
                return Err(io::Error::other("a killed case did not end within 30 s"));
            }
            return Ok(false);
        }
        if self.over_time_limit(now) {
            self.pumped.timed_out = true;
        } else if self.past_backstop(now) || self.asleep(now) {
            self.pumped.wall_stopped = true;
            self.pumped.run_delay = self.running.run_delay();
            if now < self.backstop {
                self.pumped.idle = self.bounds.asleep_after;
            }
        } else if crate::sys::interrupted() {
            self.pumped.interrupted = true;
        } else if let Some(limit) = self.limit_now(now) {
            self.pumped.process_limited = limit == Limit::Processes;
        } else {
            return Ok(false);
        }
        self.kill(now);
        Ok(false)
    }

    /// Whether the case has used its time: its CPU time where that is measured (looked at once
    /// a case has run a quarter of its limit in wall time: before, no program can have used it
    /// all but one of many threads), else its wall time.
    fn over_time_limit(&mut self, now: Instant) -> bool {
        let timeout = self.bounds.timeout;
        if self.cpu_measured == Some(false) {
            return now >= self.deadline;
        }
        if now < self.start + timeout / 4 {
            return false;
        }
        match self.running.cpu_used() {
            Some(cpu) => {
                self.cpu_measured = Some(true);
                self.pumped.cpu_seen = self.pumped.cpu_seen.max(cpu);
                cpu >= timeout
            }
            None => {
                self.cpu_measured = Some(false);
                now >= self.deadline
            }
        }
    }

    /// Whether the wall-clock backstop has passed in the case's own time: the time it ran or
    /// slept, not the time the machine kept it waiting for a CPU (its run delay, at most what
    /// its share of this worker's CPUs would have given it and it did not get). A case a busy
    /// machine starves is neither slow nor asleep: it runs on until its CPU time reaches the
    /// limit (a timeout), up to [`STARVED_AT_MOST`] times the backstop. Only where the case's
    /// activity is measured (`asleep_after`, as for the idle span); an explicit `--wall` is a
    /// wall.
    fn past_backstop(&mut self, now: Instant) -> bool {
        if now < self.backstop {
            return false;
        }
        let span = self.bounds.wall;
        let elapsed = now.saturating_duration_since(self.start);
        if self.bounds.asleep_after.is_none() || elapsed >= span.saturating_mul(STARVED_AT_MOST) {
            return true;
        }
        let (Some(waited), Some(cpu)) = (self.running.run_delay(), self.running.cpu_used()) else {
            return true;
        };
        let kept = kept_waiting(waited, elapsed, cpu, sys::allowed_cpus().len());
        let own = elapsed.saturating_sub(kept);
        if own >= span {
            return true;
        }
        self.backstop = now + (span - own).max(LOOK);
        false
    }

    /// Whether the case has for `bounds.asleep_after` neither run, nor waited for a CPU, nor
    /// started a thread (it sleeps or blocks: no load of the machine makes a case look like
    /// that, not even one that starts process after process, each kept waiting), looked at every
    /// tenth of the span or [`LOOK`], whichever is sooner. Less activity than a twentieth of
    /// the span counts as none (a sleeping runtime's own timers).
    fn asleep(&mut self, now: Instant) -> bool {
        let Some(after) = self.bounds.asleep_after else {
            return false;
        };
        // A case whose input is not all written may be waiting for it.
        if now < self.asleep_due || self.ended_at.is_some() || self.stdin.is_some() {
            return false;
        }
        self.asleep_due = now + (after / 10).min(LOOK);
        let Some(activity) = self.running.activity() else {
            return false;
        };
        self.seat(now, activity);
        // Output read since counts too: a case blocked on a full pipe while the harness itself
        // waited for a CPU was writing, not asleep.
        let output = self.pumped.stdout.len() + self.pumped.stderr.len();
        match self.still {
            Some((since, then, printed))
                if !active(then, activity, after / 20) && output == printed =>
            {
                // Before calling it asleep, what the harness has not looked at yet: output or
                // an end waiting to be read (the harness's own thread may have waited for a
                // CPU all this while), or a process waiting for a CPU now.
                if now < since + after {
                    return false;
                }
                // The list of processes was read before the look at their states: a process
                // started in between (its parent now waiting for it) is seen by a look again.
                let hung = !self.pending()
                    && !self.running.runnable()
                    && self
                        .running
                        .activity()
                        .is_some_and(|again| !active(then, again, after / 20));
                if !hung {
                    self.still = Some((now, activity, output));
                }
                hung
            }
            _ => {
                self.still = Some((now, activity, output));
                false
            }
        }
    }

    /// Gives the case's CPU seat to the next case once it has been quiet (active less than a
    /// twentieth of the time between looks, and no process of it runnable) for
    /// [`SEAT_AFTER`]: it waits out the idle span without holding a CPU from a case that would
    /// use one. A case only waiting for a CPU is not quiet: the kernel counts its wait when it
    /// next runs, so on a busy machine it shows no activity between looks, and taking it for
    /// quiet ran more cases at once the busier the machine was.
    fn seat(&mut self, now: Instant, activity: Activity) {
        let quiet = match self.last {
            Some((then, before)) => {
                !active(before, activity, now.saturating_duration_since(then) / 20)
                    && !self.running.runnable()
            }
            None => false,
        };
        self.last = Some((now, activity));
        match (quiet, self.quiet_since) {
            (false, _) => self.quiet_since = None,
            (true, None) => self.quiet_since = Some(now),
            (true, Some(since)) if now >= since + SEAT_AFTER => super::gate::idle(),
            (true, Some(_)) => {}
        }
    }

    /// A limit the case has reached, looked at every [`LIMITS_EVERY`] (a case that ends
    /// before is judged by what its cgroup saw at the end).
    fn limit_now(&mut self, now: Instant) -> Option<Limit> {
        if now < self.limits_due {
            return None;
        }
        self.limits_due = now + LIMITS_EVERY;
        self.running.limit_now()
    }

    /// Kills the whole case, once.
    fn kill(&mut self, now: Instant) {
        if self.killed_at.is_none() {
            self.running.kill();
            self.killed_at = Some(now);
        }
    }

    /// Whether output or the case's end is ready to be read now.
    fn pending(&self) -> bool {
        let (mut fds, streams) = self.watch_list();
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs; a zero timeout.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        ready > 0
            && fds
                .iter()
                .zip(&streams)
                .any(|(fd, stream)| fd.revents != 0 && *stream != Stream::Stdin)
    }

    /// The descriptors to poll, and what each is.
    fn watch_list(&self) -> (Vec<libc::pollfd>, Vec<Stream>) {
        let mut fds = Vec::with_capacity(4);
        let mut streams = Vec::with_capacity(4);
        let mut watch = |fd: RawFd, events: libc::c_short, stream: Stream| {
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
            streams.push(stream);
        };
        if let Some(fd) = &self.stdin {
            watch(fd.as_raw_fd(), libc::POLLOUT, Stream::Stdin);
        }
        if let Some(fd) = &self.stdout {
            watch(fd.as_raw_fd(), libc::POLLIN, Stream::Stdout);
        }
        if let Some(fd) = &self.stderr {
            watch(fd.as_raw_fd(), libc::POLLIN, Stream::Stderr);
        }
        if let (Some(fd), None) = (self.running.end_fd(), self.ended_at) {
            watch(fd, libc::POLLIN, Stream::End);
        }
        (fds, streams)
    }

    /// How long `poll` may sleep, in milliseconds.
    fn wait(&self, now: Instant) -> libc::c_int {
        let mut wait = match (self.ended_at, self.killed_at) {
            (Some(ended), _) => (ended + DRAIN).saturating_duration_since(now),
            (None, Some(_)) => Duration::from_millis(10),
            (None, None) => self.backstop.saturating_duration_since(now).min(TICK),
        };
        if self.bounds.asleep_after.is_some() {
            wait = wait.min(self.asleep_due.saturating_duration_since(now));
        }
        // Without an end fd (or while polling memory) the end is seen only by looking.
        let polls_memory = matches!(
            self.running,
            Running::Direct {
                watch_memory: Some(_),
                ..
            }
        );
        if self.ended_at.is_none() && (self.running.end_fd().is_none() || polls_memory) {
            wait = wait.min(Duration::from_millis(5));
        }
        wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int
    }

    /// Serves every descriptor `poll` found ready; whether the end fd was among them.
    fn serve(&mut self, fds: &[libc::pollfd], streams: &[Stream]) -> bool {
        let mut just_ended = false;
        for (pollfd, stream) in fds.iter().zip(streams) {
            if pollfd.revents == 0 {
                continue;
            }
            match stream {
                Stream::Stdin => self.feed_stdin(),
                Stream::Stdout => self.read_stdout(),
                Stream::Stderr => self.read_stderr(),
                Stream::End => just_ended = true,
            }
        }
        just_ended
    }

    fn feed_stdin(&mut self) {
        let fd = self.stdin.as_ref().map_or(-1, |fd| fd.as_raw_fd());
        let input = self.input;
        let chunk = &input[self.written..input.len().min(self.written + 64 * 1024)];
        match sys::write_fd(fd, chunk) {
            Ok(n) => self.written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            // A target that stopped reading is normal: stop feeding it.
            Err(_) => self.written = input.len(),
        }
        if self.written == input.len() {
            self.stdin = None;
        }
    }

    fn read_stdout(&mut self) {
        match sys::read_fd(self.stdout.as_ref(), &mut self.buffer) {
            Read::Again => {}
            Read::End => self.stdout = None,
            Read::Data(n) => {
                self.pumped.stdout.extend_from_slice(&self.buffer[..n]);
                if self.pumped.stdout.len() > self.bounds.stdout_cap {
                    self.pumped.stdout.truncate(self.bounds.stdout_cap);
                    self.pumped.output_limited = true;
                    self.stdout = None;
                    self.kill(Instant::now());
                }
            }
        }
    }

    fn read_stderr(&mut self) {
        match sys::read_fd(self.stderr.as_ref(), &mut self.buffer) {
            Read::Again => {}
            Read::End => self.stderr = None,
            Read::Data(n) => {
                let room = self
                    .bounds
                    .stderr_cap
                    .saturating_sub(self.pumped.stderr.len());
                self.pumped
                    .stderr
                    .extend_from_slice(&self.buffer[..n.min(room)]);
                self.pumped.stderr_truncated |= n > room;
            }
        }
    }

    /// The case has ended: stop feeding it, and (direct) kill what it left running.
    fn note_end(&mut self) {
        self.ended_at = Some(Instant::now());
        self.pumped.elapsed = self.start.elapsed();
        self.stdin = None;
        if self.direct {
            self.running.kill();
        }
    }
}
