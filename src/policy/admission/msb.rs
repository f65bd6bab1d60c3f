//! Modified Slack-Based admission (MSB): Figure 1 of Islam, Balaji,
//! Sadayappan and Panda, "QoPS: A QoS based scheme for Parallel Job
//! Scheduling" (OSU-CISRC-4/03-TR21), section 2.2.1.
//!
//! The existing reserved jobs keep their order; the new job is tried at every
//! position of that order, and the cheapest feasible of the N + 1 schedules
//! wins. Also home of the helpers the three algorithms share.

use super::{by_start, feasible, Admission, Heuristic, Pending, Reserved};
use crate::sim::Profile;
use crate::workload::Time;

/// Modified Slack-Based admission (Figure 1).
///
/// For an existing schedule of N jobs `J_1 .. J_N` in scheduled order and a
/// new job `J`, candidate `i` (for `i` in `0..=N`) keeps `J_1 .. J_i` at
/// their reserved starts, then places `J`, then `J_{i+1} .. J_N` in that
/// order, each at its earliest start in the profile holding the running
/// jobs and every job placed before it ([`super::place`]). A candidate is
/// feasible when every job meets its deadline; the cheapest feasible one is
/// the new schedule, and the job is rejected when none is feasible.
///
/// Interpretations (the paper leaves these open):
///
/// - *Order.* Figure 1 re-places the removed jobs "in Ascending Scheduled
///   Time (AST) order", so the order is the current one: ascending reserved
///   start, as given. The prose says the order is "decided by a heuristic
///   function"; in a dynamic system the current order is what earlier
///   decisions built, so the heuristic here only orders jobs that share a
///   reserved start (where "scheduled order" says nothing), before the usual
///   job-index tie-break.
/// - *Time slots.* "each time slot ts in the profile" is read as each
///   position of the new job in that order (the prose's "N + 1 schedules").
/// - *Kept jobs.* The jobs before the position stay at their reserved
///   starts (Figure 1 only removes the jobs from `ts` on). Should one no
///   longer fit there (the caller's reserved schedule does not fit `base`,
///   which the policy rules out), it is placed at its earliest start instead
///   and must still meet its deadline.
/// - *Cost function.* Not given by the paper: the sum of the reserved
///   completion times (start + estimate) of all jobs, which favours early
///   completions. Summed relative to `now` (the same order between
///   candidates, since they hold the same jobs), so that partial sums only
///   grow and a candidate is abandoned as soon as it cannot beat the best.
///   Ties go to the earliest position.
/// - *Slack.* The paper's slack, `deadline - (arrival + run time)`, only
///   enters through the deadline check: a job may be pushed back as long as
///   it still meets its deadline. "Update the slack of all jobs" is thus
///   implicit.
///
/// Cost: O(N²) placements in the worst case. Every candidate shares the kept
/// prefix, which is allocated once and cloned. A candidate stops at its
/// first missed deadline or once its cost cannot win, and when the new job
/// itself misses its deadline at position `i` no later position can help
/// (more jobs before it can only delay its earliest start), so the search
/// stops there.
#[derive(Debug, Clone)]
pub struct Msb {
    heuristic: Heuristic,
}

impl Msb {
    pub fn new(heuristic: Heuristic) -> Self {
        Msb { heuristic }
    }
}

impl Admission for Msb {
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
        // tail_work[i]: a lower bound on the cost of order[i..]: each job
        // completes at least its estimate after now.
        let mut tail_work = vec![0; n + 1];
        for i in (0..n).rev() {
            tail_work[i] = tail_work[i + 1] + order[i].job.estimate;
        }

        let mut prefix = base.clone();
        let mut kept: Vec<Reserved> = Vec::with_capacity(n + 1);
        let mut kept_cost: Time = 0;
        let mut best: Option<(Time, Vec<Reserved>)> = None;
        let mut cand: Vec<Reserved> = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let bound = best.as_ref().map_or(Time::MAX, |b| b.0);
            match candidate(
                now,
                &prefix,
                &kept,
                kept_cost,
                new,
                &order[i..],
                &tail_work[i..],
                bound,
                &mut cand,
            ) {
                Candidate::Cost(cost) => {
                    let old = best.replace((cost, std::mem::take(&mut cand)));
                    if let Some((_, buf)) = old {
                        cand = buf;
                    }
                }
                Candidate::Dominated => {}
                // Later positions put more jobs before the new one.
                Candidate::NewMisses => break,
            }
            if i < n {
                let r = keep(now, &mut prefix, order[i]);
                if !r.meets_deadline() {
                    // Every later candidate keeps it too.
                    break;
                }
                kept_cost += r.start + r.job.estimate - now;
                kept.push(r);
            }
        }
        let (_, mut schedule) = best?;
        by_start(&mut schedule);
        debug_assert!(valid_schedule(reserved, &new, &schedule));
        Some(schedule)
    }

    fn name(&self) -> String {
        format!("msb-{}", self.heuristic.name())
    }
}

enum Candidate {
    /// Feasible and cheaper than the bound: the schedule is in the buffer.
    Cost(Time),
    /// Infeasible, or not cheaper than the bound.
    Dominated,
    /// The new job itself misses its deadline.
    NewMisses,
}

