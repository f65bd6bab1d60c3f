//! The availability profile: free processors as a step function of time.
//!
//! Backfilling schedulers plan against it: running jobs hold processors until
//! their estimated end, reservations hold them in the future, and the
//! question every policy asks is "when is the earliest time `p` processors
//! are free for `d` seconds?".
//!
//! The steps are kept in blocks of a few dozen, each knowing the least and
//! most free processors over its steps and carrying a pending addition. A
//! small profile (a few hundred processors) is one or a few blocks, scanned
//! like a plain vector; a big one (thousands of jobs running at once, each
//! ending at its own time) is changed and searched a block at a time, so a
//! hold over thousands of steps costs one addition per block and a scan
//! skips blocks that are all free enough or all too full.
//!
//! Times saturate at [`Time::MAX`]: a hold ending beyond it lasts forever.

use crate::workload::Time;

/// One step: from `time` until the next step's time, `free` processors are free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub time: Time,
    pub free: u32,
}

/// Steps per block after a split; a block splits when it holds twice as
/// many, and merges with its neighbour when it falls under a quarter.
const BLOCK: usize = 64;

/// Partial changes after which a block's bounds are recomputed exactly.
const LOOSE_CHANGES: u32 = 16;

#[derive(Debug, Clone)]
struct Block {
    /// Ascending times; `free` without `add`.
    steps: Vec<Step>,
    /// Added to every step's stored free count: a change covering the whole
    /// block is one addition.
    add: i64,
    /// Bounds on the free processors over the block's steps, with `add`:
    /// never above the least nor below the most, and exact after
    /// [`Block::refresh`]. Scans only use them to pass whole blocks, so
    /// bounds a little loose cost speed, never correctness.
    /// Signed: loose bounds shifted by a whole-block change may pass 0.
    min: i64,
    max: i64,
    /// Changes to part of the block since the bounds were exact.
    loose: u32,
}

impl Block {
    fn new(steps: Vec<Step>) -> Block {
        let mut b = Block {
            steps,
            add: 0,
            min: 0,
            max: 0,
            loose: 0,
        };
        b.refresh();
        b
    }

    fn free(&self, i: usize) -> u32 {
        (i64::from(self.steps[i].free) + self.add) as u32
    }

    fn first(&self) -> Time {
        self.steps[0].time
    }

    fn last(&self) -> Time {
        self.steps[self.steps.len() - 1].time
    }

    /// Folds `add` into the steps and recomputes the bounds.
    fn refresh(&mut self) {
        let add = self.add;
        let (mut min, mut max) = (u32::MAX, 0);
        for s in &mut self.steps {
            s.free = (i64::from(s.free) + add) as u32;
            min = min.min(s.free);
            max = max.max(s.free);
        }
        self.add = 0;
        (self.min, self.max) = (i64::from(min), i64::from(max));
        self.loose = 0;
    }

    /// Adds `delta` to the steps in `range`. The bounds only widen, by
    /// `delta` on its side (the least may have fallen by that much, or the
    /// most risen), and are made exact again every few changes: a change
    /// adds one number per step, and a small profile is not rescanned whole
    /// at every change.
    #[inline]
    fn change_part(&mut self, range: std::ops::Range<usize>, delta: i64) {
        if self.add != 0 {
            // Stored counts are unsigned: fold the pending addition first.
            self.refresh();
        }
        // Two's complement: adding the low bits of a negative `delta`
        // subtracts, and the results stay in range.
        let d = delta as u32;
        for s in &mut self.steps[range] {
            s.free = s.free.wrapping_add(d);
        }
        if delta < 0 {
            self.min += delta;
        } else {
            self.max += delta;
        }
        self.loose += 1;
        if self.loose >= LOOSE_CHANGES {
            self.refresh();
        }
    }

    /// Adds `delta` to every step.
    fn shift(&mut self, delta: i64) {
        self.add += delta;
        self.min += delta;
        self.max += delta;
    }
}

/// Where [`Profile::free_runs`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunsWalked {
    /// At the limit, with the start of the run under way there, if any.
    Until(Option<Time>),
    /// Past the last step: every run was reported.
    End,
}

/// Where a change's two ends fall among the steps of a profile of one
/// block: the first step at or after each. A hint for the next change
/// over the same span, checked before use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ends {
    from: u32,
    to: u32,
}

/// Whether `k` is the first of `steps` at or after `t`.
#[inline]
fn first_at_or_after(steps: &[Step], k: usize, t: Time) -> bool {
    k <= steps.len()
        && (k == 0 || steps[k - 1].time < t)
        && steps.get(k).is_none_or(|s| s.time >= t)
}

/// A position: block index, step index in the block.
type Pos = (usize, usize);

/// Free processors over time from a start instant to infinity. The last
/// step extends forever.
#[derive(Debug, Clone)]
pub struct Profile {
    procs: u32,
    /// Never empty, and no block is empty.
    blocks: Vec<Block>,
    /// Each block's first time, side by side so finding a block reads one
    /// contiguous array.
    firsts: Vec<Time>,
    /// Counts the changes, so a position kept by a caller is known stale.
    version: u64,
}

/// Where a walk of [`Profile::free_runs`] stopped: the next one
/// from there starts without a search while the profile is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    version: u64,
    at: Pos,
}

impl Profile {
    /// An empty machine of `procs` processors from `now` on.
    pub fn new(procs: u32, now: Time) -> Self {
        Profile {
            procs,
            blocks: vec![Block::new(vec![Step {
                time: now,
                free: procs,
            }])],
            firsts: vec![now],
            version: 0,
        }
    }

