//! Running a suite's cells (or one shard's) against a store: reuse what the
//! store holds, run the rest in parallel through the run layer, append each
//! finished cell at once.

use super::cells::{Cell, Layout, Shard};
use super::spec::{Place, Suite, TraceSource};
use super::SuiteError;
use crate::report::RunReport;
use crate::run::{Reference, RunError, RunOptions, WorkloadPlan};
use crate::store::reuse::{needs_rewrite, reusable, rewrite, Wanted};
use crate::store::{Record, Store, FORMAT, GOALC_VERSION};
use crate::workload::model::ModelParams;
use crate::workload::Workload;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What a run of a suite did.
#[derive(Debug)]
pub struct Summary {
    /// Cells of the suite (or shard).
    pub cells: usize,
    /// Cells found in the store, and cells run.
    pub reused: usize,
    pub ran: usize,
    /// Records the store held that the suite no longer has (or of another
    /// goalc version), removed from it.
    pub dropped: usize,
    /// Records the store held twice, once removed.
    pub repeated: usize,
    /// Records whose axes or trace were changed under their key, removed
    /// and their cells run again.
    pub edited: usize,
    /// Torn last lines found in the store and cut away.
    pub torn: usize,
    /// Keys of the store's records that no field reads.
    pub unknown: Vec<crate::store::UnknownKey>,
    /// Every cell's report, in the suite's order (failed cells left out).
    pub reports: Vec<RunReport>,
    /// The cells that could not run ([`SuiteError::Cell`]), in the suite's
    /// order: the others ran and are stored, so a rerun runs only these.
    pub failed: Vec<SuiteError>,
}

/// Runs the cells of `shard` not yet in the store at `store_path`,
/// appending each as it finishes; `tick` is called once per cell run.
pub fn run(
    suite: &Suite,
    layout: &Layout,
    shard: Shard,
    store_path: &Path,
    tick: &(dyn Fn() + Sync),
) -> Result<Summary, SuiteError> {
    let selected = layout.shard(shard);
    // Every cell of the suite is kept where the store has it: a shard run
    // into a store that holds other shards' cells (or the whole suite's)
    // runs its own and leaves theirs.
    let wanted: Wanted<'_> = layout
        .cells
        .iter()
        .map(|c| (c.key.as_str(), (&c.axes, c.trace_sha256.as_str())))
        .collect();
    let contents = Store::read(store_path)?;
    let reuse = reusable(
        store_path,
        &contents,
        (&layout.suite_id, layout.cells.len()),
        &wanted,
    )?;
    if needs_rewrite(&contents, &reuse) {
        rewrite(store_path, &reuse.kept.values().collect::<Vec<_>>())?;
    }
    let (store, _) = Store::open(store_path)?;
    let todo: Vec<&Cell> = selected
        .iter()
        .copied()
        .filter(|c| !reuse.kept.contains_key(&c.key))
        .collect();
    let fresh = run_cells(suite, layout, &todo, &store, tick)?;
    let mut fresh: BTreeMap<&str, Result<RunReport, SuiteError>> =
        todo.iter().map(|c| c.key.as_str()).zip(fresh).collect();
    let (mut reports, mut failed) = (Vec::new(), Vec::new());
    for c in &selected {
        match fresh.remove(c.key.as_str()) {
            Some(Ok(r)) => reports.push(r),
            Some(Err(e)) => failed.push(e),
            None => reports.push(reuse.kept[&c.key].report.clone()),
        }
    }
    Ok(Summary {
        cells: selected.len(),
        reused: selected.len() - todo.len(),
        ran: todo.len(),
        dropped: reuse.dropped,
        repeated: reuse.repeated,
        edited: reuse.edited,
        torn: contents.torn,
        unknown: contents.unknown,
        reports,
        failed,
    })
}

/// The workload of a group of cells, and its reference runs by events mode.
struct Prepared {
    workload: Workload,
    references: Vec<(crate::sim::EventMode, Reference)>,
}

