//! List scheduling as FAIR describes it ("no holes"): each processor has a
//! time at which it becomes free; each job in queue order starts at the
//! earliest time `p` processors are free, and those processors' free time
//! moves to its planned end. Time before a processor's free time is never
//! used, so there are no holes to backfill; but a later job may still start
//! before an earlier one on processors the earlier one does not need, which
//! makes it less strict than no backfilling. Of the processors free by its
//! start, a job takes those freed latest (FAIR leaves the choice open; taking
//! the earliest-freed ones would make list scheduling identical to FCFS
//! without backfilling online).
//!
//! Online, the list schedule is recomputed at every epoch from the running
//! jobs' estimated ends, and the jobs it plans to start now are started.
//! The ends are kept from epoch to epoch, and a schedule reads them from the
//! front only as far as it needs: with thousands of jobs running, an epoch
//! costs what its own jobs need, not a pass over every running job.

use super::fair_queue::{FairOrder, FairQueue, Next};
use super::head::{Head, InOrder};
use super::long_queue::LongQueue;
use super::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy, State};
use crate::workload::Time;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::collections::BinaryHeap;

pub struct ListScheduler {
    rank: Ranker,
    queue: Vec<JobIdx>,
    /// The queue in LXF and SJF order, kept from epoch to epoch while it
    /// is long: a schedule reads only its first few jobs (until nothing is
    /// free now), where sorting the whole queue at every epoch cost its
    /// length (LXF on CTC-SP2: 1.5 s against 0.1 s in FCFS order). A short
    /// queue is sorted instead: keeping the tournament costs more than a
    /// sort of a few jobs.
    head: Option<Head>,
    /// When to keep `head`, `None` for an order it cannot keep.
    keep: Option<LongQueue>,
    /// Scratch space for reading `head` in order: the jobs read.
    head_read: Vec<JobIdx>,
    /// The queue in fairshare order, kept from epoch to epoch.
    fair: Option<FairQueue>,
    /// Scratch space for reading `fair` in order.
    fair_heap: BinaryHeap<Reverse<Next>>,
    /// Processors of the running jobs by estimated end, kept from epoch to
    /// epoch.
    ends: BTreeMap<Time, u32>,
    /// Free times read so far in an epoch, as (time, count) sorted by time.
    near: Vec<(Time, u32)>,
    /// Ends the epoch's schedule planned beyond what was read, sorted.
    later: Vec<(Time, u32)>,
}

/// The queue lengths at which the list scheduler keeps its queue in order:
/// a schedule reads only its first few jobs, so a short queue pays.
const KEEP: LongQueue = LongQueue {
    from: 64,
    below: 16,
};

impl ListScheduler {
    pub fn new(order: Order) -> Self {
        ListScheduler {
            rank: Ranker::new(order),
            queue: Vec::new(),
            head: None,
            keep: Head::new(order).map(|_| KEEP),
            head_read: Vec::new(),
            fair: matches!(order, Order::Fairshare(_)).then(FairQueue::default),
            fair_heap: BinaryHeap::new(),
            ends: BTreeMap::new(),
            near: Vec::new(),
            later: Vec::new(),
        }
    }

    /// Brings the running jobs' ends to this epoch: ends not after now have
    /// passed (their jobs are over), and a job that ended early gives back
    /// the processors it held until its estimated end.
    fn sync(&mut self, state: &State<'_>) {
        while let Some(entry) = self.ends.first_entry() {
            if *entry.key() > state.now {
                break;
            }
            entry.remove();
        }
        for f in state.finished.iter().filter(|f| f.early) {
            let info = &state.jobs[f.job as usize];
            let end = f.start.saturating_add(info.estimate);
            if let std::collections::btree_map::Entry::Occupied(mut e) = self.ends.entry(end) {
                *e.get_mut() -= info.procs;
                if *e.get() == 0 {
                    e.remove();
                }
            }
        }
        #[cfg(debug_assertions)]
        {
            let mut rebuilt = BTreeMap::new();
            for r in state.running {
                *rebuilt.entry(r.expected_end).or_insert(0) += state.jobs[r.job as usize].procs;
            }
            debug_assert_eq!(self.ends, rebuilt, "kept ends differ at {}", state.now);
        }
    }
}

