//! Moldable job scheduling (the MOLD paper: Sabin, Lang and Sadayappan,
//! "Moldable Parallel Job Scheduling Using Job Efficiency: An Iterative
//! Approach"): the scheduler, not the user, picks each job's width, from
//! the job's speedup model (see [`crate::workload::speedup`]).
//!
//! - [`FairShare`]: square-root fair-share limits with an overbooking
//!   factor and an efficiency factor, each job then taking the width below
//!   its limit that ends it earliest, with aggressive backfilling;
//! - [`Iterative`]: no parameters: from one processor each, processors are
//!   added one at a time where they shorten a conservative schedule's
//!   average turnaround.

mod fair_share;
mod flat_profile;
mod iterative;
mod limits;
mod width;

pub use fair_share::FairShare;
pub use iterative::{Iterative, Placed, Planner, Queued};

/// The finest the schemes move processors on a machine of any width: the
/// iterative scheme widens a job by `widest / FINEST_STEPS` processors at
/// a time (rounded up), EF trades them in lots of `procs / FINEST_STEPS`.
/// Up to this width (every machine the paper or the classic traces knew)
/// that is one processor at a time, as the paper has it; on a machine of
/// millions it bounds the steps, which one at a time were millions per
/// decision.
pub const FINEST_STEPS: u32 = 16_384;

/// Processors per step for `width` processors (see [`FINEST_STEPS`]).
fn step_of(width: u32) -> u32 {
    width.div_ceil(FINEST_STEPS).max(1)
}

use crate::sim::Policy;
use serde::Serialize;
use std::fmt;

/// A moldable scheduling scheme, as plain data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MoldableScheme {
    /// Fair-share limits scaled by the overbooking factor (ObF, at least 1)
    /// and shifted by the efficiency factor (EF, 0 to 1).
    FairShare { overbooking: f64, efficiency: f64 },
    /// The iterative allocator of section 6 (Fig. 6): no parameters.
    Iterative,
}

impl MoldableScheme {
    pub fn build(&self) -> Box<dyn Policy> {
        match *self {
            MoldableScheme::FairShare {
                overbooking,
                efficiency,
            } => Box::new(FairShare::new(overbooking, efficiency)),
            MoldableScheme::Iterative => Box::new(Iterative::new()),
        }
    }

    /// The scheme in words, as (field, sentence) lines.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        match *self {
            MoldableScheme::FairShare {
                overbooking,
                efficiency,
            } => vec![
                (
                    "widths",
                    "the scheduler picks each moldable job's width at schedule time: the width up to its limit that gives its earliest estimated completion (ties: fewer processors)".to_string(),
                ),
                (
                    "limits",
                    format!(
                        "square-root fair share of the machine among the jobs in the system, waiting and running (weight: width x estimate), times overbooking factor {overbooking}; efficiency factor {efficiency} then moves processors from the flattest speedup curves to the steepest, each limit within [max(1, (1 - {efficiency}) L), min(machine, (1 + {efficiency}) L)] of its fair share L"
                    ),
                ),
                (
                    "dispatch",
                    "aggressive backfilling in FCFS order: a job starts when its best width starts now; the first job whose best start is later holds the one reservation, which no later job may delay".to_string(),
                ),
            ],
            MoldableScheme::Iterative => vec![
                (
                    "widths",
                    "iterative (no parameters): at every epoch every waiting moldable job starts on 1 processor; repeatedly the unmarked job whose estimate shrinks most from one more processor gets it, kept if the planned average turnaround improves, else taken back and the job marked".to_string(),
                ),
                (
                    "dispatch",
                    "a conservative schedule of the whole queue in FCFS order, rebuilt at every epoch; the jobs planned for now start".to_string(),
                ),
            ],
        }
    }
}

impl fmt::Display for MoldableScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoldableScheme::FairShare {
                overbooking,
                efficiency,
            } => write!(f, "moldable-fairshare(obf {overbooking}, ef {efficiency})"),
            MoldableScheme::Iterative => write!(f, "moldable-iterative"),
        }
    }
}
