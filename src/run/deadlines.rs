//! Deadlines for a workload, synthesised as the QOPS paper does (section
//! 4.1): schedule the workload with EASY backfilling, then give each job a
//! deadline relative to its EASY response time. A workload transform that
//! needs a reference run, so it lives in the run layer, not among policies.

use crate::sim::{EventMode, Outcome, SimError};
use crate::workload::{Time, Workload};
use rand::{Rng, SeedableRng};

/// How deadlines are made.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct DeadlineSpec {
    /// Stringency S in [0, 1): a deadline job must finish within
    /// max(run time, (1 - S) * its EASY response time) of its submit.
    pub stringency: f64,
    /// Share F in (0, 1] of the jobs that carry such a deadline.
    pub share: f64,
    /// Relaxation R >= 1: every other job gets the artificial deadline
    /// submit + max(24h, R * run time), so that nothing starves.
    pub relaxation: f64,
    /// Seed of the choice of deadline jobs.
    pub seed: u64,
}

impl Default for DeadlineSpec {
    fn default() -> Self {
        DeadlineSpec {
            stringency: 0.2,
            share: 1.0,
            relaxation: 5.0,
            seed: 1,
        }
    }
}

impl DeadlineSpec {
    /// How deadlines are made, in words, for a goal's description.
    pub fn describe(&self) -> String {
        format!(
            "{}% of jobs must finish within max(run time, {} x their EASY response time); the others within max(24h, {} x run time)",
            self.share * 100.0,
            1.0 - self.stringency,
            self.relaxation
        )
    }
}

/// A day: the floor of the artificial deadlines.
const DAY: Time = 86_400;

/// Gives every job of `w` a deadline. Run times are the simulated ones (a
/// job overrunning its estimate is killed at it), so a deadline is never
/// shorter than the job itself; with exact estimates every deadline job
/// could in principle be guaranteed. The EASY schedule has one epoch per
/// instant.
pub fn synthesize(w: &Workload, spec: &DeadlineSpec) -> Result<Workload, SimError> {
    let easy = super::reference::fcfs_backfill(w, EventMode::PerInstant)?;
    Ok(synthesize_from(w, &easy, spec))
}

/// [`synthesize`] from an EASY schedule of `w` already made (bench makes
/// one per workload and shares it between goals).
pub fn synthesize_from(w: &Workload, easy: &Outcome, spec: &DeadlineSpec) -> Workload {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed);
    let mut out = w.clone();
    for (job, run) in out.jobs.iter_mut().zip(&easy.runs) {
        let runtime = job.sim_runtime();
        // One draw per job, whatever the share, so shares nest: the deadline
        // jobs at 20% are among those at 80%.
        let draw: f64 = rng.gen();
        let response = run.map_or(runtime, |r| r.end - job.submit);
        if draw < spec.share {
            let span = ((1.0 - spec.stringency) * response as f64).ceil() as Time;
            job.deadline = Some(job.submit + runtime.max(span));
            job.deadline_job = true;
        } else {
            let span = (spec.relaxation * runtime as f64).ceil() as Time;
            job.deadline = Some(job.submit + DAY.max(span));
            job.deadline_job = false;
        }
    }
    // The name stays: a goal's deadlines are part of the goal, and its row
    // belongs in the same table as the baselines on this workload.
    out
}
