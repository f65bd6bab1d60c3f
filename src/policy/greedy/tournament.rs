//! The head of the greedy queue, kept between events by a kinetic
//! tournament.
//!
//! Every criterion is a line in the job's wait (see
//! [`Criterion::line`](super::Criterion::line)), so the order of two waiting
//! jobs changes at most once while both wait, and between events it mostly
//! does not change at all: the paper's observation that the sorted queue
//! hardly moves. A tournament over the waiting jobs (a complete binary tree
//! whose leaves are slots holding the jobs, each inner node holding the
//! winner of its two children) keeps the head at the root. Each node also holds
//! the earliest time at which the order of its two children's winners may
//! change (a certificate) or anything below it may: to move to a later
//! time, only nodes whose time has come are played again. A submission or
//! a start replays the path of one leaf.
//!
//! The order is exactly the one [`ahead`] gives at the time asked, the
//! order of the naive scan: values are computed in floating point as
//! `constant + slope * wait`, and certificates are conservative by a bound
//! on that rounding, so they expire before any rounding could flip a
//! comparison; pairs whose values are within rounding of each other are
//! played again at every later time (`now + 1`) until they separate.

use super::criterion::Line;
use crate::sim::JobIdx;
use crate::workload::Time;

/// No job: an empty slot or subtree.
const NONE: u32 = u32::MAX;
/// A certificate that never expires.
const NEVER: Time = Time::MAX;

/// A waiting job as the tournament sees it.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub line: Line,
    pub submit: Time,
    pub job: JobIdx,
}

impl Entry {
    #[inline]
    fn value(&self, now: Time) -> f64 {
        self.line.at((now - self.submit) as f64)
    }
}

/// Whether job `x` comes before job `y` at `now`: the larger value first,
/// then the earlier submit, then the earlier job.
#[inline]
fn ahead(x: &Entry, y: &Entry, now: Time) -> bool {
    let (vx, vy) = (x.value(now), y.value(now));
    vy.total_cmp(&vx)
        .then(x.submit.cmp(&y.submit))
        .then(x.job.cmp(&y.job))
        .is_lt()
}

/// The first time after `now` at which `loser` might come before `winner`
/// (which comes first at `now`), never earlier than the truth.
fn certificate(winner: &Entry, loser: &Entry, now: Time) -> Time {
    let (x, y) = (winner.line, loser.line);
    if x.slope == y.slope && (x.slope == 0.0 || x.constant == y.constant) {
        // Constant values, or the same line shifted in time: computed
        // values keep their order (rounding is monotone) and so do the
        // tie-breaks, since the winner waited at least as long.
        return NEVER;
    }
    let (wx, wy) = ((now - winner.submit) as f64, (now - loser.submit) as f64);
    let gap = x.at(wx) - y.at(wy);
    // Each value is off its exact counterpart by a few units of rounding
    // of its parts' sizes; 8 of them covers that and the arithmetic here.
    let unit = 8.0 * f64::EPSILON;
    let noise = unit * (x.constant.abs() + y.constant.abs() + x.slope * wx + y.slope * wy);
    let margin = gap - noise;
    if margin.is_nan() || margin <= 0.0 {
        // Within rounding of a tie: play the pair again next time.
        return now.saturating_add(1);
    }
    // The gap grows by the slopes' difference per second and the noise
    // by the slopes' sum.
    let shrink = unit * (x.slope + y.slope) - (x.slope - y.slope);
    if shrink <= 0.0 {
        return NEVER;
    }
    let seconds = (margin / shrink).floor();
    if seconds >= (NEVER - now) as f64 {
        NEVER
    } else {
        now + (seconds as Time).max(1)
    }
}

