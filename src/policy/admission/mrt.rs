//! Modified Real-Time admission (MRT): Figure 2 of Islam, Balaji,
//! Sadayappan and Panda, "QoPS: A QoS based scheme for Parallel Job
//! Scheduling" (OSU-CISRC-4/03-TR21), section 2.2.2, after the real-time
//! search of Ramamritham, Stankovic and Shiah.
//!
//! The whole schedule is rebuilt from empty by a depth-first search over
//! strongly feasible partial schedules, with a bounded number of backtracks.

use super::msb::valid_schedule;
use super::{by_start, Admission, Heuristic, Pending, Reserved};
use crate::sim::Profile;
use crate::workload::Time;

/// Modified Real-Time admission with at most `backtracks` backtracks
/// (Figure 2).
///
/// All jobs not started yet and the new job form the temporary list TL,
/// sorted by the heuristic. Starting from the empty partial schedule, each
/// step extends it by one job, placed at its earliest start in the profile
/// holding the running jobs and the jobs placed before it. The remaining
/// jobs are tried in TL's order, and a job extends the partial schedule when
/// the extended one is *strongly feasible*: every placed job meets its
/// deadline, and every job still unscheduled would meet its own if it alone
/// extended the schedule next. When no remaining job can extend the current
/// partial schedule, the search backtracks: it undoes the last placement and
/// tries the next job (in TL's order) at that step. Each backtrack counts;
/// beyond `backtracks` of them, or when the empty schedule runs out of
/// candidates, the job is rejected. It is admitted once every job is placed.
///
/// Interpretations:
///
/// - *Backtracking.* Figure 2 says "backtrack to the previous partial
///   schedule" as soon as `J_i` is not strongly feasible, which could also be
///   read as counting every rejected extension as a backtrack (as in the
///   original RT search, which only extends by the heuristic's best job). We
///   count only the undoing of a placement: a step first tries every
///   remaining job, and only a step where none fits backtracks.
/// - *B.* The paper gives no value; the policy's default is 10.
/// - *Starting point.* The empty partial schedule must itself be strongly
///   feasible: a job that misses its deadline alone on the machine with only
///   the running jobs rejects the new job at once.
///
/// Implementation: the profile is updated in place (allocate on extension,
/// release on undo). For every unscheduled job we keep its earliest start
/// in the current partial schedule. Holds are only added going deeper, so
/// that start never decreases: after a placement over `[s, e)` a job whose
/// cached window does not meet `[s, e)`, or still fits there, keeps it, and
/// the others are searched from their cached start on, not from `now`.
/// Changes are logged and undone on backtrack. A step thus costs one
/// allocation plus an overlap test per unscheduled job, and a profile scan
/// only for the jobs the placement actually pushed.
#[derive(Debug, Clone)]
pub struct Mrt {
    heuristic: Heuristic,
    backtracks: u32,
}

impl Mrt {
    pub fn new(heuristic: Heuristic, backtracks: u32) -> Self {
        Mrt {
            heuristic,
            backtracks,
        }
    }
}

/// One step of the search: the job placed there and where to resume.
struct Frame {
    /// Index in TL of the job placed at this step.
    job: usize,
    start: Time,
    /// Length of the undo log before this placement.
    undo: usize,
}

/// The search state.
struct Search<'a> {
    tl: &'a [Pending],
    profile: Profile,
    /// Earliest start of each unscheduled job in the current partial
    /// schedule (stale for scheduled ones).
    earliest: Vec<Time>,
    placed: Vec<bool>,
    /// (job, previous earliest start), undone on backtrack.
    undo: Vec<(usize, Time)>,
}

