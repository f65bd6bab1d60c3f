//! The partition size that gives a moldable job its earliest estimated
//! completion on a profile, below a limit: how the MOLD paper's schemes
//! pick a width at schedule time ("the partition size for each job is
//! chosen to optimize its turnaround time, subject to its limit").

use crate::sim::profile::Step;
use crate::sim::{JobInfo, Profile};
use crate::workload::speedup::{Downey, Scaling};
use crate::workload::Time;

/// A width for a job and what it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Choice {
    pub width: u32,
    pub start: Time,
    /// The estimate at that width.
    pub estimate: Time,
}

/// The job's estimate on `width` processors (its recorded estimate, which
/// is for its recorded width, scaled by its model).
pub(crate) fn estimate_at(job: &JobInfo, model: &Downey, width: u32) -> Time {
    model.scale(job.estimate, job.procs, width).max(1)
}

/// The widest a job may get under `limit` on a machine of `procs`: its
/// average parallelism, the limit and the machine, and at least 1.
pub(crate) fn cap(model: &Downey, limit: u32, procs: u32) -> u32 {
    model.widest().min(limit).min(procs).max(1)
}

/// Of the widths 1 to `cap`, the one whose estimated completion on
/// `profile` from `now` is earliest; of equal completions the narrower
/// (fewer processors for the same turnaround).
pub(crate) fn best(
    profile: &Profile,
    now: Time,
    job: &JobInfo,
    model: &Downey,
    cap: u32,
    scratch: &mut Scratch,
) -> Choice {
    // Trying every width costs a search of the profile per width; by runs,
    // up to a walk of the steps from each step. On a profile of more steps
    // than widths (a machine of a few hundred processors, as in the MOLD
    // paper's traces) trying every width costs less.
    if cap as usize <= profile.step_count() {
        every_width(profile, now, job, model, cap)
    } else {
        by_runs(profile, now, job, model, cap, scratch)
    }
}

/// [`best`] by trying every width, each at its earliest start.
fn every_width(profile: &Profile, now: Time, job: &JobInfo, model: &Downey, cap: u32) -> Choice {
    let scaling = model.scaling(job.estimate, job.procs);
    let mut best: Option<(Time, Choice)> = None;
    for width in 1..=cap {
        let estimate = scaling.on(width).max(1);
        // Only a strictly earlier end counts: once one is known, a start
        // at or past `end - estimate` need not be searched for.
        let before = best.map_or(Time::MAX, |(end, _)| end - estimate);
        let Some(start) = profile.earliest_start_before(width, estimate, now, before) else {
            continue;
        };
        let c = Choice {
            width,
            start,
            estimate,
        };
        best = Some((start.saturating_add(estimate), c));
    }
    best.expect("cap is at least 1").1
}

/// [`best`] without trying every width, which on a machine of a million
/// processors (a job that scales to the whole machine) cost a million
/// searches of the profile per job. A job's estimate never grows with its
/// width (its speedup never falls up to its average parallelism, which
/// bounds `cap`), so for each time it may start (now, or where the free
/// processors change) the widest width that fits from there ends first,
/// and the widths fall into runs by where their windows end: in each run
/// the fit is one comparison with the least free count over the window.
/// Starting times are taken in order until none can end before the best
/// end so far, even at the shortest estimate. The answer is the one of
/// trying every width (a property test checks it against that).
fn by_runs(
    profile: &Profile,
    now: Time,
    job: &JobInfo,
    model: &Downey,
    cap: u32,
    scratch: &mut Scratch,
) -> Choice {
    let mut widths = Widths::new(job, model, cap, &mut scratch.table);
    let mut steps = steps_from(profile, now, &mut scratch.steps);
    // The shortest estimate any width gives.
    let shortest = widths.estimate(cap);
    // The earliest end so far, at (start, width).
    let mut best: Option<(Time, Time, u32)> = None;
    let mut k = 0;
    let mut free_before = 0;
    while let Some(step) = steps.get(k) {
        let t = step.time;
        let bound = best.map(|(end, ..)| end);
        if bound.is_some_and(|end| t.saturating_add(shortest) >= end) {
            break;
        }
        // Starting later, only a wider width can end earlier; and a window
        // that fits from a step with fewer free than the one before also
        // fits from that one.
        let wider_than = best.map_or(0, |(.., w)| w);
        let rises = std::mem::replace(&mut free_before, step.free) < step.free;
        if rises && step.free > wider_than {
            let found = widths.widest_fitting(&mut steps, k, (bound, wider_than));
            if let Some(w) = found {
                let end = t.saturating_add(widths.estimate(w));
                if bound.is_none_or(|b| end < b) {
                    best = Some((end, t, w));
                }
            }
        }
        k += 1;
    }
    let (_, start, widest) = best.expect("the last step is free enough for one processor");
    // The narrowest width with the same estimate ends as early.
    let estimate = widths.estimate(widest);
    let width = widths.narrowest_within(estimate, widest);
    scratch.table = widths.table;
    Choice {
        width,
        start,
        estimate,
    }
}