/// A kinetic tournament of waiting jobs.
///
/// Jobs sit in slots, the tree's leaves; a freed slot is reused, and the
/// tree doubles when all are taken, so its depth follows the longest queue
/// seen, not the trace, and it stays small enough for the cache.
#[derive(Default)]
pub struct Tournament {
    /// Leaves: 0 or a power of two.
    slots: usize,
    /// Per node (1 is the root, node `n` has children `2n` and `2n + 1`,
    /// slot `s` is node `slots + s`): the slot of its subtree's winner.
    winner: Vec<u32>,
    /// Per node: the earliest time its winner, or a winner below it, may
    /// change: the least of its children's and its own certificate.
    expires: Vec<Time>,
    /// Per node: its own certificate, the earliest time the order of its
    /// children's winners may change.
    cert: Vec<Time>,
    /// Per slot: the job in it, meaningful while the slot is taken.
    entries: Vec<Entry>,
    /// Free slots, the last taken first.
    free: Vec<u32>,
}

impl Tournament {
    /// How many jobs are in.
    pub fn len(&self) -> usize {
        self.slots - self.free.len()
    }

    /// The first job at the time of the last update, if any.
    pub fn head(&self) -> Option<JobIdx> {
        let s = *self.winner.get(1)?;
        (s != NONE).then(|| self.entries[s as usize].job)
    }

    /// Plays again every node whose certificate has expired by `now`:
    /// afterwards every node's winner is right at `now`. Times passed must
    /// not decrease.
    pub fn advance(&mut self, now: Time) {
        if self.slots > 1 {
            self.advance_node(1, now);
        }
    }

    fn advance_node(&mut self, node: usize, now: Time) {
        if self.expires[node] > now || node >= self.slots {
            return;
        }
        self.advance_node(2 * node, now);
        self.advance_node(2 * node + 1, now);
        self.play(node, now);
    }

    /// Adds a job at `now` (after [`Tournament::advance`] to `now`).
    pub fn insert(&mut self, entry: Entry, now: Time) {
        if self.free.is_empty() {
            self.grow(now);
        }
        let slot = self.free.pop().expect("a free slot after growing");
        self.entries[slot as usize] = entry;
        let leaf = self.slots + slot as usize;
        self.winner[leaf] = slot;
        // Up to the first match the new job loses, matches change; above
        // it every match is between the same two jobs as before, and only
        // expiries can change.
        let mut node = leaf;
        while node > 1 {
            node /= 2;
            let before = self.winner[node];
            self.play(node, now);
            if self.winner[node] == before {
                break;
            }
        }
        self.settle_above(node);
    }

    /// Takes the head out at `now` (after [`Tournament::advance`] to
    /// `now`) and returns its slot.
    pub fn pop(&mut self, now: Time) -> Option<u32> {
        let slot = *self.winner.get(1).filter(|&&s| s != NONE)?;
        self.remove_slot(slot, now);
        Some(slot)
    }

    /// Takes the job in `slot` out at `now` (after [`Tournament::advance`]
    /// to `now`). Tournaments that saw the same insertions and removals in
    /// the same order put each job in the same slot, so a job popped from
    /// one is taken out of the others by its slot.
    pub fn remove_slot(&mut self, slot: u32, now: Time) {
        let mut node = self.slots + slot as usize;
        debug_assert_ne!(self.winner[node], NONE, "slot {slot} is empty");
        self.winner[node] = NONE;
        self.free.push(slot);
        // Matches change up to the first the job had lost (played again:
        // its loser changed); that match's winner beat the job, and so
        // beats whatever replaced it, so above it only expiries can change.
        while node > 1 {
            node /= 2;
            let was = self.winner[node];
            self.play(node, now);
            if was != slot {
                break;
            }
        }
        self.settle_above(node);
    }

    /// Recomputes the expiries above `node` while they change.
    fn settle_above(&mut self, mut node: usize) {
        while node > 1 {
            node /= 2;
            let expires = self.expires[2 * node]
                .min(self.expires[2 * node + 1])
                .min(self.cert[node]);
            if self.expires[node] == expires {
                break;
            }
            self.expires[node] = expires;
        }
    }

    /// The job in `slot`.
    pub fn job_in(&self, slot: u32) -> JobIdx {
        self.entries[slot as usize].job
    }

