//! The summary a person reads first: per workload, the runs grouped by the
//! mechanism their goal uses, each group with the few measures that say
//! what that mechanism is for, and classic baselines as reference rows.
//! Every line fits 120 columns; the full tables stay with [`super::render`].

use super::{align, RunReport};
use serde::Serialize;
use std::fmt::Write as _;

/// The paper mechanism a goal uses: the summary's groups, in this order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Mechanism {
    /// A classic scheduler (FCFS, EASY, conservative, LXF, list, ...).
    Baseline,
    /// GOAL: an objective searched at every epoch.
    Search,
    /// QOPS: deadlines and admission control.
    Admission,
    /// FAIR: fairshare order, starvation queues, runtime limits.
    Fairshare,
    /// GREEDY: user groups, owner objectives, greedy criteria.
    Greedy,
    /// MOLD: moldable jobs under a speedup model.
    Moldable,
}

impl Mechanism {
    pub const ALL: [Mechanism; 6] = [
        Mechanism::Baseline,
        Mechanism::Search,
        Mechanism::Admission,
        Mechanism::Fairshare,
        Mechanism::Greedy,
        Mechanism::Moldable,
    ];

    /// The group's heading: what the mechanism is for and how to read it.
    fn heading(self) -> &'static str {
        match self {
            Mechanism::Baseline => {
                "baselines: classic schedulers (waits in hours; bsld: bounded slowdown, 1 is no wait)"
            }
            Mechanism::Search => {
                "search (GOAL): an objective searched at every epoch; E_maxW: waits beyond FCFS-backfill's \
                 maximum, normalized"
            }
            Mechanism::Admission => {
                "admission (QOPS): deadlines guaranteed or the job rejected at once; nd_: jobs without a \
                 user deadline"
            }
            Mechanism::Fairshare => {
                "fairshare (FAIR): queue by decayed usage; fst_late: jobs started after their fair start \
                 time"
            }
            Mechanism::Greedy => {
                "owner objective (GREEDY): AWRT of user groups (hours), objective lower is better"
            }
            Mechanism::Moldable => {
                "moldable (MOLD): the scheduler picks each job's width; eff_load: load at perfect \
                 efficiency"
            }
        }
    }

    /// The baseline policies shown above the group's goals, for reference.
    fn references(self) -> &'static [&'static str] {
        match self {
            Mechanism::Baseline => &[],
            Mechanism::Search => &["fcfs-easy", "lxf-easy"],
            Mechanism::Admission | Mechanism::Fairshare => &["fcfs-easy", "fcfs-conservative"],
            Mechanism::Greedy | Mechanism::Moldable => &["fcfs-easy"],
        }
    }

    /// The measures that say what the mechanism is for.
    fn columns(self, runs: &[&RunReport]) -> Vec<SumCol> {
        let h = 3600.0;
        let ran = |r: &RunReport| r.measures.jobs > 0;
        let jobs = SumCol::new("jobs", 0, Better::Neither, |r| Some(r.measures.jobs as f64));
        let avg_wait = SumCol::new("avg_wait", 1, Better::Lower, move |r| {
            ran(r).then_some(r.measures.avg_wait / h)
        });
        let p98_wait = SumCol::new("p98_wait", 1, Better::Lower, move |r| {
            ran(r).then_some(r.measures.p98_wait as f64 / h)
        });
        let max_wait = SumCol::new("max_wait", 1, Better::Lower, move |r| {
            ran(r).then_some(r.measures.max_wait as f64 / h)
        });
        let avg_bsld = SumCol::new("avg_bsld", 2, Better::Lower, move |r| {
            ran(r).then_some(r.measures.avg_slowdown)
        });
        let util = SumCol::new("util", 3, Better::Higher, |r| Some(r.measures.utilization));
        let turn = SumCol::new("avg_turn", 2, Better::Lower, move |r| {
            ran(r).then_some(r.measures.avg_response / h)
        });
        match self {
            Mechanism::Baseline => vec![
                jobs,
                avg_wait,
                p98_wait,
                max_wait,
                avg_bsld,
                util,
                SumCol::new("loc", 3, Better::Lower, |r| {
                    Some(r.measures.loss_of_capacity)
                }),
            ],
            Mechanism::Search => vec![
                jobs,
                avg_wait,
                max_wait,
                avg_bsld,
                SumCol::new("E_maxW", 2, Better::Lower, |r| {
                    r.excess.map(|e| e.max.total)
                }),
                SumCol::new("E_98W", 2, Better::Lower, |r| r.excess.map(|e| e.p98.total)),
                util,
            ],
            Mechanism::Admission => vec![
                jobs,
                SumCol::new("rejected_%", 1, Better::Lower, |r| {
                    r.admission.map(|a| a.unadmitted_pct)
                }),
                SumCol::new("rej_work_%", 1, Better::Lower, |r| {
                    r.admission.map(|a| a.unadmitted_work_pct)
                }),
                SumCol::new("missed", 0, Better::Lower, |r| {
                    r.admission.map(|a| a.missed as f64)
                }),
                // Without admission control every job is one without a
                // deadline, as in QOPS's figures against utilization.
                SumCol::new("nd_resp", 2, Better::Lower, move |r| match r.admission {
                    Some(a) => a.non_deadline_avg_response.map(|v| v / h),
                    None => ran(r).then_some(r.measures.avg_response / h),
                }),
                SumCol::new("nd_bsld", 2, Better::Lower, move |r| match r.admission {
                    Some(a) => a.non_deadline_avg_slowdown,
                    None => ran(r).then_some(r.measures.avg_slowdown),
                }),
                util,
            ],
            Mechanism::Fairshare => vec![
                jobs,
                SumCol::new("fst_late_%", 1, Better::Lower, |r| {
                    r.fairness.as_ref().map(|f| f.pct_late)
                }),
                SumCol::new("fst_miss", 2, Better::Lower, |r| {
                    r.fairness.as_ref().map(|f| f.avg_miss / 3600.0)
                }),
                turn,
                max_wait,
                util,
            ],
            Mechanism::Greedy => {
                let groups = runs
                    .iter()
                    .filter_map(|r| r.owner.as_ref().map(|o| o.groups.len()))
                    .max()
                    .unwrap_or(0);
                let mut cols = vec![jobs];
                for g in 0..groups {
                    cols.push(SumCol::boxed(
                        format!("awrt_{}", g + 1),
                        1,
                        Better::Lower,
                        Box::new(move |r: &RunReport| {
                            let o = r.owner.as_ref()?;
                            let g = o.groups.get(g).filter(|g| g.jobs > 0)?;
                            Some(g.awrt / h)
                        }),
                    ));
                }
                cols.push(SumCol::new("objective", 0, Better::Lower, |r| {
                    r.owner.as_ref().and_then(|o| o.value)
                }));
                cols.push(util);
                cols
            }
            Mechanism::Moldable => vec![
                jobs,
                SumCol::new("eff_load", 3, Better::Neither, |r| r.effective_load),
                SumCol::new("avg_width", 1, Better::Neither, |r| {
                    r.moldable.as_ref().map(|m| m.avg_width)
                }),
                SumCol::new("avg_eff", 2, Better::Neither, |r| {
                    r.moldable.as_ref().map(|m| m.avg_efficiency)
                }),
                turn,
                avg_wait,
                util,
            ],
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
    Neither,
}

type Value = Box<dyn Fn(&RunReport) -> Option<f64>>;

/// A column of a summary group.
struct SumCol {
    header: String,
    decimals: usize,
    better: Better,
    value: Value,
}

impl SumCol {
    fn new(
        header: &str,
        decimals: usize,
        better: Better,
        value: impl Fn(&RunReport) -> Option<f64> + 'static,
    ) -> Self {
        Self::boxed(header.to_string(), decimals, better, Box::new(value))
    }

    fn boxed(header: String, decimals: usize, better: Better, value: Value) -> Self {
        SumCol {
            header,
            decimals,
            better,
            value,
        }
    }

    fn cell(&self, r: &RunReport) -> Option<String> {
        (self.value)(r).map(|v| format!("{v:.*}", self.decimals))
    }
}

/// Labels longer than this are cut (with `~`) so that rows fit 120 columns.
const LABEL_WIDTH: usize = 44;

fn short(label: &str) -> String {
    if label.chars().count() <= LABEL_WIDTH {
        label.to_string()
    } else {
        let cut: String = label.chars().take(LABEL_WIDTH - 1).collect();
        format!("{cut}~")
    }
}

/// A note on one workload's group of one mechanism (e.g. why two goals
/// agree): the workload's name, the mechanism, the text.
pub type Note = (String, Mechanism, String);

/// The summary of `reports`: per workload (in order of first appearance),
/// a caption, then one group per mechanism present, each a small table.
/// `notes` are printed under their group.
pub fn summary(reports: &[RunReport], notes: &[Note]) -> String {
    let mut traces: Vec<&str> = Vec::new();
    for r in reports {
        if !traces.contains(&r.trace.as_str()) {
            traces.push(&r.trace);
        }
    }
    let mut out = String::new();
    let mut marked = false;
    for t in traces {
        let runs: Vec<&RunReport> = reports.iter().filter(|r| r.trace == t).collect();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&wrap(&super::caption(runs[0]), 120));
        for m in Mechanism::ALL {
            let own: Vec<&RunReport> = runs.iter().copied().filter(|r| r.mechanism == m).collect();
            if own.is_empty() {
                continue;
            }
            let mut refs: Vec<&RunReport> = Vec::new();
            for policy in m.references() {
                if let Some(r) = runs
                    .iter()
                    .find(|r| r.mechanism == Mechanism::Baseline && r.policy == *policy)
                {
                    refs.push(r);
                }
            }
            out.push('\n');
            out.push_str(&wrap(m.heading(), 120));
            let (table, any) = group(m, &refs, &own);
            out.push_str(&table);
            marked |= any;
            let mut said = same_outcomes(&own);
            said.extend(
                notes
                    .iter()
                    .filter(|n| n.0 == t && n.1 == m)
                    .map(|n| n.2.clone()),
            );
            for note in said {
                out.push_str(&wrap(&format!("  note: {note}"), 120));
            }
        }
    }
    if marked {
        out.push_str("\n* best in its group's column; - no value (e.g. a mean over no jobs)\n");
    }
    out
}

