//! The measures of a moldable run (the MOLD paper, sections 3.1 and 5-6):
//! average turnaround overall and by the job's size in processor-seconds
//! (the categories of Figs. 3, 5, 8 and 10), the widths the scheduler chose
//! and the efficiency jobs ran at, and the effective load beside the
//! offered one.
//!
//! They read the workload as submitted (moldable, each job still on its
//! recorded width) with the outcome's widths, so a job's category is the
//! size it had in the trace, whatever width it got.

use crate::sim::Outcome;
use crate::workload::transform::effective_load;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// Job sizes in processor-seconds (recorded width x run time), upper
/// bounds: the MOLD paper's categories, from "200-3,200" to "more than
/// 2,000,000".
const CATEGORIES: [(f64, &str); 5] = [
    (200.0, "<200"),
    (3_200.0, "200-3.2K"),
    (100_000.0, "3.2K-100K"),
    (2_000_000.0, "100K-2M"),
    (f64::INFINITY, ">2M"),
];

/// The measures of a moldable run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoldableMeasures {
    /// Offered load of the workload as submitted (recorded widths).
    pub offered_load: f64,
    /// Work at perfect efficiency per processor-second (section 3.1).
    pub effective_load: f64,
    /// Measured jobs that ran.
    pub jobs: usize,
    /// Mean of end - submit.
    pub avg_turnaround: f64,
    /// Mean width jobs ran on, and mean efficiency there (speedup / width;
    /// 1 for rigid jobs).
    pub avg_width: f64,
    pub avg_efficiency: f64,
    pub categories: Vec<Category>,
}

/// The jobs of one size category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Category {
    pub label: String,
    pub jobs: usize,
    pub avg_turnaround: f64,
    pub avg_width: f64,
}

/// The moldable measures of `outcome` on `w`, the workload as submitted
/// (not [`crate::sim::realized`]).
pub fn moldable_measures(w: &Workload, outcome: &Outcome) -> MoldableMeasures {
    let mut width = vec![None; w.jobs.len()];
    for &(job, n) in &outcome.widths {
        width[job as usize] = Some(n);
    }
    // (jobs, turnaround sum, width sum) per category.
    let mut sums = [(0usize, 0f64, 0f64); CATEGORIES.len()];
    let (mut total, mut widths, mut efficiency) = (0f64, 0f64, 0f64);
    let mut jobs = 0usize;
    for (k, (job, run)) in w.jobs.iter().zip(&outcome.runs).enumerate() {
        let Some(run) = run else { continue };
        if !job.measured {
            continue;
        }
        let n = width[k].unwrap_or(job.procs);
        let turnaround = (run.end - job.submit) as f64;
        let size = f64::from(job.procs) * job.sim_runtime() as f64;
        let c = CATEGORIES
            .iter()
            .position(|(bound, _)| size < *bound)
            .unwrap_or(CATEGORIES.len() - 1);
        sums[c].0 += 1;
        sums[c].1 += turnaround;
        sums[c].2 += f64::from(n);
        jobs += 1;
        total += turnaround;
        widths += f64::from(n);
        efficiency += job.speedup.map_or(1.0, |m| m.efficiency(n));
    }
    let mean = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 };
    MoldableMeasures {
        offered_load: w.offered_load(),
        effective_load: effective_load(w),
        jobs,
        avg_turnaround: mean(total, jobs),
        avg_width: mean(widths, jobs),
        avg_efficiency: mean(efficiency, jobs),
        categories: CATEGORIES
            .iter()
            .zip(sums)
            .map(|((_, label), (n, t, wd))| Category {
                label: label.to_string(),
                jobs: n,
                avg_turnaround: mean(t, n),
                avg_width: mean(wd, n),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Run;
    use crate::workload::speedup::Downey;
    use crate::workload::{Job, SwfHeader};

    #[test]
    fn categories_by_recorded_size_and_widths_as_run() {
        // 10 processors. Job 1: 100 s on 1 (100 processor-seconds, <200),
        // ran on 4 from 0 to 25 (linear). Job 2: 1000 s on 4 (4,000:
        // 3.2K-100K), rigid, ran 10 to 1010.
        let mut a = Job::plain(1, 0, 100, 1);
        a.speedup = Some(Downey::new(10.0, 0.0).unwrap());
        let b = Job::plain(2, 10, 1000, 4);
        let w = Workload::new("m", 10, SwfHeader::default(), vec![a, b]);
        let o = Outcome {
            policy: "hand".into(),
            runs: vec![
                Some(Run { start: 0, end: 25 }),
                Some(Run {
                    start: 10,
                    end: 1010,
                }),
            ],
            releases: vec![],
            widths: vec![(0, 4)],
            epochs: 0,
            audit: None,
        };
        let m = moldable_measures(&w, &o);
        assert_eq!(m.jobs, 2);
        assert_eq!(m.avg_turnaround, (25.0 + 1000.0) / 2.0);
        assert_eq!((m.avg_width, m.avg_efficiency), (4.0, 1.0));
        let by: Vec<_> = m
            .categories
            .iter()
            .map(|c| (c.label.as_str(), c.jobs, c.avg_turnaround, c.avg_width))
            .collect();
        assert_eq!(
            by,
            vec![
                ("<200", 1, 25.0, 4.0),
                ("200-3.2K", 0, 0.0, 0.0),
                ("3.2K-100K", 1, 1000.0, 4.0),
                ("100K-2M", 0, 0.0, 0.0),
                (">2M", 0, 0.0, 0.0)
            ]
        );
        // Offered: (100 + 4000) / (10 x 10); effective the same (linear).
        assert!((m.offered_load - 41.0).abs() < 1e-9 && (m.effective_load - 41.0).abs() < 1e-9);
    }
}