/// Buffers [`by_runs`] fills at each call, kept by the caller of [`best`]
/// so that a call allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    steps: Vec<Step>,
    table: Vec<Time>,
}

/// The profile's steps from `now` on, read as far as asked: the first
/// starts at `now` with the free processors there (the profile's first
/// step's when it starts later).
struct Steps<'a, I> {
    rest: I,
    read: &'a mut Vec<Step>,
}

/// `profile`'s [`Steps`] from `now`, read into `read`.
fn steps_from<'a>(
    profile: &'a Profile,
    now: Time,
    read: &'a mut Vec<Step>,
) -> Steps<'a, impl Iterator<Item = Step> + 'a> {
    read.clear();
    let mut rest = profile.steps().peekable();
    let mut first = Step {
        time: now,
        free: rest.peek().map_or(0, |s| s.free),
    };
    while let Some(s) = rest.next_if(|s| s.time <= now) {
        first.free = s.free;
    }
    read.push(first);
    Steps { rest, read }
}

impl<I: Iterator<Item = Step>> Steps<'_, I> {
    /// Step `i`, `None` past the last.
    fn get(&mut self, i: usize) -> Option<Step> {
        while self.read.len() <= i {
            self.read.push(self.rest.next()?);
        }
        Some(self.read[i])
    }
}

/// The widths 1 to `cap` a job may get, with their estimates.
struct Widths {
    scaling: Scaling,
    cap: u32,
    /// Each width's estimate once asked for (0 before): the searches ask
    /// for the same widths again and again. Empty for a `cap` above
    /// [`TABLED`].
    table: Vec<Time>,
}

/// The widest `cap` whose estimates are kept.
const TABLED: u32 = 4096;

impl Widths {
    fn new(job: &JobInfo, model: &Downey, cap: u32, table: &mut Vec<Time>) -> Self {
        let mut table = std::mem::take(table);
        table.clear();
        if cap <= TABLED {
            table.resize(cap as usize, 0);
        }
        Widths {
            scaling: model.scaling(job.estimate, job.procs),
            cap,
            table,
        }
    }

    /// [`estimate_at`] the width.
    fn estimate(&mut self, width: u32) -> Time {
        let scaling = &self.scaling;
        let compute = || scaling.on(width).max(1);
        match self.table.get_mut(width as usize - 1) {
            Some(0) => {
                let e = compute();
                self.table[width as usize - 1] = e;
                e
            }
            Some(&mut e) => e,
            None => compute(),
        }
    }

