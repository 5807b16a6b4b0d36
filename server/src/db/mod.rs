//! The database, one module per table or concern: [`connect`] opens SQLite in the course's
//! state folder or PostgreSQL (`--database`) and brings the tables up to date; every query of
//! the server is written once, for both, through sqlx's `any` driver, in [`submissions`]
//! (with the statuses a submission goes through), [`blobs`] (uploads by hash), [`sessions`]
//! (login links, sessions, failed logins), [`api_tokens`] (the API's bearer tokens), [`regrades`] (regrades and whose score moved),
//! [`gradings`] (a result recorded once), [`students`] (the roster's rows) and [`lti`]
//! (the LMS's login flows, students, line items and scores to post).

#[macro_use]
mod sql;

pub mod api_tokens;
pub mod blobs;
mod connect;
pub mod gradings;
pub mod lti;
pub mod regrades;
pub mod sessions;
pub mod students;
pub mod submissions;

pub use connect::{now, open, Backend, Db, Opened};
pub use submissions::{Audience, Status, Sub};
