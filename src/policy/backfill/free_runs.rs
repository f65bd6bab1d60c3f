//! Where a job of a given width can start earlier, answered from the runs of
//! time in which at least that many processors are free.
//!
//! Conservative backfilling's compression asks, for every waiting job in
//! queue order, whether it could start before its reservation. Asked of the
//! profile directly, each question walks every step before the reservation,
//! and most answers are "no". But the answer depends on the job only
//! through its width, its estimate and its reservation: with the maximal
//! runs `[a, b)` of time where `p` are free listed once, a job of width `p`
//! can start at the first run that is long enough or reaches its
//! reservation. Jobs of one width share the list, and a change to the
//! profile from time `c` on only invalidates the runs that reach `c`.

use crate::sim::{Profile, Resume, RunsWalked};
use crate::workload::Time;
use rustc_hash::FxHashMap;

const NO_SLOT: u32 = u32::MAX;

/// The widest width looked up in a table.
const DENSE: u32 = 1 << 16;

/// A maximal run `[start, end)` of time with the width free, and the
/// longest of the runs up to it (`Time::MAX` for one that never ends), so
/// the first run long enough is a binary search.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: Time,
    end: Time,
    longest: Time,
}

/// The runs of one width known so far: every run starting before
/// `frontier`, the last perhaps still under way there.
#[derive(Debug, Default)]
struct WidthRuns {
    /// Runs whose end is known, in time order.
    runs: Vec<Run>,
    /// Start of a run under way at `frontier`, which ends at or after it.
    open: Option<Time>,
    frontier: Time,
    /// Where the walk stopped in the profile, to go on from there.
    resume: Option<Resume>,
    /// Changes already applied, an index into [`FreeRuns::changes`].
    seen: usize,
}

impl WidthRuns {
    fn clear(&mut self, start: Time, seen: usize) {
        self.runs.clear();
        self.open = None;
        self.frontier = start;
        self.resume = None;
        self.seen = seen;
    }

    fn push(&mut self, a: Time, b: Time) {
        let len = if b == Time::MAX { Time::MAX } else { b - a };
        let longest = self.runs.last().map_or(len, |r| r.longest.max(len));
        self.runs.push(Run {
            start: a,
            end: b,
            longest,
        });
    }

    /// Forgets the runs that reach `c` or beyond: the profile changed there.
    fn cut(&mut self, c: Time, start: Time) {
        if self.frontier < c {
            return;
        }
        let keep = self.runs.partition_point(|r| r.end < c);
        self.runs.truncate(keep);
        self.open = None;
        self.resume = None;
        self.frontier = self.runs.last().map_or(start, |r| r.end);
    }

    /// Walks the profile on until every run starting before `until` is known.
    fn extend(&mut self, profile: &Profile, p: u32, until: Time) {
        if self.frontier >= until {
            return;
        }
        let (from, open) = (self.frontier, self.open);
        let mut resume = self.resume.take();
        let walked = profile.free_runs(p, from, until, open, &mut resume, |a, b| self.push(a, b));
        self.resume = resume;
        (self.open, self.frontier) = match walked {
            RunsWalked::Until(open) => (open, until),
            RunsWalked::End => (None, Time::MAX),
        };
    }
}

/// Runs of free processors per width, kept in step with one profile by the
/// caller: [`FreeRuns::reset`] whenever the profile changed behind its back,
/// [`FreeRuns::changed`] for every change it makes itself.
#[derive(Debug, Default)]
pub(crate) struct FreeRuns {
    /// Width to index in `widths` for widths up to [`DENSE`], `NO_SLOT`
    /// for those not asked about since the last reset; wider ones in
    /// `wide`. A table as long as the machine would cost 16 GiB on one of
    /// `u32::MAX` processors, and a map alone costs every visit a hash.
    slot: Vec<u32>,
    wide: FxHashMap<u32, u32>,
    /// The widths asked about since the last reset, then spare ones kept
    /// for their buffers.
    widths: Vec<(u32, WidthRuns)>,
    used: usize,
    /// Start times of the changes since the last reset.
    changes: Vec<Time>,
}

impl FreeRuns {
    /// Forgets every run: the profile changed in ways not reported.
    pub fn reset(&mut self) {
        for &(p, _) in &self.widths[..self.used] {
            if let Some(slot) = self.slot.get_mut(p as usize) {
                *slot = NO_SLOT;
            }
        }
        self.wide.clear();
        self.used = 0;
        self.changes.clear();
    }

    /// The profile changed from time `from` on.
    pub fn changed(&mut self, from: Time) {
        self.changes.push(from);
    }

    /// For a job of `p` processors and estimate `d` that holds its
    /// processors from `held_at` on: the earliest start before `held_at`
    /// with its own hold released, `None` when there is none. The same
    /// answer as [`Profile::earlier_start`] from the profile's start.
    pub fn earlier_start(
        &mut self,
        profile: &Profile,
        p: u32,
        d: Time,
        held_at: Time,
    ) -> Option<Time> {
        let runs = self.runs_of(profile, p);
        runs.extend(profile, p, held_at);
        // A window from `a` needs `p` free until `min(a + d, held_at)`:
        // its own hold covers the rest. The first run long enough, or else
        // the last one if it reaches the hold (one under way at the
        // frontier does).
        // Reservations mostly grow along the queue, so the runs walked for
        // this one usually all start before it: no search then.
        let before = match runs.runs.last() {
            Some(r) if r.start >= held_at => runs.runs.partition_point(|r| r.start < held_at),
            _ => runs.runs.len(),
        };
        if let Some(last) = before.checked_sub(1).map(|k| runs.runs[k]) {
            // Most answers are no: the longest run before is too short.
            if last.longest >= d {
                let long = runs.runs[..before].partition_point(|r| r.longest < d);
                return Some(runs.runs[long].start);
            }
            // It reaches the hold (a run under way then starts later).
            if last.end >= held_at {
                return Some(last.start);
            }
        }
        runs.open.filter(|&a| a < held_at)
    }

