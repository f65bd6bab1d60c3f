//! The waiting queue in arrival order, kept by the policy itself, so that
//! backfilling on a long queue looks only where an answer may be.
//!
//! EASY asks at every epoch "which is the first waiting job, in queue
//! order, that can start now without delaying the reservation?". Walking
//! the queue answers in O(queue), a cliff when thousands of jobs wait and
//! few fit. A long queue is therefore kept as a segment tree over buckets
//! of a few arrival slots, whose nodes know, per width class, the narrowest
//! width and the shortest estimate below them, so a search descends only
//! into subtrees that may hold a job narrow and short enough; in a bucket
//! each job is tested. A short queue is a plain list, walked: cheaper than
//! any tree.
//!
//! Tree slots are handed out in arrival order and never reused; when they
//! run out the tree is rebuilt over the jobs still waiting, in the same
//! order, so its size follows the queue's length, not the trace's.

use crate::sim::JobIdx;
use crate::workload::{Time, MAX_TIME};

/// Width classes per node. A subtree keeps its narrowest width and
/// shortest estimate per class, so a search for jobs both narrow and short
/// enough is not misled by a narrow long job and a wide short one. Sixteen,
/// one per doubling of the width (see [`Classes`]): with eight (65 and
/// wider in one), a queue of wide jobs on a big machine passed most nodes
/// on a narrow job of one and a short one of another, and EASY on 65,536
/// processors at offered load 0.95 cost 4.6 times FCFS instead of 2.5.
const CLASSES: usize = 16;

/// Doublings a width is past one: 0 for 1, 1 for 2, 2 for 3 and 4, ...
fn doublings(procs: u32) -> u32 {
    u32::BITS - (procs.max(1) - 1).leading_zeros()
}

/// How one tree sorts widths into classes: one class per doubling, the
/// last being the doubling of the widest job the tree was built for (and
/// wider), so that a machine of more than 2^15 processors merges its
/// narrowest doublings rather than its widest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Classes {
    /// Doublings merged into the first class.
    shift: u32,
}

impl Classes {
    fn for_widest(procs: u32) -> Classes {
        Classes {
            shift: doublings(procs).saturating_sub(CLASSES as u32 - 1),
        }
    }

    fn of(self, procs: u32) -> usize {
        (doublings(procs).saturating_sub(self.shift) as usize).min(CLASSES - 1)
    }
}

/// What a subtree holds, per width class: two cache lines, of 32-bit
/// lanes that tests compare without a branch. A width of `u32::MAX` marks
/// a class with no job: a job that wide (the whole of a machine of
/// `u32::MAX` processors) is kept as one processor narrower, still a bound
/// below it.
#[derive(Debug, Clone, Copy, Eq)]
#[repr(align(128))]
struct Node {
    /// The narrowest width of the class (a bound below it for a job of
    /// `u32::MAX`), `u32::MAX` when it has no job.
    procs: [u32; CLASSES],
    /// The shortest estimate of the class, in whole seconds up to
    /// `u32::MAX` (a longer one is stored as that: a bound below it).
    estimate: [u32; CLASSES],
}

/// An estimate as nodes keep it: never above it. Estimates are never
/// negative.
fn floor(estimate: Time) -> u32 {
    debug_assert!(estimate >= 0, "negative estimate {estimate}");
    estimate.clamp(0, Time::from(u32::MAX)) as u32
}

impl PartialEq for Node {
    /// Every lane at once, without a branch (a derived comparison calls
    /// `memcmp` on the two cache lines).
    fn eq(&self, other: &Node) -> bool {
        let mut diff = 0;
        for c in 0..CLASSES {
            diff |= (self.procs[c] ^ other.procs[c]) | (self.estimate[c] ^ other.estimate[c]);
        }
        diff == 0
    }
}

/// The width of a node's class with no job.
const EMPTY_CLASS: u32 = u32::MAX;

impl Node {
    const EMPTY: Node = Node {
        procs: [EMPTY_CLASS; CLASSES],
        estimate: [u32::MAX; CLASSES],
    };

