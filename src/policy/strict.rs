//! Queue-order scheduling without backfilling: jobs start strictly in order;
//! the first job that does not fit blocks all behind it.

use super::Order;
use crate::sim::{Epoch, JobIdx, Policy};

pub struct NoBackfill {
    order: Order,
    queue: Vec<JobIdx>,
}

impl NoBackfill {
    pub fn new(order: Order) -> Self {
        NoBackfill {
            order,
            queue: Vec::new(),
        }
    }
}

impl Policy for NoBackfill {
    fn name(&self) -> String {
        format!("{}-nobackfill", self.order)
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        if epoch.state.waiting.is_empty() || epoch.free() == 0 {
            return;
        }
        self.order.sorted_queue(&epoch.state, &mut self.queue);
        for &job in &self.queue {
            if epoch.state.jobs[job as usize].procs > epoch.free() {
                break;
            }
            epoch.start(job);
        }
    }
}