    /// Becomes a tournament of `other`'s jobs, each in the same slot, with
    /// lines from `line`, played at `now`: a queue that fell out of step
    /// (see [`Tournament::remove_slot`]) brought back into it. Costs in
    /// proportion to the jobs in both, not to the slots.
    pub fn rebuild_like(
        &mut self,
        other: &Tournament,
        now: Time,
        mut line: impl FnMut(JobIdx) -> Line,
    ) {
        if self.slots != other.slots {
            self.slots = other.slots;
            self.winner = vec![NONE; 2 * other.slots];
            self.expires = vec![NEVER; 2 * other.slots];
            self.cert = vec![NEVER; 2 * other.slots];
            self.entries.clone_from(&other.entries);
        }
        // Entries are copied as their leaves are visited: a tree grown
        // once for a long queue is not copied whole for a short one.
        self.free.clone_from(&other.free);
        if self.slots > 0 {
            self.rebuild_node(other, 1, now, &mut line);
        }
    }

    fn rebuild_node(
        &mut self,
        other: &Tournament,
        node: usize,
        now: Time,
        line: &mut impl FnMut(JobIdx) -> Line,
    ) {
        if other.winner[node] == NONE {
            self.clear_node(node);
            return;
        }
        if node >= self.slots {
            let slot = other.winner[node];
            self.winner[node] = slot;
            let e = other.entries[slot as usize];
            self.entries[slot as usize] = Entry {
                line: line(e.job),
                ..e
            };
            return;
        }
        self.rebuild_node(other, 2 * node, now, line);
        self.rebuild_node(other, 2 * node + 1, now, line);
        self.play(node, now);
    }

    /// Empties the subtree of `node`, visiting only what is in it.
    fn clear_node(&mut self, node: usize) {
        if self.winner[node] == NONE {
            return;
        }
        self.winner[node] = NONE;
        self.expires[node] = NEVER;
        self.cert[node] = NEVER;
        if node < self.slots {
            self.clear_node(2 * node);
            self.clear_node(2 * node + 1);
        }
    }

    /// Doubles the slots (the first time: one), keeping the jobs in their
    /// slots, and plays the tree again at `now`.
    fn grow(&mut self, now: Time) {
        let old = self.slots;
        let slots = (2 * old).max(1);
        let mut winner = vec![NONE; 2 * slots];
        winner[slots..slots + old].copy_from_slice(&self.winner[old..2 * old]);
        self.winner = winner;
        self.expires = vec![NEVER; 2 * slots];
        self.cert = vec![NEVER; 2 * slots];
        self.entries.resize(
            slots,
            Entry {
                line: Line {
                    constant: 0.0,
                    slope: 0.0,
                },
                submit: 0,
                job: 0,
            },
        );
        self.slots = slots;
        // New slots are taken lowest first.
        self.free.extend((old as u32..slots as u32).rev());
        for node in (1..slots).rev() {
            self.play(node, now);
        }
    }

    /// The match at `node` between its children's winners, at `now`.
    #[inline]
    fn play(&mut self, node: usize, now: Time) {
        let (l, r) = (2 * node, 2 * node + 1);
        let (a, b) = (self.winner[l], self.winner[r]);
        let below = self.expires[l].min(self.expires[r]);
        let (winner, cert) = if a == NONE {
            (b, NEVER)
        } else if b == NONE {
            (a, NEVER)
        } else {
            let (ea, eb) = (&self.entries[a as usize], &self.entries[b as usize]);
            if ahead(ea, eb, now) {
                (a, certificate(ea, eb, now))
            } else {
                (b, certificate(eb, ea, now))
            }
        };
        self.winner[node] = winner;
        self.cert[node] = cert;
        self.expires[node] = below.min(cert);
    }
}

