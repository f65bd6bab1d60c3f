//! The suite file as written (TOML), every value with its place in the
//! text so that checking can point at it. `suites/example.toml` documents
//! the format with comments.

use serde::Deserialize;
use toml::Spanned;

/// A suite file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// Goal files or folders of `.goal` files, relative to the suite file.
    pub goals: Spanned<Vec<Spanned<String>>>,
    /// The traces: at least one.
    pub trace: Spanned<Vec<Spanned<TraceEntry>>>,
    /// Settings every cell shares.
    #[serde(default)]
    pub workload: Option<Spanned<WorkloadSettings>>,
    /// The axes: the suite runs their cross product.
    #[serde(default)]
    pub axes: Option<Spanned<AxesFile>>,
}

/// One trace: exactly one of `manifest`, `path` or `model`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceEntry {
    /// A name of `traces/manifest.toml`, found in `$GOALC_TRACES`.
    pub manifest: Option<Spanned<String>>,
    /// An SWF file (`.swf` or `.swf.gz`), relative to the suite file.
    pub path: Option<Spanned<String>>,
    /// The built-in workload model (Lublin-Feitelson).
    pub model: Option<Spanned<ModelEntry>>,
}

/// The built-in model's parameters; its seeds are the `seeds` axis.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    pub jobs: Option<Spanned<i64>>,
    pub procs: Option<Spanned<i64>>,
    pub widest: Option<Spanned<i64>>,
    /// Users drawn for the model's jobs (none when left out).
    pub users: Option<Spanned<i64>>,
}

/// Settings of the workloads every cell shares.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSettings {
    pub warmup: Option<Spanned<String>>,
    pub cooldown: Option<Spanned<String>>,
    pub load_by: Option<Spanned<LoadByName>>,
    pub factor_by: Option<Spanned<FactorByName>>,
    pub first_jobs: Option<Spanned<i64>>,
    pub procs: Option<Spanned<i64>>,
}

/// `load_by` as written.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadByName {
    Arrivals,
    Runtimes,
}

/// `factor_by` as written.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FactorByName {
    Duplication,
    Expansion,
}

/// `events` values as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventsName {
    PerInstant,
    SubmissionsFirst,
    CompletionsFirst,
}

/// The axes; each a list of values, the cells their cross product.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxesFile {
    pub loads: Option<Spanned<Vec<Spanned<f64>>>>,
    pub load_factors: Option<Spanned<Vec<Spanned<f64>>>>,
    /// `START..END`, offsets or dates.
    pub windows: Option<Spanned<Vec<Spanned<String>>>>,
    /// 1-based month numbers or `YYYY-MM`.
    pub months: Option<Spanned<Vec<Spanned<toml::Value>>>>,
    pub budgets: Option<Spanned<Vec<Spanned<i64>>>>,
    pub seeds: Option<Spanned<Vec<Spanned<i64>>>>,
    pub exact_estimates: Option<Spanned<Vec<Spanned<bool>>>>,
    pub events: Option<Spanned<Vec<Spanned<EventsName>>>>,
}
