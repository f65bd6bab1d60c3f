//! `goalc bench`: every goal on every workload, in parallel, in a
//! deterministic order, with the GOAL paper's evaluation measures.

use crate::lang::CompiledGoal;
use crate::measures::{admission_measures, measure, normalized_excess, MeasureOptions};
use crate::policy::admission::deadlines::synthesize;
use crate::policy::{Dispatch, Order, PolicySpec};
use crate::report::{ExcessSummary, RunReport, SearchSummary};
use crate::sim::{simulate, SimError, SimOptions};
use crate::workload::{Time, Workload};
use rayon::prelude::*;

/// FCFS-backfill's maximum and 98th-percentile wait on a workload: the
/// thresholds of the normalized excessive wait.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub max_wait: Time,
    pub p98_wait: Time,
}

/// The goals to run: each search goal once per budget in `budgets` (when
/// given), labelled with its budget; other goals once.
pub fn expand_budgets(goals: &[CompiledGoal], budgets: &[u64]) -> Vec<CompiledGoal> {
    let mut out = Vec::new();
    for g in goals {
        if g.policy.is_search() && !budgets.is_empty() {
            for &b in budgets {
                out.push(CompiledGoal {
                    name: format!("{} [L={b}]", g.name),
                    policy: g.policy.with_budget(b),
                    ..g.clone()
                });
            }
        } else {
            out.push(g.clone());
        }
    }
    out
}

/// Runs each goal on each workload. Runs are independent and spread over
/// threads; the reports come back ordered by workload, then goal, so the
/// output is identical whatever the thread count. `tick` is called once per
/// finished run (progress display).
pub fn run_all(
    goals: &[CompiledGoal],
    workloads: &[Workload],
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<RunReport>, SimError> {
    let thresholds = workloads
        .par_iter()
        .map(thresholds)
        .collect::<Result<Vec<_>, _>>()?;
    let pairs: Vec<(&Workload, Thresholds, &CompiledGoal)> = workloads
        .iter()
        .zip(&thresholds)
        .flat_map(|(w, t)| goals.iter().map(move |g| (w, *t, g)))
        .collect();
    pairs
        .par_iter()
        .map(|(w, t, goal)| {
            let report = run_one(goal, w, Some(*t));
            tick();
            report
        })
        .collect()
}

/// FCFS-backfill's wait thresholds on `w`.
pub fn thresholds(w: &Workload) -> Result<Thresholds, SimError> {
    let spec = PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fcfs);
    let o = simulate(w, spec.build().as_mut(), SimOptions::default())?;
    let m = measure(w, &o, MeasureOptions::default());
    Ok(Thresholds {
        max_wait: m.max_wait,
        p98_wait: m.p98_wait,
    })
}

/// One goal on one workload, measured with the goal's own slowdown bound
/// and, given thresholds, the normalized excessive waits.
pub fn run_one(
    goal: &CompiledGoal,
    w: &Workload,
    t: Option<Thresholds>,
) -> Result<RunReport, SimError> {
    // Deadlines are part of the goal: the workload gets them first.
    let with_deadlines;
    let w = match &goal.deadlines {
        Some(spec) => {
            with_deadlines = synthesize(w, spec)?;
            &with_deadlines
        }
        None => w,
    };
    let mut policy = goal.build();
    let outcome = simulate(w, policy.as_mut(), SimOptions::default())?;
    let opts = MeasureOptions { tau: goal.tau };
    let m = measure(w, &outcome, opts);
    let mut report = RunReport::new(
        w,
        goal.name.clone(),
        goal.policy.to_string(),
        outcome.epochs,
        m,
    );
    report.excess = t.map(|t| ExcessSummary {
        max: normalized_excess(w, &outcome, t.max_wait),
        p98: normalized_excess(w, &outcome, t.p98_wait),
    });
    report.search = outcome.search.as_ref().map(SearchSummary::from);
    report.admission = goal
        .deadlines
        .map(|_| admission_measures(w, &outcome, opts));
    Ok(report)
}
