//! A checked suite laid out in cells: the cross product of goals (each
//! search goal once per budget), traces and axes, in one canonical order,
//! each cell keyed by everything that makes its outcome. Shards take cells
//! by index from this order.

use super::spec::{AxisValues, Place, Suite, SuiteGoal, SuiteTrace, TraceSource};
use super::SuiteError;
use crate::run::{expand_budgets, BenchContext, FactorBy, Goal, LoadBy};
use crate::store::{cell_key, sha256_hex, Axes};
use rayon::prelude::*;
use std::io::Read;
use std::path::Path;

/// The most cells a suite may have. A cell is a simulation of seconds to
/// minutes, so a million is weeks of CPU, beyond any one study; laid out
/// they take some 550 bytes each, so a suite file of a few kilobytes could
/// otherwise ask for tens of gigabytes before a cell runs.
pub const MAX_CELLS: usize = 1_000_000;

/// How many cells a suite of these goals, traces and axes has, counted
/// without making them (saturating: a suite file can ask for more than
/// any integer holds). [`Layout::of`] makes exactly this many.
pub fn count(goals: &[SuiteGoal], traces: &[SuiteTrace], axes: &AxisValues) -> u128 {
    let n = |len: usize| len as u128;
    [
        laid_goals(goals, axes),
        trace_workloads(traces, axes),
        n(axes.exact_estimates.len()),
        n(axes.events.len()),
        n(axes.places.len()),
        n(axes.loads.len()),
        n(axes.load_factors.len()),
    ]
    .into_iter()
    .fold(1, u128::saturating_mul)
}

/// How many goals the cells run, as [`lay_goals`] lays them: a search
/// goal once per budget.
pub fn laid_goals(goals: &[SuiteGoal], axes: &AxisValues) -> u128 {
    goals
        .iter()
        .map(|g| {
            if g.goal.policy.is_search() && !axes.budgets.is_empty() {
                axes.budgets.len() as u128
            } else {
                1
            }
        })
        .fold(0, u128::saturating_add)
}

/// How many workloads the traces are before the axes: the model one per
/// seed.
pub fn trace_workloads(traces: &[SuiteTrace], axes: &AxisValues) -> u128 {
    traces
        .iter()
        .map(|t| match t.source {
            TraceSource::Model { .. } => axes.seeds.len() as u128,
            TraceSource::File { .. } => 1,
        })
        .fold(0, u128::saturating_add)
}

/// A suite's cells and what they share.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The goals as cells run them: search goals once per budget.
    pub goals: Vec<LaidGoal>,
    /// sha256 of each trace's text (the model's is per seed, in each cell).
    pub trace_hashes: Vec<TraceHash>,
    pub cells: Vec<Cell>,
    /// What every cell is measured with beyond its goal (computed over all
    /// goals, so every shard measures alike).
    pub bench: BenchContext,
    /// sha256 over the sorted cell keys: the suite's identity.
    pub suite_id: String,
}

/// A goal as cells run it.
#[derive(Debug, Clone)]
pub struct LaidGoal {
    pub goal: Goal,
    /// sha256 of its file's text.
    pub hash: String,
    pub budget: Option<u64>,
}

/// The hash of a trace's text; the model's is per seed.
#[derive(Debug, Clone)]
pub enum TraceHash {
    File(String),
    Model,
}

/// One cell: one goal on one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Position in the canonical order.
    pub index: usize,
    /// Index into [`Layout::goals`].
    pub goal: usize,
    /// Index into the suite's traces.
    pub trace: usize,
    /// Index into the suite's places (whole, windows or months).
    pub place: usize,
    pub trace_sha256: String,
    pub axes: Axes,
    pub key: String,
}

impl Cell {
    /// Cells with equal workload keys run on the same workload.
    pub fn workload_key(&self) -> (usize, usize, Option<u64>, bool, u64, u64) {
        (
            self.trace,
            self.place,
            self.axes.seed,
            self.axes.exact_estimates,
            self.axes.load.map_or(0, f64::to_bits),
            self.axes.load_factor.map_or(0, f64::to_bits),
        )
    }
}

/// The model's parameters as hashed for its `trace_sha256`.
pub fn model_sha256(
    jobs: usize,
    procs: u32,
    widest: Option<u32>,
    users: Option<u32>,
    seed: u64,
) -> String {
    let mut text =
        format!("lublin-feitelson jobs={jobs} procs={procs} widest={widest:?} seed={seed}");
    // Said only when set: the hashes of models without users stay as they were.
    if let Some(u) = users {
        text += &format!(" users={u}");
    }
    sha256_hex(text.as_bytes())
}

