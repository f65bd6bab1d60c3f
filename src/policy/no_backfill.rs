//! Queue-order scheduling without backfilling: jobs start strictly in order;
//! the first job that does not fit blocks all behind it.

use super::fair_queue::{FairQueue, Next};
use super::head::Head;
use super::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct NoBackfill {
    rank: Ranker,
    queue: Vec<JobIdx>,
    /// The queue's first job in LXF and SJF order, kept from epoch to
    /// epoch instead of sorting the queue at each.
    head: Option<Head>,
    /// The queue in fairshare order, kept likewise.
    fair: Option<FairQueue>,
    /// Scratch space for reading `fair` in order.
    fair_heap: BinaryHeap<Reverse<Next>>,
    started: Vec<JobIdx>,
}

impl NoBackfill {
    pub fn new(order: Order) -> Self {
        NoBackfill {
            rank: Ranker::new(order),
            queue: Vec::new(),
            head: Head::new(order),
            fair: matches!(order, Order::Fairshare(_)).then(FairQueue::default),
            fair_heap: BinaryHeap::new(),
            started: Vec::new(),
        }
    }
}

impl Policy for NoBackfill {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!("{}-nobackfill", self.rank.order())
    }

    fn admits_all(&self) -> bool {
        true
    }

    fn forgets_with_empty_queue(&self) -> bool {
        self.rank.forgets()
    }

    fn reads_waiting(&self) -> bool {
        // The head or the fair queue follows the arrivals and its own
        // starts.
        self.head.is_none() && self.fair.is_none()
    }

    fn reads_running(&self) -> bool {
        false
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        if let Some(head) = self.head.as_mut() {
            let (jobs, now) = (epoch.state.jobs, epoch.state.now);
            for &job in epoch.state.arrived {
                head.push(job, jobs, now);
            }
            if epoch.free() == 0 {
                return;
            }
            head.advance(jobs, now);
            while let Some(job) = head.first() {
                if jobs[job as usize].procs > epoch.free() {
                    break;
                }
                epoch.start(job);
                head.remove(job, jobs, now);
            }
            return;
        }
        if let Some(fair) = self.fair.as_mut() {
            let (jobs, now) = (epoch.state.jobs, epoch.state.now);
            let ledger = self.rank.fair_ledger(jobs);
            for &job in epoch.state.arrived {
                fair.push(job, ledger, jobs);
            }
            if fair.is_empty() || epoch.free() == 0 {
                return;
            }
            self.started.clear();
            for job in fair.in_order(ledger, now, &mut self.fair_heap) {
                if jobs[job as usize].procs > epoch.free() {
                    break;
                }
                epoch.start(job);
                self.started.push(job);
            }
            for &job in &self.started {
                fair.remove(job, ledger, jobs);
            }
            return;
        }
        if epoch.state.waiting.is_empty() || epoch.free() == 0 {
            return;
        }
        for &job in self.rank.queue(&epoch.state, &mut self.queue) {
            if epoch.state.jobs[job as usize].procs > epoch.free() {
                break;
            }
            epoch.start(job);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::fairshare::Decay;
    use crate::policy::testing::model_at;
    use crate::sim::{simulate, SimOptions};

    /// The head kept from epoch to epoch starts what sorting the queue at
    /// every epoch starts, on model workloads whose queues grow long
    /// (offered load above 1) and with estimates that are not run times.
    #[test]
    fn the_kept_head_schedules_as_the_sorted_queue() {
        for (seed, load) in [(1, 0.9), (2, 1.2), (3, 1.5)] {
            let w = model_at((2000, 64, None, Some(16)), seed, load);
            for order in [Order::Lxf, Order::Sjf, Order::Fairshare(Decay::CPLANT)] {
                let mut kept = NoBackfill::new(order);
                assert!(kept.head.is_some() || kept.fair.is_some());
                let mut sorting = NoBackfill {
                    head: None,
                    fair: None,
                    ..NoBackfill::new(order)
                };
                let a = simulate(&w, &mut kept, SimOptions::default()).unwrap();
                let b = simulate(&w, &mut sorting, SimOptions::default()).unwrap();
                assert_eq!(a.runs, b.runs, "{order} seed {seed} load {load}");
            }
        }
    }
}
