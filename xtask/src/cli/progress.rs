//! How a check or a grading shows that it is getting on: a bar on a terminal (the only place
//! indicatif is used); without one (a CI log, `| tee`), a grading prints one line per finished
//! submission and, while a long one runs, a line every half minute.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::Error;

/// A check's bar: the cases run of all.
pub struct CheckProgress {
    bar: indicatif::ProgressBar,
}

impl CheckProgress {
    /// A bar on stderr when `show`, a hidden one otherwise.
    pub fn new(show: bool) -> CheckProgress {
        let bar = match show {
            true => indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::stderr(),
            ),
            false => indicatif::ProgressBar::hidden(),
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        CheckProgress { bar }
    }

    pub fn step(&self, step: crate::check::Step) {
        match step {
            crate::check::Step::Planned { cases } => self.bar.set_length(cases),
            crate::check::Step::Ran => self.bar.inc(1),
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Runs a check for a person at a terminal: its progress drawn on stderr where
/// [`super::show_progress`] says so.
pub fn check_drawn(options: &crate::check::Options) -> Result<crate::judge::Run, Error> {
    let progress = CheckProgress::new(super::show_progress());
    let run = crate::check::check(options, &|step| progress.step(step));
    progress.finish();
    run
}

/// How often a grading without a terminal says it is still at work when no submission has
/// finished meanwhile.
const HEARTBEAT: Duration = Duration::from_secs(30);

/// A grading's progress: on a terminal, a bar of the cases run and the submissions graded;
/// else lines.
pub struct GradeProgress {
    bar: indicatif::ProgressBar,
    submissions: AtomicU64,
    lines: Option<Lines>,
}

/// The lines of a grading shown without a terminal.
struct Lines {
    said: Arc<Mutex<Said>>,
    /// The heartbeat's thread, and the sender whose drop at the end stops it.
    heartbeat: Mutex<Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>>,
}

/// What the lines have said, and where they go.
struct Said {
    start: Instant,
    last: Instant,
    cases: u64,
    of: u64,
    submissions: u64,
    out: Box<dyn Write + Send>,
}

impl Said {
    fn counts(&self) -> String {
        format!(
            "{} graded, {} of {} cases, {}",
            super::output::counted(self.submissions as usize, "submission", "submissions"),
            self.cases,
            self.of,
            clock(self.start.elapsed())
        )
    }

    fn say(&mut self, line: &str) {
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
        self.last = Instant::now();
    }
}

/// `75 s` as `1 min 15 s`.
fn clock(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    match secs {
        0..=59 => format!("{secs} s"),
        _ => format!("{} min {} s", secs / 60, secs % 60),
    }
}

impl GradeProgress {
    /// A bar on stderr when `show`; lines on stderr otherwise.
    pub fn new(show: bool) -> GradeProgress {
        if show {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} cases, {msg} {elapsed}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            GradeProgress {
                bar,
                submissions: AtomicU64::new(0),
                lines: None,
            }
        } else {
            GradeProgress::lines(Box::new(std::io::stderr()), HEARTBEAT)
        }
    }

    /// Lines to `out`, a heartbeat every `every` while nothing else is said.
    fn lines(out: Box<dyn Write + Send>, every: Duration) -> GradeProgress {
        let now = Instant::now();
        let said = Arc::new(Mutex::new(Said {
            start: now,
            last: now,
            cases: 0,
            of: 0,
            submissions: 0,
            out,
        }));
        let (stop, stopped) = mpsc::channel::<()>();
        let beating = Arc::clone(&said);
        let heartbeat = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every / 4) {
                let mut said = beating.lock().unwrap_or_else(|p| p.into_inner());
                if said.last.elapsed() >= every {
                    let line = format!("still grading: {}", said.counts());
                    said.say(&line);
                }
            }
        });
        GradeProgress {
            bar: indicatif::ProgressBar::hidden(),
            submissions: AtomicU64::new(0),
            lines: Some(Lines {
                said,
                heartbeat: Mutex::new(Some((stop, heartbeat))),
            }),
        }
    }

    pub fn step(&self, step: crate::grade::Step) {
        match step {
            crate::grade::Step::Planned { cases } => {
                self.bar.set_length(cases);
                if let Some(lines) = &self.lines {
                    lines.said.lock().unwrap_or_else(|p| p.into_inner()).of = cases;
                }
            }
            crate::grade::Step::Graded { id, cases } => {
                let done = self.submissions.fetch_add(1, Ordering::Relaxed) + 1;
                self.bar.inc(cases);
                self.bar
                    .set_message(format!("{done} submissions graded, last {id}"));
                if let Some(lines) = &self.lines {
                    let mut said = lines.said.lock().unwrap_or_else(|p| p.into_inner());
                    said.cases += cases;
                    said.submissions = done;
                    let line = format!("graded {id} ({})", said.counts());
                    said.say(&line);
                }
            }
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
        if let Some(lines) = &self.lines {
            let heartbeat = lines
                .heartbeat
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            if let Some((stop, heartbeat)) = heartbeat {
                drop(stop);
                let _ = heartbeat.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test reads back.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn without_a_terminal_each_submission_is_a_line_and_a_long_wait_a_heartbeat() {
        let sink = Sink::default();
        let progress = GradeProgress::lines(Box::new(sink.clone()), Duration::from_millis(40));
        progress.step(crate::grade::Step::Planned { cases: 20 });
        progress.step(crate::grade::Step::Graded {
            id: "s01",
            cases: 10,
        });
        // However slow the machine, the heartbeat thread says something within this.
        let deadline = Instant::now() + Duration::from_secs(60);
        while !String::from_utf8_lossy(&sink.0.lock().unwrap()).contains("still grading")
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        progress.step(crate::grade::Step::Graded {
            id: "s02",
            cases: 10,
        });
        progress.finish();
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("graded s01 (1 submission graded, 10 of 20 cases, "),
            "{text}"
        );
        assert!(
            lines[1].starts_with("still grading: 1 submission graded, 10 of 20 cases, "),
            "{text}"
        );
        let last = lines.last().unwrap();
        assert!(
            last.starts_with("graded s02 (2 submissions graded, 20 of 20 cases, "),
            "{text}"
        );
    }

    #[test]
    fn a_clock_reads_in_minutes_and_seconds() {
        assert_eq!(clock(Duration::from_secs(42)), "42 s");
        assert_eq!(clock(Duration::from_secs(890)), "14 min 50 s");
    }
}
