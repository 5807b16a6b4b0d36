//! The harness's one way to run work in parallel: `jobs` threads, results in input order.
//!
//! Every task that runs targets (`check`, `bless`, `bench`, `fuzz`, `grade`) goes through here, so the
//! number of targets running at once is always the `--jobs` the user gave, and each worker's
//! sandbox helper ends when its work does.

use rayon::prelude::*;

use crate::error::Error;

/// The number of CPUs: the default number of jobs.
/// The machine's load, where the kernel says: the larger of the one-minute average of runnable
/// processes and the number runnable now besides the caller (the average lags a load that has
/// just begun by most of a minute).
pub(super) fn load() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let average: f64 = text.split_whitespace().next()?.parse().ok()?;
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let running = stat
        .lines()
        .find_map(|line| line.strip_prefix("procs_running "))
        .and_then(|n| n.trim().parse::<f64>().ok())
        .map_or(0.0, |n| (n - 1.0).max(0.0));
    Some(average.max(running))
}

/// The CPUs this process may use: the machine's (or its container's) count, the same from any
/// thread, a worker pinned to one CPU included.
pub fn cpus() -> usize {
    match crate::sys::process_cpus().len() {
        0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
        n => n,
    }
}

/// `work(item)` for every item, `jobs` at a time; the results in the items' order.
pub fn map<T: Sync, R: Send>(
    jobs: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync + Send,
) -> Result<Vec<R>, Error> {
    // One job: run here, on the calling thread, keeping its sandbox helper for the next call.
    if jobs <= 1 {
        return Ok(items.iter().map(work).collect());
    }
    let cpus = crate::sys::allowed_cpus();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .start_handler(move |index| pin(index, jobs, &cpus))
        .build()
        .map_err(|err| Error::Internal(format!("failed to start {jobs} worker threads: {err}")))?;
    let results = pool.install(|| items.par_iter().map(work).collect());
    // Each worker's sandbox helper (and its cgroup) ends with the work, not whenever the
    // thread happens to exit.
    pool.broadcast(|_| crate::sandbox::release());
    Ok(results)
}

/// Runs `worker` on `jobs` threads at once and waits for all of them: for work that the workers
/// take from a shared queue until it runs out (fuzzing, a class's cases).
pub fn workers(jobs: usize, worker: impl Fn() + Sync) {
    let cpus = crate::sys::allowed_cpus();
    std::thread::scope(|scope| {
        for index in 0..jobs.max(1) {
            let (worker, cpus) = (&worker, &cpus);
            scope.spawn(move || {
                if jobs > 1 {
                    pin(index, jobs, cpus);
                }
                worker();
                crate::sandbox::release();
            });
        }
    });
}

/// CPU seats that several pools share: the cases of gradings that run at once (a course
/// server's) compute `jobs` at a time in all, as one class's cases do under `grade`.
#[derive(Clone)]
pub struct SharedSeats {
    seats: std::sync::Arc<super::gate::Seats>,
    jobs: usize,
    pinned: bool,
}

impl SharedSeats {
    /// `jobs` seats: one per CPU where the workers are pinned (see [`seated_workers`]).
    pub fn new(jobs: usize) -> SharedSeats {
        let jobs = jobs.max(1);
        let pinned = jobs > 1 && jobs <= crate::sys::allowed_cpus().len();
        let seats = if pinned {
            super::gate::Seats::new(jobs, 1)
        } else {
            super::gate::Seats::new(1, jobs)
        };
        SharedSeats {
            seats,
            jobs,
            pinned,
        }
    }

    /// Whether `other` is these seats (a clone of them), not seats made apart.
    pub fn same(&self, other: &SharedSeats) -> bool {
        std::sync::Arc::ptr_eq(&self.seats, &other.seats)
    }
}

/// Like [`workers`], for work whose cases may go idle: `jobs` cases compute at once, and a case
/// gone idle gives its seat to the next while it waits out the idle span (see [`super::gate`]).
/// `worker` calls [`super::admit`] before it takes each piece of work.
pub fn seated_workers(jobs: usize, worker: impl Fn() + Sync) {
    seated_workers_in(&SharedSeats::new(jobs), worker)
}

/// [`seated_workers`] on `shared` seats, which other pools may be using at the same time.
pub fn seated_workers_in(shared: &SharedSeats, worker: impl Fn() + Sync) {
    seated_threads(shared, usize::MAX, worker)
}

