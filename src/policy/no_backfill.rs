//! Queue-order scheduling without backfilling: jobs start strictly in order;
//! the first job that does not fit blocks all behind it.

use super::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};

pub struct NoBackfill {
    rank: Ranker,
    queue: Vec<JobIdx>,
}

impl NoBackfill {
    pub fn new(order: Order) -> Self {
        NoBackfill {
            rank: Ranker::new(order),
            queue: Vec::new(),
        }
    }
}

impl Policy for NoBackfill {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!("{}-nobackfill", self.rank.order())
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        if epoch.state.waiting.is_empty() || epoch.free() == 0 {
            return;
        }
        // In arrival order the core's list is the queue: not copied at
        // every epoch, which cost more than the rest of an FCFS run.
        let waiting = epoch.state.waiting;
        if matches!(self.rank.order(), Order::Fcfs) {
            start_in_order(epoch, waiting);
        } else {
            self.rank.sorted_queue(&epoch.state, &mut self.queue);
            start_in_order(epoch, &self.queue);
        }
    }
}

/// Starts the jobs of `queue` in order up to the first that does not fit.
fn start_in_order(epoch: &mut Epoch<'_>, queue: &[JobIdx]) {
    for &job in queue {
        if epoch.state.jobs[job as usize].procs > epoch.free() {
            break;
        }
        epoch.start(job);
    }
}