/// The waiting jobs in queue order, kept or sorted for the epoch.
enum Queue<'a> {
    Kept(InOrder<'a>),
    Fair(FairOrder<'a>),
    Sorted(std::slice::Iter<'a, JobIdx>),
}

impl Iterator for Queue<'_> {
    type Item = JobIdx;

    fn next(&mut self) -> Option<JobIdx> {
        match self {
            Queue::Kept(jobs) => jobs.next(),
            Queue::Fair(jobs) => jobs.next(),
            Queue::Sorted(jobs) => jobs.next().copied(),
        }
    }
}

/// Processors' free times for one list schedule, read lazily: those read
/// into `near` (every free time up to `frontier`, with the schedule's
/// changes), the kept free times not read yet (`unread`, in time order,
/// all after the frontier), and the ends the schedule planned past the
/// frontier (`later`). A schedule of a few jobs on a machine where
/// thousands run reads only the first few free times.
pub(crate) struct FreeTimes<'a, I: Iterator<Item = (Time, u32)>> {
    near: &'a mut Vec<(Time, u32)>,
    unread: std::iter::Peekable<I>,
    later: &'a mut Vec<(Time, u32)>,
    frontier: Time,
}

impl<'a, I: Iterator<Item = (Time, u32)>> FreeTimes<'a, I> {
    /// `near` holds the free times up to `from`; `unread` the rest, in time
    /// order; `later` is scratch space.
    pub fn new(
        near: &'a mut Vec<(Time, u32)>,
        unread: I,
        later: &'a mut Vec<(Time, u32)>,
        from: Time,
    ) -> Self {
        later.clear();
        FreeTimes {
            near,
            unread: unread.peekable(),
            later,
            frontier: from,
        }
    }

    /// Reads the next free time into `near`; false when there is none.
    fn read_next(&mut self) -> bool {
        let kept = self.unread.peek().map(|e| e.0);
        let planned = self.later.first().map(|e| e.0);
        let t = match (kept, planned) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => return false,
        };
        let mut count = 0;
        if kept == Some(t) {
            count += self.unread.next().map_or(0, |e| e.1);
        }
        if planned == Some(t) {
            count += self.later.remove(0).1;
        }
        self.near.push((t, count));
        self.frontier = t;
        true
    }

    /// [`take_earliest`] over every free time, reading only as many as it
    /// needs.
    pub fn take_earliest(&mut self, p: u32) -> Time {
        let mut read: u64 = self.near.iter().map(|e| u64::from(e.1)).sum();
        while read < u64::from(p) && self.read_next() {
            read += self.near.last().map_or(0, |e| u64::from(e.1));
        }
        take_earliest(self.near, p)
    }

    /// `p` processors become free at `end`.
    pub fn free_at(&mut self, end: Time, p: u32) {
        let list = if end <= self.frontier {
            &mut *self.near
        } else {
            &mut *self.later
        };
        let pos = list.partition_point(|e| e.0 < end);
        match list.get_mut(pos) {
            Some(e) if e.0 == end => e.1 += p,
            _ => list.insert(pos, (end, p)),
        }
    }

    /// True when processors are free at `now` (no free time is earlier).
    pub fn any_free_at(&self, now: Time) -> bool {
        self.near.first().is_some_and(|e| e.0 <= now)
    }
}

impl Policy for ListScheduler {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!("{}-list", self.rank.order())
    }

    fn reads_running(&self) -> bool {
        // The ends follow its own starts and the finished jobs.
        false
    }

    fn reads_waiting(&self) -> bool {
        // A fair queue follows the arrivals and its own starts.
        self.fair.is_none()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        let now = state.now;
        self.sync(state);
        if let Some(fair) = self.fair.as_mut() {
            let ledger = self.rank.fair_ledger(state.jobs);
            for &job in state.arrived {
                fair.push(job, ledger, state.jobs);
            }
        }
        if let Some(keep) = self.keep {
            let waiting = state.waiting.len();
            match self.head.as_mut() {
                Some(_) if !keep.keeps(true, waiting) => self.head = None,
                Some(head) => {
                    for &job in state.arrived {
                        head.push(job, state.jobs, now);
                    }
                }
                None if keep.keeps(false, waiting) => {
                    let head = self
                        .head
                        .insert(Head::new(self.rank.order()).expect("kept"));
                    for &job in state.waiting {
                        head.push(job, state.jobs, now);
                    }
                }
                None => {}
            }
        }
        if state.free == 0 {
            return;
        }
        let queue = match (self.fair.as_ref(), self.head.as_mut()) {
            (Some(fair), _) if fair.is_empty() => return,
            (Some(fair), _) => {
                let ledger = self.rank.fair_ledger(state.jobs);
                Queue::Fair(fair.in_order(ledger, now, &mut self.fair_heap))
            }
            (None, Some(head)) => {
                head.advance(state.jobs, now);
                Queue::Kept(head.in_order(state.jobs, now, &mut self.head_read))
            }
            (None, None) if state.waiting.is_empty() => return,
            (None, None) => Queue::Sorted(self.rank.queue(state, &mut self.queue).iter()),
        };
        self.near.clear();
        self.near.push((now, state.free));
        let kept = self.ends.range(now + 1..).map(|(&t, &p)| (t, p));
        let mut free = FreeTimes::new(&mut self.near, kept, &mut self.later, now);
        let mut to_start = Vec::new();
        for job in queue {
            let info = &state.jobs[job as usize];
            let start = free.take_earliest(info.procs);
            free.free_at(start.saturating_add(info.estimate), info.procs);
            if start == now {
                to_start.push(job);
            }
            // Once nothing is free now, no later job can start now.
            if !free.any_free_at(now) {
                break;
            }
        }
        for job in to_start {
            let info = epoch.state.jobs[job as usize];
            *self
                .ends
                .entry(now.saturating_add(info.estimate))
                .or_insert(0) += info.procs;
            if let Some(head) = self.head.as_mut() {
                head.remove(job, epoch.state.jobs, now);
            }
            if let Some(fair) = self.fair.as_mut() {
                let ledger = self.rank.fair_ledger(epoch.state.jobs);
                fair.remove(job, ledger, epoch.state.jobs);
            }
            epoch.start(job);
        }
    }
}

