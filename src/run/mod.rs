//! The run layer: make a goal's workload, run it, measure it.
//!
//! It sits above the core ([`crate::sim`]), the policies and the measures,
//! and below the language and the command line: [`workloads`] makes the
//! workloads (traces or the model, windows, months, loads, load factors),
//! [`scale`] moves a trace to a standard machine, calibrated by simulation,
//! [`reference`] the reference run of each (FCFS-backfill), [`deadlines`]
//! QOPS's deadlines from it, and [`execute`] runs goals on workloads and
//! measures them. `goalc simulate` and `goalc bench` both go through here.

pub mod deadlines;
pub mod execute;
pub mod goal;
pub mod notes;
mod parallel;
pub mod reference;
pub mod scale;
pub mod workloads;

pub use deadlines::DeadlineSpec;
pub use execute::{
    check_budgets, expand_budgets, goal_workload, run_all, run_each, run_goal, run_one,
    BenchContext, RunOptions,
};
pub use goal::Goal;
pub use notes::notes;
pub use parallel::cores_setting;
pub use reference::{Reference, Thresholds};
pub use scale::{scale_to_machine, Calibration, ScaleFactor, ScaleSpec, Scaled, Try};
pub use workloads::{FactorBy, LoadBy, WindowSpec, WorkloadPlan};

use crate::sim::SimError;
use crate::workload::{model::ModelError, swf::SwfError, transform::TransformError};

/// A run that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A policy broke the core's rules: a bug, not bad input.
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    Transform(#[from] TransformError),
    #[error(transparent)]
    Swf(#[from] SwfError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Calendar(#[from] crate::policy::greedy::week::CalendarError),
    /// A speedup model that cannot be applied to the workload.
    #[error("cannot make the workload moldable: {0}")]
    Moldable(String),
    /// Settings that cannot be run as given.
    #[error("{0}")]
    Invalid(String),
    /// A calendar month the workload does not have; its own variant so
    /// that a suite can say it in its own words, at the month's place.
    #[error(
        "--months: `{month}` is not a month of {workload} (it has {count} months, {first} to \
         {last}; give 1-based numbers, YYYY-MM, or all)"
    )]
    NoSuchMonth {
        month: String,
        workload: String,
        count: usize,
        first: String,
        last: String,
    },
    /// An error in running one goal: what its own statements (a run-time
    /// limit, a speedup model, ...) could not make of the workload, or its
    /// simulation's.
    #[error("goal `{goal}`: {source}")]
    InGoal { goal: String, source: Box<RunError> },
}

impl RunError {
    /// `self` as raised in running goal `goal`.
    pub fn in_goal(self, goal: &str) -> RunError {
        match self {
            e @ RunError::InGoal { .. } => e,
            e => RunError::InGoal {
                goal: goal.to_string(),
                source: Box::new(e),
            },
        }
    }

    /// The error itself, without the goal it was raised in.
    pub fn root(&self) -> &RunError {
        match self {
            RunError::InGoal { source, .. } => source.root(),
            e => e,
        }
    }

    /// [`RunError::root`], owned.
    pub fn into_root(self) -> RunError {
        match self {
            RunError::InGoal { source, .. } => source.into_root(),
            e => e,
        }
    }
}
