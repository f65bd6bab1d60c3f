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