/// [`seated_workers_in`] on at most `most` threads: work of a few pieces (a check of one
/// case) starts no thread that would find nothing to take.
fn seated_threads(shared: &SharedSeats, most: usize, worker: impl Fn() + Sync) {
    let (jobs, pinned) = (shared.jobs, shared.pinned);
    let threads = super::gate::threads(jobs).min(most.max(1));
    // One piece of work runs on the calling thread, unpinned: a thread started for it waited
    // about a third of a millisecond for a CPU (a one-case check's helper is busy then).
    if threads == 1 && !super::gate::in_pool() {
        super::gate::join(std::sync::Arc::clone(&shared.seats), 0);
        worker();
        super::gate::leave();
        crate::sandbox::retire_own();
        return;
    }
    let cpus = crate::sys::allowed_cpus();
    std::thread::scope(|scope| {
        for index in 0..threads {
            let (worker, cpus, seats) = (&worker, &cpus, std::sync::Arc::clone(&shared.seats));
            scope.spawn(move || {
                let group = if pinned {
                    pin(index % jobs, jobs, cpus);
                    index % jobs
                } else {
                    0
                };
                super::gate::join(seats, group);
                worker();
                super::gate::leave();
                crate::sandbox::release();
            });
        }
    });
}

/// [`map`] through [`seated_workers`]: the results in the items' order.
pub fn seated_map<T: Sync, R: Send>(
    jobs: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    seated_map_in(&SharedSeats::new(jobs), items, work)
}

/// [`seated_map`] on `shared` seats.
pub fn seated_map_in<T: Sync, R: Send>(
    shared: &SharedSeats,
    items: &[T],
    work: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    seated_threads(shared, items.len(), || loop {
        super::gate::admit();
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(item) = items.get(k) else {
            crate::sandbox::expect_more(true);
            return;
        };
        // After the last piece, this worker's helper makes nothing ahead.
        crate::sandbox::expect_more(k + 1 < items.len());
        let result = work(item);
        *slots[k].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
    });
    slots
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

/// Keeps worker `index` of `jobs` on a CPU of its own among `cpus` (the ones this process may
/// use), where there are as many: its sandbox helper, the helper's cases and their targets
/// start there too. A case then goes from the worker to its target and back without waking a
/// process on another CPU, which in a virtual machine costs an interrupt between CPUs each
/// time (a confined native case at -j 2: 7% less wall time). Verdicts go by CPU time, which
/// this does not change; the kernel still moves other processes away from a busy CPU.
fn pin(index: usize, jobs: usize, cpus: &[usize]) {
    if jobs <= cpus.len() {
        let _ = crate::sys::pin_to(cpus[index % cpus.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_input_order() {
        let items: Vec<u64> = (0..100).collect();
        let doubled = map(3, &items, |n| {
            std::thread::sleep(std::time::Duration::from_micros(100 - n));
            n * 2
        })
        .unwrap();
        assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
    }

    #[test]
    fn each_worker_keeps_to_a_cpu_of_its_own() {
        let allowed = crate::sys::allowed_cpus();
        if allowed.len() < 2 {
            eprintln!("skipped: this process may use {} CPU(s)", allowed.len());
            return;
        }
        let items: Vec<u64> = (0..64).collect();
        let seen = map(2, &items, |_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            crate::sys::allowed_cpus()
        })
        .unwrap();
        assert!(seen.iter().all(|cpus| cpus.len() == 1), "{seen:?}");
        // More jobs than CPUs: the kernel places them.
        let seen = map(allowed.len() + 1, &items, |_| crate::sys::allowed_cpus()).unwrap();
        assert!(seen.iter().all(|cpus| *cpus == allowed), "{seen:?}");
    }

    #[test]
    fn a_pinned_worker_counts_the_machines_cpus_not_its_own() {
        let allowed = crate::sys::allowed_cpus();
        if allowed.len() < 2 {
            eprintln!("skipped: this process may use {} CPU(s)", allowed.len());
            return;
        }
        let items: Vec<u64> = (0..8).collect();
        let counted = map(2, &items, |_| (crate::sys::allowed_cpus().len(), cpus())).unwrap();
        for (own, counted) in counted {
            assert_eq!(own, 1, "the worker is pinned");
            assert_eq!(counted, allowed.len());
        }
    }

    #[test]
    fn every_worker_runs() {
        let count = std::sync::atomic::AtomicUsize::new(0);
        workers(4, || {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(count.into_inner(), 4);
    }
}
