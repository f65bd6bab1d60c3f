//! EASY backfilling with reservation depth N.
//!
//! At each epoch the profile is rebuilt from the running jobs' estimated
//! ends. Walking the queue in order, each of the first N jobs that cannot
//! start now gets a reservation at its earliest start in the profile; every
//! other job starts now only if it fits in the profile without touching
//! those reservations. With N = 1 this is classic EASY: the head job's
//! reservation is the "shadow time" and backfilled jobs either end before it
//! or use only the processors it leaves spare.
//!
//! Reservations are planned afresh at every epoch, as Maui does with
//! RESERVATIONDEPTH. The first one only ever moves earlier; with N > 1 a
//! later one can move later when an earlier reservation moves up into its
//! slot, so only the first carries a firm guarantee.

use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy, Profile};

pub struct Easy {
    rank: Ranker,
    depth: u32,
    queue: Vec<JobIdx>,
    profile: Profile,
}

impl Easy {
    /// FAIR's conservative backfilling with dynamic reservations: every
    /// waiting job gets a reservation, rebuilt in queue order at every
    /// epoch, so none is a guarantee.
    pub fn dynamic(order: Order) -> Self {
        Easy::new(order, u32::MAX)
    }

    /// `depth` >= 1 reservations.
    pub fn new(order: Order, depth: u32) -> Self {
        Easy {
            rank: Ranker::new(order),
            depth: depth.max(1),
            queue: Vec::new(),
            profile: Profile::new(1, 0),
        }
    }
}

impl Policy for Easy {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        if self.depth == u32::MAX {
            format!("{}-dynamic", self.rank.order())
        } else if self.depth == 1 {
            format!("{}-easy", self.rank.order())
        } else {
            format!("{}-easy:{}", self.rank.order(), self.depth)
        }
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        // Nothing can start on a full machine, and with nothing finishing
        // now the reservations cannot have moved either.
        if state.waiting.is_empty() || state.free == 0 {
            return;
        }
        let now = state.now;
        if self.profile.procs() != state.procs {
            self.profile = Profile::new(state.procs, now);
        }
        state.running_profile(&mut self.profile);
        self.rank.sorted_queue(state, &mut self.queue);
        let mut reserved = 0;
        for &job in &self.queue {
            let info = epoch.state.jobs[job as usize];
            let (p, d) = (info.procs, info.estimate);
            if reserved < self.depth {
                let at = self.profile.earliest_start(p, d, now);
                self.profile.allocate(at, d, p);
                if at == now {
                    epoch.start(job);
                } else {
                    epoch.reserve(job, at);
                    reserved += 1;
                }
            } else if p <= epoch.free() && self.profile.fits(p, d, now) {
                self.profile.allocate(now, d, p);
                epoch.start(job);
            }
            // Once nothing is free, no later job can start now, and with
            // unlimited depth the later reservations are rebuilt next time.
            if (reserved >= self.depth || self.depth == u32::MAX) && epoch.free() == 0 {
                break;
            }
        }
    }
}
