//! Experiment suites: a TOML file naming goals, traces and axes, run as
//! the cross product of them into a result store.
//!
//! Data flows one way: [`format`] is the file as written (with spans),
//! [`check`] turns it into a checked [`spec::Suite`] or diagnostics (its
//! `workloads` makes every workload once, so that what only a trace can
//! refuse is found there too),
//! [`cells`] lays the suite out in keyed cells and shards, [`execute`]
//! runs the cells the store lacks through the run layer and appends them
//! to the store ([`crate::store`]), and [`slurm`] writes the batch scripts
//! that run the shards as a Slurm job array.

// Diagnostics are the error path of a checker that runs once per file.
#![allow(clippy::result_large_err)]

pub mod cells;
pub mod check;
pub mod execute;
pub mod format;
pub mod manifest;
pub mod slurm;
pub mod spec;
mod workloads;

pub use cells::{Cell, Layout, Shard, MAX_CELLS};
pub use check::{check_file, check_text, Checked};
pub use execute::{run, Summary};
pub use spec::Suite;

use crate::run::RunError;
use crate::store::StoreError;

/// A suite that could not be run.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("{0}")]
    Io(String),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The workload of a trace could not be made as the suite file asks
    /// (a month the trace does not have, a window past its end).
    #[error("{file}: trace `{trace}`: {source}")]
    Workload {
        file: String,
        trace: String,
        #[source]
        source: RunError,
    },
    /// More cells than [`cells::MAX_CELLS`].
    #[error(
        "{file}: the suite would have {cells} cells, more than the {} a suite may have",
        cells::MAX_CELLS
    )]
    TooManyCells { file: String, cells: u128 },
    /// One cell failed.
    #[error("{goal} on {workload}: {source}")]
    Cell {
        goal: String,
        workload: String,
        #[source]
        source: RunError,
    },
}

impl From<crate::sim::SimError> for SuiteError {
    fn from(e: crate::sim::SimError) -> Self {
        SuiteError::Run(RunError::Sim(e))
    }
}
