//! From a checked [`Goal`] to the objects the simulation core runs.

use super::check::Goal;
use crate::policy::{Dispatch, Order, PolicySpec};
use crate::sim::Policy;
use crate::units::format_duration;
use crate::workload::Time;
use serde::Serialize;
use std::fmt::Write as _;

/// A goal ready to simulate: the policy, and how its outcome is measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompiledGoal {
    /// Display name: the goal's `name`, else the file stem.
    pub name: String,
    pub policy: PolicySpec,
    /// Bounded-slowdown lower bound, seconds.
    pub tau: Time,
}

/// Compiles a checked goal; `default_name` names it when the goal does not.
pub fn compile(goal: &Goal, default_name: &str) -> CompiledGoal {
    CompiledGoal {
        name: goal
            .name
            .clone()
            .unwrap_or_else(|| default_name.to_string()),
        policy: PolicySpec::new(goal.dispatch, goal.order),
        tau: goal.tau,
    }
}

impl CompiledGoal {
    /// The policy object the simulator calls.
    pub fn build(&self) -> Box<dyn Policy> {
        self.policy.build()
    }

    /// A stable, readable account of what the goal compiled to, for review.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "goal \"{}\"", self.name);
        let _ = writeln!(s, "  policy:     {}", self.policy);
        let dispatch = match self.policy.dispatch {
            Dispatch::NoBackfill => "no backfilling: jobs start in queue order; the first that does not fit blocks the rest".to_string(),
            Dispatch::List => "list scheduling (no holes): each job starts when enough processors are free after those planned before it".to_string(),
            Dispatch::Easy { depth: 1 } => "EASY backfilling: the first blocked job holds a reservation; later jobs may start if they do not delay it".to_string(),
            Dispatch::Easy { depth } => format!("EASY backfilling with reservation depth {depth}: the first {depth} blocked jobs hold reservations; later jobs may start if they delay none"),
            Dispatch::Conservative => "conservative backfilling: every waiting job holds a reservation, which only ever moves earlier".to_string(),
            Dispatch::NoGuarantee => "no-guarantee backfilling: no reservations; every job that fits starts, in queue order".to_string(),
        };
        let _ = writeln!(s, "  dispatch:   {dispatch}");
        let order = match self.policy.order {
            Order::Fcfs => "FCFS: earliest submit first; ties by trace order",
            Order::Lxf => "LXF: largest expansion factor (wait + estimate) / estimate first; ties by earlier submit, then trace order",
            Order::Sjf => "SJF: shortest estimate first; ties by earlier submit, then trace order",
        };
        let _ = writeln!(s, "  order:      {order}");
        let _ = writeln!(
            s,
            "  slowdown:   bounded, run time at least {}",
            format_duration(self.tau)
        );
        s
    }
}