    /// Resets to the machine from `now` with holds from `now` that end at
    /// the given times, sorted by end (ends not after `now` hold nothing).
    /// One pass: cheaper than a hold at a time when thousands run.
    pub fn reset_to_holds(&mut self, now: Time, ends: impl Iterator<Item = (Time, u32)>) {
        self.version += 1;
        let mut steps = Vec::new();
        let mut held: u32 = 0;
        for (end, p) in ends {
            if end <= now {
                continue;
            }
            held += p;
            match steps.last_mut() {
                Some(Step { time, free }) if *time == end => *free += p,
                _ => steps.push(Step { time: end, free: p }),
            }
        }
        debug_assert!(held <= self.procs, "holding more than the machine");
        // Prefix sums turn the released counts into free counts.
        let mut free = self.procs - held;
        for s in &mut steps {
            free += s.free;
            s.free = free;
        }
        self.blocks.clear();
        let mut first = vec![Step {
            time: now,
            free: self.procs - held,
        }];
        let mut rest = steps.into_iter();
        first.extend(rest.by_ref().take(BLOCK - 1));
        self.blocks.push(Block::new(first));
        loop {
            let chunk: Vec<Step> = rest.by_ref().take(BLOCK).collect();
            if chunk.is_empty() {
                break;
            }
            self.blocks.push(Block::new(chunk));
        }
        self.firsts.clear();
        self.firsts.extend(self.blocks.iter().map(Block::first));
    }

