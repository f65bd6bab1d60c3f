//! No-guarantee backfilling: walk the queue in order and start every job
//! that fits now. Nothing is reserved, so wide jobs can starve; FAIR pairs it
//! with a starvation queue.
//!
//! Starts only take processors, so the jobs a walk starts are among those
//! that fit when it begins. In every order but fairshare's the policy keeps
//! its own queue in arrival order ([`WaitingQueue`]), whose search finds
//! those jobs by their widths: in FCFS order one search after another, in
//! LXF and SJF order all at once, put in queue order and tested again in
//! turn. A long queue of jobs too wide for what is free then costs nothing
//! per epoch, where the walk read it all.

use super::waiting::Position;
use super::WaitingQueue;
use crate::policy::order::ranked_cmp;
use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};

pub struct NoGuarantee {
    rank: Ranker,
    queue: Vec<JobIdx>,
    /// The waiting jobs in arrival order, kept in every order but
    /// fairshare's (which changes with usage, so its queue is sorted).
    own_queue: Option<WaitingQueue>,
    /// The jobs that fit at an epoch's start, with their positions.
    found: Vec<(JobIdx, Position)>,
}

impl NoGuarantee {
    pub fn new(order: Order) -> Self {
        let own_queue = (!matches!(order, Order::Fairshare(_))).then(WaitingQueue::new);
        NoGuarantee {
            rank: Ranker::new(order),
            queue: Vec::new(),
            own_queue,
            found: Vec::new(),
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

    fn reads_waiting(&self) -> bool {
        self.own_queue.is_none()
    }

    fn reads_running(&self) -> bool {
        false
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let Some(queue) = self.own_queue.as_mut() else {
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
            return;
        };
        let (now, jobs) = (epoch.state.now, epoch.state.jobs);
        for &job in epoch.state.arrived {
            let info = &jobs[job as usize];
            queue.push(job, info.procs, info.estimate);
        }
        if queue.is_empty() || epoch.free() == 0 {
            return;
        }
        // A width of u32::MAX marks an empty class: it never fits.
        let narrow = |free: u32| move |p: u32, _| p <= free && p != u32::MAX;
        match self.rank.order() {
            Order::Fcfs => {
                let mut from = 0;
                while epoch.free() > 0 {
                    let Some((job, at)) = queue.first(from, narrow(epoch.free())) else {
                        break;
                    };
                    from = at + 1;
                    epoch.start(job);
                    queue.remove(job, at);
                }
            }
            order => {
                self.found.clear();
                let mut from = 0;
                while let Some((job, at)) = queue.first(from, narrow(epoch.free())) {
                    self.found.push((job, at));
                    from = at + 1;
                }
                let lxf = order == Order::Lxf;
                debug_assert!(lxf || order == Order::Sjf, "{order} keeps no queue");
                self.found
                    .sort_by(|&(a, _), &(b, _)| ranked_cmp(lxf, now, jobs, a, b));
                for &(job, at) in &self.found {
                    if jobs[job as usize].procs <= epoch.free() {
                        epoch.start(job);
                        queue.remove(job, at);
                        if epoch.free() == 0 {
                            break;
                        }
                    }
                }
            }
        }
        queue.settle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::fairshare::Decay;
    use crate::policy::testing::{model_at, unaudited, EVENT_MODES};
    use crate::sim::simulate;

    /// The own queue's searches start what walking the sorted queue starts,
    /// in every order that keeps one and every event mode, on queues that
    /// grow long (offered load above 1) and short ones.
    #[test]
    fn own_queue_starts_what_the_walk_starts() {
        for (seed, procs, load) in [(1, 64, 0.8), (2, 128, 1.3), (3, 512, 1.1)] {
            let w = model_at((3000, procs, None, None), seed, load);
            for events in EVENT_MODES {
                let opts = unaudited(events);
                for order in [Order::Fcfs, Order::Lxf, Order::Sjf] {
                    let mut own = NoGuarantee::new(order);
                    assert!(own.own_queue.is_some());
                    let mut walking = NoGuarantee {
                        own_queue: None,
                        ..NoGuarantee::new(order)
                    };
                    let a = simulate(&w, &mut own, opts).unwrap();
                    let b = simulate(&w, &mut walking, opts).unwrap();
                    assert_eq!(a.runs, b.runs, "{order} seed {seed} load {load} {events}");
                }
            }
        }
        assert!(NoGuarantee::new(Order::Fairshare(Decay::CPLANT))
            .own_queue
            .is_none());
    }
}
