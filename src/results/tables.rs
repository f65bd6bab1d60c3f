//! A store's cells as tables: one table per trace and axes (budget
//! aside), one row per goal, the measures as columns, drawn by the report
//! layer so they read as `goalc bench`'s do.

use super::{axes_label, sorted, without_budget};
use crate::report::{csv_field, measure_cell, measure_columns, render_measures, Format, RunReport};
use crate::store::Record;
use std::fmt::Write as _;

/// Cells run on the same trace under the same axes, budget aside.
pub struct Group<'a> {
    pub trace: &'a str,
    /// The axes as [`axes_label`] names them.
    pub label: String,
    pub records: Vec<&'a Record>,
}

/// The records in groups, in the module order of [`super`].
pub fn groups(records: &[Record]) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    let mut last: Option<(&str, &str, crate::store::Axes)> = None;
    for r in sorted(records) {
        let id = (
            r.trace.as_str(),
            r.trace_sha256.as_str(),
            without_budget(&r.axes),
        );
        if last.as_ref() != Some(&id) {
            out.push(Group {
                trace: &r.trace,
                label: axes_label(&id.2),
                records: Vec::new(),
            });
            last = Some(id);
        }
        if let Some(g) = out.last_mut() {
            g.records.push(r);
        }
    }
    out
}

/// The store's report in `format`, with only the measures `only` names
/// as columns (every measure when empty; check names first with
/// [`super::check_measures`]). JSON is the records themselves, sorted.
pub fn render(records: &[Record], format: Format, only: &[&str]) -> String {
    let groups = groups(records);
    match format {
        Format::Json => {
            let sorted = sorted(records);
            let mut s = serde_json::to_string_pretty(&sorted).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Csv => csv(records, only),
        Format::Table | Format::Markdown => {
            let md = format == Format::Markdown;
            let goals = {
                let mut g: Vec<&str> = records.iter().map(|r| r.goal.as_str()).collect();
                g.sort_unstable();
                g.dedup();
                g.len()
            };
            let traces = {
                let mut t: Vec<&str> = records.iter().map(|r| r.trace.as_str()).collect();
                t.sort_unstable();
                t.dedup();
                t.len()
            };
            let s = |n: usize| if n == 1 { "" } else { "s" };
            let summary = format!(
                "{} cell{}: {goals} goal run{} on {traces} trace{}, {} table{} (one per trace and axes)",
                records.len(),
                s(records.len()),
                s(goals),
                s(traces),
                groups.len(),
                s(groups.len()),
            );
            let mut out = if md {
                format!("## Result store report\n\n{summary}\n")
            } else {
                format!("{summary}\n")
            };
            // In the document itself, so a report pasted into a review
            // still says that cells are missing.
            for note in crate::store::merge::warnings("this store", records) {
                if md {
                    let _ = write!(out, "\n> **Warning:** {note}\n");
                } else {
                    let _ = writeln!(out, "warning: {note}");
                }
            }
            for g in &groups {
                let reports: Vec<RunReport> = g.records.iter().map(|r| r.report.clone()).collect();
                if md {
                    let _ = write!(out, "\n### {}: {}\n\n", g.trace, g.label);
                } else {
                    let _ = write!(out, "\n== {}: {} ==\n", g.trace, g.label);
                }
                out.push_str(&render_measures(&reports, format, only));
            }
            out
        }
    }
}

/// One line per cell: trace, the axes that any cell sets, goal, policy,
/// then the measures.
fn csv(records: &[Record], only: &[&str]) -> String {
    let rows = sorted(records);
    let reports: Vec<&RunReport> = rows.iter().map(|r| &r.report).collect();
    let measures: Vec<&str> = if only.is_empty() {
        measure_columns(&reports)
    } else {
        only.to_vec()
    };
    type Axis = (&'static str, fn(&Record) -> Option<String>);
    let axes: [Axis; 13] = [
        ("load", |r| r.axes.load.map(|v| v.to_string())),
        ("load_by", |r| r.axes.load_by.clone()),
        ("load_factor", |r| r.axes.load_factor.map(|v| v.to_string())),
        ("factor_by", |r| r.axes.factor_by.clone()),
        ("window", |r| r.axes.window.clone()),
        ("month", |r| r.axes.month.clone()),
        ("warmup_s", |r| {
            (r.axes.warmup > 0).then(|| r.axes.warmup.to_string())
        }),
        ("cooldown_s", |r| {
            (r.axes.cooldown > 0).then(|| r.axes.cooldown.to_string())
        }),
        ("budget", |r| r.axes.budget.map(|v| v.to_string())),
        ("seed", |r| r.axes.seed.map(|v| v.to_string())),
        ("exact_estimates", |r| {
            r.axes.exact_estimates.then(|| "true".to_string())
        }),
        ("events", |r| {
            (!r.axes.events.is_per_instant()).then(|| r.axes.events.to_string())
        }),
        ("first_jobs", |r| r.axes.first_jobs.map(|v| v.to_string())),
    ];
    let shown: Vec<&Axis> = axes
        .iter()
        .filter(|(_, f)| rows.iter().any(|r| f(r).is_some()))
        .collect();
    let mut out = String::from("trace");
    for (h, _) in &shown {
        let _ = write!(out, ",{h}");
    }
    out.push_str(",goal,policy");
    for m in &measures {
        let _ = write!(out, ",{m}");
    }
    out.push('\n');
    for r in rows {
        out.push_str(&csv_field(&r.trace));
        for (_, f) in &shown {
            let _ = write!(out, ",{}", csv_field(&f(r).unwrap_or_default()));
        }
        let _ = write!(
            out,
            ",{},{}",
            csv_field(&r.goal),
            csv_field(&r.report.policy)
        );
        for m in &measures {
            let _ = write!(out, ",{}", measure_cell(&r.report, m));
        }
        out.push('\n');
    }
    out
}
