//! Goals on workloads: every goal on every workload, in parallel, in a
//! deterministic order, measured with the GOAL paper's evaluation measures
//! and, where they apply, QOPS's and FAIR's.

use super::deadlines::synthesize_from;
use super::goal::Goal;
use super::parallel::{cores_for_one_run, map, try_map};
use super::reference::{fcfs_backfill, Reference, Thresholds, FCFS_BACKFILL};
use super::RunError;
use crate::measures::fairness::fairness;
use crate::measures::moldable::moldable_measures;
use crate::measures::owner::{awrt_by_group, OwnerObjective};
use crate::measures::{admission_measures, measure, normalized_excess, MeasureOptions};
use crate::policy::fairshare::Decay;
use crate::policy::search::{SearchCost, SearchSpec};
use crate::policy::GoalPolicy;
use crate::report::{ExcessSummary, OwnerReport, RunReport, SearchSummary, WorkloadInfo};
use crate::sim::{
    realized, simulate, simulate_in_pieces, EventMode, Outcome, SimOptions, PIECES_PER_CORE,
};
use crate::workload::groups::{self, Bands};
use crate::workload::transform::{limit_runtime, make_moldable};
use crate::workload::Workload;
use std::borrow::Cow;

/// How the runs are simulated, and what is measured beyond each goal's own
/// outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunOptions {
    /// How the core turns events into epochs, for every run including the
    /// reference run (FCFS-backfill) of thresholds and deadlines, so that a
    /// whole bench is made under one semantics.
    pub events: EventMode,
    /// GOAL's normalized excessive waits against FCFS-backfill's run of
    /// each workload (one more simulation per workload).
    pub normalized_excess: bool,
    /// FAIR's fairness measures for every run when any goal orders by
    /// fairshare (the others against the default 24 h decay, so all rows
    /// compare).
    pub fairness: bool,
}

impl RunOptions {
    /// What `goalc bench` measures.
    pub const BENCH: RunOptions = RunOptions {
        events: EventMode::PerInstant,
        normalized_excess: true,
        fairness: true,
    };
}

/// Why `budgets` cannot be the node budgets of a run, if so: each is 1 to
/// [`SearchSpec::MAX_BUDGET`], and none is given twice (its runs would be
/// two rows of one name).
pub fn check_budgets(budgets: &[u64]) -> Result<(), String> {
    let max = SearchSpec::MAX_BUDGET;
    if let Some(b) = budgets.iter().find(|&&b| !(1..=max).contains(&b)) {
        return Err(format!("a node budget is 1 to {max}, got {b}"));
    }
    for (i, b) in budgets.iter().enumerate() {
        if budgets[..i].contains(b) {
            return Err(format!("{b} is given twice: each budget once"));
        }
    }
    Ok(())
}