/// Runs `cells`, appending each record as it finishes; returns each cell's
/// report, or why it could not run, in the order of `cells`. A cell that
/// cannot run stops no other; a store that cannot be written stops all.
fn run_cells(
    suite: &Suite,
    layout: &Layout,
    cells: &[&Cell],
    store: &Store,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Result<RunReport, SuiteError>>, SuiteError> {
    // Each source (a trace, or the model for one seed) is read once.
    let sources: BTreeSet<(usize, Option<u64>)> =
        cells.iter().map(|c| (c.trace, c.axes.seed)).collect();
    let sources: Vec<(usize, Option<u64>)> = sources.into_iter().collect();
    let read: Vec<Workload> = sources
        .par_iter()
        .map(|&(t, seed)| source(suite, t, seed))
        .collect::<Result<_, _>>()?;
    let source_of: BTreeMap<(usize, Option<u64>), &Workload> =
        sources.iter().copied().zip(read.iter()).collect();
    // Cells of one workload share it and its reference runs.
    let mut groups: BTreeMap<_, Vec<&Cell>> = BTreeMap::new();
    for c in cells {
        groups.entry(c.workload_key()).or_default().push(c);
    }
    let groups: Vec<Vec<&Cell>> = groups.into_values().collect();
    let prepared: Vec<Prepared> = groups
        .par_iter()
        .map(|g| prepare(suite, layout, g, source_of[&(g[0].trace, g[0].axes.seed)]))
        .collect::<Result<_, _>>()?;
    let mut jobs: Vec<(usize, &Cell, &Prepared)> = groups
        .iter()
        .zip(&prepared)
        .flat_map(|(g, p)| g.iter().map(move |c| (c.index, *c, p)))
        .collect();
    jobs.sort_by_key(|j| j.0);
    // The outer error stops every run (the store); the inner is the cell's.
    let done: Vec<(usize, Result<RunReport, SuiteError>)> = jobs
        .par_iter()
        .map(|&(index, cell, prepared)| {
            let outcome = match run_cell(layout, cell, prepared) {
                Ok(report) => {
                    store.append(&record(suite, layout, cell, report.clone()))?;
                    Ok(report)
                }
                Err(e) => Err(e),
            };
            tick();
            Ok((index, outcome))
        })
        .collect::<Result<_, SuiteError>>()?;
    let mut by_index: BTreeMap<usize, Result<RunReport, SuiteError>> = done.into_iter().collect();
    Ok(cells
        .iter()
        .filter_map(|c| by_index.remove(&c.index))
        .collect())
}

fn run_cell(layout: &Layout, cell: &Cell, p: &Prepared) -> Result<RunReport, SuiteError> {
    let opts = RunOptions {
        events: cell.axes.events,
        ..RunOptions::BENCH
    };
    let reference = p
        .references
        .iter()
        .find(|(e, _)| *e == cell.axes.events)
        .map(|(_, r)| r);
    let goal = &layout.goals[cell.goal].goal;
    layout
        .bench
        .run(goal, &p.workload, reference, opts)
        .map_err(|e| SuiteError::Cell {
            goal: goal.name.clone(),
            workload: p.workload.name.clone(),
            // The cell names the goal already.
            source: e.into_root(),
        })
}

fn record(suite: &Suite, layout: &Layout, cell: &Cell, report: RunReport) -> Record {
    let g = &layout.goals[cell.goal];
    Record {
        format: FORMAT,
        goalc: GOALC_VERSION.to_string(),
        suite: layout.suite_id.clone(),
        suite_cells: Some(layout.cells.len()),
        key: cell.key.clone(),
        goal: g.goal.name.clone(),
        goal_hash: g.hash.clone(),
        trace: suite.traces[cell.trace].name.clone(),
        trace_sha256: cell.trace_sha256.clone(),
        axes: cell.axes.clone(),
        report: Record::deterministic(report),
    }
}

/// A trace as read, or the model for `seed`.
pub(super) fn source(
    suite: &Suite,
    trace: usize,
    seed: Option<u64>,
) -> Result<Workload, SuiteError> {
    let plan = plan(suite, trace, seed);
    let path = match &suite.traces[trace].source {
        TraceSource::File { path, .. } => Some(path.as_path()),
        TraceSource::Model { .. } => None,
    };
    Ok(plan.source(path)?)
}

/// The run layer's plan of a cell's workload, but for its place, load and
/// load factor.
fn plan(suite: &Suite, trace: usize, seed: Option<u64>) -> WorkloadPlan {
    let s = &suite.settings;
    let model = match &suite.traces[trace].source {
        TraceSource::Model {
            jobs,
            procs,
            widest,
            users,
        } => ModelParams {
            jobs: *jobs,
            procs: *procs,
            seed: seed.unwrap_or_default(),
            widest: *widest,
            users: *users,
        },
        TraceSource::File { .. } => ModelParams::default(),
    };
    WorkloadPlan {
        procs: s.procs,
        model,
        first_jobs: s.first_jobs,
        scale: None,
        exact_estimates: false,
        window: None,
        months: None,
        warmup: s.warmup,
        cooldown: s.cooldown,
        load: None,
        load_by: s.load_by,
        load_factors: Vec::new(),
        factor_by: s.factor_by,
        records: false,
    }
}

/// The run layer's plan of one workload of the suite: the suite's checker
/// makes every workload with it too, so both apply the same rules.
pub(super) fn workload_plan(
    suite: &Suite,
    trace: usize,
    seed: Option<u64>,
    exact_estimates: bool,
    place: &Place,
    load: Option<f64>,
    load_factor: Option<f64>,
) -> WorkloadPlan {
    let mut plan = plan(suite, trace, seed);
    plan.exact_estimates = exact_estimates;
    match place {
        Place::Whole => {}
        Place::Window(_, spec) => plan.window = Some(*spec),
        Place::Month(m) => plan.months = Some(m.clone()),
    }
    plan.load = load;
    plan.load_factors = load_factor.into_iter().collect();
    plan
}

/// The workload of a group of cells (they share it), with its reference
/// run under each events mode its cells use.
fn prepare(
    suite: &Suite,
    layout: &Layout,
    group: &[&Cell],
    source: &Workload,
) -> Result<Prepared, SuiteError> {
    let first = group[0];
    let plan = workload_plan(
        suite,
        first.trace,
        first.axes.seed,
        first.axes.exact_estimates,
        &suite.axes.places[first.place],
        first.axes.load,
        first.axes.load_factor,
    );
    let mut made = plan
        .from_source(source.clone())
        .map_err(|e| SuiteError::Workload {
            file: suite.file.clone(),
            trace: suite.traces[first.trace].name.clone(),
            source: e,
        })?;
    let workload = match (made.pop(), made.is_empty()) {
        (Some(w), true) => w,
        _ => {
            return Err(SuiteError::Run(RunError::Invalid(format!(
                "cells of trace `{}` should make one workload each",
                suite.traces[first.trace].name
            ))))
        }
    };
    let goals: Vec<crate::run::Goal> = group
        .iter()
        .map(|c| layout.goals[c.goal].goal.clone())
        .collect();
    let mut modes = Vec::new();
    for c in group {
        if !modes.contains(&c.axes.events) {
            modes.push(c.axes.events);
        }
    }
    let mut references = Vec::new();
    for events in modes {
        let opts = RunOptions {
            events,
            ..RunOptions::BENCH
        };
        if layout.bench.needs_reference(&goals, opts) {
            references.push((events, Reference::of(&workload, events)?));
        }
    }
    Ok(Prepared {
        workload,
        references,
    })
}