/// Where in `entries` the first job at `now` is, by a scan of all: the
/// order's definition, which the tests hold the tournament to.
#[cfg(test)]
pub fn scan(entries: &[Entry], now: Time) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, e) in entries.iter().enumerate() {
        if best.is_none_or(|b| ahead(e, &entries[b], now)) {
            best = Some(i);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(job: JobIdx, constant: f64, slope: f64, submit: Time) -> Entry {
        Entry {
            line: Line { constant, slope },
            submit,
            job,
        }
    }

    #[test]
    fn the_head_changes_when_lines_cross() {
        // Job 0: 10 + 0.5 wait from 0; job 1: 0 + 1 wait from 0. They
        // cross at wait 20; at 20 the values tie and job 0 (same submit,
        // earlier index) still leads; from 21 job 1 does.
        let mut t = Tournament::default();
        t.insert(entry(0, 10.0, 0.5, 0), 0);
        t.insert(entry(1, 0.0, 1.0, 0), 0);
        for (now, head) in [(0, 0), (19, 0), (20, 0), (21, 1), (1000, 1)] {
            t.advance(now);
            assert_eq!(t.head(), Some(head), "at {now}");
        }
        t.pop(1000);
        assert_eq!(t.head(), Some(0));
        t.pop(1000);
        assert_eq!((t.head(), t.len()), (None, 0));
    }

    #[test]
    fn a_later_submit_loses_a_tie() {
        // Equal constants, no slope: job 1 submitted first leads.
        let mut t = Tournament::default();
        t.insert(entry(1, 3.0, 0.0, 5), 5);
        t.insert(entry(0, 3.0, 0.0, 7), 7);
        t.advance(100);
        assert_eq!(t.head(), Some(1));
    }

    /// One step of a random run: insert a job (with a line for each of
    /// two orders), take the head of one order out, or move time on.
    #[derive(Debug, Clone)]
    enum Step {
        Insert([(f64, f64); 2]),
        Pop(usize),
        Wait(Time),
    }

    fn step() -> impl Strategy<Value = Step> {
        // Small grids of values make exact ties and crossings at whole
        // seconds common; the wide ones exercise rounding.
        let value = || {
            prop_oneof![
                (0u32..8).prop_map(|v| f64::from(v) / 4.0),
                (0u32..4).prop_map(|v| f64::from(v) / 3.0),
                0.0..1e4f64,
            ]
        };
        let slope = || {
            prop_oneof![
                (0u32..4).prop_map(|v| f64::from(v) / 8.0),
                Just(1.0 / 3.0),
                0.0..2.0f64,
                (1u32..100_000).prop_map(|e| 1.0 / f64::from(e)),
            ]
        };
        prop_oneof![
            3 => [(value(), slope()), (value(), slope())].prop_map(Step::Insert),
            1 => (0usize..2).prop_map(Step::Pop),
            2 => prop_oneof![0..3i64, 0..100i64, 0..100_000i64].prop_map(Step::Wait),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Two tournaments of the same jobs under two orders, as the
        /// scheduler keeps one per situation: whatever happens, each root
        /// is the head a scan finds, and a job popped from one is taken
        /// out of the other by its slot.
        #[test]
        fn each_root_is_the_head_a_scan_finds(steps in proptest::collection::vec(step(), 1..120)) {
            let mut t = [Tournament::default(), Tournament::default()];
            let mut inside: [Vec<Entry>; 2] = [Vec::new(), Vec::new()];
            let mut now: Time = 0;
            let mut next: JobIdx = 0;
            for s in steps {
                match s {
                    Step::Insert(lines) => {
                        for k in 0..2 {
                            let e = entry(next, lines[k].0, lines[k].1, now);
                            t[k].advance(now);
                            t[k].insert(e, now);
                            inside[k].push(e);
                        }
                        next += 1;
                    }
                    Step::Pop(k) => {
                        let head = scan(&inside[k], now).map(|i| inside[k][i].job);
                        let slot = t[k].pop(now);
                        prop_assert_eq!(slot.map(|s| t[k].job_in(s)), head);
                        if let (Some(slot), Some(head)) = (slot, head) {
                            prop_assert_eq!(t[1 - k].job_in(slot), head);
                            t[1 - k].remove_slot(slot, now);
                            for v in &mut inside {
                                v.retain(|e| e.job != head);
                            }
                        }
                    }
                    Step::Wait(dt) => {
                        now += dt;
                        for x in &mut t {
                            x.advance(now);
                        }
                    }
                }
                for k in 0..2 {
                    prop_assert_eq!(t[k].head(), scan(&inside[k], now).map(|i| inside[k][i].job), "order {} at {}", k, now);
                    prop_assert_eq!(t[k].len(), inside[k].len());
                }
            }
        }
    }
}
