//! `cargo xtask grade`: a whole class at once, resumable and splittable across machines.
//!
//! Each submission is a folder named by the student's id; the run command runs inside it
//! against the suite, through `check`. [`dispatch`] is the class queue; [`cache`] is each
//! submission's result file (`results/<id>.json`, written atomically as soon as it is known)
//! and the key under which a rerun reuses it, so an interrupted grading resumes where it
//! stopped; [`audit`] says whose scores a regrade moved and why, and what `--dry-run` would
//! rerun; [`preflight`] refuses, up front, a class one mistake would grade to zeros;
//! [`summary`] is what a grading comes to and the gradebook it starts from; [`one`] grades
//! one submission the same way, for the course server; `similar` ranks the pairs of a class by
//! shared code and shared wrong outputs (the instructor's similarity report). `grades.csv` and `grades.json` are written by `gradebook` from the result files
//! alone; the terminal's wording is in `cli`.

mod audit;
mod cache;
mod dispatch;
mod folder;
mod one;
mod options;
mod preflight;
#[cfg(feature = "similarity")]
mod similar;
mod summary;

pub use dispatch::{grade, write_html, Step};
pub use one::{empty_gradebook, grade_one, Failure, One};
pub use options::Options;
pub use preflight::out_folder;
#[cfg(feature = "similarity")]
pub use similar::{
    report_folder, similar, write_similarity, SimilarOptions, COMMON, SIMILARITY_OUT,
};
pub use summary::Summary;
