//! No-guarantee backfilling: walk the queue in order and start every job
//! that fits now. Nothing is reserved, so wide jobs can starve; FAIR pairs it
//! with a starvation queue.
//!
//! Starts only take processors, so the jobs a walk starts are among those
//! that fit when it begins. In every order but fairshare's the policy keeps
//! its own queue in arrival order ([`WaitingQueue`]), whose search finds
//! those jobs by their widths: in FCFS order one search after another; in
//! LXF and SJF order all at once, put in queue order and tested again in
//! turn, or, while the queue is long, which it then also keeps in order
//! ([`Head`]), as [`start_in_queue_order`] does. A long queue of jobs too wide for what
//! is free then costs nothing per epoch, where the walk read it all. In
//! fairshare order the policy keeps its queue too ([`FairBackfill`]):
//! sorted while short, and also per user while long.

use super::fair::FairBackfill;
use super::ranked::{start_in_queue_order, start_sorted, Kept, Pass, Turn};
use super::waiting::{Anyone, JobTest, Position};
use super::WaitingQueue;
use crate::policy::head::Head;
use crate::policy::long_queue::LongQueue;
use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, JobInfo, Policy};
use crate::workload::Time;

pub struct NoGuarantee {
    rank: Ranker,
    queue: Vec<JobIdx>,
    /// The waiting jobs in arrival order, in every order but fairshare's.
    own_queue: Option<WaitingQueue>,
    /// The waiting jobs in LXF or SJF order, while the queue is long.
    head: Option<Head>,
    /// Scratch space: the jobs that fit at an epoch's start, with their
    /// positions.
    found: Vec<(JobIdx, Position)>,
    /// Scratch space for reading `head` in order.
    head_read: Vec<JobIdx>,
    /// The waiting jobs in fairshare order, which changes with usage.
    fair: Option<FairBackfill>,
}

