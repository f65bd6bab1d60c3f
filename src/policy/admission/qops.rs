//! QoPS admission: Figure 3 of Islam, Balaji, Sadayappan and Panda, "QoPS: A
//! QoS based scheme for Parallel Job Scheduling" (OSU-CISRC-4/03-TR21),
//! section 3.
//!
//! Unlike MSB, QoPS may reorder the jobs already admitted: for a few
//! insertion points it re-sorts the tail of the schedule by the heuristic,
//! and repairs deadline misses by pulling the missing job forward, at most
//! K times per insertion point.

use super::msb::{fits_alone, keep, scheduled_order, valid_schedule};
use super::{by_start, Admission, Heuristic, Pending, Reserved};
use crate::sim::{JobIdx, Profile};
use crate::workload::Time;

/// QoPS admission with K factor `k` (Figure 3).
///
/// For an existing schedule of N jobs in scheduled order (ascending reserved
/// start) and a new job `J`, the insertion points `ts` are tried in turn:
///
/// 1. The jobs before position `ts` stay at their reserved starts; the jobs
///    from `ts` to the end form the temporary list TL, sorted by the
///    heuristic.
/// 2. For `ts = 0`, `J` joins TL before the sort. For `ts > 0`, `J` is
///    placed first, right after the kept jobs, then TL, as the prose says:
///    "create a reservation for the newly arrived job, and finally generate
///    reservations for the remaining jobs in the order specified by TL".
/// 3. Jobs are placed one by one at their earliest start ([`super::place`]'s
///    rule). When the job `J_c` placed at position `T` misses its deadline,
///    the violation count grows; beyond `k` the insertion point fails.
///    Otherwise the jobs placed at positions `mid = (ts + T) / 2` to `T` go
///    back into TL, TL is sorted by the heuristic, `J_c` is put at its head,
///    and placement resumes at position `mid`.
///
/// The first insertion point where every job is placed meeting its deadline
/// gives the new schedule; the job is rejected when every point fails.
///
/// Interpretations:
///
/// - *Insertion points.* Figure 3 lists positions `0, N/2, 3N/4, 7N/8, ...`;
///   the `i`-th is taken as `N - ⌊N / 2^i⌋` (the prose removes "the later
///   N/2 jobs"), which rounds up and ends at `N`, the limit of the series:
///   appending the new job after all kept jobs. About `log2(N) + 2` points.
///   Positions are read in scheduled order, jobs sharing a reserved start
///   ordered by the heuristic (as in [`super::msb::Msb`]).
/// - *mid.* Figure 3's `mid(ts + T)` is read as the midpoint
///   `⌊(ts + T) / 2⌋`.
/// - *Positions.* A position is an index in placement order, counted from
///   the start of the schedule (the kept jobs take positions `0..ts`). With
///   backfilling a job placed later may start earlier, but "the jobs placed
///   at positions `mid..T`" is then still well defined, and undoing them is
///   releasing the last holds.
/// - *Accept / reject.* Figure 3's step 5 rejects as soon as one insertion
///   point exceeds K, and step B accepts when "violation count < K-Factor";
///   read literally the other insertion points would never matter. We follow
///   the prose ("for each option ... this altering of the temporary schedule
///   is allowed at most K times"; the conclusion: "looks at each of these
///   options in a FCFS order"): the violation count is reset for each
///   insertion point, at most K repairs are allowed per point, the first
///   point that yields a feasible schedule wins, and the job is rejected
///   when all fail.
/// - *K.* The paper gives no value; the policy's default is 5. The work
///   grows linearly with K (every repair may re-place up to N jobs).
/// - *Hopeless repairs.* A job missing its deadline at position `ts` has
///   nothing before it to move (`mid = T`): the repair would place the same
///   job in the same profile again, so the insertion point fails at once
///   instead of spending the remaining violations on identical retries. When
///   that job is `J` itself at a point `ts > 0`, every later point fails too
///   (more kept jobs before `J` only delay it), so the job is rejected.
/// - *Kept jobs* stay at their reserved starts; one that no longer fits
///   there (which the policy rules out) is placed at its earliest start and
///   must still meet its deadline (as in [`super::msb::Msb`]).
///
/// Cost: O(K N) placements per insertion point, O(K N log N) in all; the
/// first point (a full re-sort) usually succeeds.
#[derive(Debug, Clone)]
pub struct Qops {
    heuristic: Heuristic,
    k: u32,
}

impl Qops {
    pub fn new(heuristic: Heuristic, k: u32) -> Self {
        Qops { heuristic, k }
    }
}

/// Why an insertion point failed.
#[derive(Debug, PartialEq, Eq)]
enum Failure {
    /// More than K violations.
    Violations,
    /// This job misses its deadline at the first free position.
    Head(JobIdx),
}

