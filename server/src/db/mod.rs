//! The database, one module per table or concern: [`connect`] opens SQLite in the course's
//! state folder or PostgreSQL (`--database`) and brings the tables up to date; every query of
//! the server is written once, for both, through sqlx's `any` driver, in [`submissions`]
//! (with the statuses a submission goes through), [`blobs`] (uploads by hash), [`sessions`]
//! (login links, sessions, failed logins), [`api_tokens`] (the API's bearer tokens), [`regrades`] (regrades and whose score moved), [`requests`] (regrade requests and their answers),
//! [`gradings`] (a result recorded once), [`students`] (the roster's rows), [`extensions`]
//! (students' own deadlines) and [`lti`]
//! (the LMS's login flows, students, line items and scores to post).

#[macro_use]
mod sql;

pub(crate) mod api_tokens;
pub(crate) mod blobs;
mod connect;
pub(crate) mod extensions;
pub(crate) mod gradings;
pub(crate) mod lti;
pub(crate) mod regrades;
pub(crate) mod requests;
pub(crate) mod sessions;
pub(crate) mod students;
pub(crate) mod submissions;

pub(crate) use connect::{now, open, Backend, Db, Opened};
pub(crate) use submissions::{Audience, Status, Sub};
