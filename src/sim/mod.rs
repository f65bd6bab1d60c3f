//! The simulation core: an event loop over submit and finish events, and the
//! narrow interface through which a [`Policy`] decides.
//!
//! At every instant where something happens (jobs finish, jobs arrive) the
//! core first applies all finishes, then all arrivals (asking the policy to
//! admit each), then runs one scheduling epoch: the policy sees the system
//! through an [`Epoch`] and answers with the jobs to start now. The core
//! never consults the language, and the policy never sees a job's actual run
//! time, only its estimate, as a real scheduler would.
//!
//! The core sits just above [`crate::workload`] (and [`crate::units`]) and
//! imports nothing else: policies, measures and reports are built on it,
//! so none of them can change how it runs. A policy's own costs reach the
//! reports through the generic [`Policy::stats`], not through the core.

pub mod invariants;
pub mod profile;

use crate::workload::{Time, Workload};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

pub use profile::Profile;

/// Index of a job in [`Workload::jobs`].
pub type JobIdx = u32;

/// What a policy may know about a job: everything but its actual run time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobInfo {
    pub submit: Time,
    pub estimate: Time,
    pub procs: u32,
    pub user: i64,
    pub group: i64,
    pub deadline: Option<Time>,
}

/// A running job as the scheduler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Running {
    /// Start + estimate: when the scheduler must assume the job ends.
    pub expected_end: Time,
    pub job: JobIdx,
    pub start: Time,
}

/// A job that finished at this instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    pub job: JobIdx,
    pub start: Time,
    /// Finished before its estimate ran out, so planned holds are too long.
    pub early: bool,
}

/// A scheduling policy: the object the core asks at every epoch.
///
/// Later mechanisms (search over candidate schedules, admission control,
/// fairshare priority) are further implementations of this trait or parts
/// plugged into one; the core does not change for them.
pub trait Policy: Send {
    /// A short readable name for reports.
    fn name(&self) -> String;

    /// Asked once per arriving job, before the epoch at its submit time.
    /// A rejected job never runs and is reported as rejected.
    fn admit(&mut self, _job: JobIdx, _state: &State<'_>) -> bool {
        true
    }

    /// One scheduling epoch: start zero or more waiting jobs via
    /// [`Epoch::start`].
    fn schedule(&mut self, epoch: &mut Epoch<'_>);

    /// What the policy counted over the run, for reports. Asked by the
    /// caller after the run, never by the core: the outcome holds only what
    /// the same inputs always reproduce, and the statistics may hold
    /// wall-clock samples.
    fn stats(&self) -> PolicyStats {
        PolicyStats::default()
    }

    /// Notice from the core: `job` started at `now` (after the epoch that
    /// started it). For policies that keep usage accounts (fairshare).
    fn job_started(&mut self, _job: JobIdx, _jobs: &[JobInfo], _now: Time) {}

    /// Notice from the core: `job` ended at `now` (before the epoch at `now`).
    fn job_finished(&mut self, _job: JobIdx, _jobs: &[JobInfo], _now: Time) {}
}

/// What a policy reports about its own work over a run, by name, so the
/// core needs to know no policy's particular costs (a searching policy's
/// node visits, say).
#[derive(Debug, Clone, Default)]
pub struct PolicyStats {
    /// Deterministic counters: the same inputs give the same values.
    pub counters: Vec<(&'static str, u64)>,
    /// Wall-clock samples, e.g. one per epoch, in microseconds. They differ
    /// from run to run, so they are kept apart from the counters and never
    /// used for decisions.
    pub timings: Vec<(&'static str, Vec<u64>)>,
}

impl PolicyStats {
    /// The counter called `name`, if the policy keeps one.
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|c| c.0 == name).map(|c| c.1)
    }

