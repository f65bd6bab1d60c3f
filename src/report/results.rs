//! A bench's results folder: the full report (every table, Markdown) and
//! the same runs as JSON, so the summary on the terminal can stay short.
//! The command line draws the plots into the same folder
//! (`results::plots::write_for_runs`, a layer above this one).

use super::{render, Format, RunReport};
use std::path::{Path, PathBuf};

/// The files written into a results folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Every table of every workload, Markdown.
    pub report: PathBuf,
    /// Every run with every measure, JSON.
    pub json: PathBuf,
}

/// A folder name for these runs, the same for the same workloads (no
/// timestamp, so a rerun replaces its results): the first workload's name,
/// and how many more there are, with characters a file system may refuse
/// replaced by `_`. A name of dots alone, or none (the traces `...swf`,
/// `..swf` and `.swf`), is dots made `_` too: as `..`, `.` or nothing the
/// folder would be the parent of `goalc-results` or that folder itself.
pub fn folder_name(reports: &[RunReport]) -> String {
    let traces = traces_of(reports);
    let first = traces.first().map_or("empty", String::as_str);
    let mut name: String = first
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._@+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.chars().all(|c| c == '.') {
        name = "_".repeat(name.len().max(1));
    }
    if traces.len() > 1 {
        name += &format!("+{}-more", traces.len() - 1);
    }
    name
}

/// The names of the report files in a results folder.
pub const REPORT_MD: &str = "report.md";
pub const REPORT_JSON: &str = "report.json";

/// The workloads (trace names, each once, in order) of `reports`.
pub fn traces_of(reports: &[RunReport]) -> Vec<String> {
    each_once(reports.iter().map(|r| r.trace.as_str()))
}

/// `names` without repeats, in the order of their first appearance.
fn each_once<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut once: Vec<String> = Vec::new();
    for name in names {
        if !once.iter().any(|n| n == name) {
            once.push(name.to_string());
        }
    }
    once
}

/// The workloads of the report already in `dir`, when one is there and
/// reads: the folder is named by the first workload, so another set of
/// workloads (`a,b.swf` beside `a_b.swf`, or two traces after two others
/// with the same first) may land in it, and replacing that is said.
pub fn traces_written(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(REPORT_JSON)).ok()?;
    let runs: Vec<serde_json::Value> = serde_json::from_str(&text).ok()?;
    let traces: Option<Vec<&str>> = runs.iter().map(|r| r.get("trace")?.as_str()).collect();
    Some(each_once(traces?.into_iter()))
}

/// Writes [`REPORT_MD`] (`preamble`, then the full tables) and
/// [`REPORT_JSON`] into `dir`, creating it.
pub fn write(dir: &Path, reports: &[RunReport], preamble: &str) -> std::io::Result<Written> {
    std::fs::create_dir_all(dir)?;
    let report = dir.join(REPORT_MD);
    let json = dir.join(REPORT_JSON);
    let mut md = String::from("# goalc bench\n\n");
    md.push_str(preamble);
    if !preamble.is_empty() {
        md.push('\n');
    }
    md.push_str(&render(reports, Format::Markdown));
    std::fs::write(&report, md)?;
    std::fs::write(&json, render(reports, Format::Json))?;
    Ok(Written { report, json })
}
