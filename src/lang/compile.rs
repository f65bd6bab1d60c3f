//! Lowering: from the checker's [`Draft`] to the run layer's [`Goal`],
//! the policy spec and the workload and measure settings. Nothing else:
//! what a policy does is said by its spec.

use super::draft::Draft;
use crate::policy::greedy::GreedySpec;
use crate::policy::{GoalPolicy, PolicySpec};
use crate::run::Goal;

/// Compiles a checked goal; `default_name` names it when the goal does not.
pub fn compile(goal: &Draft, default_name: &str) -> Goal {
    let greedy = goal.greedy.as_ref().and_then(|g| g.criteria.clone());
    // The checker lowers one mode's policy only.
    let policy = match (goal.moldable, &goal.search, goal.admission, greedy) {
        (Some(scheme), _, _, _) => GoalPolicy::Moldable(scheme),
        (None, Some(search), _, _) => GoalPolicy::Search(search.clone()),
        (None, None, Some(admission), _) => GoalPolicy::Admission(admission),
        (None, None, None, Some(criteria)) => GoalPolicy::Greedy(GreedySpec { criteria }),
        (None, None, None, None) => {
            GoalPolicy::Baseline(PolicySpec::new(goal.dispatch, goal.order))
        }
    };
    let fairshare = Goal::fairshare_of(&policy);
    Goal {
        name: goal
            .name
            .clone()
            .unwrap_or_else(|| default_name.to_string()),
        policy,
        deadlines: goal.deadlines,
        tau: goal.tau,
        runtime_limit: goal.runtime_limit,
        fairshare,
        groups: goal.groups.clone(),
        owner: goal.owner.clone(),
        speedup: goal.speedup,
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