    /// The wall-clock samples called `name`, if the policy takes them.
    pub fn timing(&self, name: &str) -> Option<&[u64]> {
        self.timings
            .iter()
            .find(|t| t.0 == name)
            .map(|t| t.1.as_slice())
    }
}

/// The system as the policy sees it at an instant.
pub struct State<'a> {
    pub now: Time,
    /// Processors of the machine.
    pub procs: u32,
    /// Processors free now, before this epoch's starts.
    pub free: u32,
    pub jobs: &'a [JobInfo],
    /// Waiting jobs in arrival order.
    pub waiting: &'a [JobIdx],
    /// Running jobs sorted by expected end (then job index).
    pub running: &'a [Running],
    /// Jobs admitted at this instant, in arrival order.
    pub arrived: &'a [JobIdx],
    /// Jobs finished at this instant.
    pub finished: &'a [Finished],
}

impl State<'_> {
    /// Fills `profile` with the machine as running jobs hold it, from now on.
    pub fn running_profile(&self, profile: &mut Profile) {
        profile.reset(self.now);
        for r in self.running {
            profile.allocate(
                self.now,
                r.expected_end - self.now,
                self.jobs[r.job as usize].procs,
            );
        }
    }
}

/// One epoch: the state plus the decisions being made.
pub struct Epoch<'a> {
    pub state: State<'a>,
    free_left: u32,
    started: Vec<JobIdx>,
    wake_at: Option<Time>,
    violation: Option<String>,
    audit: Option<&'a mut Audit>,
    epoch_index: u64,
}

impl Epoch<'_> {
    pub fn now(&self) -> Time {
        self.state.now
    }

    /// Processors still free after the starts made so far in this epoch.
    pub fn free(&self) -> u32 {
        self.free_left
    }

    /// Starts a waiting job now. Starting a job that does not fit is a policy
    /// bug: the start is refused and the simulation ends with an error.
    pub fn start(&mut self, job: JobIdx) {
        let procs = self.state.jobs[job as usize].procs;
        if procs > self.free_left {
            self.violation.get_or_insert_with(|| {
                format!(
                    "policy started job {job} needing {procs} processors with {} free at {}",
                    self.free_left, self.state.now
                )
            });
            return;
        }
        self.free_left -= procs;
        self.started.push(job);
    }

    /// Asks for an epoch at time `t` even if no job arrives or ends then,
    /// e.g. when a reservation starts at a time no event falls on. Times not
    /// after now are ignored; of several requests the earliest counts.
    pub fn wake_at(&mut self, t: Time) {
        if t > self.state.now {
            self.wake_at = Some(self.wake_at.map_or(t, |w| w.min(t)));
        }
    }

    /// Declares that `job` holds a reservation starting at `at`. Informational:
    /// recorded only when the run is audited, so invariant checks can verify
    /// that reservations are kept.
    pub fn reserve(&mut self, job: JobIdx, at: Time) {
        if let Some(audit) = self.audit.as_deref_mut() {
            audit.reservations.push(Reservation {
                epoch: self.epoch_index,
                now: self.state.now,
                job,
                at,
            });
        }
    }
}

/// A reservation as declared by a policy in one epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    pub epoch: u64,
    pub now: Time,
    pub job: JobIdx,
    pub at: Time,
}

/// What an audited run records beyond outcomes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audit {
    pub reservations: Vec<Reservation>,
    /// Time and index of every epoch.
    pub epochs: Vec<Time>,
}

/// When and how long a job ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub start: Time,
    pub end: Time,
}

/// Per-job results of a simulation, indexed like [`Workload::jobs`].
/// Deterministic: the same inputs give an equal outcome, bit for bit; what a
/// policy measured about itself is in [`Policy::stats`].
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub policy: String,
    /// `None` for jobs the policy rejected at admission (and for chunks of
    /// a split job whose earlier chunk was rejected).
    pub runs: Vec<Option<Run>>,
    /// When each follow-on chunk of a split job was submitted: the end of
    /// the chunk before it (see [`Job::follows`](crate::workload::Job)).
    pub releases: Vec<(JobIdx, Time)>,
    pub epochs: u64,
    pub audit: Option<Audit>,
}

