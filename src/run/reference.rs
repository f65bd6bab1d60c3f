//! The reference run of a workload: FCFS-backfill (EASY, FCFS order), from
//! which GOAL's normalized excessive wait takes its thresholds and QOPS's
//! deadlines their response times.

use crate::measures::{measure, MeasureOptions};
use crate::policy::{Dispatch, Order, PolicySpec};
use crate::sim::{simulate, EventMode, Outcome, SimError, SimOptions};
use crate::workload::{Time, Workload};

/// FCFS-backfill: EASY with one reservation, FCFS order.
pub const FCFS_BACKFILL: PolicySpec = PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fcfs);

/// FCFS-backfill's schedule of `w` under `events`.
pub fn fcfs_backfill(w: &Workload, events: EventMode) -> Result<Outcome, SimError> {
    let opts = SimOptions {
        events,
        ..SimOptions::default()
    };
    simulate(w, FCFS_BACKFILL.build().as_mut(), opts)
}

/// FCFS-backfill's maximum and 98th-percentile wait on a workload: the
/// thresholds of the normalized excessive wait.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub max_wait: Time,
    pub p98_wait: Time,
}

impl Thresholds {
    /// The thresholds of `w` from its FCFS-backfill schedule.
    pub fn of(w: &Workload, fcfs_backfill: &Outcome) -> Self {
        let m = measure(w, fcfs_backfill, MeasureOptions::default());
        Thresholds {
            max_wait: m.max_wait,
            p98_wait: m.p98_wait,
        }
    }
}

/// A workload's reference run and what is derived from it.
#[derive(Debug, Clone)]
pub struct Reference {
    pub outcome: Outcome,
    pub thresholds: Thresholds,
}

impl Reference {
    /// The reference run of `w` under `events`.
    pub fn of(w: &Workload, events: EventMode) -> Result<Self, SimError> {
        let outcome = fcfs_backfill(w, events)?;
        let thresholds = Thresholds::of(w, &outcome);
        Ok(Reference {
            outcome,
            thresholds,
        })
    }
}