/// Finds the earliest time `p` processors are free, takes the `p` of them
/// that became free latest by then (so the idle gap before the job is
/// smallest and earlier-free processors stay for later jobs), removes them
/// from `free_at` and returns the start time.
pub(crate) fn take_earliest(free_at: &mut Vec<(Time, u32)>, p: u32) -> Time {
    let mut seen = 0;
    let mut last = 0;
    for (i, e) in free_at.iter().enumerate() {
        seen += e.1;
        last = i;
        if seen >= p {
            break;
        }
    }
    debug_assert!(seen >= p, "job wider than the machine");
    let start = free_at[last].0;
    let mut need = p;
    let mut i = last + 1;
    while need > 0 && i > 0 {
        i -= 1;
        let take = need.min(free_at[i].1);
        free_at[i].1 -= take;
        need -= take;
    }
    free_at.retain(|e| e.1 > 0);
    start
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::fairshare::Decay;
    use crate::policy::testing::{model_at, unaudited, EVENT_MODES};
    use crate::sim::simulate;

    /// The queue kept from epoch to epoch and read in order plans what
    /// sorting it at every epoch plans, on model workloads whose queues
    /// grow long (offered load above 1), in every event mode.
    #[test]
    fn the_kept_queue_schedules_as_the_sorted_queue() {
        for (seed, load) in [(1, 0.9), (2, 1.2), (3, 1.5)] {
            let w = model_at((2000, 64, None, Some(16)), seed, load);
            for events in EVENT_MODES {
                let opts = unaudited(events);
                for order in [Order::Lxf, Order::Sjf] {
                    let sorting = || ListScheduler {
                        keep: None,
                        ..ListScheduler::new(order)
                    };
                    let b = simulate(&w, &mut sorting(), opts).unwrap();
                    // Kept at every length, and kept and dropped as the
                    // queue grows and shrinks.
                    for keep in [
                        LongQueue { from: 1, below: 0 },
                        LongQueue { from: 12, below: 4 },
                    ] {
                        let mut kept = ListScheduler {
                            keep: Some(keep),
                            ..sorting()
                        };
                        let a = simulate(&w, &mut kept, opts).unwrap();
                        assert_eq!(
                            a.runs, b.runs,
                            "{order} seed {seed} load {load} {events} {keep:?}"
                        );
                    }
                }
                let fairshare = Order::Fairshare(Decay::CPLANT);
                let mut kept = ListScheduler::new(fairshare);
                assert!(kept.fair.is_some());
                let mut sorting = ListScheduler {
                    fair: None,
                    ..ListScheduler::new(fairshare)
                };
                let a = simulate(&w, &mut kept, opts).unwrap();
                let b = simulate(&w, &mut sorting, opts).unwrap();
                assert_eq!(a.runs, b.runs, "fairshare seed {seed} load {load} {events}");
            }
        }
    }

    #[test]
    fn take_earliest_uses_latest_free_processors_by_the_start() {
        let mut f = vec![(0, 2), (10, 3), (20, 5)];
        // 4 processors are free at 10: the 3 freed at 10 and one freed at 0.
        assert_eq!(take_earliest(&mut f, 4), 10);
        assert_eq!(f, vec![(0, 1), (20, 5)]);
        assert_eq!(take_earliest(&mut f, 1), 0);
        assert_eq!(f, vec![(20, 5)]);
        assert_eq!(take_earliest(&mut f, 5), 20);
        assert!(f.is_empty());
    }
}
