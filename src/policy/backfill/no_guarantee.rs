//! No-guarantee backfilling: walk the queue in order and start every job
//! that fits now. Nothing is reserved, so wide jobs can starve; FAIR pairs it
//! with a starvation queue.

use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};

pub struct NoGuarantee {
    rank: Ranker,
    queue: Vec<JobIdx>,
}

impl NoGuarantee {
    pub fn new(order: Order) -> Self {
        NoGuarantee {
            rank: Ranker::new(order),
            queue: Vec::new(),
        }
    }
}

impl Policy for NoGuarantee {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!("{}-noguarantee", self.rank.order())
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
            if epoch.state.jobs[job as usize].procs <= epoch.free() {
                epoch.start(job);
                if epoch.free() == 0 {
                    break;
                }
            }
        }
    }
}