/// The table of one group: reference rows (`ref:`) first, then the goals;
/// the best value per column among all of them marked `*`.
fn group(m: Mechanism, refs: &[&RunReport], own: &[&RunReport]) -> (String, bool) {
    let all: Vec<&RunReport> = refs.iter().chain(own).copied().collect();
    // A column without a value in any row (e.g. user groups no job is in)
    // says nothing.
    let cols: Vec<SumCol> = m
        .columns(&all)
        .into_iter()
        .filter(|c| all.iter().any(|r| (c.value)(r).is_some()))
        .collect();
    let cells: Vec<Vec<Option<String>>> = all
        .iter()
        .map(|r| cols.iter().map(|c| c.cell(r)).collect())
        .collect();
    let mut header = vec!["goal".to_string()];
    header.extend(cols.iter().map(|c| format!("{} ", c.header)));
    let mut rows = vec![header];
    let mut marked = false;
    for (i, r) in all.iter().enumerate() {
        let label = if i < refs.len() {
            format!("ref: {}", r.label)
        } else {
            r.label.clone()
        };
        let mut row = vec![short(&label)];
        for (j, c) in cols.iter().enumerate() {
            let best = is_best(c.better, &cells, i, j);
            marked |= best;
            row.push(match &cells[i][j] {
                Some(v) => format!("{v}{}", if best { "*" } else { " " }),
                None => "- ".into(),
            });
        }
        rows.push(row);
    }
    let out = align(&rows, 1)
        .lines()
        .map(|l| format!("  {l}\n"))
        .collect::<String>();
    (out, marked)
}