    /// Takes a job of `procs` and `estimate` into the bounds of class `c`.
    fn add(&mut self, c: usize, procs: u32, estimate: Time) {
        self.procs[c] = self.procs[c].min(procs.min(EMPTY_CLASS - 1));
        self.estimate[c] = self.estimate[c].min(floor(estimate));
    }

    fn join(a: &Node, b: &Node) -> Node {
        let mut n = *a;
        for c in 0..CLASSES {
            n.procs[c] = n.procs[c].min(b.procs[c]);
            n.estimate[c] = n.estimate[c].min(b.estimate[c]);
        }
        n
    }

    /// Whether some class has its narrowest width and shortest estimate
    /// passing `test`. Every class is tested, without a branch; an empty
    /// class (`u32::MAX` wide) passes only a test passing that width, and
    /// then the search finds no job below and steps on.
    // Always inlined: the search calls it per node, and out of line the
    // call costs more than the sixteen tests.
    #[inline(always)]
    fn any(&self, test: &mut impl JobTest) -> bool {
        let mut hit = false;
        for c in 0..CLASSES {
            hit |= test.bound(self.procs[c], self.estimate[c]);
        }
        hit
    }
}

/// A queue longer than this becomes a tree; a tree shorter than
/// `LIST_BELOW` becomes a list again (apart, so no length flips it back
/// and forth).
const TREE_ABOVE: usize = 128;
const LIST_BELOW: usize = 32;

/// Waiting jobs in arrival order, with their widths and estimates.
pub(crate) struct WaitingQueue {
    len: usize,
    form: Form,
}

enum Form {
    /// Entries `(job, procs, estimate)`; a job taken out in a pass keeps
    /// its place, with the estimate `Time::MAX` (no job's: estimates are at
    /// most [`MAX_TIME`]), until [`WaitingQueue::settle`].
    List(Vec<(JobIdx, u32, Time)>),
    Tree(QueueTree),
}

/// What [`WaitingQueue::first`] looks for. The test must pass a width and
/// estimate whenever it passes a wider or longer job: then a subtree whose
/// narrowest and shortest fail holds no answer. It had better fail a width
/// of `u32::MAX`, which marks a class with no job: one that passes it (all
/// of a machine that wide free) searches subtrees with no job for nothing
/// ([`Anyone`] passes every job and no empty class). Any such closure of a
/// width and an estimate is one.
pub(crate) trait JobTest {
    /// Whether a job of `procs` processors and `estimate` passes.
    fn job(&mut self, procs: u32, estimate: Time) -> bool;

    /// Passes whenever some job at least `procs` wide whose estimate is at
    /// least `estimate` seconds (or `u32::MAX` and more) passes: the test of
    /// a subtree's bounds. For a test as above, the job test itself is one;
    /// a test may answer faster on 32 bits.
    fn bound(&mut self, procs: u32, estimate: u32) -> bool {
        self.job(procs, Time::from(estimate))
    }
}

impl<F: FnMut(u32, Time) -> bool> JobTest for F {
    fn job(&mut self, procs: u32, estimate: Time) -> bool {
        self(procs, estimate)
    }
}

/// The test of [`WaitingQueue::first`] that passes every job.
pub(crate) struct Anyone;

impl JobTest for Anyone {
    fn job(&mut self, _procs: u32, _estimate: Time) -> bool {
        true
    }

    fn bound(&mut self, procs: u32, _estimate: u32) -> bool {
        procs != EMPTY_CLASS
    }
}

/// Where a job was found: searches go on from the next position.
pub(crate) type Position = u32;

