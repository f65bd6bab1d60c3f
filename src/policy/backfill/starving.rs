//! FAIR's starvation queue in fairshare order, every user's jobs entering
//! it (`fairshare-starvation:T:all`), without sorting the queue.
//!
//! The policy walks the jobs that have waited `T` in arrival order, the
//! first of them that cannot start taking the one reservation, and then
//! the others in fairshare order, each starting if it fits now. Built on
//! the core's list of waiting jobs, every epoch split it in two and sorted
//! the second part: on a long queue (an overloaded machine, a burst) that
//! cost the queue's length each time, 5 to 33 s on 50,000 jobs where FCFS
//! takes 0.01 to 0.2 s. [`StarvingQueues`] keeps both parts instead: the
//! jobs that have waited as an arrival-order queue ([`WaitingQueue`]),
//! searched for those that fit as FCFS EASY does; the others in fairshare
//! order ([`FairBackfill`]); and the latter in arrival order too, which is
//! also submit order (a job arrives at its submit time, a released chunk
//! when it is released), so that they enter the starvation queue from its
//! front as their time comes.

use super::easy::{own_queue_walk, ProfileBackfill};
use super::fair::FairBackfill;
use super::{LiveProfile, WaitingQueue};
use crate::policy::Ranker;
use crate::sim::{Epoch, JobIdx, JobInfo};
use crate::workload::Time;
use std::collections::VecDeque;

pub(crate) struct StarvingQueues {
    /// Jobs that have waited `after`, in arrival order.
    starving: WaitingQueue,
    /// Jobs that have not, in fairshare order.
    rest: FairBackfill,
    /// The jobs of `rest`, and those of them started since, in arrival
    /// order.
    pending: VecDeque<JobIdx>,
    /// Per job index: whether it is in `rest`.
    in_rest: Vec<bool>,
    /// Scratch space: `rest` sorted, while short; the jobs entering the
    /// starvation queue.
    sorted: Vec<JobIdx>,
    entered: Vec<JobIdx>,
}

impl StarvingQueues {
    pub fn new() -> Self {
        StarvingQueues {
            starving: WaitingQueue::new(),
            rest: FairBackfill::new(),
            pending: VecDeque::new(),
            in_rest: Vec::new(),
            sorted: Vec::new(),
            entered: Vec::new(),
        }
    }

    /// At an epoch's start: the jobs `arrived` join, and those that have
    /// waited `after` by `now` enter the starvation queue. Returns when the
    /// next one does (`None` when none waits outside it).
    pub fn advance(
        &mut self,
        (arrived, after): (&[JobIdx], Time),
        rank: &mut Ranker,
        jobs: &[JobInfo],
        now: Time,
    ) -> Option<Time> {
        if self.in_rest.len() != jobs.len() {
            self.in_rest = vec![false; jobs.len()];
        }
        let ledger = rank.fair_ledger(jobs);
        self.rest.arrive(arrived, ledger, jobs);
        for &job in arrived {
            self.in_rest[job as usize] = true;
            self.pending.push_back(job);
        }
        let mut next = None;
        self.entered.clear();
        while let Some(&job) = self.pending.front() {
            if !self.in_rest[job as usize] {
                self.pending.pop_front();
                continue;
            }
            let info = &jobs[job as usize];
            if now - info.submit < after {
                next = Some(info.submit.saturating_add(after));
                break;
            }
            self.pending.pop_front();
            self.in_rest[job as usize] = false;
            self.entered.push(job);
            self.starving.push(job, info.procs, info.estimate);
        }
        // The oldest jobs leave the front of the list at once.
        self.rest.remove(&self.entered, ledger, jobs);
        next
    }

    pub fn is_empty(&self) -> bool {
        self.starving.is_empty() && self.rest.is_empty()
    }

    /// One pass, on `live` synced to this epoch, with processors free: the
    /// starts and the reservation of the walk of the starving jobs in
    /// arrival order followed by the others sorted (see
    /// [`super::backfill_pass`]).
    pub fn pass(&mut self, epoch: &mut Epoch<'_>, live: &mut LiveProfile, rank: &mut Ranker) {
        let (jobs, now) = (epoch.state.jobs, epoch.state.now);
        // The sort brought the usages of the jobs not starving up to now,
        // before the walk: so are they, sorted or kept per user.
        let rest_sorted = if self.rest.is_empty() {
            false
        } else if self.rest.is_long() {
            self.rest.bring_usages(rank.fair_ledger(jobs), now);
            false
        } else {
            self.rest.sorted(rank, (jobs, now), &mut self.sorted);
            true
        };
        // The starving jobs as FCFS EASY's own queue: they start while they
        // can, the first that cannot reserves, and the later ones that fit
        // start.
        own_queue_walk(epoch, live, &mut self.starving, 1);
        let before = epoch.started().len();
        if epoch.free() > 0 && !self.rest.is_empty() {
            if rest_sorted {
                for &job in &self.sorted {
                    let (p, d) = (jobs[job as usize].procs, jobs[job as usize].estimate);
                    if p <= epoch.free() && live.profile().fits(p, d, now) {
                        live.start(now, d, p);
                        epoch.start(job);
                        if epoch.free() == 0 {
                            break;
                        }
                    }
                }
                self.rest
                    .remove(&epoch.started()[before..], rank.fair_ledger(jobs), jobs);
            } else {
                let mut pass = ProfileBackfill {
                    epoch,
                    live,
                    asked: Vec::new(),
                };
                self.rest
                    .backfill(&mut pass, rank.fair_ledger(jobs), jobs, now);
            }
            for &job in &epoch.started()[before..] {
                self.in_rest[job as usize] = false;
            }
        }
        live.end_epoch();
        self.starving.settle();
    }
}