/// The simulation failed: a policy broke the rules the core enforces.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SimError {
    #[error("policy `{policy}` broke the simulation: {message}")]
    PolicyViolation { policy: String, message: String },
    #[error("policy `{policy}` left {waiting} jobs waiting on an idle machine at time {now}")]
    Stalled {
        policy: String,
        waiting: usize,
        now: Time,
    },
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SimOptions {
    /// Record reservations and epochs for invariant checks.
    pub audit: bool,
}

/// Runs `policy` on `workload` to completion.
pub fn simulate(
    workload: &Workload,
    policy: &mut dyn Policy,
    opts: SimOptions,
) -> Result<Outcome, SimError> {
    let n = workload.jobs.len();
    let mut infos: Vec<JobInfo> = workload
        .jobs
        .iter()
        .map(|j| JobInfo {
            submit: j.submit,
            estimate: j.estimate.max(1),
            procs: j.procs,
            user: j.user,
            group: j.group,
            deadline: j.deadline,
        })
        .collect();
    let runtimes: Vec<Time> = workload
        .jobs
        .iter()
        .map(|j| j.sim_runtime().max(1))
        .collect();
    let successor = successors(workload);
    let is_follower = |i: usize| workload.jobs[i].follows.is_some();
    let mut releases: Vec<(JobIdx, Time)> = Vec::new();
    let mut released: Vec<JobIdx> = Vec::new();
    let mut incoming: Vec<JobIdx> = Vec::new();
    let name = policy.name();
    let mut runs: Vec<Option<Run>> = vec![None; n];
    let mut audit = opts.audit.then(Audit::default);

    let mut next_arrival = 0usize;
    let mut finish_queue: BinaryHeap<Reverse<(Time, JobIdx)>> = BinaryHeap::new();
    let mut wakeups: BinaryHeap<Reverse<Time>> = BinaryHeap::new();
    let mut waiting: Vec<JobIdx> = Vec::new();
    let mut running: Vec<Running> = Vec::new();
    let mut arrived: Vec<JobIdx> = Vec::new();
    let mut finished: Vec<Finished> = Vec::new();
    let mut is_waiting = vec![false; n];
    let mut free = workload.procs;
    let mut epochs = 0u64;

    // Follow-on chunks arrive when their predecessor ends, not by the trace.
    while next_arrival < n && is_follower(next_arrival) {
        next_arrival += 1;
    }
    loop {
        let next_submit = workload.jobs.get(next_arrival).map(|j| j.submit);
        let next_finish = finish_queue.peek().map(|Reverse((t, _))| *t);
        let next_wakeup = wakeups.peek().map(|Reverse(t)| *t);
        let Some(now) = [next_submit, next_finish, next_wakeup]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };
        while wakeups.peek().is_some_and(|Reverse(t)| *t <= now) {
            wakeups.pop();
        }

        finished.clear();
        released.clear();
        while let Some(&Reverse((t, job))) = finish_queue.peek() {
            if t != now {
                break;
            }
            finish_queue.pop();
            policy.job_finished(job, &infos, now);
            if let Some(next) = successor.get(&job) {
                released.push(*next);
            }
            let info = &infos[job as usize];
            free += info.procs;
            let start = runs[job as usize].map(|r| r.start).unwrap_or(now);
            let key = Running {
                expected_end: start + info.estimate,
                job,
                start,
            };
            if let Ok(pos) = running.binary_search(&key) {
                running.remove(pos);
            }
            finished.push(Finished {
                job,
                start,
                early: now < key.expected_end,
            });
        }

        incoming.clear();
        while let Some(j) = workload.jobs.get(next_arrival) {
            if j.submit != now {
                break;
            }
            incoming.push(next_arrival as JobIdx);
            next_arrival += 1;
            while next_arrival < n && is_follower(next_arrival) {
                next_arrival += 1;
            }
        }
        // Chunks released by this instant's finishes arrive after the trace's jobs.
        for &job in &released {
            infos[job as usize].submit = now;
            releases.push((job, now));
        }
        incoming.extend_from_slice(&released);
        arrived.clear();
        for &job in &incoming {
            let state = State {
                now,
                procs: workload.procs,
                free,
                jobs: &infos,
                waiting: &waiting,
                running: &running,
                arrived: &arrived,
                finished: &finished,
            };
            if policy.admit(job, &state) {
                is_waiting[job as usize] = true;
                waiting.push(job);
                arrived.push(job);
            }
        }

        if let Some(a) = audit.as_mut() {
            a.epochs.push(now);
        }
        let mut epoch = Epoch {
            state: State {
                now,
                procs: workload.procs,
                free,
                jobs: &infos,
                waiting: &waiting,
                running: &running,
                arrived: &arrived,
                finished: &finished,
            },
            free_left: free,
            started: Vec::new(),
            wake_at: None,
            violation: None,
            audit: audit.as_mut(),
            epoch_index: epochs,
        };
        policy.schedule(&mut epoch);
        epochs += 1;
        let Epoch {
            started,
            violation,
            wake_at,
            ..
        } = epoch;
        if let Some(t) = wake_at {
            wakeups.push(Reverse(t));
        }
        if let Some(message) = violation {
            return Err(SimError::PolicyViolation {
                policy: name,
                message,
            });
        }

        if !started.is_empty() {
            for &job in &started {
                let idx = job as usize;
                if !is_waiting[idx] {
                    return Err(SimError::PolicyViolation {
                        policy: name,
                        message: format!("started job {job} at {now}, which is not waiting"),
                    });
                }
                is_waiting[idx] = false;
                let info = &infos[idx];
                free -= info.procs;
                let end = now + runtimes[idx];
                runs[idx] = Some(Run { start: now, end });
                let r = Running {
                    expected_end: now + info.estimate,
                    job,
                    start: now,
                };
                let pos = running.partition_point(|x| *x < r);
                running.insert(pos, r);
                finish_queue.push(Reverse((end, job)));
                policy.job_started(job, &infos, now);
            }
            waiting.retain(|&j| is_waiting[j as usize]);
        }

        if finish_queue.is_empty() && wakeups.is_empty() && next_arrival == n && !waiting.is_empty()
        {
            return Err(SimError::Stalled {
                policy: name,
                waiting: waiting.len(),
                now,
            });
        }
    }

    Ok(Outcome {
        policy: name,
        runs,
        releases,
        epochs,
        audit,
    })
}

/// For each job that a follow-on chunk follows, that chunk's index.
fn successors(workload: &Workload) -> HashMap<JobIdx, JobIdx> {
    let mut out = HashMap::new();
    if workload.jobs.iter().all(|j| j.follows.is_none()) {
        return out;
    }
    let index: HashMap<i64, JobIdx> = workload
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (j.number, i as JobIdx))
        .collect();
    for (i, j) in workload.jobs.iter().enumerate() {
        if let Some(prev) = j.follows.and_then(|p| index.get(&p)) {
            out.insert(*prev, i as JobIdx);
        }
    }
    out
}

/// `workload` as it was really submitted in `outcome`: follow-on chunks get
/// the submit times at which they were released. Measures read submit times
/// from the workload, so they must see this one.
pub fn realized<'w>(workload: &'w Workload, outcome: &Outcome) -> std::borrow::Cow<'w, Workload> {
    if outcome.releases.is_empty() {
        return std::borrow::Cow::Borrowed(workload);
    }
    let mut w = workload.clone();
    for &(job, at) in &outcome.releases {
        let j = &mut w.jobs[job as usize];
        j.submit = at;
        j.swf.submit = at;
    }
    std::borrow::Cow::Owned(w)
}
