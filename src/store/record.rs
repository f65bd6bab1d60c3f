//! One line of a result store: one cell of a suite (a goal on a workload
//! under every axis value) with all its measures, as one JSON object.

use crate::report::RunReport;
use crate::sim::EventMode;
use crate::workload::Time;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The store format this build writes and reads.
pub const FORMAT: u32 = 1;

/// The goalc version that writes a record; a store of another version is
/// neither reused nor merged (its numbers may differ).
pub const GOALC_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One finished cell, one JSON line of a store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Store format version ([`FORMAT`]).
    pub format: u32,
    /// The goalc version that ran the cell ([`GOALC_VERSION`]).
    pub goalc: String,
    /// Suite id: sha256 hex of the suite's canonical content (its goals'
    /// hashes, traces' hashes and axes, not its file's spelling), so that
    /// shards of one suite merge and shards of another are refused.
    pub suite: String,
    /// How many cells the whole suite has (every shard), so that a report
    /// or merge can tell a store that lacks some: a cell that failed, a
    /// shard that was killed or never ran. `None` in records written
    /// before goalc stored it.
    #[serde(default)]
    pub suite_cells: Option<usize>,
    /// Cell key: sha256 hex over `goal_hash`, `trace_sha256`, the axes and
    /// what the suite measures every cell with ([`cell_key`]); equal keys,
    /// equal outcomes, so a re-run reuses the record.
    pub key: String,
    /// Goal name as reports show it, with its node budget if any
    /// (`dds-lxf [L=400]`).
    pub goal: String,
    /// sha256 hex of the goal file's text.
    pub goal_hash: String,
    /// Trace name as reports show it (`CTC-SP2-1996-3.1-cln`, `lublin`).
    pub trace: String,
    /// sha256 hex of the trace's uncompressed text, or for the built-in
    /// model of its parameters ([`model_sha256`]).
    pub trace_sha256: String,
    /// Every axis value of the cell.
    pub axes: Axes,
    /// All measures of the run. Wall-clock figures (search epoch times)
    /// are stored as 0: they differ from run to run, and a store must be
    /// the same whatever machine or shard ran it.
    pub report: RunReport,
}

/// The axis values of one cell; `None` where the suite does not set the
/// axis. Suite-wide settings that shape the workload are here too, so that
/// a record says all that made its numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axes {
    /// Target offered load (`load`), and how it was reached (`arrivals`
    /// or `runtimes`).
    pub load: Option<f64>,
    pub load_by: Option<String>,
    /// QOPS load factor, and how it adds load (`duplication` or
    /// `expansion`).
    pub load_factor: Option<f64>,
    pub factor_by: Option<String>,
    /// Measured window as written (`30d..60d`, `2002-12-01..2003-01-01`).
    pub window: Option<String>,
    /// Calendar month as the suite names it: 1-based number or `YYYY-MM`.
    pub month: Option<String>,
    /// Warm-up and cool-down around the window or month, seconds.
    pub warmup: Time,
    pub cooldown: Time,
    /// Node budget L of a search goal.
    pub budget: Option<u64>,
    /// Seed of the built-in model (`None` for traces).
    pub seed: Option<u64>,
    /// The scheduler was told exact run times.
    pub exact_estimates: bool,
    /// Only the first N jobs of the trace.
    pub first_jobs: Option<usize>,
    /// Machine size overriding the trace's header.
    pub procs: Option<u32>,
    /// How events became scheduling epochs.
    pub events: EventMode,
}

impl Axes {
    /// No axis set: a run made outside a suite, under `events`.
    pub fn none(events: EventMode) -> Axes {
        Axes {
            load: None,
            load_by: None,
            load_factor: None,
            factor_by: None,
            window: None,
            month: None,
            warmup: 0,
            cooldown: 0,
            budget: None,
            seed: None,
            exact_estimates: false,
            first_jobs: None,
            procs: None,
            events,
        }
    }
}