/// The insertion points of Figure 3 for a schedule of `n` jobs:
/// `0, n - n/2, n - n/4, ..., n`.
fn insertion_points(n: usize) -> Vec<usize> {
    let mut points = vec![0];
    let mut rest = n;
    while rest > 0 {
        rest /= 2;
        points.push(n - rest);
    }
    points
}

impl Qops {
    /// Places `tl` (in order, TL's head first) after the kept jobs held in
    /// `profile`, repairing up to K violations (Figure 3, steps 3-4).
    /// Returns the placed jobs, in placement order.
    fn place_with_repairs(
        &self,
        now: Time,
        mut profile: Profile,
        mut tl: Vec<Pending>,
    ) -> Result<Vec<Reserved>, Failure> {
        let mut placed: Vec<Reserved> = Vec::with_capacity(tl.len());
        let mut violations = 0;
        // TL is tl[head..]: its head is tl[head].
        let mut head = 0;
        while head < tl.len() {
            let job = tl[head];
            head += 1;
            let start = profile.earliest_start(job.procs, job.estimate, now);
            if start + job.estimate <= job.deadline {
                profile.allocate(start, job.estimate, job.procs);
                placed.push(Reserved { job, start });
                continue;
            }
            // J_c misses at position T = ts + placed.len().
            violations += 1;
            if violations > self.k {
                return Err(Failure::Violations);
            }
            // mid(ts, T) = (ts + T) / 2 = ts + placed.len() / 2.
            let mid = placed.len() / 2;
            if mid == placed.len() {
                return Err(Failure::Head(job.job));
            }
            let mut back: Vec<Pending> = Vec::with_capacity(placed.len() - mid + tl.len() - head);
            for r in placed.drain(mid..).rev() {
                profile.release(r.start, r.job.estimate, r.job.procs);
                back.push(r.job);
            }
            back.extend_from_slice(&tl[head..]);
            self.heuristic.sort(now, &mut back);
            tl.clear();
            tl.push(job);
            tl.extend(back);
            head = 0;
        }
        Ok(placed)
    }
}

impl Admission for Qops {
    fn admit(
        &mut self,
        now: Time,
        base: &Profile,
        reserved: &[Reserved],
        new: Pending,
    ) -> Option<Vec<Reserved>> {
        if !fits_alone(now, base, &new) {
            return None;
        }
        let order = scheduled_order(self.heuristic, now, reserved);
        let n = order.len();
        // The kept jobs order[..kept.len()], held in `prefix`.
        let mut prefix = base.clone();
        let mut kept: Vec<Reserved> = Vec::with_capacity(n + 1);
        for ts in insertion_points(n) {
            while kept.len() < ts {
                let r = keep(now, &mut prefix, order[kept.len()]);
                if !r.meets_deadline() {
                    // Kept by every later insertion point too.
                    return None;
                }
                kept.push(r);
            }
            let mut tl: Vec<Pending> = Vec::with_capacity(n - ts + 1);
            tl.extend(order[ts..].iter().map(|r| r.job));
            if ts == 0 {
                tl.push(new);
                self.heuristic.sort(now, &mut tl);
            } else {
                self.heuristic.sort(now, &mut tl);
                tl.insert(0, new);
            }
            let new_first = ts > 0;
            match self.place_with_repairs(now, prefix.clone(), tl) {
                Ok(placed) => {
                    let mut schedule = kept;
                    schedule.extend(placed);
                    by_start(&mut schedule);
                    debug_assert!(valid_schedule(reserved, &new, &schedule));
                    return Some(schedule);
                }
                Err(Failure::Head(j)) if new_first && j == new.job => {
                    // J misses right after the kept jobs: later points keep
                    // more jobs before it and can only delay it further.
                    return None;
                }
                Err(_) => {}
            }
        }
        None
    }

    fn name(&self) -> String {
        format!("qops-k{}-{}", self.k, self.heuristic.name())
    }
}

#[cfg(test)]
mod tests {
    use super::super::mrt::Mrt;
    use super::super::msb::Msb;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn insertion_points_halve_the_rest() {
        assert_eq!(insertion_points(0), vec![0]);
        assert_eq!(insertion_points(1), vec![0, 1]);
        assert_eq!(insertion_points(2), vec![0, 1, 2]);
        assert_eq!(insertion_points(8), vec![0, 4, 6, 7, 8]);
        assert_eq!(insertion_points(10), vec![0, 5, 8, 9, 10]);
        assert_eq!(insertion_points(1000).len(), 11);
    }

    /// Checks an admitted schedule against the machine: allocated one job
    /// after another into a fresh copy of `base`, every job must fit. A
    /// job of estimate 0 holds nothing, so it cannot overfill the machine.
    fn fits_machine(base: &Profile, schedule: &[Reserved]) -> bool {
        let mut p = base.clone();
        schedule.iter().all(|r| {
            let j = r.job;
            if j.estimate == 0 {
                return r.start >= p.start();
            }
            let ok = r.start >= p.start() && p.fits(j.procs, j.estimate, r.start);
            if ok {
                p.allocate(r.start, j.estimate, j.procs);
            }
            ok
        })
    }

