//! `goalc bench`: every goal on every workload, in parallel, in a
//! deterministic order, with the GOAL paper's evaluation measures.

use crate::lang::CompiledGoal;
use crate::measures::fairness::fairness;
use crate::measures::{admission_measures, measure, normalized_excess, MeasureOptions};
use crate::policy::admission::deadlines::synthesize;
use crate::policy::fairshare::Decay;
use crate::policy::search::SearchCost;
use crate::policy::{Dispatch, Order, PolicySpec};
use crate::report::{ExcessSummary, RunReport, SearchSummary};
use crate::sim::{realized, simulate, SimError, SimOptions};
use crate::workload::transform::{limit_runtime, TransformError};
use crate::workload::{Time, Workload};
use rayon::prelude::*;
use std::borrow::Cow;

/// A run that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    Transform(#[from] TransformError),
}

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
/// finished run (progress display). When any goal orders by fairshare,
/// every run is also measured for fairness (FAIR's fair start times), the
/// others against the default 24 h decay, so all rows compare.
pub fn run_all(
    goals: &[CompiledGoal],
    workloads: &[Workload],
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<RunReport>, BenchError> {
    let any_fair = goals.iter().any(|g| g.fairshare.is_some());
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
            let fair = goal.fairshare.or(any_fair.then_some(Decay::CPLANT));
            let report = run_one(goal, w, Some(*t), fair);
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

/// The workload as `goal` runs it: split by its run-time limit, with
/// deadlines when it states them (both are part of the goal).
pub fn goal_workload<'w>(
    goal: &CompiledGoal,
    w: &'w Workload,
) -> Result<Cow<'w, Workload>, BenchError> {
    let mut w = Cow::Borrowed(w);
    if let Some(limit) = goal.runtime_limit {
        w = Cow::Owned(limit_runtime(&w, limit)?);
    }
    if let Some(spec) = &goal.deadlines {
        w = Cow::Owned(synthesize(&w, spec)?);
    }
    Ok(w)
}

/// One goal on one workload, measured with the goal's own slowdown bound,
/// given thresholds the normalized excessive waits, and given a decay the
/// fairness measures.
pub fn run_one(
    goal: &CompiledGoal,
    w: &Workload,
    t: Option<Thresholds>,
    fair: Option<Decay>,
) -> Result<RunReport, BenchError> {
    let w = goal_workload(goal, w)?;
    let mut policy = goal.build();
    let outcome = simulate(&w, policy.as_mut(), SimOptions::default())?;
    // Measures read submit times: chunks were submitted when released.
    let w = realized(&w, &outcome);
    let w: &Workload = &w;
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
    // Wall-clock figures come from the policy, not the deterministic outcome.
    report.search = SearchCost::from_stats(&policy.stats())
        .as_ref()
        .map(SearchSummary::from);
    report.admission = goal
        .deadlines
        .map(|_| admission_measures(w, &outcome, opts));
    report.fairness = fair.map(|d| fairness(w, &outcome, d));
    Ok(report)
}