impl NoGuarantee {
    pub fn new(order: Order) -> Self {
        let fairshare = matches!(order, Order::Fairshare(_));
        let own_queue = (!fairshare).then(WaitingQueue::new);
        NoGuarantee {
            rank: Ranker::new(order),
            queue: Vec::new(),
            own_queue,
            head: None,
            found: Vec::new(),
            head_read: Vec::new(),
            fair: fairshare.then(FairBackfill::new),
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
        self.own_queue.is_none() && self.fair.is_none()
    }

    fn reads_running(&self) -> bool {
        false
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let Some(queue) = self.own_queue.as_mut() else {
            if let Some(kept) = self.fair.as_mut() {
                fair_pass(epoch, &mut self.rank, kept, &mut self.queue);
                return;
            }
            // The walk of the sorted queue (for tests: every order keeps a
            // queue of its own).
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
            if let Some(head) = self.head.as_mut() {
                head.push(job, jobs, now);
            }
        }
        let order = self.rank.order();
        if order != Order::Fcfs {
            keep_head_while_long(&mut self.head, queue, order, jobs, now);
        }
        if queue.is_empty() || epoch.free() == 0 {
            return;
        }
        match self.head.as_mut() {
            None if order != Order::Fcfs => {
                let lxf = order == Order::Lxf;
                let pass = &mut FitsFree { epoch };
                start_sorted(pass, queue, &mut self.found, (jobs, now, lxf));
            }
            None => {
                let mut from = 0;
                while epoch.free() > 0 {
                    let Some((job, at)) = queue.first(from, AtMost(epoch.free())) else {
                        break;
                    };
                    from = at + 1;
                    epoch.start(job);
                    queue.remove(job, at);
                }
            }
            Some(head) => {
                head.advance(jobs, now);
                let mut kept = Kept {
                    queue,
                    head,
                    found: &mut self.found,
                    head_read: &mut self.head_read,
                };
                start_in_queue_order(&mut FitsFree { epoch }, &mut kept, jobs, now);
            }
        }
        queue.settle();
    }
}

/// Waiting jobs from which the queue is also kept in LXF or SJF order,
/// and below which it no longer is: only a queue where hundreds fit is
/// read from its head ([`start_in_queue_order`]), and keeping it costs
/// every arrival and start. Small for unit tests, which check every path.
/// No-guarantee backfilling in fairshare order on the queue `kept`: a
/// short queue is sorted (into `buf`) and walked; from a long one, the
/// jobs that fit are found or read in order ([`FairBackfill::backfill`]).
fn fair_pass(
    epoch: &mut Epoch<'_>,
    rank: &mut Ranker,
    kept: &mut FairBackfill,
    buf: &mut Vec<JobIdx>,
) {
    let (jobs, now) = (epoch.state.jobs, epoch.state.now);
    kept.arrive(epoch.state.arrived, rank.fair_ledger(jobs), jobs);
    if kept.is_empty() || epoch.free() == 0 {
        return;
    }
    if kept.is_long() {
        let ledger = rank.fair_ledger(jobs);
        kept.bring_usages(ledger, now);
        kept.backfill(&mut FitsFree { epoch }, ledger, jobs, now);
        return;
    }
    for &job in kept.sorted(rank, (jobs, now), buf) {
        if jobs[job as usize].procs <= epoch.free() {
            epoch.start(job);
            if epoch.free() == 0 {
                break;
            }
        }
    }
    kept.remove(epoch.started(), rank.fair_ledger(jobs), jobs);
}

/// Keeps `head` while the queue is long, made from the queue when it grows
/// long and dropped when it grows short.
fn keep_head_while_long(
    head: &mut Option<Head>,
    queue: &WaitingQueue,
    order: Order,
    jobs: &[JobInfo],
    now: Time,
) {
    match head {
        Some(_) if !LongQueue::BACKFILL.keeps(true, queue.len()) => *head = None,
        None if LongQueue::BACKFILL.keeps(false, queue.len()) => {
            let mut kept = Head::with_width_classes(order).expect("LXF or SJF");
            let mut from = 0;
            while let Some((job, at)) = queue.first(from, Anyone) {
                kept.push(job, jobs, now);
                from = at + 1;
            }
            *head = Some(kept);
        }
        _ => {}
    }
}

/// Jobs at most this wide.
struct AtMost(u32);

impl JobTest for AtMost {
    fn job(&mut self, p: u32, _: Time) -> bool {
        p <= self.0
    }
}

/// Starting jobs that fit in the free processors, one at a time.
struct FitsFree<'e, 'a> {
    epoch: &'e mut Epoch<'a>,
}

impl Pass for FitsFree<'_, '_> {
    type Fits<'p>
        = AtMost
    where
        Self: 'p;

    fn fits(&self) -> AtMost {
        AtMost(self.epoch.free())
    }

    fn turn(&mut self, job: JobIdx) -> Turn {
        let free = self.epoch.free();
        if free == 0 {
            Turn::Done
        } else if self.epoch.state.jobs[job as usize].procs <= free {
            self.epoch.start(job);
            Turn::Started
        } else {
            Turn::Passed
        }
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

    /// In fairshare order the kept queue (sorted while short, found and
    /// read in order while long) starts what walking the sorted queue
    /// starts, with users, in every event mode; unit tests take the long
    /// queue's every path.
    #[test]
    fn fair_queue_starts_what_the_walk_starts() {
        let fairshare = Order::Fairshare(Decay::CPLANT);
        for (seed, procs, load) in [(1, 64, 0.8), (2, 128, 1.3), (3, 512, 1.1), (4, 64, 2.5)] {
            let w = model_at((3000, procs, None, Some(16)), seed, load);
            for events in EVENT_MODES {
                let opts = unaudited(events);
                let mut kept = NoGuarantee::new(fairshare);
                assert!(kept.fair.is_some() && !kept.reads_waiting());
                let mut walking = NoGuarantee {
                    fair: None,
                    ..NoGuarantee::new(fairshare)
                };
                let a = simulate(&w, &mut kept, opts).unwrap();
                let b = simulate(&w, &mut walking, opts).unwrap();
                assert_eq!(a.runs, b.runs, "seed {seed} load {load} {events}");
            }
        }
    }
}
