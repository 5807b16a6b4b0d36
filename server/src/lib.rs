//! The course server, as a library that `main` and the tests both start. Students open their
//! login link, hand in their work in the browser (or by the JSON API) and watch it graded; the
//! instructor sees the class. One process: the web server, the database (SQLite in the course
//! folder), and a grading worker that takes submissions from the durable queue and grades them
//! through the harness, as `grade` does. On several machines: PostgreSQL (`--database`), one
//! web server, and any number of `--worker` processes that grade and share nothing but the
//! database.
//!
//! The modules, from the top: `flags` (the command line) and `start` (what it does, step
//! by step); `listen` (the connections: hyper with a header read timeout, a graceful stop),
//! `web` (the routes, headers); the handlers, side by side, none importing another:
//! `access` (signing in and out, links for another device, API tokens), `pages` (the
//! students'), `class` (the instructor's), `api`, and `lti` (the course inside an LMS:
//! launch, grade passback, roster); what they share: `frame` (every page's frame),
//! `standing` (where a submission stands: which counts, who sees what of it, its status in
//! words), `gradebook` (the class's grades), `upload` (the one hand-in of the form and the
//! API), `extensions` (a student's own deadline, from every door), `requests` (regrade requests, asked and
//! answered), `grading` (the queue's worker) and `watchdog` (a grading that stops moving is given
//! up, a stalled queue's worker started again), over `watch` (the gradings under way); `extract` (who is asking and what about),
//! `auth` (links, sessions, API tokens, CSRF), `state` (what they share), `queue` (the
//! jobs); `db` (one module per table); `lms` (the LMS's services as the server calls them);
//! `course`, `roster` and `init` (the course folder's files); `view` (what every page
//! shares) and `error` (the faults and the answers they turn into).
//!
//! Every module is private: outside code (`main.rs`, the tests) sees only what is re-exported
//! below.

#![warn(unreachable_pub)]

mod access;
mod api;
mod auth;
mod class;
mod course;
mod db;
mod error;
mod extensions;
mod extract;
mod flags;
mod frame;
mod gradebook;
mod grading;
mod init;
mod listen;
mod lms;
mod lti;
mod pages;
mod queue;
mod requests;
mod roster;
mod standing;
mod start;
mod state;
mod upload;
mod view;
mod watch;
mod watchdog;
mod web;

pub use auth::hash;
pub use error::Fault;
pub use flags::Args;
pub use start::run;
