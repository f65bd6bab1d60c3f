//! EASY backfilling with reservation depth N.
//!
//! Each epoch plans on the running jobs' profile, kept from epoch to epoch
//! (see [`LiveProfile`]). Walking the queue in order, each of the first N
//! jobs that cannot start now gets a reservation at its earliest start in
//! the profile; every other job starts now only if it fits in the profile
//! without touching those reservations. With N = 1 this is classic EASY: the head job's
//! reservation is the "shadow time" and backfilled jobs either end before it
//! or use only the processors it leaves spare.
//!
//! Reservations are planned afresh at every epoch, as Maui does with
//! RESERVATIONDEPTH. The first one only ever moves earlier; with N > 1 a
//! later one can move later when an earlier reservation moves up into its
//! slot, so only the first carries a firm guarantee.

use super::LiveProfile;
use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};

pub struct Easy {
    rank: Ranker,
    depth: u32,
    queue: Vec<JobIdx>,
    profile: LiveProfile,
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
            profile: LiveProfile::new(),
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
        self.profile.sync(state);
        // Nothing can start on a full machine, and with nothing finishing
        // now the reservations cannot have moved either.
        if state.waiting.is_empty() || state.free == 0 {
            return;
        }
        self.rank.sorted_queue(state, &mut self.queue);
        let all = self.queue.len();
        backfill_pass(epoch, &mut self.profile, &self.queue, all, self.depth);
    }
}

/// One EASY pass at this epoch over `queue`, on `profile` synced to this
/// epoch: each of the first `reservable` jobs that cannot start now
/// takes a reservation at its earliest start, until `depth` are held
/// (`u32::MAX`: unlimited); every other job starts now only if it fits
/// without touching them.
pub(crate) fn backfill_pass(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    queue: &[JobIdx],
    reservable: usize,
    depth: u32,
) {
    let now = epoch.state.now;
    let mut reserved = 0;
    for (i, &job) in queue.iter().enumerate() {
        let info = epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let may_reserve = i < reservable && reserved < depth;
        if may_reserve {
            let at = live.profile().earliest_start(p, d, now);
            if at == now {
                live.start(now, d, p);
                epoch.start(job);
            } else {
                live.reserve(at, d, p);
                epoch.reserve(job, at);
                reserved += 1;
            }
        } else if p <= epoch.free() && live.profile().fits(p, d, now) {
            live.start(now, d, p);
            epoch.start(job);
        }
        // Once nothing is free, no later job can start now; reservations
        // still to be made matter only for the audit, and with unlimited
        // depth they are rebuilt next time anyway.
        let reservations_done = reserved >= depth || depth == u32::MAX || i + 1 >= reservable;
        if reservations_done && epoch.free() == 0 {
            break;
        }
    }
    live.end_epoch();
}
