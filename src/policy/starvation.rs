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

use super::backfill::{backfill_pass, LiveProfile};
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

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let (now, jobs, waiting) = (epoch.state.now, epoch.state.jobs, epoch.state.waiting);
        self.profile.sync(&epoch.state);
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
