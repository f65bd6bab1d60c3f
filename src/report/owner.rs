//! GREEDY's owner view of a run: AWRT per user group and the owner
//! objective (the paper's Table III), shown when a goal states user groups.

use super::RunReport;
use crate::measures::owner::GroupAwrt;
use serde::{Deserialize, Serialize};

/// The owner measures of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnerReport {
    /// The group bounds, as the language writes them.
    pub bounds: String,
    pub groups: Vec<GroupAwrt>,
    /// The owner objective as written, and its value (lower is better).
    pub objective: Option<String>,
    pub value: Option<f64>,
}

/// Header and rows of the table of AWRT per group and utilization, for the
/// runs with owner measures.
pub fn by_group(runs: &[&RunReport]) -> Option<(String, Vec<String>, Vec<Vec<String>>)> {
    let owned: Vec<(&RunReport, &OwnerReport)> = runs
        .iter()
        .filter_map(|r| r.owner.as_ref().map(|o| (*r, o)))
        .collect();
    let (_, first) = owned.first()?;
    let n = owned.iter().map(|(_, o)| o.groups.len()).max().unwrap_or(0);
    let mut header = vec!["goal".to_string()];
    header.extend((1..=n).map(|g| format!("awrt_{g}_s")));
    header.push("util".into());
    let objective = owned.iter().find_map(|(_, o)| o.objective.clone());
    if objective.is_some() {
        header.push("objective".into());
    }
    let body = owned
        .iter()
        .map(|(r, o)| {
            let mut row = vec![r.label.clone()];
            row.extend((0..n).map(|i| match o.groups.get(i) {
                Some(g) if g.jobs > 0 => format!("{:.0}", g.awrt),
                _ => "-".into(),
            }));
            row.push(format!("{:.4}", r.measures.utilization));
            if objective.is_some() {
                row.push(o.value.map_or("-".into(), |v| format!("{v:.0}")));
            }
            row
        })
        .collect();
    let mut title = format!(
        "user groups by share of consumption (bounds {})",
        first.bounds
    );
    if let Some(obj) = objective {
        title += &format!("; owner objective {obj}, lower is better");
    }
    Some((title, header, body))
}
