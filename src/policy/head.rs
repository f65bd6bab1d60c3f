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
//!
//! Backfilling on a long queue reads only the jobs that may fit
//! ([`Head::narrow_in_order`]): with width classes on
//! ([`Head::set_width_classes`]), each node also keeps the narrowest width
//! and shortest estimate below it, and each doubling of the width has a
//! subtree of its own, so that the jobs too wide to start (on an
//! overloaded machine, thousands that come first in queue order) are
//! passed a class at a time.

use super::backfill::JobTest;
use super::order::ranked_cmp;
use super::Order;
use crate::sim::{JobIdx, JobInfo};
use crate::workload::Time;
use std::cmp::Ordering;

/// No job: an empty slot or subtree.
const NONE: u32 = u32::MAX;
/// An order that never changes.
const NEVER: Time = Time::MAX;
/// Width classes: widths from `2^c` to `2^(c + 1) - 1` are class `c`.
const CLASSES: usize = 32;
/// The fewest slots of a class, and the share of all waiting jobs each
/// class has room for at least, so that a small class filling up does
/// not rebuild the tree often.
const LEAST_REGION: usize = 16;
const REGION_SHARE: usize = 16;

/// A width class's slots: `size` from `base` (a multiple of `size`, so
/// they are one subtree), the first `next` handed out.
#[derive(Debug, Clone, Copy, Default)]
struct Region {
    base: u32,
    size: u32,
    next: u32,
}

/// The head of the waiting queue in LXF or SJF order.
#[derive(Debug)]
pub(crate) struct Head {
    lxf: bool,
    /// Leaves: slots per job, in arrival order within each width class's
    /// region; node `i` has children `2i` and `2i + 1`, the root is node
    /// 1, slot `s` is node `size + s`.
    size: usize,
    /// Per node, the first job below it, `NONE` for none.
    first: Vec<u32>,
    /// Per node, the earliest second at which its first may change.
    expires: Vec<Time>,
    /// Whether the slots are grouped by width class and the bounds below
    /// are kept, for [`Head::narrow_in_order`].
    by_class: bool,
    /// Per node, the narrowest job below it and the shortest estimate
    /// (on 32 bits, longer ones as `u32::MAX`), `NONE` for none: bounds
    /// for reading only the jobs that may fit. Empty unless `by_class`.
    narrowest: Vec<u32>,
    shortest: Vec<u32>,
    /// Per width class (a doubling of the width; one class unless
    /// `by_class`), its slots: a subtree of its own, so that a reading for
    /// narrow jobs passes the classes too wide at their roots.
    regions: [Region; CLASSES],
    /// Per job index, its slot while it waits (`NONE` otherwise).
    slot: Vec<u32>,
}

impl Head {
    /// A head for `order`, `None` for an order it does not keep (FCFS
    /// needs none: the queue is in arrival order; fairshare's changes with
    /// usage).
    pub fn new(order: Order) -> Option<Head> {
        Head::build(order, false)
    }

    /// [`Head::new`], with [`Head::narrow_in_order`]: a little more work
    /// at every change, for backfilling.
    pub fn with_width_classes(order: Order) -> Option<Head> {
        Head::build(order, true)
    }

