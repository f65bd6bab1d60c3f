//! GREEDY's owner measures: average weighted response time per user group
//! (eq. 7) and owner objectives, weighted sums of measures such as the
//! paper's `10 * AWRT_1 + 4 * AWRT_2` (eq. 8).
//!
//! AWRT_i weights each measured job of group `i` by its processor-seconds
//! (simulated run time times processors): sum(area * response) / sum(area),
//! response = end - submit. A group without measured jobs has AWRT_i 0.
//! The jobs' groups come from [`crate::workload::groups::assign`].

use super::{measure, MeasureOptions, Measures};
use crate::sim::Outcome;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One user group's share of a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupAwrt {
    /// 1-based.
    pub group: u8,
    /// Measured jobs of the group that ran.
    pub jobs: usize,
    /// Their processor-seconds.
    pub work: f64,
    /// GREEDY eq. 7.
    pub awrt: f64,
}

/// AWRT of each of `groups` user groups over the measured jobs that ran.
pub fn awrt_by_group(w: &Workload, outcome: &Outcome, groups: usize) -> Vec<GroupAwrt> {
    let mut num = vec![0.0; groups];
    let mut den = vec![0.0; groups];
    let mut jobs = vec![0; groups];
    for (job, run) in w.jobs.iter().zip(&outcome.runs) {
        let (true, Some(run), 1..) = (job.measured, run, job.user_group) else {
            continue;
        };
        let g = usize::from(job.user_group - 1).min(groups - 1);
        let area = (run.end - run.start) as f64 * f64::from(job.procs);
        num[g] += area * (run.end - job.submit) as f64;
        den[g] += area;
        jobs[g] += 1;
    }
    (0..groups)
        .map(|g| GroupAwrt {
            group: g as u8 + 1,
            jobs: jobs[g],
            work: den[g],
            awrt: if den[g] > 0.0 { num[g] / den[g] } else { 0.0 },
        })
        .collect()
}

/// AWRT of group `g` (1-based), 0 for a group that is not there.
fn group_awrt(groups: &[GroupAwrt], g: u8) -> f64 {
    groups
        .get(usize::from(g).wrapping_sub(1))
        .map_or(0.0, |x| x.awrt)
}

/// A measure an owner objective may weigh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "measure", content = "group")]
pub enum OwnerMeasure {
    /// AWRT over all jobs (eq. 6).
    Awrt,
    /// AWRT of one user group (eq. 7), 1-based.
    AwrtGroup(u8),
    /// Utilization (eq. 5), a fraction.
    Util,
    AvgWait,
    AvgSlowdown,
    AvgResponse,
}

impl OwnerMeasure {
    /// The names the language accepts, for help and did-you-mean.
    pub const NAMES: [&'static str; 5] =
        ["awrt", "util", "avg_wait", "avg_slowdown", "avg_response"];

    fn value(self, m: &Measures, groups: &[GroupAwrt]) -> f64 {
        match self {
            OwnerMeasure::Awrt => m.awrt,
            OwnerMeasure::AwrtGroup(g) => group_awrt(groups, g),
            OwnerMeasure::Util => m.utilization,
            OwnerMeasure::AvgWait => m.avg_wait,
            OwnerMeasure::AvgSlowdown => m.avg_slowdown,
            OwnerMeasure::AvgResponse => m.avg_response,
        }
    }
}

impl fmt::Display for OwnerMeasure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnerMeasure::Awrt => f.write_str("awrt"),
            OwnerMeasure::AwrtGroup(g) => write!(f, "awrt(group {g})"),
            OwnerMeasure::Util => f.write_str("util"),
            OwnerMeasure::AvgWait => f.write_str("avg_wait"),
            OwnerMeasure::AvgSlowdown => f.write_str("avg_slowdown"),
            OwnerMeasure::AvgResponse => f.write_str("avg_response"),
        }
    }
}

/// One weighted measure of an objective.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Term {
    pub weight: f64,
    pub measure: OwnerMeasure,
}

/// An owner objective: a weighted sum of measures, lower is better (weigh
/// utilization negatively to reward it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnerObjective {
    pub terms: Vec<Term>,
}

impl OwnerObjective {
    /// GREEDY eq. 8: 10 AWRT_1 + 4 AWRT_2.
    pub fn paper() -> Self {
        OwnerObjective {
            terms: vec![
                Term {
                    weight: 10.0,
                    measure: OwnerMeasure::AwrtGroup(1),
                },
                Term {
                    weight: 4.0,
                    measure: OwnerMeasure::AwrtGroup(2),
                },
            ],
        }
    }

