//! Reports: measures of runs as tables (one per trace, best value per column
//! marked), Markdown ready for a pull request, JSON or CSV.

pub mod owner;
pub mod results;
pub mod summary;

pub use owner::OwnerReport;
pub use summary::{summary, wrap, Mechanism, Note};

use crate::measures::fairness::Fairness;
use crate::measures::moldable::MoldableMeasures;
use crate::measures::{AdmissionMeasures, Excess, Measures};
use crate::policy::search::SearchCost;
use crate::sim::EventMode;
use crate::workload::{Time, Workload};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
}

impl Format {
    pub const NAMES: [&'static str; 4] = ["table", "json", "csv", "markdown"];
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "table" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "markdown" => Ok(Format::Markdown),
            _ => Err(format!("`{s}` is not an output format")),
        }
    }
}

/// One policy run on one workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub trace: String,
    pub procs: u32,
    /// Jobs this goal simulated (warm-up and cool-down included): the
    /// chunks of a runtime limit count one each, so this is the goal's
    /// count; the workload's own is in `workload`.
    pub simulated_jobs: usize,
    pub offered_load: f64,
    /// The workload as given to every goal, before any goal's own
    /// transforms: what a table's header describes, whichever goal comes
    /// first.
    pub workload: WorkloadInfo,
    /// Which paper's mechanism the goal uses, for the summary's groups.
    pub mechanism: Mechanism,
    /// MOLD's effective load, for goals with a speedup model: every job's
    /// work at perfect efficiency (its time on one processor) per
    /// processor-second of the submit span, before the run picks widths.
    /// Left out of JSON for rigid runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_load: Option<f64>,
    /// MOLD's measures (widths picked, efficiency, turnaround by job size),
    /// for goals with a speedup model; left out of JSON for rigid runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moldable: Option<MoldableMeasures>,
    /// What the run is called in the table: a goal's name, or the policy.
    pub label: String,
    /// The policy's canonical name.
    pub policy: String,
    /// How events became epochs; left out of JSON when per instant (the
    /// default), so default outputs stay as they were.
    #[serde(default, skip_serializing_if = "EventMode::is_per_instant")]
    pub events: EventMode,
    pub epochs: u64,
    pub measures: Measures,
    /// Normalized excessive waits against FCFS-backfill (bench only).
    pub excess: Option<ExcessSummary>,
    /// What searching cost (searching policies only).
    pub search: Option<SearchSummary>,
    /// What admission control did (admission policies only).
    pub admission: Option<AdmissionMeasures>,
    /// FAIR's fairness measures (fairshare runs, and every run of a bench
    /// that has one).
    pub fairness: Option<Fairness>,
    /// GREEDY's AWRT per user group and owner objective (goals with user
    /// groups, and every run of a bench that has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<OwnerReport>,
}

/// The workload a run was made on, as given (before a goal's chunks,
/// deadlines or speedup model).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WorkloadInfo {
    /// Jobs simulated, warm-up and cool-down included.
    pub jobs: usize,
    /// Jobs measured.
    pub measured: usize,
    /// [`Workload::offered_load`].
    pub offered_load: f64,
    /// Seconds between the first and the last submit: the span the offered
    /// load is measured over.
    pub load_span_s: Time,
    /// Jobs the trace gives no requested time (SWF field 9), whose run time
    /// is then their estimate: backfilling plans them exactly.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub estimate_is_run_time: usize,
    /// Jobs whose requested processors (SWF field 8) are 0 or negative but
    /// not -1, the SWF's "not given": not valid, so read as not given, and
    /// the job runs on its allocated processors (field 5).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid_requested_procs: usize,
    /// Jobs whose run time (SWF field 4) passes their estimate: the
    /// simulation kills them at it, as a batch system enforces the
    /// wall-clock limit, so their work and the offered load are less than
    /// the trace's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub killed_at_estimate: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl WorkloadInfo {
    pub fn of(w: &Workload) -> Self {
        // One pass over the jobs (they are large, and whole-process runs on
        // small traces are dominated by such passes); the work is summed in
        // job order as [`Workload::offered_load`] sums it, so the load is
        // the same to the bit.
        let (mut measured, mut work) = (0, 0.0f64);
        let (mut estimate_is_run_time, mut invalid_requested_procs) = (0, 0);
        let mut killed_at_estimate = 0;
        for j in &w.jobs {
            measured += usize::from(j.measured);
            work += j.procs as f64 * j.sim_runtime() as f64;
            estimate_is_run_time += usize::from(j.no_requested_time && j.estimate == j.runtime);
            invalid_requested_procs += usize::from(j.bad_requested_procs);
            killed_at_estimate += usize::from(j.runtime > j.estimate);
        }
        WorkloadInfo {
            jobs: w.jobs.len(),
            measured,
            offered_load: w.load_from_work(work),
            load_span_s: w.submit_span(),
            estimate_is_run_time,
            invalid_requested_procs,
            killed_at_estimate,
        }
    }
}

