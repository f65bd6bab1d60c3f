//! The MOLD paper's iterative moldable scheduler (section 6, Fig. 6): no
//! parameters to tune.
//!
//! At every epoch every waiting moldable job starts at one processor and a
//! conservative schedule of the whole queue is built (in FCFS order, each
//! job at its earliest start after those before it). Then, repeatedly, the
//! unmarked job whose estimate would shrink the most from one more
//! processor gets it; if the schedule's average turnaround does not
//! improve, the processor is taken back and the job is marked. When no
//! unmarked job is left, the jobs planned for now start on their widths.
//!
//! Giving job k one more processor changes only the placements from k on
//! (the ones before it are placed without seeing it). The profile as it
//! stands before each placement is kept, so a change is tried from a copy
//! of the one before k, and a refused change costs nothing to undo.

use super::width::estimate_at;
use crate::policy::backfill::LiveProfile;
use crate::sim::{Epoch, JobIdx, Policy, PolicyStats, Profile};
use crate::workload::speedup::Downey;
use crate::workload::Time;
use std::collections::BinaryHeap;

/// One waiting job as currently planned.
#[derive(Debug, Clone, Copy)]
struct Placed {
    job: JobIdx,
    submit: Time,
    width: u32,
    estimate: Time,
    start: Time,
}

/// A job that may get one more processor: how much its estimate would
/// shrink, then the earlier queue position first among equals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    shrink: Time,
    /// Queue position, reversed so that the max-heap prefers the earlier.
    position: std::cmp::Reverse<usize>,
}

pub struct Iterative {
    live: LiveProfile,
    plan: Vec<Placed>,
    /// Placements as they were while a change is tried, to put back.
    saved: Vec<Placed>,
    /// `before[i]`: the profile before placing `plan[i]` (running jobs and
    /// the placements before it); `trial` the same for a change tried.
    before: Vec<Profile>,
    trial: Vec<Profile>,
    /// The profile a change is tried on.
    work: Profile,
    /// Speedup model and widest width per queue position (`None`: rigid).
    models: Vec<Option<(Downey, u32)>>,
    candidates: BinaryHeap<Candidate>,
    /// Changes tried and kept over the run.
    tried: u64,
    kept: u64,
    /// Microseconds per epoch with jobs waiting.
    timings: Vec<u64>,
}

impl Iterative {
    pub fn new() -> Self {
        Iterative {
            live: LiveProfile::new(),
            plan: Vec::new(),
            saved: Vec::new(),
            before: Vec::new(),
            trial: Vec::new(),
            work: Profile::new(1, 0),
            models: Vec::new(),
            candidates: BinaryHeap::new(),
            tried: 0,
            kept: 0,
            timings: Vec::new(),
        }
    }
}

impl Default for Iterative {
    fn default() -> Self {
        Self::new()
    }
}

/// Places `plan` in order on `profile`, each at its earliest start after
/// the ones before it, keeping in `before` the profile before each.
fn place(profile: &mut Profile, now: Time, plan: &mut [Placed], before: &mut Vec<Profile>) {
    while before.len() < plan.len() {
        before.push(Profile::new(1, 0));
    }
    let last = plan.len().saturating_sub(1);
    for (i, (p, copy)) in plan.iter_mut().zip(before.iter_mut()).enumerate() {
        copy.copy_from(profile);
        p.start = profile.earliest_start(p.width, p.estimate, now);
        // No one is placed after the last: its hold is not needed.
        if i < last {
            profile.allocate(p.start, p.estimate, p.width);
        }
    }
}

/// The sum of the planned turnarounds (end - submit).
fn turnaround(plan: &[Placed]) -> i128 {
    plan.iter()
        .map(|p| i128::from(p.start) + i128::from(p.estimate) - i128::from(p.submit))
        .sum()
}

impl Policy for Iterative {
    fn name(&self) -> String {
        "moldable-iterative".into()
    }

    fn stats(&self) -> PolicyStats {
        PolicyStats {
            counters: vec![
                ("widenings_tried", self.tried),
                ("widenings_kept", self.kept),
            ],
            timings: vec![("epoch_us", self.timings.clone())],
        }
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let clock = std::time::Instant::now();
        let state = &epoch.state;
        let (now, procs, jobs) = (state.now, state.procs, state.jobs);
        self.live.sync(state);
        if state.waiting.is_empty() {
            return;
        }
        // Every moldable job on one processor; rigid ones on their own.
        self.plan.clear();
        self.models.clear();
        self.candidates.clear();
        for (position, &job) in state.waiting.iter().enumerate() {
            let info = &jobs[job as usize];
            let model = state
                .speedup(job)
                .map(|m| (*m, m.widest().min(procs).max(1)));
            let (width, estimate) = match &model {
                Some((m, _)) => (1, estimate_at(info, m, 1)),
                None => (info.procs, info.estimate),
            };
            self.plan.push(Placed {
                job,
                submit: info.submit,
                width,
                estimate,
                start: now,
            });
            if let Some((m, widest)) = model {
                if widest > 1 {
                    let shrink = estimate - estimate_at(info, &m, 2);
                    self.candidates.push(Candidate {
                        shrink,
                        position: std::cmp::Reverse(position),
                    });
                }
            }
            self.models.push(model);
        }
        self.work.copy_from(self.live.profile());
        place(&mut self.work, now, &mut self.plan, &mut self.before);
        let mut total = turnaround(&self.plan);

        while let Some(c) = self.candidates.pop() {
            if c.shrink <= 0 {
                break; // no one gains from a processor more
            }
            let k = c.position.0;
            let (model, widest) = self.models[k].expect("candidates are moldable");
            self.tried += 1;
            // Widen k and place it and the ones after it again, from the
            // profile before k.
            self.saved.clear();
            self.saved.extend_from_slice(&self.plan[k..]);
            let info = &jobs[self.plan[k].job as usize];
            let width = self.plan[k].width + 1;
            self.plan[k].width = width;
            self.plan[k].estimate = estimate_at(info, &model, width);
            self.work.copy_from(&self.before[k]);
            place(&mut self.work, now, &mut self.plan[k..], &mut self.trial);
            let changed = turnaround(&self.plan);
            if changed < total {
                total = changed;
                self.kept += 1;
                let n = self.plan.len() - k;
                self.before[k..k + n].swap_with_slice(&mut self.trial[..n]);
                if width < widest {
                    let shrink = self.plan[k].estimate - estimate_at(info, &model, width + 1);
                    self.candidates.push(Candidate {
                        shrink,
                        position: c.position,
                    });
                }
            } else {
                // Refused: the plan as it was; the job is marked (it is
                // not a candidate any more).
                self.plan[k..].copy_from_slice(&self.saved);
            }
        }

        // The jobs due now take their holds as running jobs.
        for (k, p) in self.plan.iter().enumerate() {
            if p.start != now {
                continue;
            }
            self.live.start(now, p.estimate, p.width);
            if self.models[k].is_some() {
                epoch.start_moldable(p.job, p.width);
            } else {
                epoch.start(p.job);
            }
        }
        self.live.end_epoch();
        self.timings
            .push(clock.elapsed().as_micros().min(u128::from(u64::MAX)) as u64);
    }
}