    /// The narrowest width whose estimate is at most `d`, given `upper`'s
    /// is (searched up to it: `cap + 1` overflows on a machine of
    /// `u32::MAX` processors).
    fn narrowest_within(&mut self, d: Time, upper: u32) -> u32 {
        debug_assert!(self.estimate(upper) <= d);
        let (mut lo, mut hi) = (1, upper);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.estimate(mid) <= d {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// The widest width that fits from step `k` of `steps` (free
    /// processors throughout its window), `None` when none does, or none
    /// wider than `wider_than` that could end before `bound`.
    fn widest_fitting<I: Iterator<Item = Step>>(
        &mut self,
        steps: &mut Steps<'_, I>,
        k: usize,
        (bound, wider_than): (Option<Time>, u32),
    ) -> Option<u32> {
        let t = steps.get(k)?.time;
        let mut least_free = u32::MAX;
        // Widths above this have windows ending in earlier steps: ruled out.
        let mut upper = self.cap;
        let mut upper_estimate = self.estimate(upper);
        let mut j = k;
        while let Some(step) = steps.get(j) {
            least_free = least_free.min(step.free);
            if least_free <= wider_than {
                return None;
            }
            // A window ending in this step (not the first) ends after it
            // begins.
            if j > k && bound.is_some_and(|end| step.time >= end) {
                return None;
            }
            j += 1;
            // The widths whose windows end in this step: estimates up to
            // the next step's time (every one in the last step).
            let lo = match steps.get(j) {
                Some(next) if upper_estimate > next.time - t => continue,
                Some(next) => self.narrowest_within(next.time - t, upper),
                None => 1,
            };
            let hi = upper.min(least_free);
            if hi >= lo {
                return (hi > wider_than).then_some(hi);
            }
            upper = lo - 1;
            if upper <= wider_than {
                return None;
            }
            upper_estimate = self.estimate(upper);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Random machines with random holds (starting now or later, some
        /// ending at the same times), random jobs and speedup models: the
        /// width found by runs is the one trying every width finds.
        #[test]
        fn widths_by_runs_are_those_of_every_width(
            procs in prop_oneof![1u32..64, 1u32..1200],
            holds in prop::collection::vec((0i64..400, 1i64..600, 1u32..1200), 0..25),
            now in 0i64..300,
            job_procs in 1u32..200,
            estimate in 1i64..5000,
            a in 1.0f64..300.0,
            sigma in 0.0f64..2.0,
            limit in 1u32..1300,
        ) {
            let mut profile = Profile::new(procs, 0);
            for (at, d, p) in holds {
                let p = p.min(procs);
                // Only holds the machine has room for, as a schedule makes.
                if profile.fits(p, d, at) {
                    profile.allocate(at, d, p);
                }
            }
            profile.advance(now);
            let job = info(job_procs.min(procs), estimate);
            let model = Downey::new(a, sigma).unwrap();
            let cap = cap(&model, limit, procs);
            prop_assert_eq!(
                by_runs(&profile, now, &job, &model, cap, &mut Scratch::default()),
                every_width(&profile, now, &job, &model, cap)
            );
        }
    }

    /// A machine of a million processors with thousands of holds, a
    /// thousand processors free now: the same width as trying every width,
    /// up to a `cap` past the widths whose estimates are kept.
    #[test]
    fn a_big_machine_gives_the_width_of_every_width() {
        let procs = 1_000_000;
        let mut profile = Profile::new(procs, 0);
        for k in 0..3000i64 {
            profile.allocate(0, 50 + 37 * k, 333);
        }
        let job = info(64, 20_000);
        let model = Downey::new(f64::from(procs), 0.7).unwrap();
        for cap in [1, 2, 999, 1000, TABLED + 904] {
            assert_eq!(
                by_runs(&profile, 0, &job, &model, cap, &mut Scratch::default()),
                every_width(&profile, 0, &job, &model, cap)
            );
        }
    }

    /// The widest machine there is: a linear job of 10 s on 1 processor
    /// that may scale to all of it takes 1 s on 10 or more, and on 4 (all
    /// that is free until 5) 3 s.
    #[test]
    fn a_machine_of_u32_max_processors_gives_the_narrowest_of_the_fastest() {
        let procs = u32::MAX;
        let linear = Downey::new(f64::from(procs), 0.0).unwrap();
        let job = info(1, 10);
        let mut profile = Profile::new(procs, 0);
        let fastest = Choice {
            width: 10,
            start: 0,
            estimate: 1,
        };
        assert_eq!(
            best(&profile, 0, &job, &linear, procs, &mut Scratch::default()),
            fastest
        );
        profile.allocate(0, 5, procs - 4);
        let four_now = Choice {
            width: 4,
            start: 0,
            estimate: 3,
        };
        assert_eq!(
            best(&profile, 0, &job, &linear, procs, &mut Scratch::default()),
            four_now
        );
    }

    fn info(procs: u32, estimate: Time) -> JobInfo {
        JobInfo {
            submit: 0,
            estimate,
            procs,
            user: -1,
            group: -1,
            user_group: 0,
            deadline: None,
        }
    }

    #[test]
    fn the_earliest_end_wins_and_ties_go_narrow() {
        // 8 processors, 6 busy until 100. A linear job of 400 s on 2
        // (800 of work): on 2 now, ends 400; on 4 at 100, ends 300; on 8 at
        // 100, ends 200. Best: 8.
        let mut p = Profile::new(8, 0);
        p.allocate(0, 100, 6);
        let job = info(2, 400);
        let linear = Downey::new(8.0, 0.0).unwrap();
        let c = best(&p, 0, &job, &linear, 8, &mut Scratch::default());
        assert_eq!(
            c,
            Choice {
                width: 8,
                start: 100,
                estimate: 100
            }
        );
        // Capped at 2: now, on 2.
        assert_eq!(
            best(&p, 0, &job, &linear, 2, &mut Scratch::default()),
            Choice {
                width: 2,
                start: 0,
                estimate: 400
            }
        );
        // A job that cannot scale past 2 (A = 2): 2 now; wider ends the
        // same or later and is never tried past its widest.
        let flat = Downey::new(2.0, 0.0).unwrap();
        assert_eq!(cap(&flat, 8, 8), 2);
        assert_eq!(
            best(
                &p,
                0,
                &job,
                &flat,
                cap(&flat, 8, 8),
                &mut Scratch::default()
            ),
            Choice {
                width: 2,
                start: 0,
                estimate: 400
            }
        );
        // Ties: A = 4, sigma 0: on 3 at 0 ends 267; on 4 at 100 ends 300:
        // 3; with 4 free now 4 would end 200, which wins.
        let four = Downey::new(4.0, 0.0).unwrap();
        let mut q = Profile::new(8, 0);
        q.allocate(0, 100, 5);
        assert_eq!(
            best(&q, 0, &job, &four, 4, &mut Scratch::default()).width,
            3
        );
        let mut r = Profile::new(8, 0);
        r.allocate(0, 100, 4);
        assert_eq!(
            best(&r, 0, &job, &four, 4, &mut Scratch::default()).width,
            4
        );
    }
}
