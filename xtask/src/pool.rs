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
pub fn load() -> Option<f64> {
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

pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
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
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                worker();
                crate::sandbox::release();
            });
        }
    });
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
    fn every_worker_runs() {
        let count = std::sync::atomic::AtomicUsize::new(0);
        workers(4, || {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(count.into_inner(), 4);
    }
}