    /// The runs of width `p`, brought up to date with the changes since
    /// they were last asked for.
    fn runs_of(&mut self, profile: &Profile, p: u32) -> &mut WidthRuns {
        let start = profile.start();
        let used = self.used as u32;
        let slot = if p <= DENSE {
            if self.slot.len() <= p as usize {
                self.slot.resize(p as usize + 1, NO_SLOT);
            }
            let slot = &mut self.slot[p as usize];
            if *slot == NO_SLOT {
                *slot = used;
            }
            *slot
        } else {
            *self.wide.entry(p).or_insert(used)
        };
        if slot == used {
            if self.used == self.widths.len() {
                self.widths.push((p, WidthRuns::default()));
            }
            let (width, runs) = &mut self.widths[self.used];
            self.used += 1;
            *width = p;
            runs.clear(start, self.changes.len());
            return runs;
        }
        let runs = &mut self.widths[slot as usize].1;
        if let Some(&c) = self.changes[runs.seen..].iter().min() {
            runs.cut(c, start);
        }
        runs.seen = self.changes.len();
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Random holds on a small machine; the ones that fitted are returned.
    fn profile_from(procs: u32, holds: &[(Time, Time, u32)]) -> (Profile, Vec<(Time, Time, u32)>) {
        let mut profile = Profile::new(procs, 0);
        let mut held = Vec::new();
        for &(t, d, p) in holds {
            let p = p % procs + 1;
            if profile.fits(p, d, t) {
                profile.allocate(t, d, p);
                held.push((t, d, p));
            }
        }
        (profile, held)
    }

    #[test]
    fn runs_answer_as_the_profile_by_hand() {
        // 10 processors: 4 free over [0, 10), 10 over [10, 20), 2 over
        // [20, 30), 10 from 30 on; a job of 5 held at 40.
        let mut profile = Profile::new(10, 0);
        profile.allocate(0, 10, 6);
        profile.allocate(20, 10, 8);
        profile.allocate(40, 100, 5);
        let mut runs = FreeRuns::default();
        runs.reset();
        // Fits in [10, 20) when 10 long or shorter.
        assert_eq!(runs.earlier_start(&profile, 5, 10, 40), Some(10));
        // Longer: only from 30, where it runs into its own hold at 40.
        assert_eq!(runs.earlier_start(&profile, 5, 11, 40), Some(30));
        // Held at 30: nothing before is long enough, none reaches 30.
        assert_eq!(runs.earlier_start(&profile, 5, 11, 30), None);
        // Width 3: [0, 20) is too short for 1000 (only 2 free over
        // [20, 30)), long enough for 6.
        assert_eq!(runs.earlier_start(&profile, 3, 1000, 40), Some(30));
        assert_eq!(runs.earlier_start(&profile, 3, 6, 40), Some(0));
        // Two more held over [5, 25): 3 are free over [0, 5) and [10, 20)
        // only, and the runs from 5 on are found again.
        profile.allocate(5, 20, 2);
        runs.changed(5);
        assert_eq!(runs.earlier_start(&profile, 3, 6, 40), Some(10));
        assert_eq!(runs.earlier_start(&profile, 3, 5, 40), Some(0));
        assert_eq!(runs.earlier_start(&profile, 3, 1000, 40), Some(30));
    }

    type Hold = (Time, Time, u32);

    /// Asks `asks` (width, estimate, held at) of the runs and of the profile,
    /// changing the profile between every third ask.
    fn agree(
        procs: u32,
        holds: &[Hold],
        changes: Vec<Hold>,
        asks: &[Hold],
    ) -> Result<(), TestCaseError> {
        let (mut profile, mut held) = profile_from(procs, holds);
        let mut runs = FreeRuns::default();
        runs.reset();
        let mut changes = changes.into_iter();
        for (i, &(d, held_at, p)) in asks.iter().enumerate() {
            let p = p % procs + 1;
            prop_assert_eq!(
                runs.earlier_start(&profile, p, d, held_at),
                profile.earlier_start(p, d, profile.start(), held_at),
                "ask {} of {:?}",
                i,
                (p, d, held_at)
            );
            if i % 3 == 2 {
                // A new hold where it fits, else an old one given back.
                if let Some((t, d, p)) = changes.next() {
                    let p = p % procs + 1;
                    if profile.fits(p, d, t) {
                        profile.allocate(t, d, p);
                        runs.changed(t);
                    } else if let Some((t, d, p)) = held.pop() {
                        profile.release(t, d, p);
                        runs.changed(t);
                    }
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn runs_agree_with_the_profile(
            holds in prop::collection::vec((0..200i64, 1..80i64, 0..16u32), 0..40),
            changes in prop::collection::vec((0..200i64, 1..80i64, 0..16u32), 0..8),
            asks in prop::collection::vec((1..120i64, 1..300i64, 0..16u32), 1..30),
        ) {
            agree(16, &holds, changes, &asks)?;
        }

        /// Hundreds of steps: blocks passed whole, split and joined.
        #[test]
        fn runs_agree_with_a_profile_of_many_blocks(
            holds in prop::collection::vec((0..20_000i64, 1..2_000i64, 0..64u32), 200..600),
            changes in prop::collection::vec((0..20_000i64, 1..2_000i64, 0..64u32), 0..20),
            asks in prop::collection::vec((1..3_000i64, 1..25_000i64, 0..64u32), 1..60),
        ) {
            agree(64, &holds, changes, &asks)?;
        }
    }
}