impl WaitingQueue {
    pub fn new() -> Self {
        WaitingQueue {
            len: 0,
            form: Form::List(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the queue is long enough to be kept as a tree.
    pub fn is_tree(&self) -> bool {
        matches!(self.form, Form::Tree(_))
    }

    /// Appends a job arrived after every one in the queue.
    pub fn push(&mut self, job: JobIdx, procs: u32, estimate: Time) {
        debug_assert!(estimate <= MAX_TIME, "job {job}: estimate {estimate}");
        self.len += 1;
        match &mut self.form {
            Form::List(list) => list.push((job, procs, estimate)),
            Form::Tree(tree) => tree.push(job, procs, estimate),
        }
    }

    /// The first job at or after `from`, in arrival order, that passes
    /// `fits` (see [`JobTest`]), with its position.
    pub fn first(&self, from: Position, mut fits: impl JobTest) -> Option<(JobIdx, Position)> {
        self.first_by(from, &mut fits)
    }

    /// [`WaitingQueue::first`] with the test lent, for searches one after
    /// another with one test.
    pub fn first_by(&self, from: Position, fits: &mut impl JobTest) -> Option<(JobIdx, Position)> {
        match &self.form {
            Form::List(list) => list
                .iter()
                .enumerate()
                .skip(from as usize)
                .find(|(_, &(_, p, d))| d != TAKEN.1 && fits.job(p, d))
                .map(|(i, &(job, _, _))| (job, i as Position)),
            Form::Tree(tree) => tree.first(from, fits).map(|job| (job, tree.slot(job))),
        }
    }

    /// Where `job`, waiting, is: for taking out a job found otherwise
    /// than by a search (a list is walked).
    pub fn position(&self, job: JobIdx) -> Position {
        match &self.form {
            Form::List(list) => list
                .iter()
                .position(|e| e.0 == job && e.2 != TAKEN.1)
                .expect("the job waits") as Position,
            Form::Tree(tree) => tree.slot(job),
        }
    }

    /// Takes out the job found at `at`; positions stay valid until
    /// [`WaitingQueue::settle`].
    pub fn remove(&mut self, job: JobIdx, at: Position) {
        self.len -= 1;
        match &mut self.form {
            Form::List(list) => list[at as usize].2 = TAKEN.1,
            Form::Tree(tree) => tree.remove(job),
        }
    }

    /// After a pass: closes the gaps, and turns a list grown long into a
    /// tree or a tree grown short into a list.
    pub fn settle(&mut self) {
        match &mut self.form {
            Form::List(list) => {
                // Taken-out jobs leave gaps; most passes take none out.
                if list.len() != self.len {
                    list.retain(|e| e.2 != TAKEN.1);
                }
                if list.len() > TREE_ABOVE {
                    let widest = list.iter().map(|e| e.1).max().unwrap_or(1);
                    let mut tree = QueueTree::new(widest);
                    for &(job, p, d) in list.iter() {
                        tree.push(job, p, d);
                    }
                    self.form = Form::Tree(tree);
                }
            }
            Form::Tree(tree) if self.len < LIST_BELOW => {
                self.form = Form::List(tree.live().map(|(job, (p, d))| (job, p, d)).collect());
            }
            Form::Tree(_) => {}
        }
    }
}

const NO_SLOT: u32 = u32::MAX;

/// Slots per bucket: the tree's leaves are buckets of this many slots,
/// read one by one, so its nodes are an eighth as many (small enough to
/// stay in cache on a queue of tens of thousands) and a search descends
/// three levels less.
const BUCKET: usize = 8;

/// A slot's job: width and estimate, `TAKEN` once taken out (no job's:
/// estimates are at most [`MAX_TIME`]).
type Entry = (u32, Time);
const TAKEN: Entry = (u32::MAX, Time::MAX);

struct QueueTree {
    /// Slots: a power of two, and a multiple of [`BUCKET`].
    cap: usize,
    /// Over the buckets, in a 1-based heap layout: node k has children 2k
    /// and 2k + 1, bucket b is node `cap / BUCKET + b`.
    nodes: Vec<Node>,
    /// Width and estimate per slot.
    entries: Vec<Entry>,
    /// The job of each slot handed out since the last rebuild.
    jobs: Vec<JobIdx>,
    /// Per job index: its slot, `NO_SLOT` when it is not in the tree.
    slot_of: Vec<u32>,
    len: usize,
    /// The widest job ever pushed, or given at the start.
    widest: u32,
    /// The classes of the nodes, for the widest job at the last rebuild.
    classes: Classes,
}

impl QueueTree {
    /// An empty tree, its classes made for jobs up to `widest` wide until
    /// a wider one comes and the slots run out.
    pub fn new(widest: u32) -> Self {
        QueueTree {
            widest,
            classes: Classes::for_widest(widest),
            cap: 0,
            nodes: Vec::new(),
            entries: Vec::new(),
            jobs: Vec::new(),
            slot_of: Vec::new(),
            len: 0,
        }
    }

    fn buckets(&self) -> usize {
        self.cap / BUCKET
    }

    /// The jobs in the tree in arrival order, with widths and estimates.
    fn live(&self) -> impl Iterator<Item = (JobIdx, Entry)> + '_ {
        self.jobs
            .iter()
            .zip(&self.entries)
            .filter(|&(_, &e)| e != TAKEN)
            .map(|(&job, &e)| (job, e))
    }

    /// The job's position in arrival order among the jobs in the tree: a
    /// key that orders them as they arrived, valid until the next push.
    pub fn slot(&self, job: JobIdx) -> u32 {
        self.slot_of[job as usize]
    }

    /// Appends `job`, arrived after every job in the tree, with its width
    /// and estimate.
    pub fn push(&mut self, job: JobIdx, procs: u32, estimate: Time) {
        self.widest = self.widest.max(procs);
        if self.jobs.len() == self.cap {
            self.rebuild();
        }
        let i = job as usize;
        if self.slot_of.len() <= i {
            self.slot_of.resize(i + 1, NO_SLOT);
        }
        debug_assert_eq!(self.slot_of[i], NO_SLOT, "job {job} pushed twice");
        let slot = self.jobs.len();
        self.jobs.push(job);
        self.entries[slot] = (procs, estimate);
        self.slot_of[i] = slot as u32;
        self.len += 1;
        // A job added only lowers the bounds of its bucket.
        let k = self.buckets() + slot / BUCKET;
        let mut node = self.nodes[k];
        node.add(self.classes.of(procs), procs, estimate);
        self.set_node(k, node);
    }

    pub fn remove(&mut self, job: JobIdx) {
        let slot = std::mem::replace(&mut self.slot_of[job as usize], NO_SLOT) as usize;
        debug_assert_ne!(slot, NO_SLOT as usize, "job {job} is not in the tree");
        self.len -= 1;
        self.entries[slot] = TAKEN;
        let b = slot / BUCKET;
        let node = self.bucket_node(b);
        self.set_node(self.buckets() + b, node);
    }

    /// The bounds of bucket `b`, from its jobs.
    fn bucket_node(&self, b: usize) -> Node {
        let mut n = Node::EMPTY;
        for &(p, d) in &self.entries[b * BUCKET..(b + 1) * BUCKET] {
            if (p, d) != TAKEN {
                n.add(self.classes.of(p), p, d);
            }
        }
        n
    }

    /// The first job, in arrival order, from slot `from` on, whose width
    /// and estimate pass `fits`, searching only the buckets whose node and
    /// every node above it have a class passing it.
    ///
    /// Bottom-up: the rest of the bucket of `from` is read first; then from
    /// the next bucket's node, climb while the node is a left child (its
    /// parent starts there too), test, and either descend or step right;
    /// a search costs the logarithm of how far it looks, not of the tree.
    /// A node may pass with no job below passing (its narrowest and
    /// shortest jobs are different jobs): the search then steps right of it.
    pub fn first(&self, from: u32, fits: &mut impl JobTest) -> Option<JobIdx> {
        let from = from as usize;
        if self.len == 0 || from >= self.cap {
            return None;
        }
        let buckets = self.buckets();
        let b = from / BUCKET;
        if let Some(s) = self.scan(from, (b + 1) * BUCKET, fits) {
            return Some(self.jobs[s]);
        }
        let mut k = buckets + b + 1;
        if k == 2 * buckets {
            return None;
        }
        loop {
            while k & 1 == 0 {
                k >>= 1;
            }
            if self.nodes[k].any(fits) {
                while k < buckets {
                    if self.nodes[2 * k].any(fits) {
                        k *= 2;
                    } else if self.nodes[2 * k + 1].any(fits) {
                        k = 2 * k + 1;
                    } else {
                        break;
                    }
                }
                if k >= buckets {
                    let b = k - buckets;
                    if let Some(s) = self.scan(b * BUCKET, (b + 1) * BUCKET, fits) {
                        return Some(self.jobs[s]);
                    }
                }
            }
            k += 1;
            if k.is_power_of_two() {
                return None;
            }
        }
    }

    /// The first slot in `from..to` whose job passes `fits`.
    fn scan(&self, from: usize, to: usize, fits: &mut impl JobTest) -> Option<usize> {
        let to = to.min(self.jobs.len());
        (from..to).find(|&s| {
            let (p, d) = self.entries[s];
            d != TAKEN.1 && fits.job(p, d)
        })
    }

    /// Sets node `k` and brings the nodes above it up to date.
    fn set_node(&mut self, mut k: usize, node: Node) {
        if self.nodes[k] == node {
            return;
        }
        self.nodes[k] = node;
        while k > 1 {
            k /= 2;
            let node = Node::join(&self.nodes[2 * k], &self.nodes[2 * k + 1]);
            if self.nodes[k] == node {
                // Unchanged here, so above too.
                break;
            }
            self.nodes[k] = node;
        }
    }

    /// Slots ran out: the jobs still in the tree take the first slots, in
    /// the same order, in a tree with room for as many again.
    fn rebuild(&mut self) {
        let kept: Vec<(JobIdx, Entry)> = self.live().collect();
        self.cap = (2 * kept.len()).max(64).next_power_of_two();
        self.entries.clear();
        self.entries.resize(self.cap, TAKEN);
        self.jobs.clear();
        for (slot, &(job, entry)) in kept.iter().enumerate() {
            self.jobs.push(job);
            self.slot_of[job as usize] = slot as u32;
            self.entries[slot] = entry;
        }
        let buckets = self.buckets();
        self.classes = Classes::for_widest(self.widest);
        self.nodes.clear();
        self.nodes.resize(2 * buckets, Node::EMPTY);
        for b in 0..buckets {
            self.nodes[buckets + b] = self.bucket_node(b);
        }
        for k in (1..buckets).rev() {
            self.nodes[k] = Node::join(&self.nodes[2 * k], &self.nodes[2 * k + 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn classes_group_widths_by_powers_of_two() {
        let widths = [
            1,
            2,
            3,
            4,
            5,
            8,
            9,
            64,
            65,
            16_384,
            16_385,
            32_768,
            100_000,
            u32::MAX,
        ];
        let of = |classes: Classes| widths.map(|p| classes.of(p));
        // Up to 2^15 wide: one class per doubling.
        for widest in [1, 100, 32_768] {
            assert_eq!(
                of(Classes::for_widest(widest)),
                [0, 1, 2, 2, 3, 3, 4, 6, 7, 14, 15, 15, 15, 15]
            );
        }
        // 2^18 wide: the narrowest doublings share the first class.
        assert_eq!(
            of(Classes::for_widest(262_144)),
            [0, 0, 0, 0, 0, 0, 1, 3, 4, 11, 12, 12, 14, 15]
        );
        assert_eq!(doublings(u32::MAX), 32);
    }

    #[test]
    fn first_finds_the_leftmost_job_both_narrow_and_short() {
        for long in [false, true] {
            let mut q = WaitingQueue::new();
            if long {
                // A tree: many jobs that fit nothing come first.
                for job in 100..400 {
                    q.push(job, 500, 1_000_000);
                }
                q.settle();
                assert!(matches!(q.form, Form::Tree(_)));
            }
            for (job, procs, estimate) in [(7, 4, 10), (3, 1, 500), (9, 2, 20), (4, 1, 30)] {
                q.push(job, procs, estimate);
            }
            let narrow = |p: u32, _| p <= 1;
            let (job, at) = q.first(0, narrow).unwrap();
            assert_eq!(job, 3);
            assert_eq!(q.first(at + 1, narrow).map(|f| f.0), Some(4));
            // Narrow and short: not job 3 (long), not job 7 (wide).
            assert_eq!(q.first(0, |p, d| p <= 2 && d <= 25).map(|f| f.0), Some(9));
            q.remove(3, at);
            assert_eq!(q.first(0, narrow).map(|f| f.0), Some(4));
            // Nothing both narrow and short enough.
            assert_eq!(q.first(0, |p, d| p <= 1 && d <= 5), None);
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(u32, i64),
        Remove(usize),
        Settle,
    }

    /// Short estimates, and some past what a node keeps exactly.
    fn estimate() -> impl Strategy<Value = Time> {
        prop_oneof![
            8 => 1..50i64,
            1 => prop::sample::select(vec![
                Time::from(u32::MAX) - 1,
                Time::from(u32::MAX),
                Time::from(u32::MAX) + 1,
                1 << 40,
                MAX_TIME,
            ]),
        ]
    }

    /// Narrow widths mostly, and some of a big machine's (every class), up
    /// to the whole of the widest machine.
    fn width() -> impl Strategy<Value = u32> {
        prop_oneof![
            30 => 1..200u32,
            10 => 1..100_000u32,
            1 => prop::sample::select(vec![u32::MAX - 1, u32::MAX]),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (width(), estimate()).prop_map(|(p, d)| Op::Push(p, d)),
            4 => any::<usize>().prop_map(Op::Remove),
            1 => Just(Op::Settle),
        ]
    }

    proptest! {
        /// Against a plain list in arrival order, as a list and as a tree,
        /// through rebuilds and changes of form; the test is a staircase,
        /// as backfilling asks (wider jobs must be shorter).
        #[test]
        fn searches_match_a_list(ops in prop::collection::vec(op(), 1..1200), probes in prop::collection::vec((width(), estimate()), 10)) {
            let mut q = WaitingQueue::new();
            let mut list: Vec<(JobIdx, u32, Time)> = Vec::new();
            let mut next_job = 0;
            for op in ops {
                match op {
                    Op::Push(p, d) => {
                        q.push(next_job, p, d);
                        list.push((next_job, p, d));
                        next_job += 1;
                    }
                    Op::Remove(i) if !list.is_empty() => {
                        let (job, p, d) = list.remove(i % list.len());
                        // The first job at least as narrow and short may be
                        // another: walk the matches to this one.
                        let (mut found, mut at) = q.first(0, |p2, d2| p2 <= p && d2 <= d).unwrap();
                        while found != job {
                            (found, at) = q.first(at + 1, |p2, d2| p2 <= p && d2 <= d).unwrap();
                        }
                        q.remove(job, at);
                    }
                    Op::Settle => q.settle(),
                    _ => {}
                }
                prop_assert_eq!(q.len(), list.len());
            }
            for (free, long) in probes {
                let fits = |p: u32, d: Time| p <= free && d <= long.saturating_sub(i64::from(p) / 10);
                let mut want = list.iter().filter(|(_, p, d)| fits(*p, *d)).map(|e| e.0);
                let mut from = 0;
                while let Some((job, at)) = q.first(from, fits) {
                    prop_assert_eq!(Some(job), want.next());
                    from = at + 1;
                }
                prop_assert_eq!(want.next(), None);
            }
            // Every job, taken-out ones never.
            let mut all = Vec::new();
            let mut from = 0;
            while let Some((job, at)) = q.first(from, Anyone) {
                all.push(job);
                from = at + 1;
            }
            prop_assert_eq!(all, list.iter().map(|e| e.0).collect::<Vec<_>>());
        }
    }
}