/// Total normalized excessive wait against FCFS-backfill's maximum and
/// 98th-percentile wait (GOAL, section 4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExcessSummary {
    pub max: Excess,
    pub p98: Excess,
}

/// The cost of a searching policy over a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SearchSummary {
    pub searches: u64,
    pub node_visits: u64,
    /// Median and 99th-percentile wall-clock time of one epoch's search,
    /// microseconds (timings vary from run to run).
    pub p50_epoch_us: u64,
    pub p99_epoch_us: u64,
}

impl From<&SearchCost> for SearchSummary {
    fn from(c: &SearchCost) -> Self {
        SearchSummary {
            searches: c.searches,
            node_visits: c.node_visits,
            p50_epoch_us: epoch_micros_percentile(c, 0.5),
            p99_epoch_us: epoch_micros_percentile(c, 0.99),
        }
    }
}

/// A nearest-rank percentile of the search times in microseconds, 0 when
/// nothing was searched.
fn epoch_micros_percentile(c: &SearchCost, q: f64) -> u64 {
    let mut v: Vec<i64> = c.epoch_micros.iter().map(|&x| x as i64).collect();
    v.sort_unstable();
    crate::measures::percentile(&v, q).unwrap_or(0) as u64
}

impl RunReport {
    /// The report of a run on `w`, made from the workload as given
    /// (`given`, see [`RunReport::workload`]); `w` is that workload when it
    /// is the same object, else the one a goal made of it.
    pub fn new(
        w: &Workload,
        given: (&Workload, WorkloadInfo),
        label: String,
        policy: String,
        epochs: u64,
        measures: Measures,
    ) -> Self {
        // Each figure of a workload is a pass over all its jobs: not made
        // twice for the same one.
        let offered_load = if std::ptr::eq(w, given.0) {
            given.1.offered_load
        } else {
            w.offered_load()
        };
        RunReport {
            trace: w.name.clone(),
            procs: w.procs,
            simulated_jobs: w.jobs.len(),
            offered_load,
            workload: given.1,
            mechanism: Mechanism::Baseline,
            effective_load: None,
            moldable: None,
            label,
            policy,
            events: EventMode::PerInstant,
            epochs,
            measures,
            excess: None,
            search: None,
            admission: None,
            fairness: None,
            owner: None,
        }
    }
}

/// Which way a measure is better.
#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
    /// Not a quality (e.g. a count): never marked.
    Neither,
}

/// A column of the comparison: header, how to read it, which way is better.
struct Column {
    header: &'static str,
    value: fn(&RunReport) -> Option<f64>,
    decimals: usize,
    better: Better,
}

const fn col(
    header: &'static str,
    value: fn(&RunReport) -> Option<f64>,
    decimals: usize,
    better: Better,
) -> Column {
    Column {
        header,
        value,
        decimals,
        better,
    }
}

/// Whether any measured job ran: per-job measures over no jobs are no
/// values (`-`), not zeros that would read as the best.
fn ran(r: &RunReport) -> bool {
    r.measures.jobs > 0
}

/// The outcome measures, always shown.
const COLUMNS: &[Column] = &[
    col("jobs", |r| Some(r.measures.jobs as f64), 0, Better::Neither),
    col(
        "avg_wait_s",
        |r| ran(r).then_some(r.measures.avg_wait),
        0,
        Better::Lower,
    ),
    col(
        "p98_wait_s",
        |r| ran(r).then_some(r.measures.p98_wait as f64),
        0,
        Better::Lower,
    ),
    col(
        "max_wait_s",
        |r| ran(r).then_some(r.measures.max_wait as f64),
        0,
        Better::Lower,
    ),
    col(
        "avg_slowdown",
        |r| ran(r).then_some(r.measures.avg_slowdown),
        2,
        Better::Lower,
    ),
    col(
        "max_slowdown",
        |r| ran(r).then_some(r.measures.max_slowdown),
        1,
        Better::Lower,
    ),
    col(
        "avg_resp_s",
        |r| ran(r).then_some(r.measures.avg_response),
        0,
        Better::Lower,
    ),
    col("util", |r| Some(r.measures.utilization), 4, Better::Higher),
    col(
        "loc",
        |r| Some(r.measures.loss_of_capacity),
        4,
        Better::Lower,
    ),
    col(
        "awrt_s",
        |r| ran(r).then_some(r.measures.awrt),
        0,
        Better::Lower,
    ),
];

