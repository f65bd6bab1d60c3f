//! A checked suite: goals compiled, traces found, axes parsed. Plain
//! data; [`super::cells`] turns it into cells.

use crate::run::{FactorBy, Goal, LoadBy, WindowSpec};
use crate::sim::EventMode;
use crate::workload::Time;
use std::path::PathBuf;

/// A suite ready to be laid out in cells.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The suite file, as named in messages.
    pub file: String,
    pub goals: Vec<SuiteGoal>,
    pub traces: Vec<SuiteTrace>,
    pub settings: Settings,
    pub axes: AxisValues,
}

/// One goal file of the suite.
#[derive(Debug, Clone)]
pub struct SuiteGoal {
    pub path: PathBuf,
    /// sha256 hex of the file's text.
    pub hash: String,
    pub goal: Goal,
}

/// One trace of the suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteTrace {
    /// As reports show it.
    pub name: String,
    pub source: TraceSource,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TraceSource {
    /// An SWF file; with the manifest's sha256 when named from it, which
    /// the checker found its text to have (a suite is only made of a
    /// checked file).
    File {
        path: PathBuf,
        manifest_sha256: Option<String>,
    },
    /// The built-in model; the seed is an axis.
    Model {
        jobs: usize,
        procs: u32,
        widest: Option<u32>,
        users: Option<u32>,
    },
}

/// Settings every cell shares.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Settings {
    pub warmup: Time,
    pub cooldown: Time,
    pub load_by: LoadBy,
    pub factor_by: FactorBy,
    pub first_jobs: Option<usize>,
    pub procs: Option<u32>,
}

/// Where a cell is measured: the whole trace, a window or a month.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    Whole,
    /// As written, and parsed.
    Window(String, WindowSpec),
    /// A 1-based number or `YYYY-MM`, as written.
    Month(String),
}

/// The values of each axis; an axis the suite leaves out has one value,
/// "not set".
#[derive(Debug, Clone, PartialEq)]
pub struct AxisValues {
    pub loads: Vec<Option<f64>>,
    pub load_factors: Vec<Option<f64>>,
    pub places: Vec<Place>,
    /// Node budgets of search goals; empty: each goal's own.
    pub budgets: Vec<u64>,
    /// Seeds of the built-in model.
    pub seeds: Vec<u64>,
    pub exact_estimates: Vec<bool>,
    pub events: Vec<EventMode>,
}