/// sha256 of a trace file's text, inflated when gzip.
pub fn file_sha256(path: &Path) -> Result<String, SuiteError> {
    let io = |e| SuiteError::Io(format!("{}: {e}", path.display()));
    let raw = crate::workload::input::read_whole(path).map_err(io)?;
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return Ok(sha256_hex(&raw));
    }
    let mut text = Vec::with_capacity(raw.len() * 8);
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut text)
        .map_err(io)?;
    Ok(sha256_hex(&text))
}

fn load_by_name(l: LoadBy) -> &'static str {
    match l {
        LoadBy::Arrivals => "arrivals",
        LoadBy::Runtimes => "runtimes",
    }
}

fn factor_by_name(f: FactorBy) -> &'static str {
    match f {
        FactorBy::Duplication => "duplication",
        FactorBy::Expansion => "expansion",
    }
}

impl Layout {
    /// Lays `suite` out: hashes its traces (read in parallel; a manifest
    /// trace's the checker already hashed) and makes every cell.
    pub fn of(suite: &Suite) -> Result<Layout, SuiteError> {
        // The checker refuses such a suite; a suite made by hand is
        // refused here, before its cells exhaust memory.
        let cells = count(&suite.goals, &suite.traces, &suite.axes);
        if cells > MAX_CELLS as u128 {
            return Err(SuiteError::TooManyCells {
                file: suite.file.clone(),
                cells,
            });
        }
        let goals = lay_goals(suite);
        let plain: Vec<Goal> = goals.iter().map(|g| g.goal.clone()).collect();
        let bench = BenchContext::of(&plain)?;
        let trace_hashes = suite
            .traces
            .par_iter()
            .map(|t| match &t.source {
                TraceSource::File {
                    path,
                    manifest_sha256,
                } => Ok(TraceHash::File(match manifest_sha256 {
                    // The checker hashed the text and found this.
                    Some(m) => m.clone(),
                    None => file_sha256(path)?,
                })),
                TraceSource::Model { .. } => Ok(TraceHash::Model),
            })
            .collect::<Result<Vec<_>, SuiteError>>()?;
        let measured_with = bench.describe();
        let s = &suite.settings;
        let a = &suite.axes;
        let mut cells = Vec::new();
        for (ti, t) in suite.traces.iter().enumerate() {
            let seeds: Vec<Option<u64>> = match &t.source {
                TraceSource::Model { .. } => a.seeds.iter().map(|&s| Some(s)).collect(),
                TraceSource::File { .. } => vec![None],
            };
            for &seed in &seeds {
                let trace_sha256 = match (&trace_hashes[ti], &t.source) {
                    (TraceHash::File(h), _) => h.clone(),
                    (
                        TraceHash::Model,
                        TraceSource::Model {
                            jobs,
                            procs,
                            widest,
                            users,
                        },
                    ) => model_sha256(*jobs, *procs, *widest, *users, seed.unwrap_or_default()),
                    (TraceHash::Model, TraceSource::File { .. }) => String::new(),
                };
                for &exact in &a.exact_estimates {
                    for &events in &a.events {
                        for (pi, place) in a.places.iter().enumerate() {
                            for &load in &a.loads {
                                for &factor in &a.load_factors {
                                    for (gi, g) in goals.iter().enumerate() {
                                        let axes = Axes {
                                            load,
                                            load_by: load.map(|_| load_by_name(s.load_by).into()),
                                            load_factor: factor,
                                            factor_by: factor
                                                .map(|_| factor_by_name(s.factor_by).into()),
                                            window: match place {
                                                Place::Window(w, _) => Some(w.clone()),
                                                _ => None,
                                            },
                                            month: match place {
                                                Place::Month(m) => Some(m.clone()),
                                                _ => None,
                                            },
                                            warmup: s.warmup,
                                            cooldown: s.cooldown,
                                            budget: g.budget,
                                            seed,
                                            exact_estimates: exact,
                                            first_jobs: s.first_jobs,
                                            procs: s.procs,
                                            events,
                                        };
                                        let key = cell_key(
                                            &g.goal.name,
                                            &g.hash,
                                            &trace_sha256,
                                            &axes,
                                            &measured_with,
                                        );
                                        cells.push(Cell {
                                            index: cells.len(),
                                            goal: gi,
                                            trace: ti,
                                            place: pi,
                                            trace_sha256: trace_sha256.clone(),
                                            axes,
                                            key,
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut keys: Vec<&str> = cells.iter().map(|c| c.key.as_str()).collect();
        keys.sort_unstable();
        let suite_id = sha256_hex(keys.join("\n").as_bytes());
        Ok(Layout {
            goals,
            trace_hashes,
            cells,
            bench,
            suite_id,
        })
    }

    /// The cells of shard `index` of `count`: every `count`-th cell of the
    /// canonical order from `index`, so shards are as even as they can be
    /// and their union is every cell once.
    pub fn shard(&self, shard: Shard) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.index % shard.count == shard.index)
            .collect()
    }
}

/// The goals as cells run them, in the suite's order.
fn lay_goals(suite: &Suite) -> Vec<LaidGoal> {
    let mut out = Vec::new();
    for g in &suite.goals {
        let budgets = &suite.axes.budgets;
        let expanded = expand_budgets(std::slice::from_ref(&g.goal), budgets);
        let per_budget = g.goal.policy.is_search() && !budgets.is_empty();
        for (i, goal) in expanded.into_iter().enumerate() {
            out.push(LaidGoal {
                goal,
                hash: g.hash.clone(),
                budget: per_budget.then(|| budgets[i]),
            });
        }
    }
    out
}

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole suite.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `i/n`, 0 <= i < n.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("shard `{s}` must be I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!("1/4".parse(), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "0/0", "1", "a/2", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_count_is_the_cells_laid_out() {
        let root = env!("CARGO_MANIFEST_DIR");
        let text = format!(
            "goals = [\"{root}/goals/easy.goal\", \"{root}/goals/strict-lexical-tw-avgx-dds-fcfs.goal\"]\n\
             [[trace]]\nmodel = {{ jobs = 60, procs = 8 }}\n\
             [[trace]]\npath = \"{root}/traces/lublin-1000-64-s2.swf\"\n\
             [axes]\nbudgets = [5, 10, 20]\nseeds = [1, 2]\nloads = [0.5, 0.8]\n\
             load_factors = [1, 1.5]\nexact_estimates = [true, false]\n\
             events = [\"per-instant\", \"submissions-first\"]\n"
        );
        let checked = super::super::check_text("s.toml", &text, Path::new("."), None);
        assert!(!checked.has_errors(), "{}", checked.render(false));
        let suite = checked.suite.unwrap();
        let cells = Layout::of(&suite).unwrap().cells.len();
        // (1 + 3 budgets) goals x (2 seeds + 1 file) x 2 loads x 2
        // factors x 2 estimates x 2 event modes
        assert_eq!(cells, 4 * 3 * 16);
        assert_eq!(
            count(&suite.goals, &suite.traces, &suite.axes),
            cells as u128
        );
    }

    #[test]
    fn a_suite_past_the_limit_is_not_laid_out() {
        let root = env!("CARGO_MANIFEST_DIR");
        let text = format!(
            "goals = [\"{root}/goals/easy.goal\"]\n[[trace]]\nmodel = {{ jobs = 60, procs = 8 }}\n"
        );
        let checked = super::super::check_text("s.toml", &text, Path::new("."), None);
        let mut suite = checked.suite.unwrap();
        // Made by hand, not by the checker, which refuses it.
        suite.axes.loads = (1..=MAX_CELLS + 1).map(|i| Some(i as f64)).collect();
        let e = Layout::of(&suite).unwrap_err().to_string();
        assert_eq!(
            e,
            "s.toml: the suite would have 1000001 cells, more than the 1000000 a suite may have"
        );
    }

    #[test]
    fn the_count_saturates_rather_than_wraps() {
        let root = env!("CARGO_MANIFEST_DIR");
        let text = format!(
            "goals = [\"{root}/goals/strict-lexical-tw-avgx-dds-fcfs.goal\"]\n\
             [[trace]]\nmodel = {{ jobs = 60, procs = 8 }}\n[axes]\nbudgets = [5]\n"
        );
        let checked = super::super::check_text("s.toml", &text, Path::new("."), None);
        let suite = checked.suite.unwrap();
        // 2^19 values on each of 7 factors: 2^133 cells, which a wrapping
        // product would count as none.
        let n = 1 << 19;
        let axes = AxisValues {
            loads: vec![None; n],
            load_factors: vec![None; n],
            places: vec![Place::Whole; n],
            budgets: vec![5; n],
            seeds: vec![1; n],
            exact_estimates: vec![false; n],
            events: vec![crate::sim::EventMode::PerInstant; n],
        };
        assert_eq!(count(&suite.goals, &suite.traces, &axes), u128::MAX);
    }

    #[test]
    fn the_model_hash_differs_by_seed() {
        assert_ne!(
            model_sha256(10, 8, None, None, 1),
            model_sha256(10, 8, None, None, 2)
        );
        assert_eq!(
            model_sha256(10, 8, None, None, 1),
            model_sha256(10, 8, None, None, 1)
        );
        assert_ne!(
            model_sha256(10, 8, None, Some(4), 1),
            model_sha256(10, 8, None, None, 1)
        );
    }
}