    /// Number of steps.
    pub fn step_count(&self) -> usize {
        self.blocks.iter().map(|b| b.steps.len()).sum()
    }

    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// The steps in time order.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.blocks.iter().flat_map(|b| {
            b.steps.iter().map(move |s| Step {
                time: s.time,
                free: (i64::from(s.free) + b.add) as u32,
            })
        })
    }

    /// Start of the profile.
    pub fn start(&self) -> Time {
        self.blocks[0].first()
    }

    /// Free processors at time `t` (`t` at or after the start).
    pub fn free_at(&self, t: Time) -> u32 {
        let (b, i) = self.locate(t);
        self.blocks[b].free(i)
    }

    /// The step covering `t` (the first step when `t` is before the start).
    #[inline]
    fn locate(&self, t: Time) -> Pos {
        // Most questions are asked about now, the start.
        if t <= self.firsts[0] {
            return (0, 0);
        }
        // partition_point gives the first one after t; the one before covers t.
        let b = self.firsts.partition_point(|&f| f <= t).max(1) - 1;
        let i = self.blocks[b].steps.partition_point(|s| s.time <= t).max(1) - 1;
        (b, i)
    }

    /// Earliest time `t >= from` such that at least `p` processors are free
    /// throughout `[t, t + d)`. Always exists when `p <= procs`, because the
    /// last step extends forever and all holds eventually end.
    pub fn earliest_start(&self, p: u32, d: Time, from: Time) -> Time {
        self.earliest_start_near(p, d, from).0
    }

    /// [`Profile::earliest_start`], and where a hold of `p` for `d` from
    /// there would have its ends (see [`Profile::allocate_near`]).
    pub fn earliest_start_near(&self, p: u32, d: Time, from: Time) -> (Time, Option<Ends>) {
        debug_assert!(p <= self.procs, "job wider than the machine");
        match self.scan_at(p, d, from, (Time::MAX, Time::MAX)) {
            Some((t, (_, i), (past, ib))) => {
                // Positions within a block are the steps' own only when
                // there is one block; the end's is then in it or past it.
                let ends = (self.blocks.len() == 1).then(|| {
                    let steps = &self.blocks[0].steps;
                    let from = if steps[i].time == t { i } else { i + 1 };
                    let to = if past == 0 { ib } else { steps.len() };
                    Ends {
                        from: from as u32,
                        to: to as u32,
                    }
                });
                (t, ends)
            }
            None => (from, None),
        }
    }

    /// [`Profile::earliest_start`] when it is before `before`, else `None`:
    /// the search stops where a start would be of no use to the caller.
    pub fn earliest_start_before(&self, p: u32, d: Time, from: Time, before: Time) -> Option<Time> {
        debug_assert!(p <= self.procs, "job wider than the machine");
        self.scan_at(p, d, from, (before, Time::MAX))
            .map(|(t, _, _)| t)
    }

    /// For a job that holds `p` processors over `[held_at, held_at + d)`:
    /// the earliest start `t` in `[from, held_at)` if its own hold were
    /// released, or `None` when it cannot start earlier. Nothing is released:
    /// most jobs cannot move, and finding that out must not churn the steps.
    pub fn earlier_start(&self, p: u32, d: Time, from: Time, held_at: Time) -> Option<Time> {
        // Over its own hold the job always finds its `p` processors, and a
        // window starting before `held_at` ends inside that hold: only the
        // part before `held_at` needs looking at.
        self.scan(p, d, from, held_at)
    }

    /// True when no step of block `b` has `p` free.
    fn block_full(&self, b: usize, p: u32) -> bool {
        self.blocks[b].max < i64::from(p)
    }

    /// The first step of block `b` from `start` on where `stop(time, free)`
    /// holds. A tight loop over one block's steps.
    #[inline]
    fn find_in(&self, b: usize, start: usize, stop: impl Fn(Time, u32) -> bool) -> Option<usize> {
        let blk = &self.blocks[b];
        let add = blk.add;
        let steps = blk.steps.get(start..)?;
        steps
            .iter()
            .position(|s| stop(s.time, (i64::from(s.free) + add) as u32))
            .map(|k| start + k)
    }

    /// The first step after `at` that ends a window reaching to `end` with
    /// `p` free: a step at or after `end` (the window fits: `Ok`) or a step
    /// with fewer than `p` free (`Err` with its position). `Ok` too when the
    /// steps run out.
    #[inline]
    fn window_from(&self, (b, i): Pos, p: u32, end: Time) -> Result<Pos, Pos> {
        let stop = |t: Time, f: u32| t >= end || f < p;
        let mut at = (b, self.find_in(b, i + 1, stop));
        loop {
            if let (blk, Some(k)) = at {
                return if self.blocks[blk].steps[k].time >= end {
                    Ok((blk, k))
                } else {
                    Err((blk, k))
                };
            }
            let next = at.0 + 1;
            let Some(blk) = self.blocks.get(next) else {
                return Ok((next, 0));
            };
            if blk.first() >= end {
                return Ok((next, 0));
            }
            // A whole block inside the window, all free enough: skip it.
            at = if blk.min >= i64::from(p) && blk.last() < end {
                (next, None)
            } else {
                (next, self.find_in(next, 0, stop))
            };
        }
    }

    /// The first start `t` in `[from, limit)` where at least `p` are free
    /// at every step overlapping `[t, min(t + d, limit))`.
    fn scan(&self, p: u32, d: Time, from: Time, limit: Time) -> Option<Time> {
        self.scan_at(p, d, from, (limit, limit)).map(|(t, _, _)| t)
    }

    /// The first start `t` in `[from, limit)` where at least `p` are free
    /// at every step overlapping `[t, min(t + d, window_cap))` (windows cut
    /// at `limit` for [`Profile::scan`], not at all for the searches for a
    /// start), with the step covering the start and the first step at or
    /// after the window's end (one past the last block if none).
    #[inline]
    fn scan_at(
        &self,
        p: u32,
        d: Time,
        from: Time,
        (limit, window_cap): (Time, Time),
    ) -> Option<(Time, Pos, Pos)> {
        if let [blk] = &self.blocks[..] {
            // The usual case on a machine of hundreds of processors.
            return Self::scan_steps(blk, p, d, from, (limit, window_cap));
        }
        let (mut b, mut i) = self.locate(from);
        let mut candidate = from;
        while candidate < limit {
            if self.blocks[b].free(i) < p {
                // Blocked here: the next possible start is the next step
                // with `p` free; blocks all too full are passed whole.
                let mut start = i + 1;
                loop {
                    if !self.block_full(b, p) {
                        if let Some(k) = self.find_in(b, start, |_, f| f >= p) {
                            i = k;
                            break;
                        }
                    }
                    b += 1;
                    if b == self.blocks.len() {
                        return None;
                    }
                    start = 0;
                }
                candidate = self.blocks[b].steps[i].time;
                continue;
            }
            match self.window_from((b, i), p, candidate.saturating_add(d).min(window_cap)) {
                Ok(end) => return Some((candidate, (b, i), end)),
                // Too full there: restart from that step.
                Err(at) => (b, i) = at,
            }
        }
        None
    }

    /// [`Profile::scan_at`] on a profile of one block: two tight searches
    /// over one slice, on the stored counts.
    #[inline]
    fn scan_steps(
        blk: &Block,
        p: u32,
        d: Time,
        from: Time,
        (limit, window_cap): (Time, Time),
    ) -> Option<(Time, Pos, Pos)> {
        let steps = &blk.steps[..];
        let threshold = i64::from(p) - blk.add;
        let fits = |s: &Step| i64::from(s.free) >= threshold;
        let mut i = if from <= steps[0].time {
            0
        } else {
            steps.partition_point(|s| s.time <= from) - 1
        };
        let mut candidate = from;
        while candidate < limit {
            if !fits(&steps[i]) {
                // The next possible start is the next step with `p` free.
                i += 1 + steps[i + 1..].iter().position(fits)?;
                candidate = steps[i].time;
                continue;
            }
            let end = candidate.saturating_add(d).min(window_cap);
            let k = i + 1;
            match steps[k..].iter().position(|s| s.time >= end || !fits(s)) {
                // Past the last step: one past the last block.
                None => return Some((candidate, (0, i), (1, 0))),
                Some(n) if steps[k + n].time >= end => {
                    return Some((candidate, (0, i), (0, k + n)))
                }
                // Too full there: look on from that step.
                Some(n) => i = k + n,
            }
        }
        None
    }

    /// Until when at least `p` processors stay free from `t` on (the next
    /// step with fewer, `Time::MAX` when there is none); `None` when fewer
    /// are free at `t`. A job of `p` fits at `t` when it ends by then: one
    /// search answers [`Profile::fits`] for every estimate.
    pub fn free_until(&self, p: u32, t: Time) -> Option<Time> {
        let (mut b, i) = self.locate(t);
        if self.blocks[b].free(i) < p {
            return None;
        }
        let mut start = i + 1;
        while b < self.blocks.len() {
            if self.blocks[b].min < i64::from(p) {
                if let Some(k) = self.find_in(b, start, |_, f| f < p) {
                    return Some(self.blocks[b].steps[k].time);
                }
            }
            b += 1;
            start = 0;
        }
        Some(Time::MAX)
    }

    /// Walks the steps from the one covering `from` up to `until` and
    /// reports each maximal run `[a, b)` of time with at least `p` free
    /// that ends before `until` (`a` no earlier than `from`). `open` is the
    /// start of a run already under way at `from`. A run reaching the last
    /// step never ends and is reported with `b = Time::MAX`. Blocks all too
    /// full or all free enough are passed whole.
    ///
    /// The walk starts where the last one stopped when `resume` says so
    /// and the profile has not changed since (`from` is then that walk's
    /// `until`), and sets `resume` for the next walk.
    pub fn free_runs(
        &self,
        p: u32,
        from: Time,
        until: Time,
        mut open: Option<Time>,
        resume: &mut Option<Resume>,
        mut run: impl FnMut(Time, Time),
    ) -> RunsWalked {
        let p64 = i64::from(p);
        let (first_block, mut i) = match resume.take() {
            Some(r) if r.version == self.version => r.at,
            _ => self.locate(from),
        };
        let stop = |at: Pos, resume: &mut Option<Resume>| {
            *resume = Some(Resume {
                version: self.version,
                at,
            });
        };
        for b in first_block..self.blocks.len() {
            let blk = &self.blocks[b];
            if blk.first() >= until {
                stop((b, 0), resume);
                return RunsWalked::Until(open);
            }
            let whole = i == 0 && blk.last() < until;
            if whole && blk.max < p64 {
                if let Some(a) = open.take() {
                    run(a, blk.first());
                }
            } else if whole && blk.min >= p64 {
                open.get_or_insert(blk.first().max(from));
            } else {
                // Alternate two tight searches, for the next step with `p`
                // free and the next with fewer, on the stored counts.
                let threshold = p64 - blk.add;
                let mut j = i;
                loop {
                    let steps = &blk.steps[j..];
                    let next = match open {
                        None => steps
                            .iter()
                            .position(|s| s.time >= until || i64::from(s.free) >= threshold),
                        Some(_) => steps
                            .iter()
                            .position(|s| s.time >= until || i64::from(s.free) < threshold),
                    };
                    let Some(k) = next else { break };
                    let s = steps[k];
                    if s.time >= until {
                        stop((b, j + k), resume);
                        return RunsWalked::Until(open);
                    }
                    open = match open {
                        None => Some(s.time.max(from)),
                        Some(a) => {
                            run(a, s.time);
                            None
                        }
                    };
                    j += k + 1;
                }
            }
            i = 0;
        }
        if let Some(a) = open {
            run(a, Time::MAX);
        }
        RunsWalked::End
    }

    /// The fewest processors free at any step overlapping `[t, end)`, for
    /// `t < end`.
    pub fn min_free(&self, t: Time, end: Time) -> u32 {
        let (first, i) = self.locate(t);
        // The step covering `t`, then every step that begins before `end`.
        let mut least = self.blocks[first].free(i);
        for (b, blk) in self.blocks.iter().enumerate().skip(first) {
            let from = if b == first { i + 1 } else { 0 };
            // A block whose bound cannot lower the least is passed whole.
            if from == 0 && blk.last() < end && blk.min >= i64::from(least) {
                continue;
            }
            for k in from..blk.steps.len() {
                if blk.steps[k].time >= end {
                    return least;
                }
                least = least.min(blk.free(k));
            }
        }
        least
    }

    /// True when `p` processors are free throughout `[t, t + d)`.
    pub fn fits(&self, p: u32, d: Time, t: Time) -> bool {
        let at = self.locate(t);
        self.blocks[at.0].free(at.1) >= p && self.window_from(at, p, t.saturating_add(d)).is_ok()
    }

    /// Holds `p` processors over `[t, t + d)`. The caller guarantees they are
    /// free (checked in debug builds).
    pub fn allocate(&mut self, t: Time, d: Time, p: u32) {
        self.allocate_near(t, d, p, None);
    }

    /// Gives back `p` processors over `[t, t + d)`.
    pub fn release(&mut self, t: Time, d: Time, p: u32) {
        self.release_near(t, d, p, None);
    }

    /// Moves a hold of `p` processors for `d` from `from` to the earlier
    /// `to`, where the caller guarantees they are free before `from`. The
    /// steps end as a release and a hold leave them. Where the two holds
    /// overlap nothing changes, so only their differences are applied: a
    /// reservation moved a little earlier (the usual move when a queue is
    /// compressed) changes a few steps at each end instead of every step it
    /// covers, twice.
    pub fn move_earlier(&mut self, from: Time, to: Time, d: Time, p: u32) {
        debug_assert!(to <= from, "moving a hold later: {from} to {to}");
        let shift = from - to;
        if d > shift {
            self.allocate(to, shift, p);
            self.release(to.saturating_add(d), shift, p);
        } else {
            self.release(from, d, p);
            self.allocate(to, d, p);
        }
    }

    /// [`Profile::allocate`], looking first where `near` says the hold's
    /// ends are; returns where they are after it, for the release that
    /// takes it back (a search's path places and removes jobs last in,
    /// first out, so the steps are then as they were).
    pub fn allocate_near(&mut self, t: Time, d: Time, p: u32, near: Option<Ends>) -> Option<Ends> {
        debug_assert!(
            self.fits(p, d, t),
            "allocating {p} over [{t}, {}) that is not free",
            t.saturating_add(d)
        );
        self.change(t, t.saturating_add(d), -i64::from(p), near)
    }

    /// [`Profile::release`], looking first where `near` says the hold's
    /// ends are (see [`Profile::allocate_near`]).
    pub fn release_near(&mut self, t: Time, d: Time, p: u32, near: Option<Ends>) -> Option<Ends> {
        let ends = self.change(t, t.saturating_add(d), i64::from(p), near);
        debug_assert!(
            self.steps().all(|s| s.free <= self.procs),
            "releasing more than the machine"
        );
        ends
    }

    /// Adds `delta` to the free count over `[from, to)`, splitting steps at
    /// both ends and merging equal neighbours afterwards. A hold reaching
    /// `Time::MAX` never ends.
    #[inline]
    fn change(&mut self, from: Time, to: Time, delta: i64, near: Option<Ends>) -> Option<Ends> {
        let from = from.max(self.start());
        if to <= from {
            return None;
        }
        self.version += 1;
        if self.blocks.len() == 1 && self.blocks[0].steps.len() < 2 * BLOCK - 1 {
            // The usual case on a machine of hundreds of processors.
            return Some(self.change_in_one_block(from, to, delta, near));
        }
        let (mut a, _) = self.split_at(from);
        let reaches_end = to == Time::MAX;
        let (bb, ib) = if reaches_end {
            let last = self.blocks.len() - 1;
            (last, self.blocks[last].steps.len())
        } else {
            let (b, divided) = self.split_at(to);
            if divided {
                a = self.locate(from);
            }
            b
        };
        let (ba, ia) = a;
        if ba == bb {
            self.blocks[ba].change_part(ia..ib, delta);
        } else {
            let first = &mut self.blocks[ba];
            if ia == 0 {
                first.shift(delta);
            } else {
                first.change_part(ia..first.steps.len(), delta);
            }
            for blk in &mut self.blocks[ba + 1..bb] {
                blk.shift(delta);
            }
            if bb < self.blocks.len() && ib > 0 {
                self.blocks[bb].change_part(0..ib, delta);
            }
        }
        // Only the boundaries can have become equal to a neighbour; the
        // later one first, so the earlier position stays valid.
        if !reaches_end {
            self.merge_at((bb, ib));
        }
        self.merge_at((ba, ia));
        None
    }

    /// [`Profile::change`] on a profile of one block with room for the two
    /// steps a change may add: one vector, searched once from each end of
    /// the change (unless `near` tells where they are), no block to divide.
    #[inline]
    fn change_in_one_block(
        &mut self,
        from: Time,
        to: Time,
        delta: i64,
        near: Option<Ends>,
    ) -> Ends {
        let blk = &mut self.blocks[0];
        // Steps put in copy a stored count, which `add` applies to as well;
        // `change_part` folds it before adding.
        let steps = &mut blk.steps;
        // `from` is at or after the first step, so `ia >= 1` unless it is it.
        let ia = match near {
            Some(n) if first_at_or_after(steps, n.from as usize, from) => n.from as usize,
            _ => steps.partition_point(|s| s.time < from),
        };
        let put_a = ia == steps.len() || steps[ia].time != from;
        if put_a {
            let free = steps[ia - 1].free;
            steps.insert(ia, Step { time: from, free });
        }
        let ib = match near.map(|n| n.to as usize + usize::from(put_a)) {
            Some(k) if k >= ia && first_at_or_after(steps, k, to) => k,
            _ => ia + steps[ia..].partition_point(|s| s.time < to),
        };
        if to != Time::MAX && (ib == steps.len() || steps[ib].time != to) {
            let free = steps[ib - 1].free;
            steps.insert(ib, Step { time: to, free });
        }
        blk.change_part(ia..ib, delta);
        // Only the two ends can have become equal to the step before; the
        // later one first, so `ia` stays valid. Bounds over more steps
        // still bound the ones left.
        let steps = &mut blk.steps;
        if ib < steps.len() && steps[ib].free == steps[ib - 1].free {
            steps.remove(ib);
        }
        let merged_a = ia > 0 && steps[ia].free == steps[ia - 1].free;
        if merged_a {
            steps.remove(ia);
        }
        // The first steps at or after each end now.
        Ends {
            from: ia as u32,
            to: (ib - usize::from(merged_a)) as u32,
        }
    }

    /// Makes sure a step starts exactly at `t` (`t` at or after the start);
    /// returns its position, and whether a block was divided (positions
    /// taken before may have moved).
    #[inline]
    fn split_at(&mut self, t: Time) -> (Pos, bool) {
        let (b, i) = self.locate(t);
        let blk = &mut self.blocks[b];
        if blk.steps[i].time == t {
            return ((b, i), false);
        }
        let stored = blk.steps[i].free;
        blk.steps.insert(
            i + 1,
            Step {
                time: t,
                free: stored,
            },
        );
        if blk.steps.len() > 2 * BLOCK {
            let tail = blk.steps.split_off(BLOCK);
            let mut second = Block::new(tail);
            second.add = blk.add;
            second.refresh();
            blk.refresh();
            self.firsts.insert(b + 1, second.first());
            self.blocks.insert(b + 1, second);
            return (self.locate(t), true);
        }
        ((b, i + 1), false)
    }

    /// Removes the step at `(b, i)` when it has the free count of the step
    /// before it.
    #[inline]
    fn merge_at(&mut self, (b, i): Pos) {
        if (b, i) == (0, 0) {
            return;
        }
        let before = if i > 0 {
            self.blocks[b].free(i - 1)
        } else {
            let prev = &self.blocks[b - 1];
            prev.free(prev.steps.len() - 1)
        };
        if before != self.blocks[b].free(i) {
            return;
        }
        let blk = &mut self.blocks[b];
        blk.steps.remove(i);
        if blk.steps.is_empty() {
            self.blocks.remove(b);
            self.firsts.remove(b);
            return;
        }
        if i == 0 {
            // The removed step's twin is in the block before: this block's
            // bounds may have changed.
            self.firsts[b] = blk.first();
            blk.refresh();
        }
        self.join_small(b);
    }

    /// Joins block `b` with its successor when both fit in one block and
    /// `b` has become small, so scans do not crawl over tiny blocks.
    fn join_small(&mut self, b: usize) {
        if b + 1 >= self.blocks.len()
            || self.blocks[b].steps.len() >= BLOCK / 4
            || self.blocks[b].steps.len() + self.blocks[b + 1].steps.len() > 2 * BLOCK
        {
            return;
        }
        let mut next = self.blocks.remove(b + 1);
        self.firsts.remove(b + 1);
        next.refresh();
        let blk = &mut self.blocks[b];
        blk.refresh();
        blk.steps.append(&mut next.steps);
        blk.refresh();
    }

    /// Forgets the past before `now`: the step covering `now` is moved to
    /// start at `now`.
    pub fn advance(&mut self, now: Time) {
        if now <= self.start() {
            return;
        }
        self.version += 1;
        let (b, i) = self.locate(now);
        if b > 0 {
            self.blocks.drain(..b);
            self.firsts.drain(..b);
        }
        let first = &mut self.blocks[0];
        if i > 0 {
            // Bounds over more steps still bound the ones left.
            first.steps.drain(..i);
        }
        first.steps[0].time = now;
        self.firsts[0] = now;
        self.join_small(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frees(p: &Profile) -> Vec<(Time, u32)> {
        p.steps().map(|s| (s.time, s.free)).collect()
    }

    #[test]
    fn allocate_and_release_split_and_merge() {
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 4);
        p.allocate(50, 100, 3);
        assert_eq!(frees(&p), vec![(0, 6), (50, 3), (100, 7), (150, 10)]);
        p.release(50, 100, 3);
        assert_eq!(frees(&p), vec![(0, 6), (100, 10)]);
        p.release(0, 100, 4);
        assert_eq!(frees(&p), vec![(0, 10)]);
    }

    #[test]
    fn earliest_start_finds_first_window() {
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 8); // 2 free until 100
        p.allocate(200, 50, 9); // 1 free in [200, 250)
        assert_eq!(p.earliest_start(1, 1000, 0), 0);
        assert_eq!(p.earliest_start(2, 100, 0), 0);
        assert_eq!(p.earliest_start(2, 1000, 0), 250);
        assert_eq!(p.earliest_start(3, 50, 0), 100);
        assert_eq!(p.earliest_start(3, 100, 0), 100);
        // Does not fit in [100, 200) for 150 s: must wait until 250.
        assert_eq!(p.earliest_start(3, 150, 0), 250);
        assert_eq!(p.earliest_start(10, 1, 0), 100);
        assert_eq!(p.earliest_start(10, 101, 0), 250);
        assert_eq!(p.earliest_start(1, 10, 120), 120);
    }

    #[test]
    fn fits_checks_the_whole_window() {
        let mut p = Profile::new(10, 0);
        p.allocate(100, 100, 9);
        assert!(p.fits(5, 100, 0));
        assert!(!p.fits(5, 101, 0));
        assert!(p.fits(1, 500, 0));
        assert!(p.fits(10, 10, 200));
    }

    /// The runs a walk reports, and where it stopped.
    fn runs_walked(
        p: &Profile,
        w: u32,
        from: Time,
        until: Time,
        open: Option<Time>,
        resume: &mut Option<Resume>,
    ) -> (Vec<(Time, Time)>, RunsWalked) {
        let mut runs = Vec::new();
        let end = p.free_runs(w, from, until, open, resume, |a, b| runs.push((a, b)));
        (runs, end)
    }

    #[test]
    fn free_runs_report_each_run_once_and_the_one_under_way() {
        // 10 processors: 2 free over [0, 100), 7 over [100, 150), 4 over
        // [150, 200), 10 from 200 on.
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 8);
        p.allocate(100, 100, 3);
        p.allocate(150, 50, 3);
        let walk = |w, from, until, open| runs_walked(&p, w, from, until, open, &mut None);
        // Width 5: [100, 150), then [200, forever).
        assert_eq!(
            walk(5, 0, Time::MAX, None),
            (vec![(100, 150), (200, Time::MAX)], RunsWalked::End)
        );
        // Stopped at 120, inside the first; resumed there.
        assert_eq!(
            walk(5, 0, 120, None),
            (vec![], RunsWalked::Until(Some(100)))
        );
        assert_eq!(
            walk(5, 120, 300, Some(100)),
            (vec![(100, 150), (200, Time::MAX)], RunsWalked::End)
        );
        // Width 4 from 120: it never ends (no step after 200), and starts
        // no earlier than asked; up to 170 it is under way.
        assert_eq!(
            walk(4, 120, 300, None),
            (vec![(120, Time::MAX)], RunsWalked::End)
        );
        assert_eq!(
            walk(4, 120, 170, None),
            (vec![], RunsWalked::Until(Some(120)))
        );
        // Width 2: everything, from the start.
        assert_eq!(walk(2, 0, 50, None), (vec![], RunsWalked::Until(Some(0))));
        // Width 11 never fits.
        assert_eq!(walk(11, 0, Time::MAX, None), (vec![], RunsWalked::End));
    }

    #[test]
    fn a_walk_resumes_where_it_stopped_only_while_nothing_changed() {
        // 10 processors: 2 free over [0, 50), 3 over [50, 100), 7 over
        // [100, 150), 4 over [150, 200), 10 from 200 on.
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 7);
        p.allocate(0, 50, 1);
        p.allocate(100, 100, 3);
        p.allocate(150, 50, 3);
        let walk = |p: &Profile, from, until, open, resume: &mut Option<Resume>| {
            runs_walked(p, 5, from, until, open, resume)
        };
        // Stopped at 120 inside [100, 150), then on from there.
        let mut resume = None;
        let first = walk(&p, 0, 120, None, &mut resume);
        assert_eq!(first, (vec![], RunsWalked::Until(Some(100))));
        let stopped = resume;
        assert!(stopped.is_some());
        let rest = (vec![(100, 150), (200, Time::MAX)], RunsWalked::End);
        assert_eq!(walk(&p, 120, 300, Some(100), &mut resume), rest);
        // Giving back the hold over [0, 50) joins the first two steps, so
        // every later step moves back by one: the kept position would start
        // past the step at 150. It is stale, and the walk searches again.
        p.release(0, 50, 1);
        let mut resume = stopped;
        assert_eq!(walk(&p, 120, 300, Some(100), &mut resume), rest);
    }

    #[test]
    fn earlier_start_counts_the_own_hold_as_free() {
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 6); // 4 free until 100
        p.allocate(100, 50, 8); // the job's own hold: 8 over [100, 150)
                                // 8 processors for 50 s: only at its own slot, so no earlier start.
        assert_eq!(p.earlier_start(8, 50, 0, 100), None);
        // As a 4-processor job held at [100, 150) it could start now.
        let mut q = Profile::new(10, 0);
        q.allocate(0, 100, 6);
        q.allocate(100, 150, 4); // own hold of a 4-wide 150 s job
        q.allocate(120, 10, 6); // someone else's hold: 0 free in [120, 130)
                                // From 0 the window [0, 150) overlaps [120, 130) where, with its own
                                // hold given back, 4 are free: it fits at 0.
        assert_eq!(q.earlier_start(4, 150, 0, 100), Some(0));
        // A 5-wide job cannot start before 100 (only 4 free).
        assert_eq!(q.earlier_start(5, 150, 0, 100), None);
    }

    #[test]
    fn advance_drops_the_past() {
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 4);
        p.allocate(0, 200, 1);
        p.advance(150);
        assert_eq!(frees(&p), vec![(150, 9), (200, 10)]);
        assert_eq!(p.free_at(150), 9);
        assert_eq!(p.earliest_start(10, 5, 150), 200);
    }

    #[test]
    fn many_steps_split_into_blocks_and_join_back() {
        let mut p = Profile::new(1000, 0);
        for k in 0..600 {
            p.allocate(0, 1 + k, 1);
        }
        assert!(p.blocks.len() > 4, "{} blocks", p.blocks.len());
        assert_eq!(p.steps().count(), 601);
        assert_eq!(p.free_at(0), 400);
        assert_eq!(p.free_at(300), 700);
        assert_eq!(p.earliest_start(900, 10, 0), 500);
        assert!(p.fits(400, 1000, 0) && !p.fits(401, 1, 0));
        // A hold over every step changes each block once.
        p.allocate(0, 1000, 400);
        assert_eq!(p.free_at(599), 599);
        assert_eq!(p.free_at(600), 600);
        p.release(0, 1000, 400);
        for k in 0..600 {
            p.release(0, 1 + k, 1);
        }
        assert_eq!(frees(&p), vec![(0, 1000)]);
        assert_eq!(p.blocks.len(), 1);
        p.advance(50);
        assert_eq!(frees(&p), vec![(50, 1000)]);
    }

    #[test]
    fn a_hold_to_the_end_of_time_never_ends() {
        let mut p = Profile::new(10, 0);
        p.allocate(5, Time::MAX, 4);
        assert_eq!(frees(&p), vec![(0, 10), (5, 6)]);
        assert_eq!(p.earliest_start(7, 1, 0), 0);
        assert!(!p.fits(7, 6, 0));
        assert_eq!(p.earliest_start(6, Time::MAX, 100), 100);
        p.release(5, Time::MAX, 4);
        assert_eq!(frees(&p), vec![(0, 10)]);
    }

    mod hints {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// A search's path (holds placed at their earliest start and
            /// taken back last in, first out, each with where its ends
            /// were), and hints that are wrong, change the steps exactly
            /// as plain holds and releases do.
            #[test]
            fn hints_never_change_the_steps(
                running in prop::collection::vec((1..300i64, 1..40u32), 0..90),
                moves in prop::collection::vec((any::<bool>(), 1..200i64, 1..40u32, 0..300u32, 0..300u32), 1..300),
            ) {
                let mut plain = Profile::new(40, 0);
                for &(d, p) in &running {
                    if plain.fits(p, d, 0) {
                        plain.allocate(0, d, p);
                    }
                }
                let mut hinted = plain.clone();
                let mut path: Vec<(Time, Time, u32, Option<Ends>)> = Vec::new();
                for (place, d, p, a, b) in moves {
                    let wrong = Some(Ends { from: a, to: b });
                    if place {
                        let (t, ends) = hinted.earliest_start_near(p, d, 0);
                        prop_assert_eq!(t, plain.earliest_start(p, d, 0));
                        // Now and then a wrong hint instead of the scan's.
                        let near = if a % 5 == 0 { wrong } else { ends };
                        let ends = hinted.allocate_near(t, d, p, near);
                        plain.allocate(t, d, p);
                        path.push((t, d, p, if b % 7 == 0 { wrong } else { ends }));
                    } else if let Some((t, d, p, near)) = path.pop() {
                        hinted.release_near(t, d, p, near);
                        plain.release(t, d, p);
                    }
                    prop_assert!(hinted.steps().eq(plain.steps()));
                }
            }
        }
    }

    mod layouts {
        use super::*;
        use proptest::prelude::*;

        /// The same steps as `p`, in blocks of at most `size`.
        fn in_blocks(p: &Profile, size: usize) -> Profile {
            let steps: Vec<Step> = p.steps().collect();
            let blocks: Vec<Block> = steps.chunks(size).map(|c| Block::new(c.to_vec())).collect();
            Profile {
                procs: p.procs,
                firsts: blocks.iter().map(Block::first).collect(),
                blocks,
                version: 0,
            }
        }

        proptest! {
            /// A profile of one block is searched by its own path: every
            /// search answers as on the same steps cut into blocks, and
            /// the hint says where a hold from the start found would end.
            #[test]
            fn one_block_answers_as_many(
                holds in prop::collection::vec((0..500i64, 1..300i64, 1..30u32), 0..120),
                probes in prop::collection::vec((1..=40u32, 1..400i64, 0..600i64, 0..700i64), 60),
                size in 1..9usize,
            ) {
                let mut one = Profile::new(40, 0);
                for (t, d, p) in holds {
                    if one.fits(p, d, t) {
                        one.allocate(t, d, p);
                    }
                }
                let one = in_blocks(&one, usize::MAX);
                let many = in_blocks(&one, size);
                prop_assert_eq!(one.blocks.len(), 1);
                for (p, d, from, before) in probes {
                    let (t, ends) = one.earliest_start_near(p, d, from);
                    prop_assert_eq!(t, many.earliest_start(p, d, from));
                    prop_assert_eq!(
                        one.earliest_start_before(p, d, from, before),
                        many.earliest_start_before(p, d, from, before)
                    );
                    prop_assert_eq!(
                        one.earlier_start(p, d, from, before),
                        many.earlier_start(p, d, from, before)
                    );
                    // The hint says where the hold's ends are.
                    let ends = ends.expect("a hint on a profile of one block");
                    let steps = &one.blocks[0].steps;
                    prop_assert!(first_at_or_after(steps, ends.from as usize, t));
                    prop_assert!(first_at_or_after(steps, ends.to as usize, t.saturating_add(d)));
                }
            }
        }
    }

    mod least_free {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// The fewest free over a window is the least of the steps
            /// overlapping it, on profiles of many blocks whose bounds
            /// have loosened under changes.
            #[test]
            fn min_free_is_the_least_step_in_the_window(
                holds in prop::collection::vec((0..50_000i64, 1..2_000i64, 1..40u32), 300..600),
                windows in prop::collection::vec((0..55_000i64, 1..6_000i64), 40),
            ) {
                let mut profile = Profile::new(400, 0);
                let mut held = Vec::new();
                for (i, &(t, d, p)) in holds.iter().enumerate() {
                    if profile.fits(p, d, t) {
                        profile.allocate(t, d, p);
                        held.push((t, d, p));
                    }
                    // Now and then one given back, so bounds go loose.
                    if i % 5 == 4 {
                        if let Some((t, d, p)) = held.pop() {
                            profile.release(t, d, p);
                        }
                    }
                }
                prop_assert!(profile.blocks.len() >= 3, "{} blocks", profile.blocks.len());
                let steps: Vec<Step> = profile.steps().collect();
                for (t, len) in windows {
                    let end = t + len;
                    let covering = steps.partition_point(|s| s.time <= t).max(1) - 1;
                    let least = steps[covering..]
                        .iter()
                        .take_while(|s| s.time < end || s.time <= t)
                        .map(|s| s.free)
                        .min()
                        .expect("the step covering t");
                    prop_assert_eq!(profile.min_free(t, end), least, "[{}, {})", t, end);
                }
            }
        }
    }

    mod moves {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Holds moved to their earlier starts, as a compression does,
            /// leave the steps as a release and a hold do, holds that never
            /// end included.
            #[test]
            fn a_move_changes_the_steps_as_a_release_and_a_hold(
                holds in prop::collection::vec((0..3_000i64, 1..900i64, 1..40u32, 0..8u8), 1..400),
            ) {
                let mut moved = Profile::new(40, 0);
                let mut held = Vec::new();
                for &(t, d, p, forever) in &holds {
                    let d = if forever == 0 { Time::MAX } else { d };
                    if moved.fits(p, d, t) {
                        moved.allocate(t, d, p);
                        held.push((t, d, p));
                    }
                }
                let mut plain = moved.clone();
                for (t, d, p) in held {
                    let Some(to) = moved.earlier_start(p, d, 0, t) else {
                        continue;
                    };
                    moved.move_earlier(t, to, d, p);
                    plain.release(t, d, p);
                    plain.allocate(to, d, p);
                    prop_assert!(moved.steps().eq(plain.steps()), "moving {:?}", (t, to, d, p));
                }
            }
        }
    }

    /// The profile against free counts kept per second, over random holds
    /// enough to fill many blocks.
    mod against_seconds {
        use super::*;
        use proptest::prelude::*;

        const H: usize = 700;

        #[derive(Debug, Clone)]
        enum Op {
            Hold { t: Time, d: Time, p: u32 },
            Release(usize),
            Advance(Time),
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                // Narrow holds make hundreds of steps, so many blocks; wide
                // long ones change whole blocks at once.
                8 => (0..400i64, 1..250i64, 1..4u32).prop_map(|(t, d, p)| Op::Hold { t, d, p }),
                1 => (0..100i64, 200..300i64, 20..60u32).prop_map(|(t, d, p)| Op::Hold { t, d, p }),
                2 => any::<prop::sample::Index>().prop_map(|i| Op::Release(i.index(1 << 16))),
                1 => (0..60i64).prop_map(Op::Advance),
            ]
        }

        struct Seconds {
            free: Vec<u32>,
            start: usize,
        }

        impl Seconds {
            fn window_ok(
                &self,
                p: u32,
                d: Time,
                t: usize,
                own: Option<(usize, usize, u32)>,
            ) -> bool {
                (t..(t + d as usize).max(t + 1)).all(|u| {
                    let extra = own.map_or(0, |(a, b, q)| if (a..b).contains(&u) { q } else { 0 });
                    self.free[u.min(H - 1)] + extra >= p
                })
            }
        }

        proptest! {
            #[test]
            fn every_query_matches(ops in prop::collection::vec(op(), 1..1500), probes in prop::collection::vec((1..205u32, 1..300i64, 0..450i64), 40)) {
                let procs = 200;
                let mut profile = Profile::new(procs, 0);
                let mut secs = Seconds { free: vec![procs; H], start: 0 };
                let mut holds: Vec<(Time, Time, u32)> = Vec::new();
                for op in ops {
                    match op {
                        Op::Hold { t, d, p } => {
                            let t = t.max(secs.start as Time);
                            if profile.fits(p, d, t) {
                                prop_assert!(secs.window_ok(p, d, t as usize, None));
                                profile.allocate(t, d, p);
                                for u in t as usize..(t + d) as usize { secs.free[u] -= p; }
                                holds.push((t, d, p));
                            } else {
                                prop_assert!(!secs.window_ok(p, d, t as usize, None));
                            }
                        }
                        Op::Release(i) if !holds.is_empty() => {
                            let (t, d, p) = holds.swap_remove(i % holds.len());
                            let from = t.max(secs.start as Time);
                            profile.release(t, d, p);
                            for u in from as usize..((t + d).max(from)) as usize { secs.free[u] += p; }
                        }
                        Op::Release(_) => {}
                        Op::Advance(by) => {
                            secs.start = (secs.start + by as usize).min(200);
                            profile.advance(secs.start as Time);
                            // Holds wholly in the past are gone from both.
                            holds.retain(|&(t, d, _)| t + d > secs.start as Time);
                        }
                    }
                    let steps: Vec<Step> = profile.steps().collect();
                    prop_assert_eq!(steps[0].time, secs.start as Time);
                    for w in steps.windows(2) {
                        prop_assert!(w[0].time < w[1].time && w[0].free != w[1].free, "{:?}", w);
                    }
                    for (k, s) in steps.iter().enumerate() {
                        let end = steps.get(k + 1).map_or(H, |n| n.time as usize);
                        prop_assert!((s.time as usize..end).all(|u| secs.free[u] == s.free));
                    }
                }
                let start = secs.start;
                for &(p, d, from) in &probes {
                    let from = from.max(start as Time);
                    let want = (from as usize..H).find(|&t| secs.window_ok(p, d, t, None));
                    if p <= procs {
                        prop_assert_eq!(Some(profile.earliest_start(p, d, from) as usize), want);
                        // Bounded: the same start when it is before the
                        // bound, none otherwise (bounds at, around and
                        // before the start).
                        let at = want.expect("a start") as Time;
                        for before in [at - 1, at, at + 1, from, from + d] {
                            let got = profile.earliest_start_before(p, d, from, before);
                            prop_assert_eq!(got, (at < before).then_some(at), "before {}", before);
                        }
                    }
                    prop_assert_eq!(profile.fits(p, d, from), secs.window_ok(p, d, from as usize, None));
                }
                // A held job's earlier start: its own hold counted free.
                for &(t, d, p) in holds.iter().filter(|h| h.0 >= start as Time).take(10) {
                    let own = Some((t as usize, (t + d) as usize, p));
                    let want = (start..t as usize).find(|&u| secs.window_ok(p, d, u, own));
                    let got = profile.earlier_start(p, d, start as Time, t);
                    prop_assert_eq!(got.map(|g| g as usize), want);
                }
            }
        }
    }
}
