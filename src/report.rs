//! Reports: measures of runs as tables (one per trace, best value per column
//! marked), Markdown ready for a pull request, JSON or CSV.

use crate::measures::Measures;
use crate::workload::Workload;
use serde::Serialize;
use std::fmt::Write as _;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
}

/// One policy run on one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    pub trace: String,
    pub procs: u32,
    /// Jobs simulated (warm-up and cool-down included).
    pub simulated_jobs: usize,
    pub offered_load: f64,
    /// What the run is called in the table: a goal's name, or the policy.
    pub label: String,
    /// The policy's canonical name.
    pub policy: String,
    pub epochs: u64,
    pub measures: Measures,
}

impl RunReport {
    pub fn new(
        w: &Workload,
        label: String,
        policy: String,
        epochs: u64,
        measures: Measures,
    ) -> Self {
        RunReport {
            trace: w.name.clone(),
            procs: w.procs,
            simulated_jobs: w.jobs.len(),
            offered_load: w.offered_load(),
            label,
            policy,
            epochs,
            measures,
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
    value: fn(&Measures) -> f64,
    decimals: usize,
    better: Better,
}

const COLUMNS: &[Column] = &[
    Column {
        header: "jobs",
        value: |m| m.jobs as f64,
        decimals: 0,
        better: Better::Neither,
    },
    Column {
        header: "avg_wait_s",
        value: |m| m.avg_wait,
        decimals: 0,
        better: Better::Lower,
    },
    Column {
        header: "p98_wait_s",
        value: |m| m.p98_wait as f64,
        decimals: 0,
        better: Better::Lower,
    },
    Column {
        header: "max_wait_s",
        value: |m| m.max_wait as f64,
        decimals: 0,
        better: Better::Lower,
    },
    Column {
        header: "avg_bsld",
        value: |m| m.avg_bsld,
        decimals: 2,
        better: Better::Lower,
    },
    Column {
        header: "max_bsld",
        value: |m| m.max_bsld,
        decimals: 1,
        better: Better::Lower,
    },
    Column {
        header: "avg_resp_s",
        value: |m| m.avg_response,
        decimals: 0,
        better: Better::Lower,
    },
    Column {
        header: "util",
        value: |m| m.utilization,
        decimals: 4,
        better: Better::Higher,
    },
    Column {
        header: "loc",
        value: |m| m.loss_of_capacity,
        decimals: 4,
        better: Better::Lower,
    },
    Column {
        header: "awrt_s",
        value: |m| m.awrt,
        decimals: 0,
        better: Better::Lower,
    },
];

fn cell(c: &Column, m: &Measures) -> String {
    format!("{:.*}", c.decimals, (c.value)(m))
}

/// Renders reports in `format`; table and Markdown give one table per
/// trace, in the order the traces first appear.
pub fn render(reports: &[RunReport], format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(reports).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Csv => csv(reports),
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
                        table(&runs)
                    } else {
                        markdown(&runs)
                    }
                })
                .collect();
            tables.join("\n")
        }
    }
}

fn csv(reports: &[RunReport]) -> String {
    let mut out = String::from("trace,procs,label,policy,offered_load,epochs");
    for c in COLUMNS {
        let _ = write!(out, ",{}", c.header);
    }
    out.push('\n');
    for r in reports {
        let _ = write!(
            out,
            "{},{},{},{},{:.4},{}",
            csv_field(&r.trace),
            r.procs,
            csv_field(&r.label),
            r.policy,
            r.offered_load,
            r.epochs
        );
        for c in COLUMNS {
            let _ = write!(out, ",{}", cell(c, &r.measures));
        }
        out.push('\n');
    }
    out
}

/// Quotes a CSV field when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Per column, which runs hold the best value (all of them on a tie);
/// nothing is marked where every run has the same value.
fn best(runs: &[&RunReport]) -> Vec<Vec<bool>> {
    COLUMNS
        .iter()
        .map(|c| {
            // Compare at the precision shown, so marks agree with the cells.
            let shown: Vec<f64> = runs
                .iter()
                .map(|r| cell(c, &r.measures).parse::<f64>().unwrap_or(f64::NAN))
                .collect();
            let target = match c.better {
                Better::Lower => shown.iter().copied().fold(f64::INFINITY, f64::min),
                Better::Higher => shown.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                Better::Neither => f64::NAN,
            };
            let marks: Vec<bool> = shown.iter().map(|&v| v == target).collect();
            if marks.iter().all(|&m| m) {
                vec![false; runs.len()]
            } else {
                marks
            }
        })
        .collect()
}

/// One line about the trace the table is for.
fn caption(r: &RunReport) -> String {
    let m = &r.measures;
    let mut s = format!(
        "trace {}: {} processors, {} jobs simulated, {} measured, offered load {:.3}",
        r.trace,
        r.procs,
        r.simulated_jobs,
        m.jobs + m.rejected,
        r.offered_load
    );
    if m.dropped.total() > 0 {
        let reasons: Vec<String> = m
            .dropped
            .0
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        let _ = write!(
            s,
            "; dropped {} jobs: {}",
            m.dropped.total(),
            reasons.join(", ")
        );
    }
    s
}

fn header_row(with_policy: bool) -> Vec<String> {
    let mut row = vec!["goal".to_string()];
    if with_policy {
        row.push("policy".into());
    }
    row.extend(COLUMNS.iter().map(|c| c.header.to_string()));
    row
}

fn table(runs: &[&RunReport]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let with_policy = runs.iter().any(|r| r.label != r.policy);
    let marks = best(runs);
    // Headers get the same one-character mark slot as the cells.
    let left = if with_policy { 2 } else { 1 };
    let mut header = header_row(with_policy);
    for h in header.iter_mut().skip(left) {
        h.push(' ');
    }
    let mut rows = vec![header];
    for (i, r) in runs.iter().enumerate() {
        let mut row = vec![r.label.clone()];
        if with_policy {
            row.push(r.policy.clone());
        }
        for (c, mark) in COLUMNS.iter().zip(&marks) {
            let star = if mark[i] { "*" } else { " " };
            row.push(format!("{}{star}", cell(c, &r.measures)));
        }
        rows.push(row);
    }
    let mut out = format!("{}\n\n{}", caption(first), align(&rows, left));
    if marks.iter().flatten().any(|&m| m) {
        out.push_str("* best in column\n");
    }
    if let [only] = runs {
        out.push('\n');
        out.push_str(&class_table(&only.measures));
    }
    out
}

fn markdown(runs: &[&RunReport]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let with_policy = runs.iter().any(|r| r.label != r.policy);
    let marks = best(runs);
    let header = header_row(with_policy);
    let mut out = format!("#### {}\n\n| {} |\n|", caption(first), header.join(" | "));
    for i in 0..header.len() {
        out.push_str(if i < header.len() - COLUMNS.len() {
            " --- |"
        } else {
            " ---: |"
        });
    }
    out.push('\n');
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(out, "| {} |", r.label.replace('|', "\\|"));
        if with_policy {
            let _ = write!(out, " `{}` |", r.policy);
        }
        for (c, mark) in COLUMNS.iter().zip(&marks) {
            let v = cell(c, &r.measures);
            if mark[i] {
                let _ = write!(out, " **{v}** |");
            } else {
                let _ = write!(out, " {v} |");
            }
        }
        out.push('\n');
    }
    if marks.iter().flatten().any(|&m| m) {
        out.push_str("\nBold: best in column.\n");
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