    /// A random small instance: a machine with up to two running jobs and
    /// a feasible reserved schedule of up to `max_jobs` jobs, built by
    /// placing random jobs in random order and giving each a deadline at
    /// its completion plus a random slack.
    fn instance(rng: &mut ChaCha8Rng, now: Time, max_jobs: usize) -> (Profile, Vec<Reserved>, u32) {
        let procs = rng.gen_range(2..=10);
        let mut base = Profile::new(procs, now);
        for _ in 0..rng.gen_range(0..=2) {
            let p = rng.gen_range(1..=procs);
            let d = rng.gen_range(1..=40);
            if base.fits(p, d, now) {
                base.allocate(now, d, p);
            }
        }
        let n = rng.gen_range(0..=max_jobs);
        let jobs: Vec<Pending> = (0..n as u32)
            .map(|i| Pending {
                job: i,
                submit: now - rng.gen_range(0..20),
                procs: rng.gen_range(1..=procs),
                estimate: rng.gen_range(0..=30),
                deadline: 0,
            })
            .collect();
        let mut profile = base.clone();
        let mut reserved = Vec::new();
        super::super::place(now, &mut profile, &jobs, &mut reserved);
        for r in &mut reserved {
            r.job.deadline = r.start + r.job.estimate + rng.gen_range(0..=30);
        }
        by_start(&mut reserved);
        (base, reserved, n as u32)
    }

    #[test]
    fn random_instances_keep_every_promise() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut algorithms: Vec<Box<dyn Admission>> = Vec::new();
        for h in [Heuristic::Edf, Heuristic::Llf] {
            algorithms.push(Box::new(Msb::new(h)));
            for k in [0, 1, 5] {
                algorithms.push(Box::new(Qops::new(h, k)));
            }
            for b in [0, 3, 10] {
                algorithms.push(Box::new(Mrt::new(h, b)));
            }
        }
        let mut admitted = vec![0; algorithms.len()];
        let mut decisions = 0;
        for _ in 0..400 {
            let now = rng.gen_range(0..100);
            let (base, start, first_new) = instance(&mut rng, now, 6);
            // A stream of arrivals at `now`, each algorithm keeping its own
            // schedule: later decisions start from what earlier ones built.
            let arrivals: Vec<Pending> = (0..6)
                .map(|i| {
                    let estimate = rng.gen_range(0..=30);
                    Pending {
                        job: first_new + i,
                        submit: now,
                        procs: rng.gen_range(1..=base.procs() + 1),
                        estimate,
                        deadline: now + estimate + rng.gen_range(0..=80),
                    }
                })
                .collect();
            for (a, algo) in algorithms.iter_mut().enumerate() {
                let mut reserved = start.clone();
                for &new in &arrivals {
                    decisions += 1;
                    let before = reserved.clone();
                    // Appending the new job after the kept schedule is both
                    // MSB's last candidate and QoPS's last insertion point.
                    let mut full = base.clone();
                    for r in reserved.iter().filter(|r| r.job.estimate > 0) {
                        full.allocate(r.start, r.job.estimate, r.job.procs);
                    }
                    let appendable = new.procs <= base.procs()
                        && full.earliest_start(new.procs, new.estimate, now) + new.estimate
                            <= new.deadline;
                    let got = algo.admit(now, &base, &reserved, new);
                    if appendable && !algo.name().starts_with("mrt") {
                        assert!(got.is_some(), "{} rejects an appendable job", algo.name());
                    }
                    assert_eq!(reserved, before, "{}: input changed", algo.name());
                    match got {
                        Some(s) => {
                            admitted[a] += 1;
                            assert!(
                                valid_schedule(&reserved, &new, &s),
                                "{}: bad schedule {s:?}",
                                algo.name()
                            );
                            assert!(
                                fits_machine(&base, &s),
                                "{}: overfull schedule {s:?}",
                                algo.name()
                            );
                            assert!(new.procs <= base.procs());
                            reserved = s;
                        }
                        None => {
                            // Deterministic, and the old schedule stays.
                            assert_eq!(algo.admit(now, &base, &reserved, new), None);
                            assert_eq!(reserved, before);
                        }
                    }
                }
            }
        }
        assert!(decisions > 10_000);
        // Every algorithm admits some and rejects some.
        for (a, algo) in algorithms.iter().enumerate() {
            assert!(admitted[a] > 100, "{}: {}", algo.name(), admitted[a]);
            assert!(admitted[a] < 2400, "{}: {}", algo.name(), admitted[a]);
        }
    }
}
