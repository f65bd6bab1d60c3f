//! No-guarantee backfilling: walk the queue in order and start every job
//! that fits now. Nothing is reserved, so wide jobs can starve; FAIR pairs it
//! with a starvation queue.

use crate::policy::Order;
use crate::sim::{Epoch, JobIdx, Policy};

pub struct NoGuarantee {
    order: Order,
    queue: Vec<JobIdx>,
}

impl NoGuarantee {
    pub fn new(order: Order) -> Self {
        NoGuarantee {
            order,
            queue: Vec::new(),
        }
    }
}

impl Policy for NoGuarantee {
    fn name(&self) -> String {
        format!("{}-noguarantee", self.order)
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        if epoch.state.waiting.is_empty() || epoch.free() == 0 {
            return;
        }
        self.order.sorted_queue(&epoch.state, &mut self.queue);
        for &job in &self.queue {
            if epoch.state.jobs[job as usize].procs <= epoch.free() {
                epoch.start(job);
                if epoch.free() == 0 {
                    break;
                }
            }
        }
    }
}
