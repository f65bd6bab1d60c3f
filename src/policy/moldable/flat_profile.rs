//! A small availability profile for the iterative planner: one sorted
//! vector of steps, no blocks.
//!
//! The planner copies a profile before every placement it may redo and
//! places the rest of the queue again for every processor it tries, on
//! profiles of a few dozen to a few hundred steps. There the block
//! structure of [`Profile`] (bounds, pending additions, two-level search)
//! costs more than it saves, and a flat vector copies with one `memcpy`.
//! Same questions, same answers ([`FlatProfile::earliest_start`] is
//! [`Profile::earliest_start`]).

use crate::sim::Profile;
use crate::workload::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    time: Time,
    free: u32,
}

/// Free processors over time from the first step's time on; the last step
/// extends forever.
#[derive(Debug, Clone, Default)]
pub(super) struct FlatProfile {
    steps: Vec<Step>,
}

impl FlatProfile {
    /// Makes this profile equal to `profile`, reusing its memory.
    pub fn load(&mut self, profile: &Profile) {
        self.steps.clear();
        self.steps.extend(profile.steps().map(|s| Step {
            time: s.time,
            free: s.free,
        }));
    }

    /// Makes this profile equal to `other`, reusing its memory.
    pub fn copy_from(&mut self, other: &FlatProfile) {
        self.steps.clone_from(&other.steps);
    }

    /// Index of the step covering `t` (the first when `t` is before it).
    fn covering(&self, t: Time) -> usize {
        self.steps.partition_point(|s| s.time <= t).max(1) - 1
    }

    /// Earliest `t >= from` with at least `p` free throughout `[t, t + d)`;
    /// `from` when there is none (holds that never end). `from` is at or
    /// after the first step.
    pub fn earliest_start(&self, p: u32, d: Time, from: Time) -> Time {
        self.search(p, d, from).map_or(from, |(start, _, _)| start)
    }

    /// [`Self::earliest_start`], then holds `p` there for `d`; the steps the
    /// search found bound the window, so nothing is searched twice.
    pub fn place(&mut self, p: u32, d: Time, from: Time) -> Time {
        let Some((start, i, j)) = self.search(p, d, from) else {
            self.allocate(from, d, p);
            return from;
        };
        let end = start.saturating_add(d);
        // The end first, so that inserting it leaves `i` in place.
        let mut b = j;
        if end != Time::MAX && self.steps.get(j).is_none_or(|s| s.time != end) {
            let free = self.steps[j - 1].free;
            self.steps.insert(j, Step { time: end, free });
        }
        let a = if self.steps[i].time == start {
            i
        } else {
            let free = self.steps[i].free;
            self.steps.insert(i + 1, Step { time: start, free });
            b += 1;
            i + 1
        };
        if end == Time::MAX {
            b = self.steps.len();
        }
        self.hold(a, b, p);
        start
    }

    /// The earliest start for `p` over `d` from `from`, the step covering
    /// it and the first step at or after its end (or the step count).
    fn search(&self, p: u32, d: Time, from: Time) -> Option<(Time, usize, usize)> {
        let steps = &self.steps;
        debug_assert!(from >= steps[0].time, "asked before the profile starts");
        let mut i = self.covering(from);
        loop {
            // The next step with `p` free starts the next candidate.
            while i < steps.len() && steps[i].free < p {
                i += 1;
            }
            let s = steps.get(i)?;
            let start = s.time.max(from);
            let end = start.saturating_add(d);
            // The window holds unless a step inside it has fewer free.
            let mut j = i + 1;
            while j < steps.len() && steps[j].time < end && steps[j].free >= p {
                j += 1;
            }
            if j == steps.len() || steps[j].time >= end {
                return Some((start, i, j));
            }
            i = j;
        }
    }

    /// A step starts exactly at `t` (at or after the first step); returns
    /// its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.covering(t);
        if self.steps[i].time == t {
            return i;
        }
        let free = self.steps[i].free;
        self.steps.insert(i + 1, Step { time: t, free });
        i + 1
    }

    /// Holds `p` processors over `[t, t + d)` (they are free there).
    pub fn allocate(&mut self, t: Time, d: Time, p: u32) {
        let from = t.max(self.steps[0].time);
        let to = t.saturating_add(d);
        if to <= from {
            return;
        }
        let a = self.split_at(from);
        let b = if to == Time::MAX {
            self.steps.len()
        } else {
            self.split_at(to)
        };
        self.hold(a, b, p);
    }

    /// Takes `p` from the steps `a..b`, then merges either end with its
    /// neighbour if they became equal.
    fn hold(&mut self, a: usize, b: usize, p: u32) {
        for s in &mut self.steps[a..b] {
            debug_assert!(s.free >= p, "allocating {p} where {} are free", s.free);
            s.free -= p;
        }
        // The later end first, so the earlier index stays valid.
        if b < self.steps.len() && self.steps[b].free == self.steps[b - 1].free {
            self.steps.remove(b);
        }
        if a > 0 && self.steps[a].free == self.steps[a - 1].free {
            self.steps.remove(a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_neighbours_merge_at_both_ends() {
        let mut f = FlatProfile::default();
        f.load(&Profile::new(10, 0));
        f.allocate(0, 100, 4);
        f.allocate(100, 50, 4);
        let steps: Vec<_> = f.steps.iter().map(|s| (s.time, s.free)).collect();
        assert_eq!(steps, vec![(0, 6), (150, 10)]);
        f.allocate(150, 10, 4);
        f.allocate(160, Time::MAX, 4);
        let steps: Vec<_> = f.steps.iter().map(|s| (s.time, s.free)).collect();
        assert_eq!(steps, vec![(0, 6)]);
        assert_eq!(f.earliest_start(7, 1, 0), 0, "never: the asked time");
        assert_eq!(f.earliest_start(6, 1_000, 0), 0);
    }

    proptest! {
        /// The same holds on both give the same steps and the same
        /// earliest starts, holds reaching forever included.
        #[test]
        fn answers_as_the_profile(
            holds in prop::collection::vec((0..3_000i64, 1..800i64, 1..40u32, any::<bool>()), 0..300),
            asks in prop::collection::vec((1..65u32, 1..900i64, 0..3_500i64), 1..40),
        ) {
            let procs = 64;
            let mut profile = Profile::new(procs, 0);
            let mut flat = FlatProfile::default();
            flat.load(&profile);
            for (k, &(t, d, p, forever)) in holds.iter().enumerate() {
                let d = if forever { Time::MAX } else { d };
                if k % 2 == 0 {
                    if profile.fits(p, d, t) {
                        profile.allocate(t, d, p);
                        flat.allocate(t, d, p);
                    }
                } else {
                    // Placed at the earliest start from t, both ways.
                    let at = profile.earliest_start(p, d, t);
                    if profile.fits(p, d, at) {
                        profile.allocate(at, d, p);
                        prop_assert_eq!(flat.place(p, d, t), at);
                    }
                }
            }
            let mut copy = FlatProfile::default();
            copy.copy_from(&flat);
            let steps: Vec<(Time, u32)> = profile.steps().map(|s| (s.time, s.free)).collect();
            let flat_steps: Vec<(Time, u32)> = copy.steps.iter().map(|s| (s.time, s.free)).collect();
            prop_assert_eq!(&flat_steps, &steps);
            for &(p, d, from) in &asks {
                prop_assert_eq!(copy.earliest_start(p, d, from), profile.earliest_start(p, d, from), "{:?}", (p, d, from));
            }
            let mut loaded = FlatProfile::default();
            loaded.load(&profile);
            prop_assert_eq!(loaded.steps, copy.steps);
        }
    }
}
