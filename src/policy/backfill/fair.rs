//! Backfilling in fairshare order without sorting the queue.
//!
//! Fairshare order changes from one epoch to the next (usages grow while
//! jobs run and decay with time), so a dispatcher that walks the sorted
//! queue sorted all of it at every epoch: on a long queue (an overloaded
//! machine, a burst of submissions) that cost the queue's length each
//! time, 5 to 14 s on 50,000 jobs where FCFS takes 0.01 to 0.2 s. While
//! the queue is long, [`FairBackfill`] keeps it twice instead: per user
//! ([`FairQueue`]), whose front is read in fairshare order, and in
//! arrival order ([`WaitingQueue`]), whose tree finds the jobs that may
//! start now looking only where one may be.
//!
//! A pass reads the front in order for the jobs that start or take a
//! reservation, as far as its walk goes ([`FairBackfill::walk_front`]).
//! Then the other jobs that may start now have their turns in fairshare
//! order ([`FairBackfill::backfill`]). Starts only take processors, so a
//! job that does not fit when backfilling begins never comes to fit
//! during it, and a walk of the sorted queue starts exactly the jobs that
//! fit then, in queue order, each tested again at its turn. Usually few
//! fit: they are found in the tree and sorted. When many do (a burst of
//! narrow jobs beside a few free processors), the front is read in order
//! until one starts, and those that still fit after it are counted again
//! (a start leaves fewer processors, and the few jobs that then fit may be
//! anywhere); past [`READ_AT_MOST`] jobs read, the rest are found and
//! sorted after all. A short queue is only a list in arrival order,
//! sorted at every epoch as the core's list was.
//!
//! The order is the sort's to the bit: every user with a job waiting has
//! its usage brought to the epoch, at the epochs where the sort brought
//! it (the decayed usage depends on the instants it was computed at), and
//! jobs compare by the sort's key.

use super::ranked::{find, Pass, Turn, FOUND_AT_MOST};
use super::waiting::{Anyone, Position};
use super::WaitingQueue;
use crate::policy::fair_queue::{FairQueue, Next};
use crate::policy::fairshare::UsageLedger;
use crate::policy::long_queue::LongQueue;
use crate::policy::Ranker;
use crate::sim::{JobIdx, JobInfo};
use crate::workload::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Jobs read from the front in order, when many may backfill, past which
/// the rest are found and sorted. Small for unit tests, which take every
/// path.
const READ_AT_MOST: usize = if cfg!(test) { 5 } else { 1024 };

/// What a job's turn in [`FairBackfill::walk_front`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Front {
    /// It started; the walk goes on.
    Started,
    /// It stays in the queue (it took a reservation); the walk goes on.
    Stays,
    /// It stays, and the walk ends with it.
    Last,
}

/// The waiting queue of a dispatcher in fairshare order, kept by the
/// dispatcher itself (the core's list of waiting jobs costs the queue's
/// length at every epoch where jobs start out of arrival order): a list
/// in arrival order while short, and while long in arrival order as a
/// tree ([`WaitingQueue`]) and per user ([`FairQueue`]).
pub(super) struct FairBackfill {
    /// The waiting jobs in arrival order, while the queue is short.
    list: Vec<JobIdx>,
    /// The waiting jobs in both orders, while the queue is long.
    long: Option<(WaitingQueue, FairQueue)>,
    /// Scratch space: the heap of users read in order, the jobs found,
    /// their sort keys, and the jobs started.
    heap: BinaryHeap<Reverse<Next>>,
    found: Vec<(JobIdx, Position)>,
    keys: Vec<(f64, Time, JobIdx, Position)>,
    started: Vec<JobIdx>,
}

