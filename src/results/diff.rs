//! Two stores compared, before and after a change, as Markdown for a pull
//! request: which cells moved, by how much, and which were added or
//! removed.
//!
//! Cells are matched by goal name, trace name and axes, not by cell key:
//! the key holds the goal file's and the trace's hashes, so after editing
//! a goal every one of its cells would show as removed and added again,
//! when what a reviewer wants is how its numbers moved. A matched cell
//! whose goal file or trace changed says so in the table.

use super::{axes_label, cmp_records, sorted};
use crate::report::{lower_is_better, measure, measure_cell, measure_columns, RunReport};
use crate::store::Record;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One measure of one cell that moved.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    pub measure: &'static str,
    /// As the tables show them.
    pub before: String,
    pub after: String,
    /// Change in percent of `before`; `None` when `before` is 0.
    pub pct: Option<f64>,
    /// Whether the move is for the better (`None`: a count, neither).
    pub better: Option<bool>,
}

/// A matched cell with its moves.
#[derive(Debug, Clone)]
pub struct Moved<'a> {
    pub before: &'a Record,
    pub after: &'a Record,
    pub moves: Vec<Move>,
}

/// What changed between two stores.
#[derive(Debug, Clone, Default)]
pub struct Diff<'a> {
    pub matched: usize,
    pub moved: Vec<Moved<'a>>,
    pub added: Vec<&'a Record>,
    pub removed: Vec<&'a Record>,
}

/// The identity of a cell across stores (see the module's comment).
fn identity(r: &Record) -> (String, String, String) {
    (
        r.goal.clone(),
        r.trace.clone(),
        serde_json::to_string(&r.axes).unwrap_or_default(),
    )
}

/// The measures both reports show, in the tables' order.
fn measures_of(a: &RunReport, b: &RunReport) -> Vec<&'static str> {
    let mut names = measure_columns(&[a, b]);
    // AWRT per group, for goals with user groups.
    const GROUPS: [&str; 9] = [
        "awrt_1_s", "awrt_2_s", "awrt_3_s", "awrt_4_s", "awrt_5_s", "awrt_6_s", "awrt_7_s",
        "awrt_8_s", "awrt_9_s",
    ];
    names.extend(GROUPS);
    // Wall-clock times are not stored (0 in every record).
    names.retain(|n| !n.ends_with("_epoch_us"));
    names
}

/// The measures of a cell that moved by at least `threshold` percent,
/// compared as the tables show them (so a move below the shown precision
/// is not one).
fn moves(before: &RunReport, after: &RunReport, threshold: f64) -> Vec<Move> {
    let mut out = Vec::new();
    for m in measures_of(before, after) {
        let (b, a) = (measure_cell(before, m), measure_cell(after, m));
        if b == a {
            continue;
        }
        let (bv, av) = (measure(before, m), measure(after, m));
        let pct = match (bv, av) {
            (Some(b), Some(a)) if b != 0.0 => Some((a - b) / b.abs() * 100.0),
            _ => None,
        };
        if pct.is_some_and(|p| p.abs() < threshold) {
            continue;
        }
        let better = match (bv, av, lower_is_better(m)) {
            (Some(b), Some(a), Some(lower)) => Some((a < b) == lower),
            _ => None,
        };
        out.push(Move {
            measure: m,
            before: b,
            after: a,
            pct,
            better,
        });
    }
    out
}

/// Compares two stores' records; a measure moved when its shown value
/// changed by at least `threshold` percent (any change for 0).
pub fn diff<'a>(before: &'a [Record], after: &'a [Record], threshold: f64) -> Diff<'a> {
    let mut old: BTreeMap<_, &Record> = BTreeMap::new();
    for r in sorted(before) {
        old.entry(identity(r)).or_insert(r);
    }
    let mut out = Diff::default();
    let mut seen = std::collections::BTreeSet::new();
    for a in sorted(after) {
        let id = identity(a);
        if !seen.insert(id.clone()) {
            continue;
        }
        match old.remove(&id) {
            Some(b) => {
                out.matched += 1;
                let moves = moves(&b.report, &a.report, threshold);
                if !moves.is_empty() {
                    out.moved.push(Moved {
                        before: b,
                        after: a,
                        moves,
                    });
                }
            }
            None => out.added.push(a),
        }
    }
    out.removed = old.into_values().collect();
    out.removed.sort_by(|a, b| cmp_records(a, b));
    out
}

fn esc(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The diff as Markdown; `before` and `after` name the stores.
pub fn markdown(d: &Diff, before: &str, after: &str, threshold: f64) -> String {
    let mut out = format!("### Result store diff: `{before}` → `{after}`\n\n");
    if d.moved.is_empty() && d.added.is_empty() && d.removed.is_empty() {
        let _ = writeln!(
            out,
            "Nothing moved: {} cells matched, none added or removed (threshold {threshold}%).",
            d.matched
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{} cells matched, {} moved (threshold {threshold}%), {} added, {} removed.",
        d.matched,
        d.moved.len(),
        d.added.len(),
        d.removed.len()
    );
    if !d.moved.is_empty() {
        out.push_str(
            "\n#### Moved\n\n| goal | trace | axes | measure | before | after | change |\n\
             | --- | --- | --- | --- | ---: | ---: | ---: |\n",
        );
        for m in &d.moved {
            let mut note = String::new();
            if m.before.goal_hash != m.after.goal_hash {
                note.push_str(" (goal file changed)");
            }
            if m.before.trace_sha256 != m.after.trace_sha256 {
                note.push_str(" (trace changed)");
            }
            for mv in &m.moves {
                // No percentage of 0; a measure one store lacks is new.
                let change = match mv.pct {
                    Some(p) => format!("{p:+.1}%"),
                    None if mv.before == "-" || mv.before.is_empty() => "new".into(),
                    None => format!("from {}", mv.before),
                };
                let mark = match mv.better {
                    Some(true) => " better",
                    Some(false) => " worse",
                    None => "",
                };
                let _ = writeln!(
                    out,
                    "| {}{note} | {} | {} | {} | {} | {} | {change}{mark} |",
                    esc(&m.after.goal),
                    esc(&m.after.trace),
                    esc(&axes_label(&m.after.axes)),
                    mv.measure,
                    mv.before,
                    mv.after
                );
            }
        }
    }
    for (title, cells) in [("Added", &d.added), ("Removed", &d.removed)] {
        if cells.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "\n#### {title}\n\n| goal | trace | axes |\n| --- | --- | --- |\n"
        );
        for r in cells.iter() {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                esc(&r.goal),
                esc(&r.trace),
                esc(&axes_label(&r.axes))
            );
        }
    }
    out
}
