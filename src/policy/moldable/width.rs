//! The partition size that gives a moldable job its earliest estimated
//! completion on a profile, below a limit: how the MOLD paper's schemes
//! pick a width at schedule time ("the partition size for each job is
//! chosen to optimize its turnaround time, subject to its limit").

use crate::sim::{JobInfo, Profile};
use crate::workload::speedup::Downey;
use crate::workload::Time;

/// A width for a job and what it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Choice {
    pub width: u32,
    pub start: Time,
    /// The estimate at that width.
    pub estimate: Time,
}

impl Choice {
    pub fn end(&self) -> Time {
        self.start.saturating_add(self.estimate)
    }
}

/// The job's estimate on `width` processors (its recorded estimate, which
/// is for its recorded width, scaled by its model).
pub(crate) fn estimate_at(job: &JobInfo, model: &Downey, width: u32) -> Time {
    model.scale(job.estimate, job.procs, width).max(1)
}

/// The widest a job may get under `limit` on a machine of `procs`: its
/// average parallelism, the limit and the machine, and at least 1.
pub(crate) fn cap(model: &Downey, limit: u32, procs: u32) -> u32 {
    model.widest().min(limit).min(procs).max(1)
}

/// Of the widths 1 to `cap`, the one whose estimated completion on
/// `profile` from `now` is earliest; of equal completions the narrower
/// (fewer processors for the same turnaround).
pub(crate) fn best(
    profile: &Profile,
    now: Time,
    job: &JobInfo,
    model: &Downey,
    cap: u32,
) -> Choice {
    let mut best: Option<Choice> = None;
    for width in 1..=cap {
        let estimate = estimate_at(job, model, width);
        let start = profile.earliest_start(width, estimate, now);
        let c = Choice {
            width,
            start,
            estimate,
        };
        if best.is_none_or(|b| c.end() < b.end()) {
            best = Some(c);
        }
    }
    best.expect("cap is at least 1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(procs: u32, estimate: Time) -> JobInfo {
        JobInfo {
            submit: 0,
            estimate,
            procs,
            user: -1,
            group: -1,
            user_group: 0,
            deadline: None,
        }
    }

    #[test]
    fn the_earliest_end_wins_and_ties_go_narrow() {
        // 8 processors, 6 busy until 100. A linear job of 400 s on 2
        // (800 of work): on 2 now, ends 400; on 4 at 100, ends 300; on 8 at
        // 100, ends 200. Best: 8.
        let mut p = Profile::new(8, 0);
        p.allocate(0, 100, 6);
        let job = info(2, 400);
        let linear = Downey::new(8.0, 0.0).unwrap();
        let c = best(&p, 0, &job, &linear, 8);
        assert_eq!(
            c,
            Choice {
                width: 8,
                start: 100,
                estimate: 100
            }
        );
        // Capped at 2: now, on 2.
        assert_eq!(
            best(&p, 0, &job, &linear, 2),
            Choice {
                width: 2,
                start: 0,
                estimate: 400
            }
        );
        // A job that cannot scale past 2 (A = 2): 2 now; wider ends the
        // same or later and is never tried past its widest.
        let flat = Downey::new(2.0, 0.0).unwrap();
        assert_eq!(cap(&flat, 8, 8), 2);
        assert_eq!(
            best(&p, 0, &job, &flat, cap(&flat, 8, 8)),
            Choice {
                width: 2,
                start: 0,
                estimate: 400
            }
        );
        // Ties: A = 4, sigma 0: on 3 at 0 ends 267; on 4 at 100 ends 300:
        // 3; with 4 free now 4 would end 200, which wins.
        let four = Downey::new(4.0, 0.0).unwrap();
        let mut q = Profile::new(8, 0);
        q.allocate(0, 100, 5);
        assert_eq!(best(&q, 0, &job, &four, 4).width, 3);
        let mut r = Profile::new(8, 0);
        r.allocate(0, 100, 4);
        assert_eq!(best(&r, 0, &job, &four, 4).width, 4);
    }
}
