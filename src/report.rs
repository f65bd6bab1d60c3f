//! Reports: measures of one or more runs as a table, JSON or CSV.

use crate::measures::Measures;
use crate::workload::Workload;
use serde::Serialize;
use std::fmt::Write as _;

/// Output formats of `goalc simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

/// One policy run on one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    pub trace: String,
    pub procs: u32,
    /// Jobs simulated (warm-up and cool-down included).
    pub simulated_jobs: usize,
    pub offered_load: f64,
    pub policy: String,
    pub epochs: u64,
    pub measures: Measures,
}

impl RunReport {
    pub fn new(w: &Workload, policy: String, epochs: u64, measures: Measures) -> Self {
        RunReport {
            trace: w.name.clone(),
            procs: w.procs,
            simulated_jobs: w.jobs.len(),
            offered_load: w.offered_load(),
            policy,
            epochs,
            measures,
        }
    }
}

/// A column of the comparison: header and how to read it off a report.
struct Column {
    header: &'static str,
    value: fn(&Measures) -> String,
}

const COLUMNS: &[Column] = &[
    Column {
        header: "jobs",
        value: |m| m.jobs.to_string(),
    },
    Column {
        header: "avg_wait_s",
        value: |m| format!("{:.0}", m.avg_wait),
    },
    Column {
        header: "max_wait_s",
        value: |m| m.max_wait.to_string(),
    },
    Column {
        header: "p98_wait_s",
        value: |m| m.p98_wait.to_string(),
    },
    Column {
        header: "avg_bsld",
        value: |m| format!("{:.2}", m.avg_bsld),
    },
    Column {
        header: "max_bsld",
        value: |m| format!("{:.1}", m.max_bsld),
    },
    Column {
        header: "avg_resp_s",
        value: |m| format!("{:.0}", m.avg_response),
    },
    Column {
        header: "util",
        value: |m| format!("{:.4}", m.utilization),
    },
    Column {
        header: "loc",
        value: |m| format!("{:.4}", m.loss_of_capacity),
    },
    Column {
        header: "awrt_s",
        value: |m| format!("{:.0}", m.awrt),
    },
    Column {
        header: "makespan_s",
        value: |m| m.makespan.to_string(),
    },
];

/// Renders reports (all on the same workload) in `format`.
pub fn render(reports: &[RunReport], format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(reports).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Csv => csv(reports),
        Format::Table => table(reports),
    }
}

fn csv(reports: &[RunReport]) -> String {
    let mut out = String::from("trace,procs,policy,offered_load,epochs");
    for c in COLUMNS {
        let _ = write!(out, ",{}", c.header);
    }
    out.push('\n');
    for r in reports {
        let _ = write!(
            out,
            "{},{},{},{:.4},{}",
            r.trace, r.procs, r.policy, r.offered_load, r.epochs
        );
        for c in COLUMNS {
            let _ = write!(out, ",{}", (c.value)(&r.measures));
        }
        out.push('\n');
    }
    out
}

/// Left-aligns the first column, right-aligns the rest.
fn align(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c == 0 {
                let _ = write!(line, "{cell:<w$}", w = widths[c]);
            } else {
                let _ = write!(line, "  {cell:>w$}", w = widths[c]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn table(reports: &[RunReport]) -> String {
    let Some(first) = reports.first() else {
        return String::new();
    };
    let m = &first.measures;
    let mut out = format!(
        "trace {}: {} processors, {} jobs simulated, {} measured, offered load {:.3}, bounded slowdown tau {} s\n",
        first.trace, first.procs, first.simulated_jobs, m.jobs + m.rejected, first.offered_load, m.tau
    );
    if m.dropped.total() > 0 {
        let reasons: Vec<String> = m
            .dropped
            .0
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        let _ = writeln!(
            out,
            "dropped {} jobs: {}",
            m.dropped.total(),
            reasons.join(", ")
        );
    }
    out.push('\n');
    let mut rows = vec![std::iter::once("policy".to_string())
        .chain(COLUMNS.iter().map(|c| c.header.to_string()))
        .collect::<Vec<_>>()];
    for r in reports {
        rows.push(
            std::iter::once(r.policy.clone())
                .chain(COLUMNS.iter().map(|c| (c.value)(&r.measures)))
                .collect(),
        );
    }
    out.push_str(&align(&rows));
    if let [only] = reports {
        out.push('\n');
        out.push_str(&class_table(&only.measures));
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
        "avg_bsld".into(),
    ]];
    for (w, row) in m.classes.cells.iter().enumerate() {
        for (r, cell) in row.iter().enumerate() {
            if cell.jobs > 0 {
                rows.push(vec![
                    m.classes.widths[w].clone(),
                    m.classes.runtimes[r].clone(),
                    cell.jobs.to_string(),
                    format!("{:.0}", cell.avg_wait),
                    format!("{:.2}", cell.avg_bsld),
                ]);
            }
        }
    }
    format!("jobs by class (width x run time):\n{}", align(&rows))
}