/// Whether row `i` holds the best shown value of column `j`: never for an
/// empty cell, nor when every row has the same value.
fn is_best(better: Better, cells: &[Vec<Option<String>>], i: usize, j: usize) -> bool {
    let shown: Vec<Option<f64>> = cells
        .iter()
        .map(|row| row[j].as_ref().and_then(|v| v.parse().ok()))
        .collect();
    let values: Vec<f64> = shown.iter().flatten().copied().collect();
    if values.len() < 2 {
        return false;
    }
    let target = match better {
        Better::Lower => values.iter().copied().fold(f64::INFINITY, f64::min),
        Better::Higher => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Better::Neither => return false,
    };
    if values.iter().all(|&v| v == target) {
        return false;
    }
    shown[i] == Some(target)
}

/// Goals of one group whose outcomes are identical (every measure of the
/// full table equal), said once per set: such goals differ only where
/// this workload does not reach.
fn same_outcomes(own: &[&RunReport]) -> Vec<String> {
    let key = |r: &RunReport| {
        let cols = super::columns(&[r], &[]);
        let cells: Vec<String> = cols.iter().map(|c| super::cell(c, r)).collect();
        (r.simulated_jobs, cells.join(","))
    };
    let keys: Vec<_> = own.iter().map(|r| key(r)).collect();
    let mut done = vec![false; own.len()];
    let mut sets = Vec::new();
    for i in 0..own.len() {
        if done[i] {
            continue;
        }
        let same: Vec<usize> = (i..own.len()).filter(|&k| keys[k] == keys[i]).collect();
        if same.len() > 1 {
            for &k in &same {
                done[k] = true;
            }
            let names: Vec<&str> = same.iter().map(|&k| own[k].label.as_str()).collect();
            sets.push(names.join(" = "));
        }
    }
    if sets.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "same outcome on this workload (the goals differ only where it does not reach): {}",
        sets.join("; ")
    )]
}

/// Breaks `text` into lines of at most `width` columns at spaces, later
/// lines indented like the first (plus two).
pub fn wrap(text: &str, width: usize) -> String {
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let more = format!("{indent}    ");
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            let _ = writeln!(out, "{line}");
            line.clear();
        }
        let lead = if out.is_empty() { &indent } else { &more };
        if line.is_empty() {
            line.push_str(lead);
            line.push_str(word);
        } else {
            line.push(' ');
            line.push_str(word);
        }
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_lines_within_the_width() {
        let text = "word ".repeat(60);
        let wrapped = wrap(&text, 40);
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 40),
            "{wrapped}"
        );
        assert_eq!(wrapped.split_whitespace().count(), 60);
    }

    #[test]
    fn long_labels_are_cut() {
        let label = "x".repeat(60);
        assert_eq!(short(&label).chars().count(), LABEL_WIDTH);
        assert_eq!(short("EASY"), "EASY");
    }

    #[test]
    fn empty_cells_are_never_best() {
        let cells = vec![
            vec![None],
            vec![Some("2.00".to_string())],
            vec![Some("3.00".to_string())],
        ];
        assert!(!is_best(Better::Lower, &cells, 0, 0));
        assert!(is_best(Better::Lower, &cells, 1, 0));
        // One value only: nothing to compare.
        let one = vec![vec![None], vec![Some("2.00".to_string())]];
        assert!(!is_best(Better::Lower, &one, 1, 0));
    }
}
