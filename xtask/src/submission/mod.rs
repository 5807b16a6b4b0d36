//! Submissions handed in as sources or archives: unpacked safely, built once, then run.
//!
//! [`archive`] unpacks zips and tarballs safely (a lone file or a non-UTF-8 folder gets a folder
//! of its own); [`compile`] builds sources once per content hash, confined with only its output
//! folder writable, into an [`Outcome`]: ready to run, or failed with the compiler's first
//! lines; [`names`] what a submission may name, an archive's entries and an upload's files.

mod archive;
mod compile;
mod digest;
mod names;

pub use archive::{
    copy_folder, copy_out, extension as archive_extension, lone_source, remove_unpacked, unpack,
};
pub use compile::{build, build_custom, names_sources, Custom, Outcome};
pub use names::{clean_name, without_common_folder};
