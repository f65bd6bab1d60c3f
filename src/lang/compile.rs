//! From a checked [`Goal`] to the objects the simulation core runs.

use super::goal::Goal;
use crate::policy::{GoalPolicy, Order, PolicySpec};
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
    pub policy: GoalPolicy,
    /// How the workload's deadlines are made (admission control only).
    pub deadlines: Option<crate::run::DeadlineSpec>,
    /// Bounded-slowdown lower bound, seconds.
    pub tau: Time,
    /// FAIR's maximum run time (`limit runtime 72h`): jobs that run longer
    /// are split into consecutive chunks of at most this many seconds, a
    /// workload transform applied before the policy runs.
    pub runtime_limit: Option<Time>,
    /// The fairshare decay, when the goal orders its queue by fairshare.
    pub fairshare: Option<crate::policy::fairshare::Decay>,
}

/// Compiles a checked goal; `default_name` names it when the goal does not.
pub fn compile(goal: &Goal, default_name: &str) -> CompiledGoal {
    let policy = match (&goal.search, goal.admission) {
        (Some(search), _) => GoalPolicy::Search(search.clone()),
        (None, Some(admission)) => GoalPolicy::Admission(admission),
        (None, None) => GoalPolicy::Baseline(PolicySpec::new(goal.dispatch, goal.order)),
    };
    let fairshare = match &policy {
        GoalPolicy::Baseline(PolicySpec {
            order: Order::Fairshare(decay),
            ..
        }) => Some(*decay),
        _ => None,
    };
    CompiledGoal {
        name: goal
            .name
            .clone()
            .unwrap_or_else(|| default_name.to_string()),
        policy,
        deadlines: goal.deadlines,
        tau: goal.tau,
        runtime_limit: goal.runtime_limit,
        fairshare,
    }
}

impl CompiledGoal {
    /// The policy object the simulator calls.
    pub fn build(&self) -> Box<dyn Policy> {
        self.policy.build()
    }

    /// A stable, readable account of what the goal compiled to, for review.
    /// The policy specs say what they do; this only lays their lines out.
    pub fn describe(&self) -> String {
        let mut lines = vec![("policy", self.policy.to_string())];
        lines.extend(self.policy.describe());
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

#[cfg(test)]
mod tests {
    use crate::lang::check_text;
    use crate::policy::fairshare::Decay;

    #[test]
    fn fair_goals_carry_their_decay_and_runtime_limit() {
        let g = check_text(
            "cplant.goal",
            "fairshare decay 24h\nstarvation after 72h exclude heavy\nlimit runtime 72h\n",
        )
        .goal
        .unwrap();
        assert_eq!(
            (g.fairshare, g.runtime_limit),
            (Some(Decay::CPLANT), Some(72 * 3600))
        );
        assert_eq!(g.policy.to_string(), "fairshare-starvation:72h:fair");
        let text = g.describe();
        assert!(text.contains("  runtime:    at most 72h per run; longer jobs are split into consecutive chunks, each submitted when the one before ends\n"), "{text}");
        let json = serde_json::to_string(&g).unwrap();
        assert!(json.contains(r#""runtime_limit":259200"#), "{json}");
        assert!(
            json.contains(r#""fairshare":{"rule":"periodic","period":86400,"factor":0.5}"#),
            "{json}"
        );
        let g = check_text("x.goal", "order fairshare\nbackfill conservative dynamic\n")
            .goal
            .unwrap();
        assert_eq!((g.fairshare, g.runtime_limit), (Some(Decay::CPLANT), None));
        assert!(!g.describe().contains("runtime:"));
        let g = check_text("x.goal", "backfill easy\n").goal.unwrap();
        assert_eq!(g.fairshare, None);
        let g = check_text("x.goal", "fairshare half-life 7d\nlimit runtime 3d\ntradeoff(total_excessive_wait, avg_slowdown)\n").goal;
        assert!(g.is_none());
    }
}
