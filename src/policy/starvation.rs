//! FAIR's CPlant scheduler (section II.A): no-guarantee backfilling in queue
//! (fairshare) order, plus a starvation queue.
//!
//! A job that has waited `after` seconds enters the starvation queue. That
//! queue is served first, in FCFS order; its head is the only job holding a
//! reservation (aggressive backfilling), so every starving job eventually
//! runs. All other jobs, starving ones behind the head and then the main
//! queue in its order, start whenever they fit now without delaying that
//! reservation.
//!
//! With `exclude_heavy` (FAIR's `.fair` variants, section V.B) a job does
//! not enter the starvation queue while its user is *heavy*. FAIR leaves the
//! definition to the fairshare standing; here a user is heavy when their
//! decayed usage exceeds the mean decayed usage of the users with jobs in
//! the system now (running or waiting), i.e. more than an equal share of
//! recent use. The exclusion is temporary: as usage decays the user becomes
//! light again and their long-waiting jobs enter.

use super::backfill::{backfill_pass, LiveProfile, StarvingQueues};
use super::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};
use crate::workload::Time;

pub struct StarvationQueue {
    rank: Ranker,
    after: Time,
    exclude_heavy: bool,
    profile: LiveProfile,
    starving: Vec<JobIdx>,
    rest: Vec<JobIdx>,
    /// Per account: the epoch stamp at which it was last counted active.
    seen: Vec<u64>,
    stamp: u64,
    /// In fairshare order with every user's jobs entering the starvation
    /// queue: both queues, kept by the policy (see [`StarvingQueues`]).
    kept: Option<StarvingQueues>,
}

impl StarvationQueue {
    /// `exclude_heavy` needs a fairshare `order` (heavy is a fairshare
    /// standing); with another order it has no effect.
    pub fn new(order: Order, after: Time, exclude_heavy: bool) -> Self {
        StarvationQueue {
            rank: Ranker::new(order),
            after,
            exclude_heavy,
            profile: LiveProfile::new(),
            starving: Vec::new(),
            rest: Vec::new(),
            seen: Vec::new(),
            stamp: 0,
            kept: (matches!(order, Order::Fairshare(_)) && !exclude_heavy)
                .then(StarvingQueues::new),
        }
    }

    /// Usage above which a user is heavy now: the mean usage of the users
    /// with running or waiting jobs. `None` without a usage ledger.
    fn heavy_threshold(&mut self, epoch: &Epoch<'_>) -> Option<f64> {
        let state = &epoch.state;
        let ledger = self.rank.ledger(state.jobs)?;
        if self.seen.len() != ledger.users() {
            self.seen = vec![0; ledger.users()];
        }
        self.stamp += 1;
        let (mut sum, mut n) = (0.0, 0usize);
        let jobs = state
            .running
            .iter()
            .map(|r| r.job)
            .chain(state.waiting.iter().copied());
        for job in jobs {
            let acc = ledger.account(job);
            if self.seen[acc] != self.stamp {
                self.seen[acc] = self.stamp;
                sum += ledger.usage_of_account(acc, state.now);
                n += 1;
            }
        }
        Some(if n == 0 { 0.0 } else { sum / n as f64 })
    }
}

impl Policy for StarvationQueue {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!(
            "{}-starvation:{}:{}",
            self.rank.order(),
            super::hours(self.after),
            if self.exclude_heavy { "fair" } else { "all" }
        )
    }

    fn reads_waiting(&self) -> bool {
        self.kept.is_none()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let (now, jobs, waiting) = (epoch.state.now, epoch.state.jobs, epoch.state.waiting);
        self.profile.sync(&epoch.state);
        if let Some(kept) = self.kept.as_mut() {
            let arrived = (epoch.state.arrived, self.after);
            let next_entry = kept.advance(arrived, &mut self.rank, jobs, now);
            if kept.is_empty() {
                return;
            }
            if let Some(t) = next_entry {
                epoch.wake_at(t);
            }
            if epoch.free() > 0 {
                kept.pass(epoch, &mut self.profile, &mut self.rank);
            }
            return;
        }
        if waiting.is_empty() {
            return;
        }
        // Jobs enter the starvation queue at submit + after: be there.
        let next_entry = waiting
            .iter()
            .map(|&j| jobs[j as usize].submit.saturating_add(self.after))
            .filter(|&t| t > now)
            .min();
        let free = epoch.state.free;
        if let Some(t) = next_entry {
            epoch.wake_at(t);
        }
        if free == 0 {
            return;
        }

        let after = self.after;
        let waited = |j: JobIdx| now - jobs[j as usize].submit >= after;
        let any_waited = waiting.iter().any(|&j| waited(j));
        let threshold = if self.exclude_heavy && any_waited {
            self.heavy_threshold(epoch)
        } else {
            None
        };
        self.starving.clear();
        self.rest.clear();
        for &j in waiting {
            let heavy = threshold.is_some_and(|limit| {
                self.rank
                    .ledger(jobs)
                    .is_some_and(|l| l.usage(j, now) > limit)
            });
            if waited(j) && !heavy {
                self.starving.push(j);
            } else {
                self.rest.push(j);
            }
        }
        // The starvation queue is FCFS (the waiting list is in arrival
        // order) and comes first; only its head may hold a reservation.
        self.rank.sort(now, jobs, &mut self.rest);
        let starving = self.starving.len();
        self.starving.extend_from_slice(&self.rest);
        backfill_pass(epoch, &mut self.profile, &self.starving, starving, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::fairshare::Decay;
    use crate::policy::testing::{assert_same_plans, model_at, EVENT_MODES};

    /// In fairshare order with every user's jobs entering the starvation
    /// queue, the queues the policy keeps give the schedule and the
    /// reservations of the core's list split and sorted at every epoch:
    /// with users, in every event mode, on long queues and short ones,
    /// with jobs entering the starvation queue at once, soon and late
    /// (unit tests keep the fairshare part per user from 8 jobs).
    #[test]
    fn kept_queues_give_the_sorted_walks_schedule() {
        let fairshare = Order::Fairshare(Decay::CPLANT);
        for (procs, load, after) in [
            (64, 1.3, 3600),
            (128, 0.9, 600),
            (64, 2.5, 4 * 3600),
            (256, 1.1, 0),
        ] {
            let w = model_at((3000, procs, None, Some(16)), 5, load);
            for events in EVENT_MODES {
                let mut kept = StarvationQueue::new(fairshare, after, false);
                assert!(kept.kept.is_some() && !kept.reads_waiting());
                let mut sorting = StarvationQueue {
                    kept: None,
                    ..StarvationQueue::new(fairshare, after, false)
                };
                let what = format!("{procs} procs, load {load}, after {after}, {events}");
                assert_same_plans(&w, (&mut kept, &mut sorting), events, &what);
            }
        }
        // Excluding heavy users reads the running jobs and sorts.
        assert!(StarvationQueue::new(fairshare, 3600, true).kept.is_none());
    }
}