/// MOLD's effective load, shown after `jobs` when any run has a speedup
/// model (`-` for rigid runs).
const EFFECTIVE_LOAD: Column = col("eff_load", |r| r.effective_load, 3, Better::Neither);

/// The widths moldable runs picked and the efficiency jobs ran at, shown
/// when any run has a speedup model (`-` for rigid runs).
const MOLDABLE_COLUMNS: &[Column] = &[
    col(
        "avg_width",
        |r| r.moldable.as_ref().map(|m| m.avg_width),
        2,
        Better::Neither,
    ),
    col(
        "avg_eff",
        |r| r.moldable.as_ref().map(|m| m.avg_efficiency),
        3,
        Better::Neither,
    ),
];

/// GOAL's normalized excessive waits, shown when computed.
const EXCESS_COLUMNS: &[Column] = &[
    col(
        "E_maxW",
        |r| r.excess.map(|e| e.max.total),
        2,
        Better::Lower,
    ),
    col(
        "n_E_maxW",
        |r| r.excess.map(|e| e.max.jobs as f64),
        0,
        Better::Lower,
    ),
    col("E_98W", |r| r.excess.map(|e| e.p98.total), 2, Better::Lower),
    col(
        "n_E_98W",
        |r| r.excess.map(|e| e.p98.jobs as f64),
        0,
        Better::Lower,
    ),
];

/// Admission control's measures, shown when any run admitted.
const ADMISSION_COLUMNS: &[Column] = &[
    col(
        "unadmitted_%",
        |r| r.admission.map(|a| a.unadmitted_pct),
        2,
        Better::Lower,
    ),
    col(
        "unadmitted_work_%",
        |r| r.admission.map(|a| a.unadmitted_work_pct),
        2,
        Better::Lower,
    ),
    col(
        "missed",
        |r| r.admission.map(|a| a.missed as f64),
        0,
        Better::Lower,
    ),
    col(
        "nd_avg_resp_s",
        |r| r.admission.and_then(|a| a.non_deadline_avg_response),
        0,
        Better::Lower,
    ),
    col(
        "nd_avg_slowdown",
        |r| r.admission.and_then(|a| a.non_deadline_avg_slowdown),
        2,
        Better::Lower,
    ),
];

/// FAIR's fairness measures, shown when any run was measured for fairness.
const FAIRNESS_COLUMNS: &[Column] = &[
    col(
        "fst_late_%",
        |r| r.fairness.as_ref().map(|f| f.pct_late),
        2,
        Better::Lower,
    ),
    col(
        "fst_miss_h",
        |r| r.fairness.as_ref().map(|f| f.avg_miss / 3600.0),
        3,
        Better::Lower,
    ),
    col(
        "avg_turn_h",
        |r| r.fairness.as_ref().map(|f| f.avg_turnaround / 3600.0),
        2,
        Better::Lower,
    ),
];

/// GREEDY's owner objective, shown when any run has one.
const OWNER_COLUMNS: &[Column] = &[col(
    "owner_obj",
    |r| r.owner.as_ref().and_then(|o| o.value),
    0,
    Better::Lower,
)];

/// Search cost, shown in its own table when any run searched.
const SEARCH_COLUMNS: &[Column] = &[
    col(
        "searches",
        |r| r.search.map(|s| s.searches as f64),
        0,
        Better::Neither,
    ),
    col(
        "node_visits",
        |r| r.search.map(|s| s.node_visits as f64),
        0,
        Better::Neither,
    ),
    col(
        "visits/search",
        |r| {
            r.search
                .map(|s| s.node_visits as f64 / s.searches.max(1) as f64)
        },
        0,
        Better::Neither,
    ),
    col(
        "p50_epoch_us",
        |r| r.search.map(|s| s.p50_epoch_us as f64),
        0,
        Better::Neither,
    ),
    col(
        "p99_epoch_us",
        |r| r.search.map(|s| s.p99_epoch_us as f64),
        0,
        Better::Neither,
    ),
];

/// Every column's measure name: the main table's, then search cost's.
/// AWRT per user group is `awrt_<g>_s` (g from 1) besides these.
pub const MEASURE_NAMES: &[&str] = &[
    "jobs",
    "eff_load",
    "avg_wait_s",
    "p98_wait_s",
    "max_wait_s",
    "avg_slowdown",
    "max_slowdown",
    "avg_resp_s",
    "util",
    "loc",
    "awrt_s",
    "avg_width",
    "avg_eff",
    "E_maxW",
    "n_E_maxW",
    "E_98W",
    "n_E_98W",
    "unadmitted_%",
    "unadmitted_work_%",
    "missed",
    "nd_avg_resp_s",
    "nd_avg_slowdown",
    "fst_late_%",
    "fst_miss_h",
    "avg_turn_h",
    "owner_obj",
    "searches",
    "node_visits",
    "visits/search",
    "p50_epoch_us",
    "p99_epoch_us",
];

