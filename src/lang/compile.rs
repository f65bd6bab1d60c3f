//! From a checked [`Goal`] to the objects the simulation core runs.

use super::check::Goal;
use crate::policy::objective::{Difference, Model, Reference};
use crate::policy::search::traverse::Traversal;
use crate::policy::{Dispatch, GoalPolicy, Order, PolicySpec};
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
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "goal \"{}\"", self.name);
        let _ = writeln!(s, "  policy:     {}", self.policy);
        match &self.policy {
            GoalPolicy::Baseline(spec) => describe_baseline(&mut s, spec),
            GoalPolicy::Admission(a) => {
                use crate::policy::admission::{Algorithm, Heuristic};
                let algo = match a.algorithm {
                    Algorithm::Qops { k } => format!("QoPS: the new job is tried at log N points of the reserved schedule, the tail re-sorted, up to {k} deadline violations repaired by moving the late job ahead"),
                    Algorithm::Msb => "MSB: the new job is tried at every position of the reserved order, the cheapest feasible schedule kept".to_string(),
                    Algorithm::Mrt { backtracks } => format!("MRT: the schedule is rebuilt in heuristic order, each step strongly feasible, at most {backtracks} backtracks"),
                };
                let _ = writeln!(s, "  admission:  {algo}; a job is admitted only if every admitted job still meets its deadline, else rejected on arrival");
                let h = match a.heuristic {
                    Heuristic::Edf => "EDF: earliest deadline first",
                    Heuristic::Llf => "LLF: least laxity first",
                };
                let _ = writeln!(s, "  order:      {h}");
                if let Some(d) = &self.deadlines {
                    let _ = writeln!(
                        s,
                        "  deadlines:  {}% of jobs must finish within max(run time, {} x their EASY response time); the others within max(24h, {} x run time)",
                        d.share * 100.0,
                        1.0 - d.stringency,
                        d.relaxation
                    );
                }
            }
            GoalPolicy::Search(spec) => {
                let o = &spec.objective;
                let names: Vec<String> = o.measures.iter().map(|m| m.name()).collect();
                let model = match o.model {
                    Model::Lexical => format!(
                        "lexical: minimise {} first; each later measure only breaks ties",
                        names.join(", then ")
                    ),
                    Model::Tradeoff(r) => {
                        let reference = match r {
                            Reference::A => "the best schedule so far (version A)",
                            Reference::B => "the smaller of the two values (version B)",
                            Reference::C => {
                                "lower bounds from FCFS-backfill and LXF-backfill each epoch (version C)"
                            }
                        };
                        format!(
                            "equal trade-off of {}: a schedule is better when its relative gains \
                             outweigh its relative losses, relative to {reference}",
                            names.join(", ")
                        )
                    }
                };
                let _ = writeln!(s, "  objective:  {model}");
                let difference = match o.difference {
                    Difference::Strict => "strict: any difference counts".to_string(),
                    Difference::Relaxed { percent } => format!(
                        "relaxed: when one measure gains and another loses, changes under {percent}% \
                         of the best value (of the oldest job's wait, for total excessive wait) count as none"
                    ),
                };
                let _ = writeln!(s, "  difference: {difference}");
                let traversal = match spec.traversal {
                    Traversal::Dds => "DDS (discrepancies high in the tree first)",
                    Traversal::Lds => "LDS (fewest discrepancies first)",
                };
                let _ = writeln!(
                    s,
                    "  search:     {traversal}, {} branching, at most {} node visits per epoch",
                    spec.branch.name().to_uppercase(),
                    spec.budget
                );
                let _ = writeln!(
                    s,
                    "  placement:  each job at its earliest start that delays no running or earlier-placed job; jobs planned for now start"
                );
            }
        }
        if let Some(limit) = self.runtime_limit {
            let _ = writeln!(
                s,
                "  runtime:    at most {} per run; longer jobs are split into consecutive chunks, each submitted when the one before ends",
                crate::policy::hours(limit)
            );
        }
        let _ = writeln!(
            s,
            "  slowdown:   bounded, run time at least {}",
            format_duration(self.tau)
        );
        s
    }
}

/// The dispatch rule and order of a baseline, in words.
fn describe_baseline(s: &mut String, spec: &PolicySpec) {
    let dispatch = match spec.dispatch {
            Dispatch::NoBackfill => "no backfilling: jobs start in queue order; the first that does not fit blocks the rest".to_string(),
            Dispatch::List => "list scheduling (no holes): each job starts when enough processors are free after those planned before it".to_string(),
            Dispatch::Easy { depth: 1 } => "EASY backfilling: the first blocked job holds a reservation; later jobs may start if they do not delay it".to_string(),
            Dispatch::Easy { depth } => format!("EASY backfilling with reservation depth {depth}: the first {depth} blocked jobs hold reservations; later jobs may start if they delay none"),
            Dispatch::Conservative => "conservative backfilling: every waiting job holds a reservation, which only ever moves earlier".to_string(),
            Dispatch::NoGuarantee => "no-guarantee backfilling: no reservations; every job that fits starts, in queue order".to_string(),
            Dispatch::Starvation { after, exclude_heavy } => format!(
                "no-guarantee backfilling with a starvation queue (FAIR's CPlant scheduler): a job that has waited {}{} enters an FCFS starvation queue served first, whose head holds the only reservation; every other job starts if it fits without delaying it",
                format_duration(after),
                if exclude_heavy { ", unless its user is heavy (decayed usage above the mean of the users with jobs in the system)," } else { "" }
            ),
            Dispatch::ConservativeDynamic => "conservative backfilling with dynamic reservations: at every event all reservations are dropped and rebuilt in queue order, each job at its earliest start; jobs planned for now start".to_string(),
        };
    let _ = writeln!(s, "  dispatch:   {dispatch}");
    let order = match spec.order {
            Order::Fcfs => "FCFS: earliest submit first; ties by trace order".to_string(),
            Order::Lxf => "LXF: largest expansion factor (wait + estimate) / estimate first; ties by earlier submit, then trace order".to_string(),
            Order::Sjf => "SJF: shortest estimate first; ties by earlier submit, then trace order".to_string(),
            Order::Fairshare(decay) => format!("fairshare: least decayed usage of the job's user first ({}); usage is processor-seconds, charged while jobs run; ties by earlier submit, then trace order", describe_decay(decay)),
        };
    let _ = writeln!(s, "  order:      {order}");
}

/// A decay rule in words.
fn describe_decay(decay: crate::policy::fairshare::Decay) -> String {
    use crate::policy::fairshare::Decay;
    match decay {
        Decay::Periodic { period, factor } => format!(
            "multiplied by {factor} at every {} boundary",
            format_duration(period)
        ),
        Decay::HalfLife { half_life } => format!(
            "decaying continuously with half-life {}",
            format_duration(half_life)
        ),
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
