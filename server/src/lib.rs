//! The course server, as a library that `main` and the tests both start. Students open their
//! login link, hand in their work in the browser (or by the JSON API) and watch it graded; the
//! instructor sees the class. One process: the web server, the database (SQLite in the course
//! folder), and a grading worker that takes submissions from the durable queue and grades them
//! through the harness, as `grade` does. On several machines: PostgreSQL (`--database`), one
//! web server, and any number of `--worker` processes that grade and share nothing but the
//! database.
//!
//! The modules, from the top: [`flags`] (the command line) and [`start`] (what it does, step
//! by step); [`listen`] (the connections: hyper with a header read
//! timeout, a graceful stop), [`web`] (the routes, headers), [`access`] (signing in and out, links for another device, API tokens), [`pages`] (the students'),
//! [`class`] (the instructor's), [`api`]; [`upload`] (taking work in) and [`grading`] (the
//! queue's worker); [`extract`] (who is asking and what about), [`auth`] (links, sessions,
//! API tokens, CSRF), [`state`] (what they share), [`queue`] (the jobs); [`db`] (one module per table);
//! [`lti`] (the course inside an LMS: launch, grade passback, roster) and [`lms`] (the LMS's services as the server calls them); [`course`], [`roster`] and [`init`] (the course folder's files); [`view`] (what every page shares) and [`error`] (the faults and the
//! answers they turn into).

pub mod access;
pub mod api;
pub mod auth;
pub mod class;
pub mod course;
pub mod db;
pub mod error;
pub mod extract;
pub mod flags;
pub mod grading;
pub mod init;
pub mod listen;
pub mod lms;
pub mod lti;
pub mod pages;
pub mod queue;
pub mod roster;
pub mod start;
pub mod state;
pub mod upload;
pub mod view;
pub mod web;

pub use error::Fault;
pub use flags::Args;
pub use start::run;
