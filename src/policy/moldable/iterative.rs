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
//! A job that may scale to more than [`FINEST_STEPS`] processors is
//! widened by a step of `widest / FINEST_STEPS` (rounded up) processors
//! at a time instead of one: on a machine of millions of processors one
//! at a time is millions of trial plans per job and decision.
//!
//! Giving job k one more processor changes only the placements from k on
//! (the ones before it are placed without seeing it). The profile as it
//! stands before each placement is kept, so a change is tried from a copy
//! of the one before k, and a refused change costs nothing to undo.

use super::flat_profile::FlatProfile;
use super::step_of;
use super::width::estimate_at;
#[cfg(doc)]
use super::FINEST_STEPS;
use crate::policy::backfill::LiveProfile;
use crate::sim::{Epoch, JobIdx, JobInfo, Policy, PolicyStats, Profile};
use crate::workload::speedup::Downey;
use crate::workload::Time;
use std::collections::BinaryHeap;

/// The width after one more widening of a job now `width` wide.
fn widened(width: u32, widest: u32) -> u32 {
    width.saturating_add(step_of(widest)).min(widest)
}

/// A waiting job as the planner sees it.
#[derive(Debug, Clone, Copy)]
pub struct Queued {
    pub job: JobIdx,
    pub info: JobInfo,
    /// `None` for a rigid job, planned on its own width.
    pub model: Option<Downey>,
}

/// One waiting job as planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub job: JobIdx,
    pub submit: Time,
    pub width: u32,
    pub estimate: Time,
    pub start: Time,
}

/// A job that may get one more processor: how much its estimate would
/// shrink, then the earlier queue position first among equals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    shrink: Time,
    /// Queue position, reversed so that the max-heap prefers the earlier.
    position: std::cmp::Reverse<usize>,
}

/// Fig. 6 on one queue: the plan of one scheduling decision. Kept between
/// decisions only for its buffers.
#[derive(Default)]
pub struct Planner {
    plan: Vec<Placed>,
    /// Placements as they were while a change is tried, to put back.
    saved: Vec<Placed>,
    /// `before[i]`: the profile before placing `plan[i]` (running jobs and
    /// the placements before it); `trial` the same for a change tried.
    before: Vec<FlatProfile>,
    trial: Vec<FlatProfile>,
    /// The profile a change is tried on.
    work: FlatProfile,
    /// Widest width per queue position (0: rigid).
    widest: Vec<u32>,
    /// Per queue position: may still be widened (a candidate, unmarked and
    /// below its widest), so the profile before it is kept.
    alive: Vec<bool>,
    candidates: BinaryHeap<Candidate>,
    /// Changes tried and kept over all decisions.
    pub tried: u64,
    pub kept: u64,
}

pub struct Iterative {
    live: LiveProfile,
    planner: Planner,
    queue: Vec<Queued>,
    /// Microseconds per epoch with jobs waiting.
    timings: Vec<u64>,
}

