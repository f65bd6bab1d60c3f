//! The first waiting job in LXF or SJF order, kept between epochs by a
//! kinetic tournament, for a dispatcher that only reads the front of the
//! queue: without backfilling, or the list scheduler, which reads jobs in
//! order until none is free now ([`Head::in_order`]).
//!
//! Without backfilling, jobs start strictly in queue order until one does
//! not fit, so an epoch needs the queue's first job, then the next, and so
//! on only while they start. Sorting the whole queue at every epoch for
//! that made LXF and SJF without backfilling cost the queue's length per
//! epoch, and their queues are the longest of all (CTC-SP2: 1.4 s under
//! LXF against 0.03 s under FCFS).
//!
//! A tournament over the waiting jobs (a complete binary tree whose leaves
//! are slots holding the jobs, each inner node holding the first of its two
//! children's firsts) keeps the head at the root. SJF's order never changes
//! while two jobs wait. LXF's does, at most once per pair: the expansion
//! factor `(t - submit + estimate) / estimate` grows at `1 / estimate`, so
//! two jobs' factors cross once. Each node also keeps the earliest second at
//! which the order of its two children's firsts changes (computed exactly in
//! integers, ties included), or anything below it does: to move to a later
//! second, only nodes whose second has come are played again. An arrival or
//! a start plays the path of one leaf again. The order is exactly
//! [`Order::sort`]'s. Each node holding the first below it, the tree is a
//! heap in queue order, so the queue is read in order from it without a
//! sort: the first `k` jobs cost about `k` times the tree's depth.

use super::order::ranked_cmp;
use super::Order;
use crate::sim::{JobIdx, JobInfo};
use crate::workload::Time;
use std::cmp::Ordering;

/// No job: an empty slot or subtree.
const NONE: u32 = u32::MAX;
/// An order that never changes.
const NEVER: Time = Time::MAX;

/// The head of the waiting queue in LXF or SJF order.
#[derive(Debug)]
pub(crate) struct Head {
    lxf: bool,
    /// Leaves: slots per job in arrival order; node `i` has children `2i`
    /// and `2i + 1`, the root is node 1, slot `s` is node `size + s`.
    size: usize,
    /// Per node, the first job below it, `NONE` for none.
    first: Vec<u32>,
    /// Per node, the earliest second at which its first may change.
    expires: Vec<Time>,
    /// The next slot to hand out.
    next: usize,
    /// Per job index, its slot while it waits (`NONE` otherwise).
    slot: Vec<u32>,
}

impl Head {
    /// A head for `order`, `None` for an order it does not keep (FCFS
    /// needs none: the queue is in arrival order; fairshare's changes with
    /// usage).
    pub fn new(order: Order) -> Option<Head> {
        let lxf = match order {
            Order::Lxf => true,
            Order::Sjf => false,
            Order::Fcfs | Order::Fairshare(_) => return None,
        };
        Some(Head {
            lxf,
            size: 0,
            first: Vec::new(),
            expires: Vec::new(),
            next: 0,
            slot: Vec::new(),
        })
    }

    /// The queue order of jobs `a` and `b` at `now`: `Less` when `a`
    /// comes first.
    pub fn cmp(&self, a: JobIdx, b: JobIdx, jobs: &[JobInfo], now: Time) -> Ordering {
        ranked_cmp(self.lxf, now, jobs, a, b)
    }

    /// Whether job `a` comes before job `b` at `now`.
    fn ahead(&self, a: u32, b: u32, jobs: &[JobInfo], now: Time) -> bool {
        self.cmp(a, b, jobs, now) == Ordering::Less
    }

    /// The first second after `now` at which `loser` comes before `winner`
    /// (which comes first at `now`), `NEVER` when it never does.
    fn overtakes(&self, winner: u32, loser: u32, jobs: &[JobInfo], now: Time) -> Time {
        if !self.lxf {
            return NEVER;
        }
        let (a, b) = (&jobs[winner as usize], &jobs[loser as usize]);
        // `a` comes first while D(t) = (t - sa + ea) eb - (t - sb + eb) ea,
        // which is K - M t, is above 0 (at 0 the earlier submit, then the
        // lower index, comes first). It falls only when `b` grows faster.
        let (ea, eb) = (i128::from(a.estimate), i128::from(b.estimate));
        let m = ea - eb;
        if m <= 0 {
            return NEVER;
        }
        let k = (ea - i128::from(a.submit)) * eb - (eb - i128::from(b.submit)) * ea;
        let a_wins_ties = (a.submit, winner) < (b.submit, loser);
        let at = if a_wins_ties {
            // The first t with K - M t < 0.
            k.div_euclid(m) + 1
        } else {
            // The first t with K - M t <= 0.
            -(-k).div_euclid(m)
        };
        let at = at.max(i128::from(now) + 1);
        Time::try_from(at).unwrap_or(NEVER)
    }