impl Search<'_> {
    /// Tries to extend the partial schedule with job `c`; on success the
    /// placement is kept and its start returned, else nothing changed.
    fn extend(&mut self, c: usize) -> Option<Time> {
        let job = self.tl[c];
        let start = self.earliest[c];
        // Every unscheduled job is feasible in a strongly feasible schedule.
        debug_assert!(start + job.estimate <= job.deadline);
        let end = start + job.estimate;
        self.profile.allocate(start, job.estimate, job.procs);
        let mark = self.undo.len();
        for (u, other) in self.tl.iter().enumerate() {
            if self.placed[u] || u == c {
                continue;
            }
            let at = self.earliest[u];
            // The window [at, at + max(d, 1)) against the hold [start, end);
            // a zero-length job still needs its processors at `at`.
            let overlaps = at < end && start < at + other.estimate.max(1);
            if !overlaps || self.profile.fits(other.procs, other.estimate, at) {
                continue;
            }
            let later = self.profile.earliest_start(other.procs, other.estimate, at);
            self.undo.push((u, at));
            self.earliest[u] = later;
            if later + other.estimate > other.deadline {
                self.rollback(mark);
                self.profile.release(start, job.estimate, job.procs);
                return None;
            }
        }
        self.placed[c] = true;
        Some(start)
    }

    /// Undoes the placement of `frame`.
    fn retract(&mut self, frame: &Frame) {
        let job = self.tl[frame.job];
        self.profile.release(frame.start, job.estimate, job.procs);
        self.placed[frame.job] = false;
        self.rollback(frame.undo);
    }

    fn rollback(&mut self, mark: usize) {
        for (u, at) in self.undo.drain(mark..).rev() {
            self.earliest[u] = at;
        }
    }
}

impl Admission for Mrt {
    fn admit(
        &mut self,
        now: Time,
        base: &Profile,
        reserved: &[Reserved],
        new: Pending,
    ) -> Option<Vec<Reserved>> {
        if new.procs > base.procs() {
            return None;
        }
        let mut tl: Vec<Pending> = reserved.iter().map(|r| r.job).chain([new]).collect();
        self.heuristic.sort(now, &mut tl);
        let m = tl.len();
        let earliest: Vec<Time> = tl
            .iter()
            .map(|j| base.earliest_start(j.procs, j.estimate, now))
            .collect();
        // The empty schedule must be strongly feasible.
        if tl
            .iter()
            .zip(&earliest)
            .any(|(j, &at)| at + j.estimate > j.deadline)
        {
            return None;
        }
        let mut search = Search {
            tl: &tl,
            profile: base.clone(),
            earliest,
            placed: vec![false; m],
            undo: Vec::new(),
        };
        let mut stack: Vec<Frame> = Vec::with_capacity(m);
        let mut backtracks = 0;
        // The first candidate (index in TL) to try at the current step.
        let mut next = 0;
        while stack.len() < m {
            let undo = search.undo.len();
            let mut extended = false;
            for c in next..m {
                if search.placed[c] {
                    continue;
                }
                if let Some(start) = search.extend(c) {
                    stack.push(Frame {
                        job: c,
                        start,
                        undo,
                    });
                    extended = true;
                    break;
                }
            }
            if extended {
                next = 0;
                continue;
            }
            // Dead end: undo the last placement and try the next job there.
            let frame = stack.pop()?;
            backtracks += 1;
            if backtracks > self.backtracks {
                return None;
            }
            search.retract(&frame);
            next = frame.job + 1;
        }
        let mut schedule: Vec<Reserved> = stack
            .iter()
            .map(|f| Reserved {
                job: tl[f.job],
                start: f.start,
            })
            .collect();
        by_start(&mut schedule);
        debug_assert!(valid_schedule(reserved, &new, &schedule));
        Some(schedule)
    }

    fn name(&self) -> String {
        format!("mrt-b{}-{}", self.backtracks, self.heuristic.name())
    }
}

#[cfg(test)]
mod tests {
    use super::super::msb::tests::{at, job, serial, starts};
    use super::*;

    #[test]
    fn heuristics_give_different_orders() {
        // A: 10 s, deadline 50 (laxity 40); B: 30 s, deadline 55 (laxity
        // 25); N: 5 s, deadline 100. All take the whole machine.
        let a = job(1, 4, 10, 50);
        let b = job(2, 4, 30, 55);
        let reserved = [at(a, 5), at(b, 15)];
        let n = job(3, 4, 5, 100);
        // EDF: A, B, N. A at 5-15 leaves B (15-45) and N (15-20) feasible;
        // B at 15-45 leaves N (45-50) feasible; N at 45-50.
        let s = Mrt::new(Heuristic::Edf, 10)
            .admit(0, &serial(), &reserved, n)
            .expect("admitted");
        assert_eq!(starts(&s), vec![(1, 5), (2, 15), (3, 45)]);
        // LLF: B, A, N. B at 5-35 leaves A (35-45 <= 50) and N feasible; A
        // at 35-45; N at 45-50.
        let s = Mrt::new(Heuristic::Llf, 10)
            .admit(0, &serial(), &reserved, n)
            .expect("admitted");
        assert_eq!(starts(&s), vec![(2, 5), (1, 35), (3, 45)]);
    }