impl Iterative {
    pub fn new() -> Self {
        Iterative {
            live: LiveProfile::new(),
            planner: Planner::default(),
            queue: Vec::new(),
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
/// the ones before it, keeping in `before` the profile before each job that
/// may be widened later (`alive`).
///
/// `old`, when given, is the plan as it was before its first job changed,
/// on a profile equal to this one up to that job. A later job's placement
/// depends only on the profile before its end, so while all the changes
/// made so far lie after the end it had, it keeps its start unsearched.
fn place(
    profile: &mut FlatProfile,
    now: Time,
    plan: &mut [Placed],
    old: Option<&[Placed]>,
    before: &mut Vec<FlatProfile>,
    alive: &[bool],
) {
    while before.len() < plan.len() {
        before.push(FlatProfile::default());
    }
    // The profile is as it was before this time (none of it for a fresh plan).
    let mut same_until = if old.is_some() { Time::MAX } else { Time::MIN };
    let last = plan.len().saturating_sub(1);
    for (i, (p, copy)) in plan.iter_mut().zip(before.iter_mut()).enumerate() {
        if alive[i] {
            copy.copy_from(profile);
        }
        let was = old.map(|o| o[i]);
        let kept = was.filter(|w| i > 0 && w.start.saturating_add(w.estimate) <= same_until);
        // No one is placed after the last: its hold is not needed.
        p.start = match kept {
            Some(w) if i < last => {
                profile.allocate(w.start, p.estimate, p.width);
                w.start
            }
            Some(w) => w.start,
            None if i < last => profile.place(p.width, p.estimate, now),
            None => profile.earliest_start(p.width, p.estimate, now),
        };
        if let Some(w) = was {
            if i == 0 || w.start != p.start {
                same_until = same_until.min(w.start).min(p.start);
            }
        }
    }
}

/// The sum of the planned turnarounds (end - submit).
fn turnaround(plan: &[Placed]) -> i128 {
    plan.iter()
        .map(|p| i128::from(p.start) + i128::from(p.estimate) - i128::from(p.submit))
        .sum()
}

impl Planner {
    /// Plans `queue` (in FCFS order) on a machine of `procs` whose running
    /// jobs hold `running` from `now` on: every moldable job from one
    /// processor, widened one step (one processor up to [`FINEST_STEPS`]
    /// wide) at a time while the average
    /// turnaround of the plan improves.
    pub fn plan(
        &mut self,
        running: &Profile,
        now: Time,
        procs: u32,
        queue: &[Queued],
    ) -> &[Placed] {
        self.plan.clear();
        self.widest.clear();
        self.alive.clear();
        self.candidates.clear();
        for (position, q) in queue.iter().enumerate() {
            let widest = q.model.map_or(0, |m| m.widest().min(procs).max(1));
            let (width, estimate) = match &q.model {
                Some(m) => (1, estimate_at(&q.info, m, 1)),
                None => (q.info.procs, q.info.estimate),
            };
            self.plan.push(Placed {
                job: q.job,
                submit: q.info.submit,
                width,
                estimate,
                start: now,
            });
            if let Some(m) = &q.model {
                if widest > 1 {
                    self.candidates.push(Candidate {
                        shrink: estimate - estimate_at(&q.info, m, widened(1, widest)),
                        position: std::cmp::Reverse(position),
                    });
                }
            }
            self.widest.push(widest);
            self.alive.push(widest > 1);
        }
        let work = &mut self.work;
        work.load(running);
        place(
            work,
            now,
            &mut self.plan,
            None,
            &mut self.before,
            &self.alive,
        );
        let mut total = turnaround(&self.plan);

        while let Some(c) = self.candidates.pop() {
            if c.shrink <= 0 {
                break; // no one gains from a processor more
            }
            let k = c.position.0;
            let (info, model) = (
                &queue[k].info,
                queue[k].model.expect("candidates are moldable"),
            );
            self.tried += 1;
            // Widen k and place it and the ones after it again, from the
            // profile before k.
            self.saved.clear();
            self.saved.extend_from_slice(&self.plan[k..]);
            let width = widened(self.plan[k].width, self.widest[k]);
            self.plan[k].width = width;
            self.plan[k].estimate = estimate_at(info, &model, width);
            work.copy_from(&self.before[k]);
            place(
                work,
                now,
                &mut self.plan[k..],
                Some(&self.saved),
                &mut self.trial,
                &self.alive[k..],
            );
            let changed = turnaround(&self.plan);
            if changed < total {
                total = changed;
                self.kept += 1;
                let n = self.plan.len() - k;
                self.before[k..k + n].swap_with_slice(&mut self.trial[..n]);
                if width < self.widest[k] {
                    let next = widened(width, self.widest[k]);
                    let shrink = self.plan[k].estimate - estimate_at(info, &model, next);
                    self.candidates.push(Candidate {
                        shrink,
                        position: c.position,
                    });
                } else {
                    self.alive[k] = false;
                }
            } else {
                // Refused: the plan as it was; the job is marked (it is
                // not a candidate any more).
                self.plan[k..].copy_from_slice(&self.saved);
                self.alive[k] = false;
            }
        }
        &self.plan
    }
}

impl Policy for Iterative {
    fn name(&self) -> String {
        "moldable-iterative".into()
    }

    fn stats(&self) -> PolicyStats {
        PolicyStats {
            counters: vec![
                ("widenings_tried", self.planner.tried),
                ("widenings_kept", self.planner.kept),
            ],
            timings: vec![("epoch_us", self.timings.clone())],
        }
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let clock = std::time::Instant::now();
        let state = &epoch.state;
        let (now, procs) = (state.now, state.procs);
        self.live.sync(state);
        // On a full machine nothing starts, and the plan is made afresh at
        // the next epoch.
        if state.waiting.is_empty() || state.free == 0 {
            return;
        }
        self.queue.clear();
        self.queue.extend(state.waiting.iter().map(|&job| Queued {
            job,
            info: state.jobs[job as usize],
            model: state.speedup(job).copied(),
        }));
        let plan = self
            .planner
            .plan(self.live.profile(), now, procs, &self.queue);
        // The jobs due now start, taking their holds as running jobs.
        for (p, q) in plan.iter().zip(&self.queue) {
            if p.start != now {
                continue;
            }
            self.live.start(now, p.estimate, p.width);
            if q.model.is_some() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Fig. 6 as the paper states it: every trial places the whole queue
    /// afresh on the running jobs' profile, nothing kept or skipped.
    fn fig6(running: &Profile, now: Time, procs: u32, queue: &[Queued]) -> Vec<Placed> {
        let place_all = |plan: &mut [Placed]| {
            let mut profile = running.clone();
            for p in plan.iter_mut() {
                p.start = profile.earliest_start(p.width, p.estimate, now);
                profile.allocate(p.start, p.estimate, p.width);
            }
            turnaround(plan)
        };
        let widest: Vec<u32> = queue
            .iter()
            .map(|q| q.model.map_or(0, |m| m.widest().min(procs).max(1)))
            .collect();
        let mut plan: Vec<Placed> = queue
            .iter()
            .map(|q| {
                let (width, estimate) = match &q.model {
                    Some(m) => (1, estimate_at(&q.info, m, 1)),
                    None => (q.info.procs, q.info.estimate),
                };
                Placed {
                    job: q.job,
                    submit: q.info.submit,
                    width,
                    estimate,
                    start: now,
                }
            })
            .collect();
        let mut total = place_all(&mut plan);
        let mut marked: Vec<bool> = widest.iter().map(|&w| w <= 1).collect();
        loop {
            // The unmarked job that shrinks most, the earliest of equals.
            let best = (0..queue.len())
                .filter(|&k| !marked[k] && plan[k].width < widest[k])
                .map(|k| {
                    let m = queue[k].model.unwrap();
                    let next = widened(plan[k].width, widest[k]);
                    (plan[k].estimate - estimate_at(&queue[k].info, &m, next), k)
                })
                .max_by_key(|&(shrink, k)| (shrink, std::cmp::Reverse(k)));
            let Some((shrink, k)) = best else { break };
            if shrink <= 0 {
                break;
            }
            let m = queue[k].model.unwrap();
            let mut trial = plan.clone();
            trial[k].width = widened(plan[k].width, widest[k]);
            trial[k].estimate = estimate_at(&queue[k].info, &m, trial[k].width);
            let changed = place_all(&mut trial);
            if changed < total {
                total = changed;
                plan = trial;
            } else {
                marked[k] = true;
            }
        }
        plan
    }

    proptest! {
        /// The planner, with its copies and skipped searches, plans what
        /// Fig. 6 plans.
        #[test]
        fn plans_as_fig6(
            procs in 1..48u32,
            running in prop::collection::vec((1..3_000i64, 1..48u32), 0..8),
            queue in prop::collection::vec(
                (0..500i64, 1..2_000i64, 1..48u32, prop::option::of((1.0..64.0f64, 0.0..2.5f64))),
                1..10,
            ),
        ) {
            let now = 500;
            let mut profile = Profile::new(procs, now);
            for &(end, width) in &running {
                let width = width.min(procs);
                if profile.fits(width, end, now) {
                    profile.allocate(now, end, width);
                }
            }
            let queue: Vec<Queued> = queue
                .iter()
                .enumerate()
                .map(|(i, &(submit, estimate, width, model))| Queued {
                    job: i as JobIdx,
                    info: JobInfo {
                        submit,
                        estimate,
                        procs: width.min(procs),
                        user: -1,
                        group: -1,
                        user_group: 0,
                        deadline: None,
                    },
                    model: model.map(|(a, sigma)| Downey::new(a, sigma).unwrap()),
                })
                .collect();
            let mut planner = Planner::default();
            let plan = planner.plan(&profile, now, procs, &queue).to_vec();
            prop_assert_eq!(plan, fig6(&profile, now, procs, &queue));
        }
    }
}