    /// Node `i`'s children's firsts at `now`: the one ahead, then the
    /// other (`NONE` when a child is empty).
    fn pick(&self, i: usize, jobs: &[JobInfo], now: Time) -> (JobIdx, JobIdx) {
        let (l, r) = (self.first[2 * i], self.first[2 * i + 1]);
        match (l, r) {
            (NONE, only) | (only, NONE) => (only, NONE),
            _ if self.ahead(l, r, jobs, now) => (l, r),
            _ => (r, l),
        }
    }

    /// Plays node `i` again at `now` from its children.
    fn play(&mut self, i: usize, jobs: &[JobInfo], now: Time) {
        let (first, other) = self.pick(i, jobs, now);
        let flips = if other == NONE {
            NEVER
        } else {
            self.overtakes(first, other, jobs, now)
        };
        self.first[i] = first;
        self.expires[i] = flips.min(self.expires[2 * i]).min(self.expires[2 * i + 1]);
    }

    /// Plays the path from slot `s` up to the root again.
    fn play_up(&mut self, s: usize, jobs: &[JobInfo], now: Time) {
        let mut i = (self.size + s) / 2;
        while i >= 1 {
            self.play(i, jobs, now);
            i /= 2;
        }
    }

    /// Plays again every node whose order may have changed by `now`.
    pub fn advance(&mut self, jobs: &[JobInfo], now: Time) {
        if self.size > 0 && self.expires[1] <= now {
            self.replay(1, jobs, now);
        }
    }

    fn replay(&mut self, i: usize, jobs: &[JobInfo], now: Time) {
        if i >= self.size {
            return;
        }
        for c in [2 * i, 2 * i + 1] {
            if self.expires[c] <= now {
                self.replay(c, jobs, now);
            }
        }
        self.play(i, jobs, now);
    }

    /// `job` arrived at `now`.
    pub fn push(&mut self, job: JobIdx, jobs: &[JobInfo], now: Time) {
        if self.slot.len() != jobs.len() {
            self.slot = vec![NONE; jobs.len()];
        }
        if self.next == self.size {
            self.rebuild(jobs, now);
        }
        let s = self.next;
        self.next += 1;
        self.slot[job as usize] = s as u32;
        self.first[self.size + s] = job;
        self.play_up(s, jobs, now);
    }

    /// The first waiting job, as of the last [`Head::advance`].
    pub fn first(&self) -> Option<JobIdx> {
        self.first.get(1).copied().filter(|&j| j != NONE)
    }

    /// `job`, waiting, started at `now`.
    pub fn remove(&mut self, job: JobIdx, jobs: &[JobInfo], now: Time) {
        let s = std::mem::replace(&mut self.slot[job as usize], NONE) as usize;
        self.first[self.size + s] = NONE;
        self.play_up(s, jobs, now);
    }

    /// The waiting jobs in queue order, as of the last [`Head::advance`]
    /// (at `now`), read lazily: each job read is taken out of the
    /// tournament for the rest of the reading (its path played again,
    /// about the tree's depth in comparisons), and all are put back when
    /// the reader is dropped. `read` is scratch space.
    pub fn in_order<'h>(
        &'h mut self,
        jobs: &'h [JobInfo],
        now: Time,
        read: &'h mut Vec<JobIdx>,
    ) -> InOrder<'h> {
        read.clear();
        InOrder {
            head: self,
            jobs,
            now,
            read,
        }
    }

    /// Slots for twice the jobs waiting, handed out again in their
    /// arrival order, and every node played at `now`.
    fn rebuild(&mut self, jobs: &[JobInfo], now: Time) {
        let waiting: Vec<u32> = (self.size..self.size + self.next)
            .map(|i| self.first[i])
            .filter(|&j| j != NONE)
            .collect();
        self.size = (2 * waiting.len()).max(64).next_power_of_two();
        self.first = vec![NONE; 2 * self.size];
        self.expires = vec![NEVER; 2 * self.size];
        for (s, &job) in waiting.iter().enumerate() {
            self.first[self.size + s] = job;
            self.slot[job as usize] = s as u32;
        }
        self.next = waiting.len();
        for i in (1..self.size).rev() {
            self.play(i, jobs, now);
        }
    }
}

/// The waiting jobs in queue order (see [`Head::in_order`]).
///
/// Each node holds the first of its subtree, so the root holds the first
/// job left; taking it out plays its path again, and since every node on
/// that path held it, putting it back is writing it there again (in the
/// reverse order of reading, each path is as its job left it).
pub(crate) struct InOrder<'h> {
    head: &'h mut Head,
    jobs: &'h [JobInfo],
    now: Time,
    /// The jobs read so far, taken out of the tournament.
    read: &'h mut Vec<JobIdx>,
}

