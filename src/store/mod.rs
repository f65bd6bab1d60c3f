//! Result stores: every finished cell of a suite as one JSON line
//! ([`record`]), appended as it finishes and read back with torn last
//! lines detected ([`file`]); which cells a store already holds
//! ([`reuse`]); shard stores united into one ([`merge`]).
//!
//! The store sits above the run layer and the reports (a record holds a
//! [`crate::report::RunReport`]) and below the suites that fill it.

pub mod file;
pub mod merge;
pub mod record;
pub mod reuse;

pub use file::{replaceable, write_atomically, Store, StoreContents, UnknownKey};
pub use record::{cell_key, sha256_hex, Axes, Record, FORMAT, GOALC_VERSION};

/// A store that cannot be read, written or merged.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A line that is not a record, before the last line.
    #[error("{path}:{line}:{column}: not a store record: {message}")]
    BadLine {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Stores that cannot be united or reused, and why.
    #[error("{0}")]
    Refused(String),
}

impl StoreError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
