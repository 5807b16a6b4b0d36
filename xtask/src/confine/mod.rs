//! Confining an untrusted target: the policy, worked out once per run and suite, and its layers.
//!
//! [`policy`] decides what a case may see ([`Policy`], [`Layers`], [`Mode`]) and reports, once,
//! any layer the machine cannot provide. Each layer is a module of its own, and the sandbox
//! applies them by name, so those modules are the face too: [`namespaces`], [`mounts`] (the
//! [`View`]), [`seccomp`], [`landlock`], [`cgroup`], [`rlimits`], [`environment`]; [`limits`]
//! is [`ResourceLimits`], the one type of resource limits, with its range checks; [`dying`]
//! counts the memory cgroups the kernel has yet to free.

pub(crate) mod cgroup;
mod dying;
pub(crate) mod environment;
pub(crate) mod landlock;
pub(crate) mod limits;
pub(crate) mod mounts;
pub(crate) mod namespaces;
mod policy;
pub(crate) mod rlimits;
pub(crate) mod seccomp;

pub use cgroup::{prime_migrations, Mark, Observed, WorkerCgroup};
pub use dying::dying_memory_cgroups;
pub use landlock::version;
pub use limits::ResourceLimits;
pub use mounts::View;
pub use mounts::{SYSTEM, TEMP};
pub use namespaces::SANDBOX_ID;
pub use policy::{note_once, Layers, Mode, Policy, Settings, Warnings};
pub use rlimits::Rlimit;