/// Every column, for lookups by measure name.
fn all_columns() -> impl Iterator<Item = &'static Column> {
    COLUMNS
        .iter()
        .chain([&EFFECTIVE_LOAD])
        .chain(MOLDABLE_COLUMNS)
        .chain(EXCESS_COLUMNS)
        .chain(ADMISSION_COLUMNS)
        .chain(FAIRNESS_COLUMNS)
        .chain(OWNER_COLUMNS)
        .chain(SEARCH_COLUMNS)
}

/// The column of a measure name, AWRT per group (`awrt_2_s`) included.
fn column(name: &str) -> Option<&'static Column> {
    if let Some(c) = all_columns().find(|c| c.header == name) {
        return Some(c);
    }
    let g: usize = name
        .strip_prefix("awrt_")?
        .strip_suffix("_s")?
        .parse()
        .ok()?;
    GROUP_AWRT.get(g.checked_sub(1)?)
}

/// AWRT of user groups 1 to 9 (GREEDY): the owner's per-group measures.
const GROUP_AWRT: [Column; 9] = {
    macro_rules! group {
        ($g:literal, $h:literal) => {
            col(
                $h,
                |r| {
                    r.owner
                        .as_ref()
                        .and_then(|o| o.groups.get($g - 1))
                        .filter(|g| g.jobs > 0)
                        .map(|g| g.awrt)
                },
                0,
                Better::Lower,
            )
        };
    }
    [
        group!(1, "awrt_1_s"),
        group!(2, "awrt_2_s"),
        group!(3, "awrt_3_s"),
        group!(4, "awrt_4_s"),
        group!(5, "awrt_5_s"),
        group!(6, "awrt_6_s"),
        group!(7, "awrt_7_s"),
        group!(8, "awrt_8_s"),
        group!(9, "awrt_9_s"),
    ]
};

/// Whether `name` is a measure [`measure`] knows.
pub fn measure_known(name: &str) -> bool {
    column(name).is_some()
}

/// The value of measure `name` (see [`MEASURE_NAMES`]) in a run; `None`
/// for an unknown name or a measure the run lacks.
pub fn measure(r: &RunReport, name: &str) -> Option<f64> {
    column(name).and_then(|c| (c.value)(r))
}

/// Measure `name` of a run as the tables show it (`-` when the run lacks
/// it).
pub fn measure_cell(r: &RunReport, name: &str) -> String {
    column(name).map_or_else(|| "-".into(), |c| cell(c, r))
}

/// Whether lower values of measure `name` are better (`Some(true)`),
/// higher ones (`Some(false)`), or neither (a count).
pub fn lower_is_better(name: &str) -> Option<bool> {
    match column(name)?.better {
        Better::Lower => Some(true),
        Better::Higher => Some(false),
        Better::Neither => None,
    }
}

/// The measures the main table would show for these runs, search cost's
/// after them when any run searched.
pub fn measure_columns(reports: &[&RunReport]) -> Vec<&'static str> {
    let mut cols = columns(reports, &[]);
    if reports.iter().any(|r| r.search.is_some()) {
        cols.extend(SEARCH_COLUMNS);
    }
    cols.iter().map(|c| c.header).collect()
}

fn cell(c: &Column, r: &RunReport) -> String {
    match (c.value)(r) {
        Some(v) => format!("{:.*}", c.decimals, v),
        None => "-".into(),
    }
}

/// The columns of the main table for these runs: the measures named in
/// `only` (in that order) when it is not empty.
fn columns(runs: &[&RunReport], only: &[&str]) -> Vec<&'static Column> {
    if !only.is_empty() {
        return only.iter().filter_map(|n| column(n)).collect();
    }
    let mut cols: Vec<&Column> = COLUMNS.iter().collect();
    if runs.iter().any(|r| r.effective_load.is_some()) {
        cols.insert(1, &EFFECTIVE_LOAD);
    }
    if runs.iter().any(|r| r.moldable.is_some()) {
        cols.extend(MOLDABLE_COLUMNS);
    }
    if runs.iter().any(|r| r.excess.is_some()) {
        cols.extend(EXCESS_COLUMNS);
    }
    if runs.iter().any(|r| r.admission.is_some()) {
        cols.extend(ADMISSION_COLUMNS);
    }
    if runs.iter().any(|r| r.fairness.is_some()) {
        cols.extend(FAIRNESS_COLUMNS);
    }
    if runs
        .iter()
        .any(|r| r.owner.as_ref().is_some_and(|o| o.value.is_some()))
    {
        cols.extend(OWNER_COLUMNS);
    }
    cols
}