/// sha256 hex of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of a digest.
pub(crate) fn hex(digest: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(digest.len() * 2);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The cell key: sha256 over the goal's name (reports show it, so two
/// goal files of equal text are two cells), the goal's hash, the trace's
/// hash, the axes (as their JSON) and `measured_with`, what the suite
/// measures every cell with beyond the goal's own measures (a bench-wide
/// fairness decay or owner objective: they change the record, so they are
/// part of it). Each part is preceded by its length, so no two different
/// lists of parts hash alike.
pub fn cell_key(
    goal: &str,
    goal_hash: &str,
    trace_sha256: &str,
    axes: &Axes,
    measured_with: &str,
) -> String {
    let axes = serde_json::to_string(axes).unwrap_or_default();
    let mut h = Sha256::new();
    for part in [goal, goal_hash, trace_sha256, &axes, measured_with] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
}

impl Record {
    /// Whether two records of one cell agree: equal but for a suite count
    /// one of them lacks (written before records counted their suite's
    /// cells, by the same goalc version).
    pub fn agrees_with(&self, other: &Record) -> bool {
        if self.suite_cells.is_some() && other.suite_cells.is_some() {
            return self == other;
        }
        let count = self.suite_cells.or(other.suite_cells);
        Record {
            suite_cells: count,
            ..self.clone()
        } == Record {
            suite_cells: count,
            ..other.clone()
        }
    }

    /// The record as one line of JSON, newline included.
    pub fn to_line(&self) -> String {
        // A record holds only plain data (strings, numbers, maps with
        // string keys): serializing cannot fail.
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }

    /// The report as a store keeps it: wall-clock figures zeroed, so that
    /// equal inputs give equal bytes.
    pub fn deterministic(mut report: RunReport) -> RunReport {
        if let Some(s) = report.search.as_mut() {
            s.p50_epoch_us = 0;
            s.p99_epoch_us = 0;
        }
        report
    }
}

/// A record of a real run with every kind of value, for tests.
#[cfg(test)]
pub(crate) fn sample() -> Record {
    use crate::measures::Excess;
    use crate::report::{ExcessSummary, SearchSummary};
    {
        let w = crate::workload::model::generate(&crate::workload::model::ModelParams {
            jobs: 300,
            procs: 32,
            seed: 4,
            widest: None,
            users: None,
        })
        .unwrap();
        let goal = crate::run::Goal::baseline(crate::run::reference::FCFS_BACKFILL, 60);
        let mut report = crate::run::run_one(
            &goal,
            &w,
            None,
            Some(crate::policy::fairshare::Decay::CPLANT),
        )
        .unwrap();
        report.excess = Some(ExcessSummary {
            max: Excess {
                threshold: 3,
                total: 0.1 + 0.2,
                jobs: 2,
            },
            p98: Excess {
                threshold: 7,
                total: 1.0 / 3.0,
                jobs: 1,
            },
        });
        report.search = Some(SearchSummary {
            searches: 5,
            node_visits: 77,
            p50_epoch_us: 0,
            p99_epoch_us: 0,
        });
        report.events = EventMode::CompletionsFirst;
        let axes = Axes {
            load: Some(0.9),
            load_by: Some("arrivals".into()),
            load_factor: None,
            factor_by: None,
            window: None,
            month: Some("1996-10".into()),
            warmup: 604_800,
            cooldown: 0,
            budget: Some(400),
            seed: None,
            exact_estimates: true,
            first_jobs: None,
            procs: None,
            events: EventMode::CompletionsFirst,
        };
        Record {
            format: FORMAT,
            goalc: GOALC_VERSION.into(),
            suite: sha256_hex(b"suite"),
            suite_cells: Some(16),
            key: cell_key("fcfs [L=400]", "g", "t", &axes, ""),
            goal: "fcfs [L=400]".into(),
            goal_hash: sha256_hex(b"goal"),
            trace: w.name.clone(),
            trace_sha256: sha256_hex(b"trace"),
            axes,
            report,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::Measures;
    use crate::report::SearchSummary;

    #[test]
    fn a_record_round_trips_exactly_through_its_line() {
        let r = sample();
        let Measures { avg_slowdown, .. } = r.report.measures;
        // The sample holds floats with long expansions, where a lossy
        // float parser would be off by one unit in the last place.
        assert!(avg_slowdown.fract() != 0.0);
        assert!(r.report.fairness.is_some());
        let line = r.to_line();
        assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.to_line(), line);
        let excess = back.report.excess.unwrap();
        assert_eq!(excess.max.total.to_bits(), (0.1f64 + 0.2).to_bits());
        assert_eq!(excess.p98.total.to_bits(), (1.0f64 / 3.0).to_bits());
    }

    #[test]
    fn the_key_changes_with_every_input() {
        let r = sample();
        let key = |goal: &str, g: &str, t: &str, a: &Axes, m: &str| cell_key(goal, g, t, a, m);
        let base = key("fcfs [L=400]", "g", "t", &r.axes, "");
        assert_eq!(base, r.key);
        assert_ne!(key("fcfs", "g", "t", &r.axes, ""), base);
        assert_ne!(key("fcfs [L=400]", "h", "t", &r.axes, ""), base);
        assert_ne!(key("fcfs [L=400]", "g", "u", &r.axes, ""), base);
        assert_ne!(key("fcfs [L=400]", "g", "t", &r.axes, "fair"), base);
        // Parts do not run into each other.
        assert_ne!(
            key("ab", "c", "t", &r.axes, ""),
            key("a", "bc", "t", &r.axes, "")
        );
        let mut a = r.axes.clone();
        a.load = Some(0.8);
        assert_ne!(key("fcfs [L=400]", "g", "t", &a, ""), base);
        let mut a = r.axes.clone();
        a.events = EventMode::PerInstant;
        assert_ne!(key("fcfs [L=400]", "g", "t", &a, ""), base);
        let mut a = r.axes.clone();
        a.exact_estimates = false;
        assert_ne!(key("fcfs [L=400]", "g", "t", &a, ""), base);
    }

    #[test]
    fn wall_clock_figures_are_not_stored() {
        let mut r = sample().report;
        r.search = Some(SearchSummary {
            searches: 1,
            node_visits: 2,
            p50_epoch_us: 31,
            p99_epoch_us: 90,
        });
        let s = Record::deterministic(r).search.unwrap();
        assert_eq!(
            (s.searches, s.node_visits, s.p50_epoch_us, s.p99_epoch_us),
            (1, 2, 0, 0)
        );
    }
}