/// Builds one MSB candidate into `out`: `kept` (already held in `prefix`),
/// then `new`, then `tail` in order. `tail_work[j]` bounds the cost of
/// `tail[j..]` from below.
#[allow(clippy::too_many_arguments)]
fn candidate(
    now: Time,
    prefix: &Profile,
    kept: &[Reserved],
    kept_cost: Time,
    new: Pending,
    tail: &[Reserved],
    tail_work: &[Time],
    bound: Time,
    out: &mut Vec<Reserved>,
) -> Candidate {
    let start = prefix.earliest_start(new.procs, new.estimate, now);
    if start + new.estimate > new.deadline {
        return Candidate::NewMisses;
    }
    let mut cost = kept_cost + start + new.estimate - now;
    if cost + tail_work[0] >= bound {
        return Candidate::Dominated;
    }
    let mut profile = prefix.clone();
    profile.allocate(start, new.estimate, new.procs);
    out.clear();
    out.extend_from_slice(kept);
    out.push(Reserved { job: new, start });
    for (j, r) in tail.iter().enumerate() {
        let job = r.job;
        let start = profile.earliest_start(job.procs, job.estimate, now);
        if start + job.estimate > job.deadline {
            return Candidate::Dominated;
        }
        cost += start + job.estimate - now;
        if cost + tail_work[j + 1] >= bound {
            return Candidate::Dominated;
        }
        profile.allocate(start, job.estimate, job.procs);
        out.push(Reserved { job, start });
    }
    Candidate::Cost(cost)
}

/// False when `new` cannot meet its deadline even on the machine with only
/// the running jobs (or is wider than the machine): no schedule can admit
/// it, since more holds only delay its earliest start.
pub(super) fn fits_alone(now: Time, base: &Profile, new: &Pending) -> bool {
    new.procs <= base.procs()
        && base.earliest_start(new.procs, new.estimate, now) + new.estimate <= new.deadline
}

/// The reserved jobs in scheduled order: ascending reserved start; jobs with
/// the same start in the heuristic's order (which ends in the job index).
pub(super) fn scheduled_order(
    heuristic: Heuristic,
    now: Time,
    reserved: &[Reserved],
) -> Vec<Reserved> {
    let mut order = reserved.to_vec();
    order.sort_by_key(|r| (r.start, r.job.job));
    let mut jobs: Vec<Pending> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && order[j].start == order[i].start {
            j += 1;
        }
        if j - i > 1 {
            jobs.clear();
            jobs.extend(order[i..j].iter().map(|r| r.job));
            heuristic.sort(now, &mut jobs);
            for (r, &job) in order[i..j].iter_mut().zip(&jobs) {
                r.job = job;
            }
        }
        i = j;
    }
    order
}

/// Keeps a reserved job at its reserved start in `profile` and returns it.
/// Should it not fit there any more (or lie in the past), it is placed at
/// its earliest start from `now` instead: the caller checks its deadline.
/// A job of estimate 0 holds nothing, so it always stays.
pub(super) fn keep(now: Time, profile: &mut Profile, r: Reserved) -> Reserved {
    let job = r.job;
    let stays = job.estimate == 0 || profile.fits(job.procs, job.estimate, r.start);
    let start = if r.start >= now && stays {
        r.start
    } else {
        profile.earliest_start(job.procs, job.estimate, now)
    };
    if job.estimate > 0 {
        profile.allocate(start, job.estimate, job.procs);
    }
    Reserved { job, start }
}

/// What every admitted schedule must be: each of `reserved` and `new`
/// exactly once with unchanged data, in [`by_start`] order, all meeting
/// their deadlines. For debug assertions and tests.
pub(super) fn valid_schedule(reserved: &[Reserved], new: &Pending, schedule: &[Reserved]) -> bool {
    let mut want: Vec<Pending> = reserved.iter().map(|r| r.job).chain([*new]).collect();
    let mut got: Vec<Pending> = schedule.iter().map(|r| r.job).collect();
    want.sort_by_key(|j| j.job);
    got.sort_by_key(|j| j.job);
    want == got
        && schedule
            .windows(2)
            .all(|w| (w[0].start, w[0].job.job) <= (w[1].start, w[1].job.job))
        && feasible(schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job submitted at 0 (ties in the heuristics go by job index).
    fn job(job: u32, procs: u32, estimate: Time, deadline: Time) -> Pending {
        Pending {
            job,
            submit: 0,
            procs,
            estimate,
            deadline,
        }
    }

    fn at(job: Pending, start: Time) -> Reserved {
        Reserved { job, start }
    }

    #[test]
    fn keeps_a_job_that_no_longer_fits_at_its_earliest_start() {
        // A reserved at 0 on a machine whose running job holds 3 of the 4
        // processors until 10: it cannot stay, it goes to 10.
        let mut base = Profile::new(4, 0);
        base.allocate(0, 10, 3);
        let mut p = base.clone();
        let r = keep(0, &mut p, at(job(1, 2, 5, 100), 0));
        assert_eq!(r.start, 10);
        assert_eq!(p.free_at(10), 2);
    }
}
