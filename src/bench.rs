//! `goalc bench`: every goal on every workload, in parallel, in a
//! deterministic order.

use crate::lang::CompiledGoal;
use crate::measures::{measure, MeasureOptions};
use crate::report::RunReport;
use crate::sim::{simulate, SimError, SimOptions};
use crate::workload::Workload;
use rayon::prelude::*;

/// Runs each goal on each workload. Runs are independent and spread over
/// threads; the reports come back ordered by workload, then goal, so the
/// output is identical whatever the thread count. `tick` is called once per
/// finished run (progress display).
pub fn run_all(
    goals: &[CompiledGoal],
    workloads: &[Workload],
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<RunReport>, SimError> {
    let pairs: Vec<(&Workload, &CompiledGoal)> = workloads
        .iter()
        .flat_map(|w| goals.iter().map(move |g| (w, g)))
        .collect();
    pairs
        .par_iter()
        .map(|(w, goal)| {
            let report = run_one(goal, w);
            tick();
            report
        })
        .collect()
}

/// One goal on one workload, measured with the goal's own slowdown bound.
pub fn run_one(goal: &CompiledGoal, w: &Workload) -> Result<RunReport, SimError> {
    let mut policy = goal.build();
    let outcome = simulate(w, policy.as_mut(), SimOptions::default())?;
    let m = measure(w, &outcome, MeasureOptions { tau: goal.tau });
    Ok(RunReport::new(
        w,
        goal.name.clone(),
        goal.policy.to_string(),
        outcome.epochs,
        m,
    ))
}
