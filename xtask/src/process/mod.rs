//! Running one target on one input, with a deadline and capped output, leaving nothing behind.
//!
//! A run reads as four steps, each a module. [`spawn`] plans a suite's target and its policy
//! and starts each run: the bundled reference (and, with `--no-sandbox` or without namespaces,
//! any target) directly ([`direct`]); a confined target through the worker's sandbox helper, in
//! namespaces of its own. [`pump`] multiplexes everything with `poll(2)` on one thread until the
//! case has ended, killing the whole case (its PID namespace, or its process group) whatever
//! happens. [`running`] reaps it: the exit status and CPU time. [`execution`] holds what a run
//! came to and [`classify`], the pure rule naming the resource limit it ran into. [`trace`]
//! makes the reference's trace of a case, which `judge` reads to say where a difference shows.

mod direct;
mod execution;
mod fair;
mod gate;
mod launch;
mod pool;
mod pump;
mod running;
mod spawn;
mod trace;

pub use execution::{backstop, classify, killed_by, Bounds, Execution, Exit, Limit, Signs};
pub use fair::{execute_fairly, jobs_warning, load_warning, Reruns};
pub use gate::admit;
pub use pool::{
    cpus, map, seated_map, seated_map_in, seated_workers, seated_workers_in, workers, SharedSeats,
};
pub use spawn::{execute, execute_connected, Planning};
pub use trace::{built_in_trace, case_trace, reference_trace};