    #[test]
    fn tries_the_next_job_when_one_is_not_strongly_feasible() {
        // 6 processors, 2 held by a running job until 50: 4 free over the
        // whole example. X (2 procs, 10 s, deadline 30) and Y (2 procs,
        // 30 s, deadline 39) both reserved at 0; N: 2 procs, 20 s, deadline
        // 25. EDF: N (25), X (30), Y (39).
        let mut base = Profile::new(6, 0);
        base.allocate(0, 50, 2);
        let x = job(1, 2, 10, 30);
        let y = job(2, 2, 30, 39);
        let reserved = [at(x, 0), at(y, 0)];
        let n = job(3, 2, 20, 25);
        // Step 1: N at 0-20 leaves X (0-10) and Y (0-30) feasible.
        // Step 2: X at 0-10 would leave Y 2 processors only from 10 on:
        // 10-40 > 39, so X does not extend; Y at 0-30 does (X can still run
        // 20-30). Step 3: X at 20-30. No backtrack: B = 0 is enough.
        let s = Mrt::new(Heuristic::Edf, 0)
            .admit(0, &base, &reserved, n)
            .expect("admitted");
        assert_eq!(starts(&s), vec![(2, 0), (3, 0), (1, 20)]);
    }

    #[test]
    fn rejects_when_the_search_runs_out() {
        // A 5-15 and B 15-25 end exactly at their deadlines; N (10 s,
        // deadline 30) alone would run 5-15. EDF: A, B, N.
        let a = job(1, 4, 10, 15);
        let b = job(2, 4, 10, 25);
        let reserved = [at(a, 5), at(b, 15)];
        let n = job(3, 4, 10, 30);
        // Step 1: A at 5-15 leaves B and N at 15-25: strongly feasible.
        // Step 2: B at 15-25 pushes N to 25-35 > 30; N at 15-25 pushes B to
        // 25-35 > 25: dead end, backtrack 1 (undo A). Step 1 again: B at
        // 5-15 or N at 5-15 pushes A to 15-25 > 15: the empty schedule has
        // no candidate left, rejected after 1 backtrack.
        assert_eq!(
            Mrt::new(Heuristic::Edf, 10).admit(0, &serial(), &reserved, n),
            None
        );
    }

    #[test]
    fn a_dead_end_needs_a_backtrack() {
        // 3 processors, 1 held by a running job until 100: 2 free over the
        // whole example. Reserved U (2 procs, 10 s, deadline 22) at 0 and V
        // (1 proc, 15 s, deadline 30) at 10. New X: 1 proc, 10 s, deadline
        // 20. EDF (and LLF): X (20), U (22), V (30).
        let mut base = Profile::new(3, 0);
        base.allocate(0, 100, 1);
        let u = job(1, 2, 10, 22);
        let v = job(2, 1, 15, 30);
        let reserved = [at(u, 0), at(v, 10)];
        let x = job(3, 1, 10, 20);
        // Step 1: X at 0-10 leaves U (10-20) and V (0-15 beside X)
        // feasible. Step 2: U at 10-20 pushes V to 20-35 > 30; V at 0-15
        // pushes U to 15-25 > 22: dead end, backtrack 1 (undo X).
        // Step 1 again, next job U at 0-10: X (10-20) and V (10-25) stay
        // feasible. Step 2: X at 10-20 leaves V 10-25 beside it. Step 3: V
        // at 10-25.
        let s = Mrt::new(Heuristic::Edf, 1)
            .admit(0, &base, &reserved, x)
            .expect("admitted after one backtrack");
        assert_eq!(starts(&s), vec![(1, 0), (2, 10), (3, 10)]);
        assert_eq!(
            Mrt::new(Heuristic::Edf, 10).admit(0, &base, &reserved, x),
            Some(s)
        );
        // With B = 0 that one backtrack is already too many.
        assert_eq!(
            Mrt::new(Heuristic::Edf, 0).admit(0, &base, &reserved, x),
            None
        );
    }

    #[test]
    fn rejects_a_job_that_misses_alone() {
        // N needs 10 s by 12 but the machine is full until 5.
        let n = job(1, 1, 10, 12);
        assert_eq!(
            Mrt::new(Heuristic::Edf, 10).admit(0, &serial(), &[], n),
            None
        );
        // And one wider than the machine.
        let n = job(1, 5, 1, 1000);
        assert_eq!(
            Mrt::new(Heuristic::Edf, 10).admit(0, &serial(), &[], n),
            None
        );
    }
}
