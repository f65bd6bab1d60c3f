//! Deadline guarantees with admission control (the QOPS paper).
//!
//! When a job arrives, an admission algorithm decides whether it can be
//! added to the reserved schedule of the admitted jobs that have not started
//! yet, so that every one of them (the new job included) still completes by
//! its deadline. If so the job is admitted and the new reserved schedule
//! replaces the old one; if not the job is rejected at once and the old
//! schedule stays. Schedules are built by placing jobs in an order, each at
//! its earliest start in the availability profile that takes nothing from
//! running jobs or from jobs placed before it.
//!
//! One module per algorithm, all behind [`Admission`]: [`qops`] (QoPS),
//! [`msb`] (Modified Slack-Based), [`mrt`] (Modified Real-Time).

pub mod mrt;
pub mod msb;
pub mod policy;
pub mod qops;

pub use policy::{AdmissionPolicy, AdmissionSpec, Algorithm};

use crate::sim::{JobIdx, Profile};
use crate::workload::Time;

/// A job as admission control sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub job: JobIdx,
    pub submit: Time,
    pub procs: u32,
    /// What the scheduler must reserve: the run time estimate.
    pub estimate: Time,
    /// Completion deadline.
    pub deadline: Time,
}

impl Pending {
    /// Latest start that still meets the deadline.
    pub fn latest_start(&self) -> Time {
        self.deadline - self.estimate
    }
}

/// An admitted job and its reserved start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserved {
    pub job: Pending,
    pub start: Time,
}

impl Reserved {
    pub fn meets_deadline(&self) -> bool {
        self.start + self.job.estimate <= self.job.deadline
    }
}

/// The ordering heuristic of the admission algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Heuristic {
    /// Earliest deadline first.
    Edf,
    /// Least laxity first: smallest deadline - now - estimate.
    Llf,
}

impl Heuristic {
    /// Sorts jobs into the heuristic's order at time `now`; ties by
    /// earlier submit, then job index, so every order is total.
    pub fn sort(self, now: Time, jobs: &mut [Pending]) {
        match self {
            Heuristic::Edf => jobs.sort_by_key(|j| (j.deadline, j.submit, j.job)),
            Heuristic::Llf => {
                jobs.sort_by_key(|j| (j.deadline - now - j.estimate, j.submit, j.job))
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Heuristic::Edf => "edf",
            Heuristic::Llf => "llf",
        }
    }
}

/// An admission algorithm.
pub trait Admission: Send {
    /// Decides on `new`, arriving at `now`. `base` is the machine from `now`
    /// on with only the running jobs' holds; `reserved` the admitted jobs not
    /// started yet, in the order of their reserved starts, all meeting their
    /// deadlines. Returns the new reserved schedule (all of `reserved` plus
    /// `new`, every job meeting its deadline, in order of reserved start), or
    /// `None` to reject `new`.
    fn admit(
        &mut self,
        now: Time,
        base: &Profile,
        reserved: &[Reserved],
        new: Pending,
    ) -> Option<Vec<Reserved>>;

    fn name(&self) -> String;
}

/// Places `order` one job after another, each at its earliest start from
/// `now` in `profile` (which is modified: the jobs' holds are added).
pub fn place(now: Time, profile: &mut Profile, order: &[Pending], out: &mut Vec<Reserved>) {
    for &job in order {
        let start = profile.earliest_start(job.procs, job.estimate, now);
        profile.allocate(start, job.estimate, job.procs);
        out.push(Reserved { job, start });
    }
}

/// Sorts a schedule by reserved start (ties by job index), the order the
/// algorithms read "positions" in.
pub fn by_start(schedule: &mut [Reserved]) {
    schedule.sort_by_key(|r| (r.start, r.job.job));
}

/// True when every job of the schedule meets its deadline.
pub fn feasible(schedule: &[Reserved]) -> bool {
    schedule.iter().all(Reserved::meets_deadline)
}
