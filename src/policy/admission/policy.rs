//! The scheduling policy around an admission algorithm: admit or reject each
//! arriving job, then start admitted jobs at their reserved starts.

use super::{mrt::Mrt, msb::Msb, qops::Qops, Admission, Heuristic, Pending, Reserved};
use crate::policy::backfill::LiveProfile;
use crate::sim::{Epoch, JobIdx, Policy, Profile, State};
use crate::workload::Time;

/// Which admission algorithm, with its parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Algorithm {
    /// QoPS with at most `k` deadline violations repaired per insertion point.
    Qops { k: u32 },
    /// Modified Slack-Based.
    Msb,
    /// Modified Real-Time with at most `backtracks` backtracks.
    Mrt { backtracks: u32 },
}

/// Default K of QoPS and B of MRT (the paper gives no values).
pub const DEFAULT_K: u32 = 5;
pub const DEFAULT_BACKTRACKS: u32 = 10;

/// An admission policy: the algorithm and its ordering heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct AdmissionSpec {
    pub algorithm: Algorithm,
    pub heuristic: Heuristic,
}

impl AdmissionSpec {
    pub fn build(&self) -> AdmissionPolicy {
        let algo: Box<dyn Admission> = match self.algorithm {
            Algorithm::Qops { k } => Box::new(Qops::new(self.heuristic, k)),
            Algorithm::Msb => Box::new(Msb::new(self.heuristic)),
            Algorithm::Mrt { backtracks } => Box::new(Mrt::new(self.heuristic, backtracks)),
        };
        AdmissionPolicy {
            spec: *self,
            algo,
            reserved: Vec::new(),
            plan: None,
            base: LiveProfile::new(),
        }
    }
}

impl AdmissionSpec {
    /// The algorithm and its order in words, as (field, sentence) lines.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let algo = match self.algorithm {
            Algorithm::Qops { k } => format!("QoPS: the new job is tried at log N points of the reserved schedule, the tail re-sorted, up to {k} deadline violations repaired by moving the late job ahead"),
            Algorithm::Msb => "MSB: the new job is tried at every position of the reserved order, the cheapest feasible schedule kept".to_string(),
            Algorithm::Mrt { backtracks } => format!("MRT: the schedule is rebuilt in heuristic order, each step strongly feasible, at most {backtracks} backtracks"),
        };
        let order = match self.heuristic {
            Heuristic::Edf => "EDF: earliest deadline first",
            Heuristic::Llf => "LLF: least laxity first",
        };
        vec![
            ("admission", format!("{algo}; a job is admitted only if every admitted job still meets its deadline, else rejected on arrival")),
            ("order", order.to_string()),
        ]
    }
}

impl std::fmt::Display for AdmissionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.algorithm {
            Algorithm::Qops { k } => write!(f, "QoPS(K={k})")?,
            Algorithm::Msb => write!(f, "MSB")?,
            Algorithm::Mrt { backtracks } => write!(f, "MRT(B={backtracks})")?,
        }
        write!(f, "-{}", self.heuristic.name())
    }
}

/// A job without a deadline can wait this long: never, in practice.
const NO_DEADLINE: Time = Time::MAX / 4;

pub struct AdmissionPolicy {
    spec: AdmissionSpec,
    algo: Box<dyn Admission>,
    /// Admitted jobs not started yet, by reserved start.
    reserved: Vec<Reserved>,
    /// The machine with running jobs and reservations, kept across epochs
    /// so early finishes can move reservations earlier; `None` after an
    /// admission changed the reservations.
    plan: Option<Profile>,
    /// The machine with the running jobs only, kept in step with them from
    /// epoch to epoch rather than rebuilt at every arrival: with thousands
    /// running, a rebuild per arrival was the cost of a run.
    base: LiveProfile,
}

impl AdmissionPolicy {
    fn pending(state: &State<'_>, job: JobIdx) -> Pending {
        let info = &state.jobs[job as usize];
        Pending {
            job,
            submit: info.submit,
            procs: info.procs,
            estimate: info.estimate,
            deadline: info.deadline.unwrap_or(NO_DEADLINE),
        }
    }

    /// The plan from the running jobs (`base`, synced to this epoch) and
    /// the reservations.
    fn rebuild_plan(&mut self) {
        let mut plan = self.base.profile().clone();
        for r in &self.reserved {
            plan.allocate(r.start, r.job.estimate, r.job.procs);
        }
        self.plan = Some(plan);
    }
}

impl Policy for AdmissionPolicy {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn admit(&mut self, job: JobIdx, state: &State<'_>) -> bool {
        let new = Self::pending(state, job);
        // A job that cannot meet its deadline even on an empty machine is
        // rejected without asking the algorithm.
        if new.submit + new.estimate > new.deadline {
            return false;
        }
        self.base.sync(state);
        match self
            .algo
            .admit(state.now, self.base.profile(), &self.reserved, new)
        {
            Some(schedule) => {
                debug_assert!(schedule.iter().all(Reserved::meets_deadline));
                self.reserved = schedule;
                self.plan = None;
                true
            }
            None => false,
        }
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let now = epoch.now();
        self.base.sync(&epoch.state);
        match self.plan.as_mut() {
            // Admitted this epoch: the algorithm planned on the machine as
            // it is now, early finishes included.
            None => self.rebuild_plan(),
            Some(plan) => {
                plan.advance(now);
                // Jobs ended before their estimates: give the rest of their
                // hold back and move reservations earlier where they fit, in
                // order. A reservation only moves earlier, so every deadline
                // still holds.
                if epoch.state.release_early_finishes(plan) {
                    for r in &mut self.reserved {
                        let j = r.job;
                        if let Some(at) = plan.earlier_start(j.procs, j.estimate, now, r.start) {
                            plan.move_earlier(r.start, at, j.estimate, j.procs);
                            r.start = at;
                        }
                    }
                    super::by_start(&mut self.reserved);
                }
            }
        }
        #[cfg(debug_assertions)]
        {
            let mut rebuilt = Profile::new(epoch.state.procs, now);
            epoch.state.running_profile(&mut rebuilt);
            for r in &self.reserved {
                rebuilt.allocate(r.start, r.job.estimate, r.job.procs);
            }
            let plan = self.plan.as_ref().expect("plan made above");
            debug_assert!(
                plan.steps().eq(rebuilt.steps()),
                "kept plan differs from the running jobs and reservations at {now}"
            );
        }
        let mut next = Time::MAX;
        let mut started = 0;
        for r in &self.reserved {
            if r.start <= now {
                debug_assert_eq!(r.start, now, "reservation passed without an epoch");
                // Its hold in the plan stays, as the running job's.
                self.base.start(now, r.job.estimate, r.job.procs);
                epoch.start(r.job.job);
                started += 1;
            } else {
                next = next.min(r.start);
            }
        }
        if started > 0 {
            self.reserved.retain(|r| r.start > now);
        }
        if next != Time::MAX {
            epoch.wake_at(next);
        }
    }
}