    /// Its value given a run's measures and AWRT per group.
    pub fn value(&self, m: &Measures, groups: &[GroupAwrt]) -> f64 {
        self.terms
            .iter()
            .map(|t| t.weight * t.measure.value(m, groups))
            .sum()
    }

    /// True when only group AWRTs are weighed, so the other measures
    /// need not be taken (training evaluates thousands of schedules).
    fn groups_only(&self) -> bool {
        self.terms
            .iter()
            .all(|t| matches!(t.measure, OwnerMeasure::AwrtGroup(_)))
    }

    /// Its value on a schedule of `w`, whose jobs carry their user groups
    /// (`groups` of them).
    pub fn evaluate(&self, w: &Workload, outcome: &Outcome, groups: usize) -> f64 {
        let by_group = awrt_by_group(w, outcome, groups);
        if self.groups_only() {
            return self
                .terms
                .iter()
                .map(|t| match t.measure {
                    OwnerMeasure::AwrtGroup(g) => t.weight * group_awrt(&by_group, g),
                    _ => 0.0,
                })
                .sum();
        }
        let m = measure(w, outcome, MeasureOptions::default());
        self.value(&m, &by_group)
    }

    /// The highest group any term names, 0 for none.
    pub fn highest_group(&self) -> u8 {
        self.terms
            .iter()
            .filter_map(|t| match t.measure {
                OwnerMeasure::AwrtGroup(g) => Some(g),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Display for OwnerObjective {
    /// As the language writes it: `10*awrt(group 1) + 4*awrt(group 2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            let (sign, w) = if t.weight < 0.0 {
                ("-", -t.weight)
            } else {
                ("+", t.weight)
            };
            match (i, sign) {
                (0, "-") => f.write_str("-")?,
                (0, _) => {}
                _ => write!(f, " {sign} ")?,
            }
            if w == 1.0 {
                write!(f, "{}", t.measure)?;
            } else {
                write!(f, "{w}*{}", t.measure)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Run;
    use crate::workload::{Job, SwfHeader};

    fn job(number: i64, submit: i64, procs: u32, group: u8) -> Job {
        Job {
            user: number,
            user_group: group,
            ..Job::plain(number, submit, 100, procs)
        }
    }

    #[test]
    fn awrt_per_group_on_a_tiny_schedule() {
        // Group 1: job 1 (4 procs, runs 0-100, response 100) and job 2
        // (1 proc, submitted 0, runs 100-150, response 150): areas 400 and
        // 50, AWRT_1 = (400*100 + 50*150) / 450 = 47500/450.
        // Group 2: job 3 (2 procs, submitted 10, runs 20-60, response 50).
        // Group 3: none.
        let w = Workload::new(
            "t",
            4,
            SwfHeader::default(),
            vec![job(1, 0, 4, 1), job(2, 0, 1, 1), job(3, 10, 2, 2)],
        );
        let outcome = Outcome {
            policy: "hand".into(),
            runs: vec![
                Some(Run { start: 0, end: 100 }),
                Some(Run {
                    start: 100,
                    end: 150,
                }),
                Some(Run { start: 20, end: 60 }),
            ],
            releases: vec![],
            widths: vec![],
            epochs: 0,
            audit: None,
        };
        let g = awrt_by_group(&w, &outcome, 3);
        assert_eq!(g[0].jobs, 2);
        assert!((g[0].awrt - 47500.0 / 450.0).abs() < 1e-9, "{g:?}");
        assert_eq!((g[1].jobs, g[1].awrt), (1, 50.0));
        assert_eq!((g[2].jobs, g[2].awrt), (0, 0.0));
        let obj = OwnerObjective::paper();
        let want = 10.0 * 47500.0 / 450.0 + 4.0 * 50.0;
        assert!((obj.evaluate(&w, &outcome, 3) - want).abs() < 1e-9);
        assert_eq!(obj.to_string(), "10*awrt(group 1) + 4*awrt(group 2)");
        // A mixed objective takes the full measures: utilization over
        // 0..150 is (400 + 50 + 80) / (4 * 150).
        let mixed = OwnerObjective {
            terms: vec![
                Term {
                    weight: 1.0,
                    measure: OwnerMeasure::AwrtGroup(2),
                },
                Term {
                    weight: -1000.0,
                    measure: OwnerMeasure::Util,
                },
            ],
        };
        let want = 50.0 - 1000.0 * 530.0 / 600.0;
        assert!((mixed.evaluate(&w, &outcome, 3) - want).abs() < 1e-9);
        assert_eq!(mixed.to_string(), "awrt(group 2) - 1000*util");
    }
}