impl Iterator for InOrder<'_> {
    type Item = JobIdx;

    fn next(&mut self) -> Option<JobIdx> {
        let head = &mut *self.head;
        let job = head.first()?;
        self.read.push(job);
        // Only the firsts are played again: the nodes' expiry seconds are
        // left as they were, right again once every job read is back.
        let mut i = head.size + head.slot[job as usize] as usize;
        head.first[i] = NONE;
        i /= 2;
        while i >= 1 {
            head.first[i] = head.pick(i, self.jobs, self.now).0;
            i /= 2;
        }
        Some(job)
    }
}

impl Drop for InOrder<'_> {
    fn drop(&mut self) {
        let head = &mut *self.head;
        for &job in self.read.iter().rev() {
            let mut i = head.size + head.slot[job as usize] as usize;
            while i >= 1 {
                head.first[i] = job;
                i /= 2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::order::tests::job;
    use proptest::prelude::*;

    /// LXF's head of `jobs`, all pushed at `pushed` in the order given,
    /// at each second of `expected` (ascending), with the job expected.
    fn lxf_heads(jobs: &[JobInfo], order: &[JobIdx], pushed: Time, expected: &[(Time, JobIdx)]) {
        let mut head = Head::new(Order::Lxf).expect("lxf");
        for &j in order {
            head.push(j, jobs, pushed);
        }
        for &(now, first) in expected {
            head.advance(jobs, now);
            assert_eq!(head.first(), Some(first), "at {now}");
        }
    }

    #[test]
    fn lxf_head_changes_when_factors_cross() {
        // Job 0: submitted at 0, 100 s (factor 1 + t/100); job 1: at 50,
        // 10 s (factor 1 + (t - 50)/10). Equal at t = 500/9 = 55.6: job 0
        // first up to 55, job 1 from 56 on.
        let jobs = [job(0, 100), job(50, 10)];
        lxf_heads(&jobs, &[0, 1], 50, &[(50, 0), (55, 0), (56, 1), (1000, 1)]);
    }

    #[test]
    fn lxf_ties_go_to_the_earlier_submit_at_the_crossing_second() {
        // Job 0 at 0, 20 s; job 1 at 10, 10 s: factors (t + 20)/20 and
        // t/10 meet at exactly t = 20, where job 0, submitted first, leads;
        // job 1 leads from 21.
        let jobs = [job(0, 20), job(10, 10)];
        lxf_heads(&jobs, &[1, 0], 10, &[(19, 0), (20, 0), (21, 1)]);
    }

    proptest! {
        /// Arrivals, starts of the head and of other jobs, and time
        /// passing: the head is always the first of the queue sorted
        /// afresh, in both orders.
        #[test]
        fn the_head_is_the_first_of_the_sorted_queue(
            jobs in prop::collection::vec((0i64..40, 1i64..300), 1..150),
            steps in prop::collection::vec((0i64..30, 0u8..4), 1..300),
            lxf in any::<bool>(),
        ) {
            let mut submit = 0;
            let jobs: Vec<JobInfo> = jobs
                .iter()
                .map(|&(gap, estimate)| {
                    submit += gap;
                    job(submit, estimate)
                })
                .collect();
            let order = if lxf { Order::Lxf } else { Order::Sjf };
            let mut head = Head::new(order).expect("lxf or sjf");
            let (mut now, mut next) = (0, 0);
            let mut waiting: Vec<JobIdx> = Vec::new();
            for &(pass, op) in &steps {
                now += pass;
                while next < jobs.len() && jobs[next].submit <= now {
                    head.push(next as JobIdx, &jobs, now);
                    waiting.push(next as JobIdx);
                    next += 1;
                }
                head.advance(&jobs, now);
                let mut sorted = waiting.clone();
                order.sort(now, &jobs, &mut sorted);
                prop_assert_eq!(head.first(), sorted.first().copied(), "at {}", now);
                let mut scratch = Vec::new();
                // A reading stopped early puts back what it took out.
                let k = pass as usize % (sorted.len() + 1);
                let first_k: Vec<JobIdx> = head.in_order(&jobs, now, &mut scratch).take(k).collect();
                prop_assert_eq!(&first_k[..], &sorted[..k], "first {} at {}", k, now);
                let listed: Vec<JobIdx> = head.in_order(&jobs, now, &mut scratch).collect();
                prop_assert_eq!(&listed, &sorted, "in order at {}", now);
                let leaving = match op {
                    0 => sorted.first().copied(),
                    1 if !sorted.is_empty() => Some(sorted[pass as usize % sorted.len()]),
                    _ => None,
                };
                if let Some(j) = leaving {
                    head.remove(j, &jobs, now);
                    waiting.retain(|&w| w != j);
                }
            }
        }
    }
}
