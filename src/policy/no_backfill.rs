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

    fn admits_all(&self) -> bool {
        true
    }

    fn forgets_with_empty_queue(&self) -> bool {
        self.rank.forgets()
    }

    fn reads_running(&self) -> bool {
        false
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
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
