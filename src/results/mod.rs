//! Reports of a result store: its cells as tables grouped by trace and
//! axes ([`tables`]), SVG plots against its axes ([`plots`]), and the
//! Markdown diff of two stores for a pull request ([`diff`]).
//!
//! This layer sits above the store (it reads [`Record`]s) and reuses the
//! report layer's columns, so a measure has one name, one reading and one
//! precision in `goalc bench`, `goalc report` and the diff alike.
//!
//! Order, everywhere: by trace name, then the axes (load, load factor,
//! window, month, seed, exact estimates, events, first jobs, processors,
//! warm-up, cool-down), then trace hash (two files of one name), then goal
//! name without its budget, then budget:
//! the same store gives the same bytes whatever order its lines are in.

pub mod diff;
pub mod plots;
pub mod tables;

use crate::lang::args::did_you_mean;
use crate::report::{measure_known, MEASURE_NAMES};
use crate::store::{Axes, Record};
use crate::units::format_duration;
use std::cmp::Ordering;

/// A measure name the reports do not know.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown measure `{name}`: {hint}")]
pub struct UnknownMeasure {
    pub name: String,
    pub hint: String,
}

/// Checks measure names against [`MEASURE_NAMES`] (and `awrt_<g>_s`).
pub fn check_measures(names: &[String]) -> Result<(), UnknownMeasure> {
    for n in names {
        if !measure_known(n) {
            let hint = match did_you_mean(n, MEASURE_NAMES.iter().copied()) {
                Some(c) => format!("did you mean `{c}`?"),
                None => format!(
                    "expected one of: {}, awrt_<group>_s",
                    MEASURE_NAMES.join(", ")
                ),
            };
            return Err(UnknownMeasure {
                name: n.clone(),
                hint,
            });
        }
    }
    Ok(())
}

/// A goal's name without the node budget a suite appends (`dds [L=400]`
/// is `dds`): the budget is an axis of its own.
pub fn goal_base(goal: &str) -> &str {
    match goal.rfind(" [L=") {
        Some(i) if goal.ends_with(']') => &goal[..i],
        _ => goal,
    }
}

fn cmp_f64(a: Option<f64>, b: Option<f64>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.total_cmp(&b),
        _ => a.is_some().cmp(&b.is_some()),
    }
}

/// Months as suites write them: numbers (`2` before `10`) or `YYYY-MM`.
fn cmp_period(a: &Option<String>, b: &Option<String>) -> Ordering {
    let num = |s: &Option<String>| s.as_deref().and_then(|s| s.parse::<u64>().ok());
    num(a).cmp(&num(b)).then_with(|| a.cmp(b))
}

/// The axes' order (see the module's comment); the budget not included.
pub fn cmp_axes(a: &Axes, b: &Axes) -> Ordering {
    cmp_f64(a.load, b.load)
        .then_with(|| a.load_by.cmp(&b.load_by))
        .then_with(|| cmp_f64(a.load_factor, b.load_factor))
        .then_with(|| a.factor_by.cmp(&b.factor_by))
        .then_with(|| cmp_period(&a.window, &b.window))
        .then_with(|| cmp_period(&a.month, &b.month))
        .then_with(|| a.seed.cmp(&b.seed))
        .then_with(|| a.exact_estimates.cmp(&b.exact_estimates))
        .then_with(|| a.events.to_string().cmp(&b.events.to_string()))
        .then_with(|| a.first_jobs.cmp(&b.first_jobs))
        .then_with(|| a.procs.cmp(&b.procs))
        .then_with(|| a.warmup.cmp(&b.warmup))
        .then_with(|| a.cooldown.cmp(&b.cooldown))
}

/// The records' order (see the module's comment).
pub fn cmp_records(a: &Record, b: &Record) -> Ordering {
    a.trace
        .cmp(&b.trace)
        .then_with(|| cmp_axes(&a.axes, &b.axes))
        .then_with(|| a.trace_sha256.cmp(&b.trace_sha256))
        .then_with(|| goal_base(&a.goal).cmp(goal_base(&b.goal)))
        .then_with(|| a.axes.budget.cmp(&b.axes.budget))
        .then_with(|| a.goal.cmp(&b.goal))
        .then_with(|| a.key.cmp(&b.key))
}

/// The records sorted (see the module's comment).
pub fn sorted(records: &[Record]) -> Vec<&Record> {
    let mut out: Vec<&Record> = records.iter().collect();
    out.sort_by(|a, b| cmp_records(a, b));
    out
}

/// The axes without the budget: cells that differ only in it (a search
/// goal at two budgets, or a goal that does not search) sit in one table.
pub fn without_budget(a: &Axes) -> Axes {
    Axes {
        budget: None,
        ..a.clone()
    }
}

/// The axes as a reader names them, only those set: `load 0.9, seed 1`;
/// `whole trace` when none is.
pub fn axes_label(a: &Axes) -> String {
    let mut parts = Vec::new();
    if let Some(l) = a.load {
        match &a.load_by {
            Some(by) => parts.push(format!("load {l} (by {by})")),
            None => parts.push(format!("load {l}")),
        }
    }
    if let Some(f) = a.load_factor {
        match &a.factor_by {
            Some(by) => parts.push(format!("load factor {f} (by {by})")),
            None => parts.push(format!("load factor {f}")),
        }
    }
    if let Some(w) = &a.window {
        parts.push(format!("window {w}"));
    }
    if let Some(m) = &a.month {
        parts.push(format!("month {m}"));
    }
    if a.warmup > 0 {
        parts.push(format!("warm-up {}", format_duration(a.warmup)));
    }
    if a.cooldown > 0 {
        parts.push(format!("cool-down {}", format_duration(a.cooldown)));
    }
    if let Some(b) = a.budget {
        parts.push(format!("budget {b}"));
    }
    if let Some(s) = a.seed {
        parts.push(format!("seed {s}"));
    }
    if a.exact_estimates {
        parts.push("exact estimates".into());
    }
    if !a.events.is_per_instant() {
        parts.push(format!("events {}", a.events));
    }
    if let Some(n) = a.first_jobs {
        parts.push(format!("first {n} jobs"));
    }
    if let Some(p) = a.procs {
        parts.push(format!("{p} processors"));
    }
    if parts.is_empty() {
        "whole trace".into()
    } else {
        parts.join(", ")
    }
}

/// Whether a record is the EASY baseline (FCFS order, one reservation),
/// whatever its goal file calls it: plots mark it.
pub fn is_easy(r: &Record) -> bool {
    r.report.policy == "fcfs-easy"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_come_off_goal_names() {
        assert_eq!(goal_base("dds-lxf [L=400]"), "dds-lxf");
        assert_eq!(goal_base("EASY"), "EASY");
        assert_eq!(goal_base("odd [L=x"), "odd [L=x");
    }

    #[test]
    fn unknown_measures_get_a_suggestion() {
        check_measures(&["avg_wait_s".into(), "awrt_2_s".into()]).unwrap();
        let e = check_measures(&["avg_wiat_s".into()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown measure `avg_wiat_s`: did you mean `avg_wait_s`?"
        );
    }

    #[test]
    fn months_sort_as_numbers() {
        let m = |s: &str| Some(s.to_string());
        assert_eq!(cmp_period(&m("2"), &m("10")), Ordering::Less);
        assert_eq!(cmp_period(&m("1996-10"), &m("1996-11")), Ordering::Less);
    }
}
