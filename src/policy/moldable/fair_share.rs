//! The MOLD paper's fair-share moldable scheduler (sections 4-5): schedule-
//! time aggressive backfilling in which the scheduler picks each job's
//! width.
//!
//! At every epoch each waiting moldable job gets a limit (its square-root
//! fair share of the machine among the jobs in the system, waiting and
//! running, times the overbooking factor, moved by the efficiency factor;
//! see [`super::limits`]). Then, in FCFS order, each job
//! takes the width up to its limit that gives it the earliest estimated
//! completion on the profile of running jobs and reservations: if that
//! start is now, it starts; the first job whose best start is later holds
//! the one reservation (N = 1, as in EASY), and no later job may delay it.
//! Rigid jobs in the workload run on their own width.

use super::limits::{limits, Claim};
use super::width::{best, cap, Choice, Scratch};
use crate::policy::backfill::LiveProfile;
use crate::sim::{Epoch, JobIdx, Policy};

pub struct FairShare {
    overbooking: f64,
    efficiency: f64,
    live: LiveProfile,
    claims: Vec<Claim>,
    /// Per waiting job, the index of its claim, `None` when rigid.
    claim_of: Vec<Option<usize>>,
    limits: Vec<u32>,
    widths: Scratch,
}

impl FairShare {
    pub fn new(overbooking: f64, efficiency: f64) -> Self {
        FairShare {
            overbooking,
            efficiency,
            live: LiveProfile::new(),
            claims: Vec::new(),
            claim_of: Vec::new(),
            limits: Vec::new(),
            widths: Scratch::default(),
        }
    }
}

impl Policy for FairShare {
    fn name(&self) -> String {
        format!(
            "moldable-fairshare(obf {}, ef {})",
            self.overbooking, self.efficiency
        )
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        let (now, procs, jobs) = (state.now, state.procs, state.jobs);
        let waiting: &[JobIdx] = state.waiting;
        self.live.sync(state);
        // On a full machine nothing starts, and the one reservation is
        // planned afresh at the next epoch: no limits, no widths.
        if waiting.is_empty() || state.free == 0 {
            return;
        }
        // Limits for the moldable jobs waiting now; every job in the system
        // has a share. A weight is processor-seconds asked for: width x
        // estimate (for a running job, at the width it got).
        let weight = |job: JobIdx| {
            let info = &jobs[job as usize];
            f64::from(info.procs) * info.estimate as f64
        };
        self.claims.clear();
        self.claim_of.clear();
        let mut others: f64 = state.running.iter().map(|r| weight(r.job).sqrt()).sum();
        for &job in waiting {
            let claim = state.speedup(job).map(|model| {
                self.claims.push(Claim {
                    weight: weight(job),
                    model: *model,
                });
                self.claims.len() - 1
            });
            if claim.is_none() {
                others += weight(job).sqrt();
            }
            self.claim_of.push(claim);
        }
        limits(
            &self.claims,
            others,
            procs,
            self.overbooking,
            self.efficiency,
            &mut self.limits,
        );

        let mut reserved = false;
        for (k, &job) in waiting.iter().enumerate() {
            let info = &jobs[job as usize];
            let profile = self.live.profile();
            let choice = match (epoch.state.speedup(job), self.claim_of[k]) {
                (Some(model), Some(c)) => {
                    let cap = cap(model, self.limits[c], procs);
                    best(profile, now, info, model, cap, &mut self.widths)
                }
                _ => Choice {
                    width: info.procs,
                    start: profile.earliest_start(info.procs, info.estimate, now),
                    estimate: info.estimate,
                },
            };
            if choice.start == now {
                self.live.start(now, choice.estimate, choice.width);
                if epoch.state.speedup(job).is_some() {
                    epoch.start_moldable(job, choice.width);
                } else {
                    epoch.start(job);
                }
            } else if !reserved {
                self.live
                    .reserve(choice.start, choice.estimate, choice.width);
                epoch.reserve(job, choice.start);
                reserved = true;
            }
        }
        self.live.end_epoch();
    }
}