/// The goals to run: each search goal once per budget in `budgets` (when
/// given), labelled with its budget; other goals once.
pub fn expand_budgets(goals: &[Goal], budgets: &[u64]) -> Vec<Goal> {
    let mut out = Vec::new();
    for g in goals {
        if g.policy.is_search() && !budgets.is_empty() {
            for &b in budgets {
                out.push(Goal {
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
    goals: &[Goal],
    workloads: &[Workload],
    opts: RunOptions,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<RunReport>, RunError> {
    run_each(goals, workloads, opts, tick)?
        .into_iter()
        .collect()
}

/// [`run_all`], every run made even when others fail: each run's report or
/// error, in the same order. A long bench keeps what ran when one goal
/// cannot run on a workload (a time zone GREEDY cannot read, a run-time
/// limit too fine). The error outside is one of all runs (the goals'
/// owner objectives, a workload's reference run).
pub fn run_each(
    goals: &[Goal],
    workloads: &[Workload],
    opts: RunOptions,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Result<RunReport, RunError>>, RunError> {
    let bench = BenchContext::of(goals)?;
    // The reference run serves the thresholds and every goal's deadlines.
    let needs_reference = bench.needs_reference(goals, opts);
    let references: Vec<Option<Reference>> = try_map(workloads, |w| {
        needs_reference
            .then(|| Reference::of(w, opts.events))
            .transpose()
    })?;
    let pairs: Vec<(&Workload, Option<&Reference>, &Goal)> = workloads
        .iter()
        .zip(&references)
        .flat_map(|(w, r)| goals.iter().map(move |g| (w, r.as_ref(), g)))
        .collect();
    Ok(map(&pairs, |(w, reference, goal)| {
        let report = bench.run(goal, w, *reference, opts);
        tick();
        report
    }))
}

/// What every run of a bench is measured with beyond its own goal: FAIR's
/// fairness when any goal orders by fairshare, and the user groups and
/// owner objective the goals state. It depends on the whole set of goals,
/// so a suite computes it once over all its goals and every shard measures
/// alike.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchContext {
    any_fair: bool,
    owner: Option<OwnerSpec>,
}

impl BenchContext {
    /// The context of a bench of `goals` (an error when they state
    /// different owner objectives).
    pub fn of(goals: &[Goal]) -> Result<Self, RunError> {
        Ok(BenchContext {
            any_fair: goals.iter().any(|g| g.fairshare.is_some()),
            owner: bench_owner(goals)?,
        })
    }

    /// Whether runs of `goals` need the reference run (FCFS-backfill) of
    /// their workload under `opts`.
    pub fn needs_reference(&self, goals: &[Goal], opts: RunOptions) -> bool {
        opts.normalized_excess || goals.iter().any(|g| g.deadlines.is_some())
    }

    /// The context in words, stable: part of a stored cell's identity.
    pub fn describe(&self) -> String {
        let mut s = format!("fairness-for-all={}", self.any_fair);
        if let Some((bands, objective)) = &self.owner {
            s += &format!("; groups {bands}");
            if let Some(o) = objective {
                s += &format!("; owner {o}");
            }
        }
        s
    }

    /// One goal on one workload as `goalc bench` runs it; `reference` is
    /// the workload's reference run under `opts.events`, when needed.
    pub fn run(
        &self,
        goal: &Goal,
        w: &Workload,
        reference: Option<&Reference>,
        opts: RunOptions,
    ) -> Result<RunReport, RunError> {
        let fair = opts
            .fairness
            .then(|| goal.fairshare.or(self.any_fair.then_some(Decay::CPLANT)))
            .flatten();
        let thresholds = reference
            .filter(|_| opts.normalized_excess)
            .map(|r| r.thresholds);
        run_measured(
            goal,
            w,
            reference.map(|r| &r.outcome),
            thresholds,
            fair,
            self.owner.as_ref(),
            opts.events,
        )
        .map(|(report, _)| report)
    }
}

/// User groups and an owner objective, as a goal states them.
pub type OwnerSpec = (Bands, Option<OwnerObjective>);

/// The user groups and owner objective every run of a bench is measured
/// with: those of the goals that state them, which must agree, so that one
/// column compares all rows (runs of goals without them are measured with
/// them too).
fn bench_owner(goals: &[Goal]) -> Result<Option<OwnerSpec>, RunError> {
    let mut stated = goals
        .iter()
        .filter_map(|g| Some((g, (g.groups.clone()?, g.owner.clone()))));
    let Some((first_goal, first)) = stated.next() else {
        return Ok(None);
    };
    for (goal, spec) in stated {
        if spec != first {
            let show = |(b, o): &OwnerSpec| match o {
                Some(o) => format!("groups {b}, owner {o}"),
                None => format!("groups {b}, no owner objective"),
            };
            return Err(RunError::Invalid(format!(
                "goals `{}` ({}) and `{}` ({}) measure owners differently; one bench compares                  one owner objective over one set of user groups: run them in separate benches",
                first_goal.name,
                show(&first),
                goal.name,
                show(&spec)
            )));
        }
    }
    Ok(Some(first))
}

/// The workload as `goal` runs it: moldable by its speedup model, split by
/// its run-time limit, with deadlines when it states them (all part of the
/// goal). The speedup model comes first, so that every later transform
/// sees the jobs as the goal runs them. Deadlines come from
/// `fcfs_backfill`, FCFS-backfill's run of `w`, made here under `events`
/// when not given.
pub fn goal_workload<'w>(
    goal: &Goal,
    w: &'w Workload,
    fcfs_backfill_run: Option<&Outcome>,
    events: EventMode,
) -> Result<Cow<'w, Workload>, RunError> {
    let mut w = Cow::Borrowed(w);
    if let Some(spec) = &goal.speedup {
        w = Cow::Owned(make_moldable(&w, spec).map_err(RunError::Moldable)?);
    }
    if let Some(bands) = &goal.groups {
        w = Cow::Owned(groups::assign(&w, bands));
    }
    if let Some(limit) = goal.runtime_limit {
        w = Cow::Owned(limit_runtime(&w, limit)?);
    }
    if let Some(spec) = &goal.deadlines {
        // A given reference run is of the workload before any split; the
        // language refuses a runtime limit with deadlines. A rigid policy
        // runs a moldable job on its recorded width, as in that run.
        let made;
        let easy = match fcfs_backfill_run.filter(|_| goal.runtime_limit.is_none()) {
            Some(run) => run,
            None => {
                made = fcfs_backfill(&w, events)?;
                &made
            }
        };
        w = Cow::Owned(synthesize_from(&w, easy, spec));
    }
    Ok(w)
}

/// One goal on one workload, one epoch per instant, measured with the
/// goal's own slowdown bound, given a reference run the normalized
/// excessive waits, and given a decay the fairness measures.
pub fn run_one(
    goal: &Goal,
    w: &Workload,
    reference: Option<&Reference>,
    fair: Option<Decay>,
) -> Result<RunReport, RunError> {
    let thresholds = reference.map(|r| r.thresholds);
    let outcome = reference.map(|r| &r.outcome);
    run_measured(
        goal,
        w,
        outcome,
        thresholds,
        fair,
        None,
        EventMode::PerInstant,
    )
    .map(|(r, _)| r)
}

/// One goal on one workload under `events`, with its schedule (for
/// `--schedule-out`): measured with the goal's slowdown bound only.
pub fn run_goal(
    goal: &Goal,
    w: &Workload,
    events: EventMode,
) -> Result<(RunReport, Outcome), RunError> {
    run_measured(goal, w, None, None, None, None, events)
}

fn run_measured(
    goal: &Goal,
    w: &Workload,
    fcfs_backfill_run: Option<&Outcome>,
    thresholds: Option<Thresholds>,
    fair: Option<Decay>,
    bench_owner: Option<&OwnerSpec>,
    events: EventMode,
) -> Result<(RunReport, Outcome), RunError> {
    let trace = &w.name;
    let given = (w, WorkloadInfo::of(w));
    let w = goal_workload(goal, w, fcfs_backfill_run, events).map_err(|e| e.in_goal(&goal.name))?;
    let mut policy = goal.build(&w)?;
    // FCFS-backfill on the workload as it came is the reference run itself
    // (the core is deterministic, and the reference ran in the same event
    // mode): no second simulation.
    let same_as_reference = goal.policy == GoalPolicy::Baseline(FCFS_BACKFILL)
        && goal.runtime_limit.is_none()
        && goal.deadlines.is_none();
    let sim = SimOptions {
        events,
        ..SimOptions::default()
    };
    let outcome = match fcfs_backfill_run.filter(|_| same_as_reference) {
        Some(run) => run.clone(),
        None => {
            let cores = cores_for_one_run();
            if cores > 1 && policy.forgets_with_empty_queue() {
                // One object per piece of the run: one on each core, and
                // more for the pieces shared out when a core is done.
                let mut policies = vec![policy];
                for _ in 1..cores * PIECES_PER_CORE {
                    policies.push(goal.build(&w)?);
                }
                let outcome = simulate_in_pieces(&w, &mut policies, cores, sim);
                policy = policies.swap_remove(0);
                outcome.map_err(|e| RunError::Sim(e).in_goal(&goal.name))?
            } else {
                simulate(&w, policy.as_mut(), sim)
                    .map_err(|e| RunError::Sim(e).in_goal(&goal.name))?
            }
        }
    };
    // MOLD's measures read the jobs as submitted, with the widths picked:
    // the effective load and the offered load as the trace offers it, not
    // as the widths picked make it.
    let molded = goal.speedup.map(|_| moldable_measures(&w, &outcome));
    // Measures read submit times: chunks were submitted when released.
    let w = realized(&w, &outcome);
    let w: &Workload = &w;
    let opts = MeasureOptions { tau: goal.tau };
    let m = measure(w, &outcome, opts);
    let mut report = RunReport::new(
        w,
        given,
        goal.name.clone(),
        goal.policy.to_string(),
        outcome.epochs,
        m,
    );
    report.events = events;
    report.mechanism = goal.mechanism();
    if let Some(m) = &molded {
        // One table per trace: the moldable workload is the trace's.
        report.trace.clone_from(trace);
        report.effective_load = Some(m.effective_load);
        report.offered_load = m.offered_load;
    }
    report.moldable = molded;
    report.excess = thresholds.map(|t| ExcessSummary {
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
    let own = goal.groups.clone().map(|b| (b, goal.owner.clone()));
    if let Some((bands, objective)) = own.as_ref().or(bench_owner) {
        // Groups are the workload's own; a goal without them gets them here.
        let grouped;
        let gw = if goal.groups.as_ref() == Some(bands) {
            w
        } else {
            grouped = groups::assign(w, bands);
            &grouped
        };
        let by_group = awrt_by_group(gw, &outcome, bands.groups());
        report.owner = Some(OwnerReport {
            bounds: bands.to_string(),
            value: objective
                .as_ref()
                .map(|o| o.value(&report.measures, &by_group)),
            objective: objective.as_ref().map(ToString::to_string),
            groups: by_group,
        });
    }
    Ok((report, outcome))
}