impl FairBackfill {
    pub fn new() -> Self {
        FairBackfill {
            list: Vec::new(),
            long: None,
            heap: BinaryHeap::new(),
            found: Vec::new(),
            keys: Vec::new(),
            started: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.long
            .as_ref()
            .map_or(self.list.len(), |(queue, _)| queue.len())
    }

    /// At an epoch's start: the jobs `arrived` join the queue, which is
    /// kept in both orders once it is long, and as a list once it is
    /// short again.
    pub fn arrive(&mut self, arrived: &[JobIdx], ledger: &UsageLedger, jobs: &[JobInfo]) {
        match self.long.as_mut() {
            Some((queue, fair)) => {
                for &job in arrived {
                    let info = &jobs[job as usize];
                    queue.push(job, info.procs, info.estimate);
                    fair.push(job, ledger, jobs);
                }
            }
            None => self.list.extend_from_slice(arrived),
        }
        let len = self.len();
        match self.long.take() {
            Some((queue, _)) if !LongQueue::BACKFILL.keeps(true, len) => {
                let mut from = 0;
                while let Some((job, at)) = queue.first(from, Anyone) {
                    self.list.push(job);
                    from = at + 1;
                }
            }
            None if LongQueue::BACKFILL.keeps(false, len) => {
                let (mut queue, mut fair) = (WaitingQueue::new(), FairQueue::default());
                for &job in &self.list {
                    let info = &jobs[job as usize];
                    queue.push(job, info.procs, info.estimate);
                    fair.push(job, ledger, jobs);
                }
                queue.settle();
                self.list.clear();
                self.long = Some((queue, fair));
            }
            kept => self.long = kept,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the queue is kept per user: [`FairBackfill::walk_front`]
    /// and [`FairBackfill::backfill`] then read it; otherwise it is sorted
    /// ([`FairBackfill::sorted`]).
    pub fn is_long(&self) -> bool {
        self.long.is_some()
    }

    /// The waiting jobs sorted into `rank`'s order at `now`, in `buf`: for
    /// a short queue, walked as the core's list would be.
    pub fn sorted<'b>(
        &mut self,
        rank: &mut Ranker,
        (jobs, now): (&[JobInfo], Time),
        buf: &'b mut Vec<JobIdx>,
    ) -> &'b [JobIdx] {
        debug_assert!(self.long.is_none(), "a long queue is not sorted");
        rank.queue_of(&self.list, (jobs, now), buf)
    }

    /// The jobs `started` (or otherwise gone, all waiting before) leave
    /// the queue.
    pub fn remove(&mut self, started: &[JobIdx], ledger: &UsageLedger, jobs: &[JobInfo]) {
        if started.is_empty() {
            return;
        }
        let Some((queue, fair)) = self.long.as_mut() else {
            // Jobs often start from the front of the list (a quiet queue
            // is in fairshare order as it arrived); else one pass.
            let k = started.len();
            let front = self.list.get(..k);
            let at_front = |front: &[JobIdx]| {
                front == started || front.iter().all(|job| started.contains(job))
            };
            if front.is_some_and(at_front) {
                self.list.drain(..k);
            } else {
                self.list.retain(|job| !started.contains(job));
            }
            return;
        };
        for &job in started {
            queue.remove(job, queue.position(job));
            fair.remove(job, ledger, jobs);
        }
        queue.settle();
    }

    /// The queue per user; only while it is long.
    fn fair(&self) -> &FairQueue {
        &self
            .long
            .as_ref()
            .expect("the queue is read per user only while it is long")
            .1
    }

    /// Brings the usage of every user with a job waiting to `now`, as
    /// sorting the queue would: call it at every epoch the sort would have
    /// been made at, unless [`FairBackfill::walk_front`] is.
    pub fn bring_usages(&self, ledger: &mut UsageLedger, now: Time) {
        self.fair().bring_usages(ledger, now);
    }

    /// Gives the waiting jobs their turns in fairshare order at `now`
    /// until one is [`Front::Last`] or none is left, and takes those that
    /// started out of the queue. Brings the usage of every user with a job
    /// waiting to `now`, as sorting the queue would: call it at every epoch
    /// the sort would have been made at, before [`FairBackfill::backfill`].
    pub fn walk_front(
        &mut self,
        ledger: &mut UsageLedger,
        jobs: &[JobInfo],
        now: Time,
        mut turn: impl FnMut(JobIdx) -> Front,
    ) {
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        let fair = &self
            .long
            .as_ref()
            .expect("the queue is read per user only while it is long")
            .1;
        for job in fair.in_order(ledger, now, &mut self.heap) {
            match turn(job) {
                Front::Started => started.push(job),
                Front::Stays => {}
                Front::Last => break,
            }
        }
        self.remove(&started, ledger, jobs);
        self.started = started;
    }

    /// Gives every waiting job that may start now (by `pass`) its turn in
    /// fairshare order at `now`, and takes those that started out of the
    /// queue: what a walk of the sorted queue would start, once the jobs
    /// [`FairBackfill::walk_front`] read have had their turns (those still
    /// waiting cannot start now, and have theirs again in vain).
    ///
    /// When few may start, they are found and sorted. When many may, the
    /// front is read in order until one starts, and those that may start
    /// after it are counted again: a start leaves fewer processors, and
    /// the few jobs that then still fit may be anywhere in the queue.
    pub fn backfill(
        &mut self,
        pass: &mut impl Pass,
        ledger: &mut UsageLedger,
        jobs: &[JobInfo],
        now: Time,
    ) {
        let FairBackfill {
            long,
            heap,
            found,
            keys,
            started,
            ..
        } = self;
        let (queue, fair) = long
            .as_mut()
            .expect("the queue is read per user only while it is long");
        started.clear();
        if !find(queue, &mut pass.fits(), FOUND_AT_MOST, found) {
            // Jobs started while the fair queue is read leave it after.
            let mut order = fair.in_order(ledger, now, heap);
            let mut read = 0;
            loop {
                let mut turn = Turn::Passed;
                while turn == Turn::Passed && read < READ_AT_MOST {
                    let Some(job) = order.next() else { break };
                    read += 1;
                    let info = &jobs[job as usize];
                    let estimate = info.estimate.clamp(0, Time::from(u32::MAX)) as u32;
                    if pass.may_fit(info.procs, estimate) {
                        turn = pass.turn(job);
                    }
                    if turn == Turn::Started {
                        queue.remove(job, queue.position(job));
                        started.push(job);
                    }
                }
                match turn {
                    Turn::Started if find(queue, &mut pass.fits(), FOUND_AT_MOST, found) => {}
                    Turn::Started => continue,
                    Turn::Done => found.clear(),
                    // Every job read, or read too far: jobs before the last
                    // one read were passed, started or did not fit, and
                    // found again they cannot start.
                    Turn::Passed if read < READ_AT_MOST => found.clear(),
                    Turn::Passed => {
                        find(queue, &mut pass.fits(), usize::MAX, found);
                    }
                }
                break;
            }
        }
        sort_found(found, keys, ledger, jobs, now);
        for &(_, _, job, at) in keys.iter() {
            match pass.turn(job) {
                Turn::Started => {
                    queue.remove(job, at);
                    started.push(job);
                }
                Turn::Passed => {}
                Turn::Done => break,
            }
        }
        for &job in started.iter() {
            fair.remove(job, ledger, jobs);
        }
        queue.settle();
    }
}

/// Puts the jobs `found` in fairshare order at `now` into `keys`: the
/// sort's key, by the usages brought to `now`.
fn sort_found(
    found: &[(JobIdx, Position)],
    keys: &mut Vec<(f64, Time, JobIdx, Position)>,
    ledger: &mut UsageLedger,
    jobs: &[JobInfo],
    now: Time,
) {
    keys.clear();
    for &(job, at) in found {
        let usage = ledger.usage(job, now);
        keys.push((usage, jobs[job as usize].submit, job, at));
    }
    keys.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
}
