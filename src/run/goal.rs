//! A goal ready to run: its policy spec, how its workload is shaped
//! (deadlines, runtime limit) and how its outcome is measured. The goal
//! language lowers goal files to this; `goalc simulate` makes one from a
//! policy name.

use crate::measures::owner::OwnerObjective;
use crate::policy::fairshare::Decay;
use crate::policy::greedy::week::{Calendar, CalendarError};
use crate::policy::{Dispatch, GoalPolicy, Order, PolicySpec};
use crate::report::Mechanism;
use crate::sim::Policy;
use crate::units::format_duration;
use crate::workload::groups::Bands;
use crate::workload::transform::MoldableSpec;
use crate::workload::{Time, Workload};
use serde::Serialize;
use std::fmt::Write as _;

/// A goal ready to run: the policy, and how its workload is made and its
/// outcome measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Goal {
    /// Display name: the goal's `name`, else the file stem.
    pub name: String,
    pub policy: GoalPolicy,
    /// How the workload's deadlines are made (admission control only).
    pub deadlines: Option<super::DeadlineSpec>,
    /// Bounded-slowdown lower bound, seconds.
    pub tau: Time,
    /// FAIR's maximum run time (`limit runtime 72h`): jobs that run longer
    /// are split into consecutive chunks of at most this many seconds, a
    /// workload transform applied before the policy runs.
    pub runtime_limit: Option<Time>,
    /// The fairshare decay, when the goal orders its queue by fairshare.
    pub fairshare: Option<Decay>,
    /// GREEDY's user groups, when the goal states them, an owner objective
    /// or a greedy criterion: every job of its workloads gets its group.
    pub groups: Option<Bands>,
    /// GREEDY's owner objective, reported with the outcome.
    pub owner: Option<OwnerObjective>,
    /// MOLD's speedup model (`speedup downey ...`): every job of its
    /// workloads is made moldable, before any other transform. Left out of
    /// JSON when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup: Option<MoldableSpec>,
}

impl Goal {
    /// A baseline policy as a goal, named after the policy, measured with
    /// slowdown bound `tau`.
    pub fn baseline(spec: PolicySpec, tau: Time) -> Self {
        Goal {
            name: spec.to_string(),
            policy: GoalPolicy::Baseline(spec),
            deadlines: None,
            tau,
            runtime_limit: None,
            fairshare: Self::fairshare_of(&GoalPolicy::Baseline(spec)),
            groups: None,
            owner: None,
            speedup: None,
        }
    }

    /// Which paper's mechanism the goal uses, for the summary's groups. A
    /// rigid policy with a speedup model is MOLD's rigid baseline; one with
    /// user groups or an owner objective, GREEDY's reference; fairshare,
    /// starvation queues, dynamic reservations and runtime limits are FAIR's.
    pub fn mechanism(&self) -> Mechanism {
        let spec = match &self.policy {
            GoalPolicy::Search(_) => return Mechanism::Search,
            GoalPolicy::Admission(_) => return Mechanism::Admission,
            GoalPolicy::Greedy(_) => return Mechanism::Greedy,
            GoalPolicy::Moldable(_) => return Mechanism::Moldable,
            GoalPolicy::Baseline(spec) => spec,
        };
        let fair_dispatch = matches!(
            spec.dispatch,
            Dispatch::Starvation { .. } | Dispatch::ConservativeDynamic
        );
        if self.speedup.is_some() {
            Mechanism::Moldable
        } else if self.fairshare.is_some() || self.runtime_limit.is_some() || fair_dispatch {
            Mechanism::Fairshare
        } else if self.groups.is_some() || self.owner.is_some() {
            Mechanism::Greedy
        } else {
            Mechanism::Baseline
        }
    }

    /// The decay of a policy that orders its queue by fairshare.
    pub fn fairshare_of(policy: &GoalPolicy) -> Option<Decay> {
        match policy {
            GoalPolicy::Baseline(PolicySpec {
                order: Order::Fairshare(decay),
                ..
            }) => Some(*decay),
            _ => None,
        }
    }

    /// The policy object the simulator calls on `w`.
    pub fn build(&self, w: &Workload) -> Result<Box<dyn Policy>, CalendarError> {
        let calendar = if self.policy.needs_calendar() {
            Calendar::of(w)?
        } else {
            Calendar::UTC_EPOCH
        };
        Ok(self.policy.build(calendar))
    }

    /// A stable, readable account of what the goal compiled to, for review.
    /// The policy specs say what they do; this only lays their lines out.
    pub fn describe(&self) -> String {
        let mut lines = vec![("policy", self.policy.to_string())];
        lines.extend(self.policy.describe());
        if let Some(spec) = &self.speedup {
            let how = if matches!(self.policy, GoalPolicy::Moldable(_)) {
                "each job's recorded width and run time are one point of its speedup curve"
            } else {
                "each job's recorded width and run time are one point of its speedup curve; this policy is rigid and runs every job on its recorded width (the MOLD paper's rigid baseline)"
            };
            lines.push(("speedup", format!("Downey's model, {spec}; {how}")));
        }
        if let Some(d) = &self.deadlines {
            lines.push(("deadlines", d.describe()));
        }
        if let Some(limit) = self.runtime_limit {
            lines.push((
                "runtime",
                format!(
                    "at most {} per run; longer jobs are split into consecutive chunks, each submitted when the one before ends",
                    crate::policy::hours(limit)
                ),
            ));
        }
        if let Some(bands) = &self.groups {
            lines.push((
                "groups",
                format!(
                    "{} user groups by share of the workload's consumption (processor-seconds), bounds {bands}",
                    bands.groups()
                ),
            ));
        }
        if let Some(owner) = &self.owner {
            lines.push(("owner", format!("{owner} (lower is better)")));
        }
        lines.push((
            "slowdown",
            format!("bounded, run time at least {}", format_duration(self.tau)),
        ));
        let mut s = format!("goal \"{}\"\n", self.name);
        for (field, text) in lines {
            let _ = writeln!(s, "  {:<12}{text}", format!("{field}:"));
        }
        s
    }
}