/// Renders reports in `format`; table and Markdown give one table per
/// trace, in the order the traces first appear.
pub fn render(reports: &[RunReport], format: Format) -> String {
    render_measures(reports, format, &[])
}

/// [`render`] with only the measures named in `only` (see
/// [`MEASURE_NAMES`]) as columns, in that order, and without the extra
/// tables (search cost, by width, by group, by size); every measure when
/// `only` is empty. JSON is always whole. Unknown names are left out:
/// check them first with [`measure_known`].
pub fn render_measures(reports: &[RunReport], format: Format, only: &[&str]) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(reports).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Csv => csv(reports, only),
        Format::Table | Format::Markdown => {
            let mut traces: Vec<&str> = Vec::new();
            for r in reports {
                if !traces.contains(&r.trace.as_str()) {
                    traces.push(&r.trace);
                }
            }
            let tables: Vec<String> = traces
                .iter()
                .map(|t| {
                    let runs: Vec<&RunReport> = reports.iter().filter(|r| r.trace == *t).collect();
                    if format == Format::Table {
                        table(&runs, only)
                    } else {
                        markdown(&runs, only)
                    }
                })
                .collect();
            let mut out = tables.join("\n");
            if traces.len() > 1 && reports.iter().any(|r| r.admission.is_some()) {
                out.push('\n');
                out.push_str(&admission_summary(reports, format));
            }
            out
        }
    }
}

