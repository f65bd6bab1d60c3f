//! The availability profile: free processors as a step function of time.
//!
//! Backfilling schedulers plan against it: running jobs hold processors until
//! their estimated end, reservations hold them in the future, and the
//! question every policy asks is "when is the earliest time `p` processors
//! are free for `d` seconds?".
//!
//! Stored as a sorted vector of steps rather than a tree: profiles hold a few
//! hundred steps at most, and a linear scan over contiguous memory beats
//! pointer chasing at that size.

use crate::workload::Time;

/// One step: from `time` until the next step's time, `free` processors are free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub time: Time,
    pub free: u32,
}

/// Free processors over time from a start instant to infinity. The last
/// step extends forever.
#[derive(Debug, Clone)]
pub struct Profile {
    procs: u32,
    steps: Vec<Step>,
}

impl Profile {
    /// An empty machine of `procs` processors from `now` on.
    pub fn new(procs: u32, now: Time) -> Self {
        Profile {
            procs,
            steps: vec![Step {
                time: now,
                free: procs,
            }],
        }
    }

    /// Resets to an empty machine from `now`, keeping the allocation.
    pub fn reset(&mut self, now: Time) {
        self.steps.clear();
        self.steps.push(Step {
            time: now,
            free: self.procs,
        });
    }

    pub fn procs(&self) -> u32 {
        self.procs
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Start of the profile.
    pub fn start(&self) -> Time {
        self.steps[0].time
    }

    /// Free processors at time `t` (`t` at or after the start).
    pub fn free_at(&self, t: Time) -> u32 {
        self.steps[self.index_at(t)].free
    }

    /// Index of the step covering `t`.
    fn index_at(&self, t: Time) -> usize {
        // partition_point gives the first step after t; the one before covers t.
        self.steps.partition_point(|s| s.time <= t).max(1) - 1
    }

    /// Earliest time `t >= from` such that at least `p` processors are free
    /// throughout `[t, t + d)`. Always exists when `p <= procs`, because the
    /// last step extends forever and all holds eventually end.
    pub fn earliest_start(&self, p: u32, d: Time, from: Time) -> Time {
        debug_assert!(p <= self.procs, "job wider than the machine");
        self.scan(p, d, from, Time::MAX, |s| s.free).unwrap_or(from)
    }

    /// For a job that holds `p` processors over `[held_at, held_at + d)`:
    /// the earliest start `t` in `[from, held_at)` if its own hold were
    /// released, or `None` when it cannot start earlier. Nothing is released:
    /// most jobs cannot move, and finding that out must not churn the steps.
    pub fn earlier_start(&mut self, p: u32, d: Time, from: Time, held_at: Time) -> Option<Time> {
        // A step boundary at held_at lets the own hold be added step by step.
        self.split_at(held_at);
        let own_end = held_at + d;
        self.scan(p, d, from, held_at, |s| {
            if s.time >= held_at && s.time < own_end {
                s.free + p
            } else {
                s.free
            }
        })
    }

    /// The first start `t` in `[from, limit)` where `free(step) >= p` for
    /// every step overlapping `[t, t + d)`.
    fn scan(
        &self,
        p: u32,
        d: Time,
        from: Time,
        limit: Time,
        free: impl Fn(&Step) -> u32,
    ) -> Option<Time> {
        let steps = &self.steps;
        let mut i = self.index_at(from);
        let mut candidate = from;
        while i < steps.len() && candidate < limit {
            if free(&steps[i]) < p {
                // Blocked here: the next possible start is the next step.
                i += 1;
                candidate = steps.get(i)?.time;
                continue;
            }
            // Check the window [candidate, candidate + d) from step i on.
            let end = candidate + d;
            let mut j = i + 1;
            while j < steps.len() && steps[j].time < end && free(&steps[j]) >= p {
                j += 1;
            }
            if j == steps.len() || steps[j].time >= end {
                return Some(candidate);
            }
            // Step j is too full: restart after it.
            i = j;
        }
        None
    }

    /// True when `p` processors are free throughout `[t, t + d)`.
    pub fn fits(&self, p: u32, d: Time, t: Time) -> bool {
        let i = self.index_at(t);
        let end = t + d;
        self.steps[i..]
            .iter()
            .take_while(|s| s.time < end || s.time <= t)
            .all(|s| s.free >= p)
    }

    /// True when at some time before `until` at least `p` processors are
    /// free: a job held at `until` can only move earlier if so, since its own
    /// hold does not cover that time. A read-only scan, cheaper than
    /// releasing and re-placing the hold to find out.
    pub fn free_somewhere_before(&self, p: u32, until: Time) -> bool {
        self.steps
            .iter()
            .take_while(|s| s.time < until)
            .any(|s| s.free >= p)
    }

    /// Holds `p` processors over `[t, t + d)`. The caller guarantees they are
    /// free (checked in debug builds).
    pub fn allocate(&mut self, t: Time, d: Time, p: u32) {
        debug_assert!(
            self.fits(p, d, t),
            "allocating {p} over [{t}, {}) that is not free",
            t + d
        );
        self.change(t, t + d, |free| free - p);
    }

    /// Gives back `p` processors over `[t, t + d)`.
    pub fn release(&mut self, t: Time, d: Time, p: u32) {
        let procs = self.procs;
        self.change(t, t + d, |free| {
            debug_assert!(free + p <= procs, "releasing more than the machine");
            free + p
        });
    }

    /// Applies `f` to the free count over `[from, to)`, splitting steps at
    /// both ends and merging equal neighbours afterwards.
    fn change(&mut self, from: Time, to: Time, f: impl Fn(u32) -> u32) {
        let from = from.max(self.start());
        if to <= from {
            return;
        }
        let a = self.split_at(from);
        let b = self.split_at(to);
        for s in &mut self.steps[a..b] {
            s.free = f(s.free);
        }
        // Only the boundaries can have become equal to a neighbour.
        self.merge_around(b);
        self.merge_around(a);
    }

    /// Makes sure a step starts exactly at `t`; returns its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.index_at(t);
        if self.steps[i].time == t {
            return i;
        }
        let free = self.steps[i].free;
        self.steps.insert(i + 1, Step { time: t, free });
        i + 1
    }

    /// Merges step `i` into step `i - 1` when they have the same free count.
    fn merge_around(&mut self, i: usize) {
        if i > 0 && i < self.steps.len() && self.steps[i].free == self.steps[i - 1].free {
            self.steps.remove(i);
        }
    }

    /// Forgets the past before `now`: the step covering `now` is moved to
    /// start at `now`.
    pub fn advance(&mut self, now: Time) {
        if now <= self.start() {
            return;
        }
        let i = self.index_at(now);
        if i > 0 {
            self.steps.drain(..i);
        }
        self.steps[0].time = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frees(p: &Profile) -> Vec<(Time, u32)> {
        p.steps().iter().map(|s| (s.time, s.free)).collect()
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

    #[test]
    fn free_somewhere_before_scans_only_the_past_of_until() {
        let mut p = Profile::new(10, 0);
        p.allocate(0, 100, 8);
        assert!(p.free_somewhere_before(2, 50));
        assert!(!p.free_somewhere_before(3, 100));
        assert!(p.free_somewhere_before(3, 101));
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
}