    fn build(order: Order, by_class: bool) -> Option<Head> {
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
            by_class,
            narrowest: Vec::new(),
            shortest: Vec::new(),
            regions: [Region::default(); CLASSES],
            slot: Vec::new(),
        })
    }

    /// Whether [`Head::narrow_in_order`] may be asked.
    pub fn by_class(&self) -> bool {
        self.by_class
    }

    /// Groups the slots by width class and keeps the bounds, or stops.
    pub fn set_width_classes(&mut self, on: bool, jobs: &[JobInfo], now: Time) {
        if on != self.by_class {
            self.by_class = on;
            if !on {
                (self.narrowest, self.shortest) = (Vec::new(), Vec::new());
            }
            if self.size > 0 {
                // No class grows: `CLASSES` is none of them.
                self.rebuild(jobs, now, CLASSES);
            }
        }
    }

    /// Whether the order is LXF (else SJF).
    pub fn lxf(&self) -> bool {
        self.lxf
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

    /// Node `i`'s bounds from its children's (only a change of the jobs
    /// below changes them, not time).
    fn bound(&mut self, i: usize) {
        self.narrowest[i] = self.narrowest[2 * i].min(self.narrowest[2 * i + 1]);
        self.shortest[i] = self.shortest[2 * i].min(self.shortest[2 * i + 1]);
    }

    /// Puts `job` in slot `s`, with its bounds.
    fn set_leaf(&mut self, s: usize, job: JobIdx, jobs: &[JobInfo]) {
        let leaf = self.size + s;
        self.first[leaf] = job;
        if self.by_class {
            let info = &jobs[job as usize];
            self.narrowest[leaf] = info.procs;
            self.shortest[leaf] = info.estimate.clamp(0, Time::from(u32::MAX)) as u32;
        }
    }

    /// The region of a job of `procs`.
    fn class(&self, procs: u32) -> usize {
        if self.by_class {
            procs.max(1).ilog2() as usize
        } else {
            0
        }
    }

    /// Plays the path from slot `s` up to the root again.
    fn play_up(&mut self, s: usize, jobs: &[JobInfo], now: Time) {
        let mut i = (self.size + s) / 2;
        while i >= 1 {
            self.play(i, jobs, now);
            if self.by_class {
                self.bound(i);
            }
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
        let c = self.class(jobs[job as usize].procs);
        if self.regions[c].next == self.regions[c].size {
            self.rebuild(jobs, now, c);
        }
        let region = &mut self.regions[c];
        let s = (region.base + region.next) as usize;
        region.next += 1;
        self.slot[job as usize] = s as u32;
        self.set_leaf(s, job, jobs);
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
        if self.by_class {
            self.narrowest[self.size + s] = NONE;
            self.shortest[self.size + s] = NONE;
        }
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

    /// The waiting jobs in queue order, as of the last [`Head::advance`]
    /// (at `now`), read lazily and only those that may fit, without
    /// changing the tournament: a best-first search from the root, each
    /// node ranked by the first job below it (none below comes earlier),
    /// that passes the subtrees whose narrowest width and shortest
    /// estimate cannot fit.
    /// Where few of many jobs fit, it reads them at about the tree's depth
    /// each, without the others. It stops after reading `limit` nodes.
    /// `heap` is scratch space.
    pub fn narrow_in_order<'h>(
        &'h self,
        jobs: &'h [JobInfo],
        now: Time,
        heap: &'h mut Vec<u32>,
        limit: usize,
    ) -> NarrowInOrder<'h> {
        debug_assert!(self.by_class, "a head without width classes");
        heap.clear();
        if self.size > 0 && self.first[1] != NONE {
            heap.push(1);
        }
        NarrowInOrder {
            head: self,
            jobs,
            now,
            heap,
            read: 0,
            limit,
        }
    }

    /// Slots for each width class that has had jobs, twice its jobs
    /// waiting (and one more of class `grow`), handed out again in their
    /// arrival order, and
    /// every node played at `now`. Classes are placed widest region first,
    /// so each starts at a multiple of its size.
    fn rebuild(&mut self, jobs: &[JobInfo], now: Time, grow: usize) {
        let mut waiting: Vec<Vec<u32>> = vec![Vec::new(); CLASSES];
        let mut total = 1;
        for region in self.regions {
            let from = self.size + region.base as usize;
            for &job in &self.first[from..from + region.next as usize] {
                if job != NONE {
                    waiting[self.class(jobs[job as usize].procs)].push(job);
                    total += 1;
                }
            }
        }
        let least = LEAST_REGION.max(total / REGION_SHARE);
        for (c, region) in self.regions.iter_mut().enumerate() {
            // A class keeps its region once it has one, even empty: classes
            // whose jobs start at once would otherwise rebuild the tree at
            // each arrival.
            let need = waiting[c].len() + usize::from(c == grow);
            let size = if region.size == 0 && need == 0 {
                0
            } else {
                (2 * need).max(least).next_power_of_two()
            };
            *region = Region {
                base: 0,
                size: size as u32,
                next: 0,
            };
        }
        let mut by_size: Vec<usize> = (0..CLASSES).collect();
        by_size.sort_by_key(|&c| std::cmp::Reverse(self.regions[c].size));
        let mut base = 0;
        for c in by_size {
            self.regions[c].base = base;
            base += self.regions[c].size;
        }
        self.size = (base as usize).max(2).next_power_of_two();
        self.first = vec![NONE; 2 * self.size];
        self.expires = vec![NEVER; 2 * self.size];
        if self.by_class {
            self.narrowest = vec![NONE; 2 * self.size];
            self.shortest = vec![NONE; 2 * self.size];
        }
        for (c, jobs_of_class) in waiting.iter().enumerate() {
            for &job in jobs_of_class {
                let region = &mut self.regions[c];
                let s = (region.base + region.next) as usize;
                region.next += 1;
                self.set_leaf(s, job, jobs);
                self.slot[job as usize] = s as u32;
            }
        }
        for i in (1..self.size).rev() {
            self.play(i, jobs, now);
            if self.by_class {
                self.bound(i);
            }
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

/// The waiting jobs in queue order that may fit (see
/// [`Head::narrow_in_order`]).
pub(crate) struct NarrowInOrder<'h> {
    head: &'h Head,
    jobs: &'h [JobInfo],
    now: Time,
    /// Nodes still to read, a binary heap by their first jobs.
    heap: &'h mut Vec<u32>,
    /// Nodes read so far, and how many may be.
    read: usize,
    limit: usize,
}

impl NarrowInOrder<'_> {
    /// The next job that `may_fit`'s test of the bounds below it (the
    /// narrowest width and the shortest estimate, as
    /// [`JobTest::bound`]) passes, `None` when there is none or the limit
    /// is reached ([`NarrowInOrder::stopped`]). Tests asked must never
    /// pass more than the last: subtrees passed for one are not read
    /// again.
    pub fn next_fitting(&mut self, may_fit: &mut impl JobTest) -> Option<JobIdx> {
        while !self.heap.is_empty() {
            if self.read == self.limit {
                return None;
            }
            let node = self.pop() as usize;
            self.read += 1;
            let head = self.head;
            if !may_fit.bound(head.narrowest[node], head.shortest[node]) {
                continue;
            }
            if node >= head.size {
                return Some(head.first[node]);
            }
            for child in [2 * node, 2 * node + 1] {
                // An empty subtree's bounds are `NONE`, which a job as wide
                // as a machine of `u32::MAX` processors, with one as long,
                // also has: only `first` tells it apart.
                if head.first[child] != NONE
                    && may_fit.bound(head.narrowest[child], head.shortest[child])
                {
                    self.push(child as u32);
                }
            }
        }
        None
    }

    /// Whether the reading stopped at its limit with nodes left to read.
    pub fn stopped(&self) -> bool {
        self.read == self.limit && !self.heap.is_empty()
    }

    /// Whether node `a`'s first comes before node `b`'s.
    fn before(&self, a: u32, b: u32) -> bool {
        let first = &self.head.first;
        self.head
            .ahead(first[a as usize], first[b as usize], self.jobs, self.now)
    }

    fn push(&mut self, node: u32) {
        let mut i = self.heap.len();
        self.heap.push(node);
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.before(node, self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = node;
    }

    fn pop(&mut self) -> u32 {
        let top = self.heap[0];
        let last = self.heap.pop().expect("not empty");
        let n = self.heap.len();
        if n > 0 {
            let mut i = 0;
            loop {
                let mut child = 2 * i + 1;
                if child >= n {
                    break;
                }
                if child + 1 < n && self.before(self.heap[child + 1], self.heap[child]) {
                    child += 1;
                }
                if !self.before(self.heap[child], last) {
                    break;
                }
                self.heap[i] = self.heap[child];
                i = child;
            }
            self.heap[i] = last;
        }
        top
    }
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
        /// afresh, in both orders, and reading for narrow jobs gives the
        /// sorted queue's jobs that narrow.
        #[test]
        fn the_head_is_the_first_of_the_sorted_queue(
            jobs in prop::collection::vec((0i64..40, 1i64..300, 1u32..300), 1..150),
            steps in prop::collection::vec((0i64..30, 0u8..4), 1..300),
            lxf in any::<bool>(),
            by_class in any::<bool>(),
        ) {
            let mut submit = 0;
            let jobs: Vec<JobInfo> = jobs
                .iter()
                .map(|&(gap, estimate, procs)| {
                    submit += gap;
                    JobInfo {
                        procs,
                        ..job(submit, estimate)
                    }
                })
                .collect();
            let order = if lxf { Order::Lxf } else { Order::Sjf };
            let mut head = Head::build(order, by_class).expect("lxf or sjf");
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
                if op == 3 {
                    head.set_width_classes(!head.by_class(), &jobs, now);
                }
                if head.by_class() {
                    // Tests asked grow stricter as a pass's starts take
                    // processors: jobs at most `width` wide, and at most
                    // `longest` long unless at most `spare` wide, as EASY's.
                    let (mut width, mut spare) = (1 + (pass as u32 * 37) % 300, (pass as u32 * 11) % 300);
                    let longest = u32::from(op) * 80;
                    let fits = |w: u32, s: u32, p: u32, d: u32| p <= w && (d <= longest || p <= s);
                    let mut reader = head.narrow_in_order(&jobs, now, &mut scratch, usize::MAX);
                    let mut narrow = Vec::new();
                    let mut expected: Vec<JobIdx> = Vec::new();
                    let mut unread = sorted.iter();
                    let passes = |w: u32, s: u32, j: JobIdx| fits(w, s, jobs[j as usize].procs, jobs[j as usize].estimate as u32);
                    while let Some(j) = reader.next_fitting(&mut |p: u32, d: Time| fits(width, spare, p, d as u32)) {
                        narrow.push(j);
                        expected.extend(unread.by_ref().find(|&&w| passes(width, spare, w)).copied());
                        width -= width / 3;
                        spare /= 2;
                    }
                    expected.extend(unread.find(|&&w| passes(width, spare, w)).copied());
                    prop_assert_eq!(&narrow, &expected, "narrow in order at {}", now);
                    prop_assert!(!reader.stopped());
                }
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