/// QOPS's view across workloads (its Fig. 43 and the figures against load):
/// per goal, each workload's achieved utilization next to what was not
/// admitted and how jobs without a user deadline fared, sorted by
/// utilization. For goals without admission control every job counts as a
/// job without a deadline.
fn admission_summary(reports: &[RunReport], format: Format) -> String {
    let mut labels: Vec<&str> = Vec::new();
    for r in reports {
        if !labels.contains(&r.label.as_str()) {
            labels.push(&r.label);
        }
    }
    let header: Vec<String> = [
        "goal",
        "workload",
        "util",
        "unadmitted_%",
        "unadmitted_work_%",
        "nd_avg_resp_s",
        "nd_avg_slowdown",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    let mut body = Vec::new();
    for label in labels {
        let mut runs: Vec<&RunReport> = reports.iter().filter(|r| r.label == label).collect();
        runs.sort_by(|a, b| a.measures.utilization.total_cmp(&b.measures.utilization));
        for r in runs {
            let m = &r.measures;
            let (un, unw, resp, slowdown) = match r.admission {
                Some(a) => (
                    format!("{:.2}", a.unadmitted_pct),
                    format!("{:.2}", a.unadmitted_work_pct),
                    a.non_deadline_avg_response,
                    a.non_deadline_avg_slowdown,
                ),
                None => (
                    "-".into(),
                    "-".into(),
                    ran(r).then_some(m.avg_response),
                    ran(r).then_some(m.avg_slowdown),
                ),
            };
            let or_dash = |v: Option<f64>, decimals: usize| {
                v.map_or("-".into(), |v| format!("{v:.decimals$}"))
            };
            body.push(vec![
                r.label.clone(),
                r.trace.clone(),
                format!("{:.4}", m.utilization),
                un,
                unw,
                or_dash(resp, 0),
                or_dash(slowdown, 2),
            ]);
        }
    }
    let title = "admission control against achieved utilization (per goal, by utilization):";
    if format == Format::Markdown {
        format!("#### {title}\n\n{}", md_table(&header, &body, 2))
    } else {
        let mut all = vec![header];
        all.extend(body);
        format!("{title}\n{}", align(&all, 2))
    }
}

fn csv(reports: &[RunReport], only: &[&str]) -> String {
    let runs: Vec<&RunReport> = reports.iter().collect();
    let mut cols = columns(&runs, only);
    if only.is_empty() && runs.iter().any(|r| r.search.is_some()) {
        cols.extend(SEARCH_COLUMNS);
    }
    // The events column only when some run is per event: default output
    // stays as it was.
    let with_events = reports.iter().any(|r| !r.events.is_per_instant());
    let mut out = String::from("trace,procs,label,policy,offered_load,");
    if with_events {
        out.push_str("events,");
    }
    out.push_str("epochs");
    for c in &cols {
        let _ = write!(out, ",{}", c.header);
    }
    out.push('\n');
    for r in reports {
        let _ = write!(
            out,
            "{},{},{},{},{:.4},",
            csv_field(&r.trace),
            r.procs,
            csv_field(&r.label),
            csv_field(&r.policy),
            r.offered_load,
        );
        if with_events {
            let _ = write!(out, "{},", r.events);
        }
        let _ = write!(out, "{}", r.epochs);
        for c in &cols {
            let _ = write!(out, ",{}", cell(c, r));
        }
        out.push('\n');
    }
    out
}

/// Quotes a CSV field when it needs it.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Per column, which runs hold the best value (all of them on a tie);
/// nothing is marked where every run has the same value.
fn best(cols: &[&Column], runs: &[&RunReport]) -> Vec<Vec<bool>> {
    cols.iter()
        .map(|c| {
            // Compare at the precision shown, so marks agree with the cells.
            let shown: Vec<f64> = runs
                .iter()
                .map(|r| cell(c, r).parse::<f64>().unwrap_or(f64::NAN))
                .collect();
            let target = match c.better {
                Better::Lower => shown
                    .iter()
                    .copied()
                    .filter(|v| !v.is_nan())
                    .fold(f64::INFINITY, f64::min),
                Better::Higher => shown
                    .iter()
                    .copied()
                    .filter(|v| !v.is_nan())
                    .fold(f64::NEG_INFINITY, f64::max),
                Better::Neither => f64::NAN,
            };
            let marks: Vec<bool> = shown.iter().map(|&v| v == target).collect();
            if marks.iter().all(|&m| m) || runs.len() < 2 {
                vec![false; runs.len()]
            } else {
                marks
            }
        })
        .collect()
}

/// One line about the workload the table is for: its counts and load are
/// the workload's as given, whichever goal comes first (a goal's own
/// counts, chunks included, are in its row).
fn caption(r: &RunReport) -> String {
    let m = &r.measures;
    let w = &r.workload;
    // Jobs all submitted in one second have no span to offer a load over.
    let load = if w.load_span_s > 0 {
        format!(
            "offered load {:.3} over the {} from first to last submit",
            w.offered_load,
            approx_duration(w.load_span_s)
        )
    } else {
        "every job submitted in the same second (no offered load over time)".to_string()
    };
    let mut s = format!(
        "trace {}: {} processors, {} simulated, {} measured, {load}",
        r.trace,
        r.procs,
        count(w.jobs, "job"),
        w.measured,
    );
    if m.dropped.total() > 0 {
        let _ = write!(
            s,
            "; dropped {}: {}",
            count(m.dropped.total(), "job"),
            m.dropped
        );
    }
    if w.estimate_is_run_time > 0 {
        let _ = write!(
            s,
            "; {} without a requested time (SWF field 9): estimate = run time",
            count(w.estimate_is_run_time, "job")
        );
    }
    if w.killed_at_estimate > 0 {
        let _ = write!(
            s,
            "; {} running past the requested time (SWF field 9): killed at it",
            count(w.killed_at_estimate, "job")
        );
    }
    if w.invalid_requested_procs > 0 {
        let _ = write!(
            s,
            "; {} with requested processors (SWF field 8) of 0 or below but not -1, read as not given: \
             width = allocated (field 5)",
            count(w.invalid_requested_procs, "job")
        );
    }
    if let Some(e) = r.excess {
        let _ = write!(
            s,
            "; E thresholds (FCFS-backfill): max wait {} s, 98% wait {} s",
            e.max.threshold, e.p98.threshold
        );
    }
    // Said only when not the default, so default tables stay as they were.
    if !r.events.is_per_instant() {
        let _ = write!(s, "; events {}: {}", r.events, r.events.describe());
    }
    s
}

/// `n` things, the noun in the plural unless `n` is 1: `1 job`, `3 jobs`.
pub fn count(n: impl TryInto<u64>, noun: &str) -> String {
    let n: u64 = n.try_into().unwrap_or(u64::MAX);
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A duration rounded to its two largest units, for people: `80d 3h`,
/// `2h 13m`, `45s`.
pub fn approx_duration(secs: Time) -> String {
    let units = [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")];
    let secs = secs.max(0);
    let Some(i) = units.iter().position(|&(u, _)| secs >= u) else {
        return "0s".into();
    };
    let (big, big_name) = units[i];
    match units.get(i + 1) {
        Some(&(small, small_name)) => {
            // Rounded to the smaller unit, so 1d 23h 59m reads 2d 0h.
            let total = (secs + small / 2) / small * small;
            let (a, b) = (total / big, total % big / small);
            if b == 0 {
                format!("{a}{big_name}")
            } else {
                format!("{a}{big_name} {b}{small_name}")
            }
        }
        None => format!("{}{big_name}", secs / big),
    }
}

/// Header and rows of a table of `cols` for `runs`, cells marked by `mark`.
fn rows(
    runs: &[&RunReport],
    cols: &[&Column],
    with_policy: bool,
    mut mark: impl FnMut(String, bool) -> String,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["goal".to_string()];
    if with_policy {
        header.push("policy".into());
    }
    header.extend(cols.iter().map(|c| c.header.to_string()));
    let marks = best(cols, runs);
    let body = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut row = vec![r.label.clone()];
            if with_policy {
                row.push(r.policy.clone());
            }
            row.extend(cols.iter().zip(&marks).map(|(c, m)| mark(cell(c, r), m[i])));
            row
        })
        .collect();
    (header, body)
}

fn table(runs: &[&RunReport], only: &[&str]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let with_policy = runs.iter().any(|r| r.label != r.policy);
    let left = if with_policy { 2 } else { 1 };
    let cols = columns(runs, only);
    let mut marked = false;
    let (mut header, body) = rows(runs, &cols, with_policy, |v, m| {
        marked |= m;
        format!("{v}{}", if m { "*" } else { " " })
    });
    // Headers get the same one-character mark slot as the cells.
    for h in header.iter_mut().skip(left) {
        h.push(' ');
    }
    let mut all = vec![header];
    all.extend(body);
    let mut out = format!("{}\n\n{}", caption(first), align(&all, left));
    if marked {
        out.push_str("* best in column\n");
    }
    if !only.is_empty() {
        return out;
    }
    if let Some((header, body)) = search_cost(runs) {
        let mut all = vec![header];
        all.extend(body);
        out.push_str("\nsearch cost:\n");
        out.push_str(&align(&all, 1));
    }
    for (title, header, body) in fairness_by_width(runs) {
        let mut all = vec![header];
        all.extend(body);
        let _ = write!(out, "\n{title}:\n{}", align(&all, 1));
    }
    if let Some((title, header, body)) = owner::by_group(runs) {
        let mut all = vec![header];
        all.extend(body);
        let _ = write!(out, "\n{title}:\n{}", align(&all, 1));
    }
    if let Some((title, header, body)) = moldable_by_size(runs) {
        let mut all = vec![header];
        all.extend(body);
        let _ = write!(out, "\n{title}:\n{}", align(&all, 1));
    }
    if let [single] = runs {
        out.push('\n');
        out.push_str(&class_table(&single.measures));
    }
    out
}

fn markdown(runs: &[&RunReport], only: &[&str]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let with_policy = runs.iter().any(|r| r.label != r.policy);
    let cols = columns(runs, only);
    let mut marked = false;
    let (header, body) = rows(runs, &cols, with_policy, |v, m| {
        marked |= m;
        if m {
            format!("**{v}**")
        } else {
            v
        }
    });
    let mut out = format!("#### {}\n\n", caption(first));
    out.push_str(&md_table(&header, &body, if with_policy { 2 } else { 1 }));
    if marked {
        out.push_str("\nBold: best in column.\n");
    }
    if !only.is_empty() {
        return out;
    }
    if let Some((header, body)) = search_cost(runs) {
        out.push_str("\nSearch cost:\n\n");
        out.push_str(&md_table(&header, &body, 1));
    }
    for (title, header, body) in fairness_by_width(runs) {
        let _ = write!(out, "\n{}{}:\n\n", title[..1].to_uppercase(), &title[1..]);
        out.push_str(&md_table(&header, &body, 1));
    }
    if let Some((title, header, body)) = owner::by_group(runs) {
        let _ = write!(out, "\n{}{}:\n\n", title[..1].to_uppercase(), &title[1..]);
        out.push_str(&md_table(&header, &body, 1));
    }
    if let Some((title, header, body)) = moldable_by_size(runs) {
        let _ = write!(out, "\n{}{}:\n\n", title[..1].to_uppercase(), &title[1..]);
        out.push_str(&md_table(&header, &body, 1));
    }
    out
}

type Titled = (&'static str, Vec<String>, Vec<Vec<String>>);

/// MOLD's figures by job size (Figs. 3, 5, 8, 10): per moldable run, the
/// average turnaround of the jobs of each processor-second category (their
/// size in the trace, whatever width they got).
fn moldable_by_size(runs: &[&RunReport]) -> Option<Titled> {
    let molded: Vec<(&RunReport, &MoldableMeasures)> = runs
        .iter()
        .filter_map(|r| r.moldable.as_ref().map(|m| (*r, m)))
        .collect();
    let (_, first) = molded.first()?;
    let mut header = vec!["goal / processor-seconds".to_string()];
    header.extend(first.categories.iter().map(|c| c.label.to_string()));
    let body = molded
        .iter()
        .map(|(r, m)| {
            let mut row = vec![r.label.clone()];
            row.extend(m.categories.iter().map(|c| {
                if c.jobs == 0 {
                    "-".into()
                } else {
                    format!("{:.2}", c.avg_turnaround / 3600.0)
                }
            }));
            row
        })
        .collect();
    Some(("average turnaround time by job size (hours)", header, body))
}

/// FAIR's figures by job width (Figs. 6, 7, 10, 12): per run, the share of
/// jobs missing their fair start time, the average miss and the average
/// turnaround in each width class that has jobs in any run.
fn fairness_by_width(runs: &[&RunReport]) -> Vec<Titled> {
    let fair: Vec<(&RunReport, &Fairness)> = runs
        .iter()
        .filter_map(|r| r.fairness.as_ref().map(|f| (*r, f)))
        .collect();
    let Some((_, first)) = fair.first() else {
        return Vec::new();
    };
    let classes: Vec<usize> = (0..first.by_width.len())
        .filter(|&i| {
            fair.iter()
                .any(|(_, f)| f.by_width.get(i).is_some_and(|c| c.jobs > 0))
        })
        .collect();
    let mut header = vec!["goal / width".to_string()];
    header.extend(classes.iter().map(|&i| first.by_width[i].width.clone()));
    let table = |title, value: &dyn Fn(&crate::measures::fairness::WidthFairness) -> String| {
        let body = fair
            .iter()
            .map(|(r, f)| {
                let mut row = vec![r.label.clone()];
                row.extend(classes.iter().map(|&i| match f.by_width.get(i) {
                    Some(c) if c.jobs > 0 => value(c),
                    _ => "-".into(),
                }));
                row
            })
            .collect();
        (title, header.clone(), body)
    };
    vec![
        table("jobs missing their fair start time by width (%)", &|c| {
            format!("{:.1}", c.pct_late)
        }),
        table("average fair start miss time by width (hours)", &|c| {
            format!("{:.2}", c.avg_miss / 3600.0)
        }),
        table("average turnaround time by width (hours)", &|c| {
            format!("{:.2}", c.avg_turnaround / 3600.0)
        }),
    ]
}

/// Header and rows of the search-cost table, when any run searched.
fn search_cost(runs: &[&RunReport]) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    let searching: Vec<&RunReport> = runs
        .iter()
        .copied()
        .filter(|r| r.search.is_some())
        .collect();
    if searching.is_empty() {
        return None;
    }
    let cols: Vec<&Column> = SEARCH_COLUMNS.iter().collect();
    Some(rows(&searching, &cols, false, |v, _| v))
}

/// A Markdown table; the first `left` columns are names, the rest numbers.
fn md_table(header: &[String], body: &[Vec<String>], left: usize) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = format!(
        "| {} |\n|",
        header
            .iter()
            .map(|h| esc(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for i in 0..header.len() {
        out.push_str(if i < left { " --- |" } else { " ---: |" });
    }
    out.push('\n');
    for row in body {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 1 && left == 2 {
                    format!("`{}`", esc(c))
                } else {
                    esc(c)
                }
            })
            .collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

/// Aligns a table: the first `left` columns (names) to the left, the rest
/// (numbers) to the right.
fn align(rows: &[Vec<String>], left: usize) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, text) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let w = widths[c];
            if c < left {
                let _ = write!(line, "{text:<w$}");
            } else {
                let _ = write!(line, "{text:>w$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Non-empty job classes of one run, one line each.
fn class_table(m: &Measures) -> String {
    let mut rows = vec![vec![
        "width".to_string(),
        "runtime".into(),
        "jobs".into(),
        "avg_wait_s".into(),
        "avg_slowdown".into(),
    ]];
    for (w, row) in m.classes.cells.iter().enumerate() {
        for (r, cell) in row.iter().enumerate() {
            if cell.jobs > 0 {
                rows.push(vec![
                    m.classes.widths[w].clone(),
                    m.classes.runtimes[r].clone(),
                    cell.jobs.to_string(),
                    format!("{:.0}", cell.avg_wait),
                    format!("{:.2}", cell.avg_slowdown),
                ]);
            }
        }
    }
    let mut out = String::from("jobs by class (width x run time):\n");
    for row in &rows {
        let _ = writeln!(
            out,
            "{:<9} {:<7} {:>7} {:>11} {:>9}",
            row[0], row[1], row[2], row[3], row[4]
        );
    }
    out
}
