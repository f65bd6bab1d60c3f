//! The simulation core: an event loop over submit and finish events, and the
//! narrow interface through which a [`Policy`] decides.
//!
//! By default ([`EventMode::PerInstant`]), at every instant where something
//! happens (jobs finish, jobs arrive) the core first applies all finishes,
//! then all arrivals (asking the policy to admit each), then runs one
//! scheduling epoch: the policy sees the system through an [`Epoch`] and
//! answers with the jobs to start now. The per-event modes instead follow
//! each single submission or completion with its own epoch, in one of two
//! orders at equal times, as the classic simulators do (see [`EventMode`]).
//! The core never consults the language, and the policy never sees a job's
//! actual run time, only its estimate, as a real scheduler would.
//!
//! The core sits just above [`crate::workload`] (and [`crate::units`]) and
//! imports nothing else: policies, measures and reports are built on it,
//! so none of them can change how it runs. A policy's own costs reach the
//! reports through the generic [`Policy::stats`], not through the core.

pub mod invariants;
mod moldable;
mod pieces;
pub mod profile;

use crate::workload::speedup::Downey;
use crate::workload::{Time, Workload};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

pub use pieces::{simulate_cut_at, simulate_in_pieces, CutRun, PIECES_PER_CORE};
pub use profile::{Ends, Profile, Resume, RunsWalked};

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
    /// GREEDY's user group (see [`crate::workload::Job::user_group`]).
    pub user_group: u8,
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

    /// True when [`Policy::admit`] says yes to every job, whatever the
    /// state, as the default does: the core then admits arrivals without
    /// asking, which spares a view of the state per arrival (5% of classic
    /// EASY's simulation on KTH-SP2). Only a policy that keeps the default
    /// `admit` may say so. Asked once, before the run.
    fn admits_all(&self) -> bool {
        false
    }

    /// One scheduling epoch: start zero or more waiting jobs via
    /// [`Epoch::start`].
    fn schedule(&mut self, epoch: &mut Epoch<'_>);

    /// Whether the policy reads [`State::waiting`]. One that keeps its own
    /// queue (from [`State::arrived`] and its own starts) says no: the core
    /// then leaves that list empty instead of keeping it in arrival order,
    /// which costs up to the queue's length per start when jobs start from
    /// anywhere in it. Asked once, before the run.
    fn reads_waiting(&self) -> bool {
        true
    }

    /// Whether the policy reads [`State::running`] after its first epoch.
    /// One that keeps what it needs of the running jobs itself (from its
    /// starts and the finished jobs) says no: the core then leaves the set
    /// empty, per instant, instead of keeping it sorted at O(log n) a start
    /// and an end. (Builds with debug assertions keep it anyway, for the
    /// policies' checks of what they keep.) Asked once, before the run.
    fn reads_running(&self) -> bool {
        true
    }

    /// Whether, at an instant when no job waits, everything the policy
    /// decides from then on follows from the core's state alone (the jobs
    /// running, with their starts, and the jobs still to come): it keeps
    /// nothing else across epochs but caches of that state. A run may then
    /// be cut into pieces that start on an empty machine and are joined
    /// where their states meet ([`simulate_in_pieces`]). Asked once.
    fn forgets_with_empty_queue(&self) -> bool {
        false
    }

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

    /// Notice from the core: `job` ended at `now` (before the epoch whose
    /// `finished` holds it).
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
    /// Running jobs sorted by expected end (then job index). A set, not a
    /// vector: with thousands running, each start and end costs O(log n)
    /// instead of moving the rest of the list. Empty for a policy that
    /// does not read it (see [`Policy::reads_running`]).
    pub running: &'a BTreeSet<Running>,
    /// Jobs admitted for this epoch, in arrival order: all of this
    /// instant's, or per event the one job of this submission (none if it
    /// was rejected or the event is a completion).
    pub arrived: &'a [JobIdx],
    /// Jobs finished for this epoch: all of this instant's, or per event the
    /// one job of this completion (none if the event is a submission).
    pub finished: &'a [Finished],
    /// Speedup models by job index; empty when every job is rigid.
    pub speedups: &'a [Option<Downey>],
    /// The epoch `arrived` and `finished` belong to, counted from 0: at
    /// [`Policy::admit`], the epoch about to run. A policy that keeps
    /// something in step with the state, asked more than once for one
    /// epoch (admit, then schedule), applies its changes once.
    pub epoch: u64,
}

impl State<'_> {
    /// How `job`'s run time depends on its width, `None` for a rigid job.
    pub fn speedup(&self, job: JobIdx) -> Option<&Downey> {
        self.speedups.get(job as usize).and_then(Option::as_ref)
    }

    /// Gives back to `profile`, kept across epochs, the rest of the holds of
    /// the jobs that ended before their estimates at this epoch; true when
    /// there were any.
    pub fn release_early_finishes(&self, profile: &mut Profile) -> bool {
        let mut any = false;
        for f in self.finished.iter().filter(|f| f.early) {
            let info = &self.jobs[f.job as usize];
            let expected_end = f.start.saturating_add(info.estimate);
            profile.release(self.now, expected_end - self.now, info.procs);
            any = true;
        }
        any
    }

    /// Fills `profile` with the machine as running jobs hold it, from now on.
    pub fn running_profile(&self, profile: &mut Profile) {
        // Sorted by expected end: one pass builds the steps.
        let jobs = self.jobs;
        profile.reset_to_holds(
            self.now,
            self.running
                .iter()
                .map(|r| (r.expected_end, jobs[r.job as usize].procs)),
        );
    }
}

/// One epoch: the state plus the decisions being made.
pub struct Epoch<'a> {
    pub state: State<'a>,
    free_left: u32,
    started: Vec<JobIdx>,
    /// The widths of the moldable jobs among `started`.
    molded: moldable::Widths,
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

    /// The jobs started so far in this epoch, in the order started.
    pub fn started(&self) -> &[JobIdx] {
        &self.started
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

    /// Starts a waiting moldable job now on `width` processors: from 1 to
    /// its average parallelism, within the machine. It runs for its run
    /// time at that width by its speedup model. A width the job cannot
    /// take, or more processors than are free, is a policy bug (see
    /// [`Epoch::start`]).
    pub fn start_moldable(&mut self, job: JobIdx, width: u32) {
        let (procs, machine) = (self.state.jobs[job as usize].procs, self.state.procs);
        let problem = moldable::width_error(self.state.speedup(job), procs, machine, width)
            .or_else(|| {
                (width > self.free_left)
                    .then(|| format!("needs {width} processors with {} free", self.free_left))
            });
        if let Some(problem) = problem {
            self.violation.get_or_insert_with(|| {
                format!(
                    "policy started job {job} on {width} processors at {}: it {problem}",
                    self.state.now
                )
            });
            return;
        }
        self.free_left -= width;
        self.started.push(job);
        self.molded.push((job, width));
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
    /// The width each moldable job ran on, in start order (rigid jobs run
    /// on their own; see [`realized`]).
    pub widths: Vec<(JobIdx, u32)>,
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
    #[error(
        "the workload could run past the largest time goalc simulates ({limit} s): \
         last submit {last_submit} s plus all run times and the longest estimate come to more"
    )]
    Horizon { last_submit: Time, limit: Time },
}

/// The latest time a simulation may reach: half the range of [`Time`], so
/// that every sum the core and the policies form (an end plus an estimate,
/// a deadline plus a slack) stays exact.
pub const HORIZON: Time = Time::MAX / 2;

/// Refuses a workload whose jobs, run one after another after the last
/// submit, could end past [`HORIZON`]: no schedule can be later than that.
fn check_horizon(workload: &Workload) -> Result<(), SimError> {
    let last_submit = workload.jobs.iter().map(|j| j.submit).max().unwrap_or(0);
    let mut latest = i128::from(last_submit);
    let mut longest_estimate: i128 = 0;
    for j in &workload.jobs {
        let (runtime, estimate) = moldable::longest_run(j);
        latest += i128::from(runtime.max(1));
        longest_estimate = longest_estimate.max(i128::from(estimate.max(1)));
    }
    if latest + longest_estimate > i128::from(HORIZON) {
        return Err(SimError::Horizon {
            last_submit,
            limit: HORIZON,
        });
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SimOptions {
    /// Record reservations and epochs for invariant checks.
    pub audit: bool,
    /// How the events of one second become scheduling epochs.
    pub events: EventMode,
}

/// How the core turns the submissions and completions of one second into
/// scheduling epochs. Wake-ups ([`Epoch::wake_at`]) give an epoch at their
/// time in every mode when no event falls there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventMode {
    /// Every completion, then every submission of the second (the trace's
    /// jobs in trace order, then released chunks), then one epoch.
    #[default]
    PerInstant,
    /// One epoch after each event. At one second the pending submissions
    /// go first (the trace's in trace order, then released chunks in
    /// release order), then completions in start order; a chunk released by
    /// a completion is thus submitted before the next completion. This is
    /// pyss's order (submission before termination at equal times).
    SubmissionsFirst,
    /// One epoch after each event. At one second the completions go first
    /// (in start order), then the submissions (the trace's in trace order,
    /// then released chunks in release order). This is CQSim's order
    /// (finish events before submit events at equal times).
    CompletionsFirst,
}

impl EventMode {
    pub const NAMES: [&'static str; 3] = ["per-instant", "submissions-first", "completions-first"];

    pub fn is_per_instant(&self) -> bool {
        *self == EventMode::PerInstant
    }

    /// What the mode does, for report captions.
    pub fn describe(&self) -> &'static str {
        match self {
            EventMode::PerInstant => "one epoch per second, after all its events",
            EventMode::SubmissionsFirst => {
                "one epoch per event, a second's submissions before its completions"
            }
            EventMode::CompletionsFirst => {
                "one epoch per event, a second's completions before its submissions"
            }
        }
    }
}

impl std::fmt::Display for EventMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EventMode::PerInstant => "per-instant",
            EventMode::SubmissionsFirst => "submissions-first",
            EventMode::CompletionsFirst => "completions-first",
        })
    }
}

impl std::str::FromStr for EventMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "per-instant" => Ok(EventMode::PerInstant),
            "submissions-first" => Ok(EventMode::SubmissionsFirst),
            "completions-first" => Ok(EventMode::CompletionsFirst),
            _ => Err(format!(
                "`{s}` is not per-instant, submissions-first or completions-first"
            )),
        }
    }
}

/// Runs `policy` on `workload` to completion.
pub fn simulate(
    workload: &Workload,
    policy: &mut dyn Policy,
    opts: SimOptions,
) -> Result<Outcome, SimError> {
    check_horizon(workload)?;
    Sim::new(workload, policy, opts).run()
}

/// What the policy may see of the system, kept apart from the rest of the
/// simulation so a [`State`] can borrow it while the policy is borrowed
/// mutably.
struct Board {
    procs: u32,
    /// Processors free now.
    free: u32,
    jobs: Vec<JobInfo>,
    /// Waiting jobs in arrival order from `waiting_from` on (started jobs
    /// at the front are skipped, not moved); empty when the policy does
    /// not read it.
    waiting: Vec<JobIdx>,
    waiting_from: usize,
    /// Jobs waiting, whether listed or not.
    waiting_count: usize,
    /// Whether `waiting` is kept (see [`Policy::reads_waiting`]).
    list_waiting: bool,
    /// Running jobs sorted by expected end (then job index); empty unless
    /// `list_running`.
    running: BTreeSet<Running>,
    /// Whether `running` is kept: the policy reads it, or the per-event
    /// modes need it (see [`Policy::reads_running`]).
    list_running: bool,
    /// Jobs admitted for this epoch.
    arrived: Vec<JobIdx>,
    /// Jobs finished for this epoch.
    finished: Vec<Finished>,
    /// Speedup models by job index, empty when all jobs are rigid.
    speedups: Vec<Option<Downey>>,
}

impl Board {
    /// Takes `started` jobs that no longer wait out of the list: those at
    /// its front by moving its start (FCFS and a backfill's head start
    /// there, so this is O(1) for them), the others by one pass.
    fn drop_started(&mut self, is_waiting: &[bool], started: usize) {
        let mut left = started;
        while left > 0 {
            match self.waiting.get(self.waiting_from) {
                Some(&j) if !is_waiting[j as usize] => {
                    self.waiting_from += 1;
                    left -= 1;
                }
                _ => break,
            }
        }
        if left > 0 {
            let from = self.waiting_from;
            let mut kept = from;
            for i in from..self.waiting.len() {
                let j = self.waiting[i];
                if is_waiting[j as usize] {
                    self.waiting[kept] = j;
                    kept += 1;
                }
            }
            self.waiting.truncate(kept);
        }
        // The skipped front is given back once it is half the list.
        if self.waiting_from > 0 && 2 * self.waiting_from >= self.waiting.len() {
            self.waiting.drain(..self.waiting_from);
            self.waiting_from = 0;
        }
    }

    fn state(&self, now: Time, epoch: u64) -> State<'_> {
        State {
            now,
            procs: self.procs,
            free: self.free,
            jobs: &self.jobs,
            waiting: &self.waiting[self.waiting_from..],
            running: &self.running,
            arrived: &self.arrived,
            finished: &self.finished,
            speedups: &self.speedups,
            epoch,
        }
    }
}

/// One simulation in progress: the event loop's state, advanced one instant
/// at a time by [`Sim::step`].
struct Sim<'w, 'p> {
    workload: &'w Workload,
    policy: &'p mut dyn Policy,
    name: String,
    events: EventMode,
    board: Board,
    /// Actual run times, which only the core knows.
    runtimes: Vec<Time>,
    /// For each job a follow-on chunk follows, that chunk.
    successor: HashMap<JobIdx, JobIdx>,
    /// The policy admits every job ([`Policy::admits_all`]).
    admits_all: bool,
    /// Trace jobs not yet arrived start here (follow-on chunks are skipped:
    /// they arrive when released).
    next_arrival: usize,
    /// Running jobs by (end, order): the order's low 32 bits are the job,
    /// the high ones its start sequence per event, so that ends of one
    /// second go by job index per instant and in start order per event
    /// (the classic simulators'). One word keeps the heap as small as with
    /// the job alone.
    finish_queue: BinaryHeap<Reverse<(Time, u64)>>,
    /// Starts so far: the per-event completion order.
    start_seq: u64,
    wakeups: BinaryHeap<Reverse<Time>>,
    is_waiting: Vec<bool>,
    /// Chunks released by this instant's finishes, in release order.
    released: Vec<JobIdx>,
    /// Per event: how many of `released` have been submitted.
    released_submitted: usize,
    /// Jobs arriving at this instant, before admission.
    incoming: Vec<JobIdx>,
    /// Reused across epochs for the jobs the policy starts.
    started: Vec<JobIdx>,
    runs: Vec<Option<Run>>,
    releases: Vec<(JobIdx, Time)>,
    /// Reused across epochs for the widths of moldable starts.
    molded: moldable::Widths,
    widths: moldable::Widths,
    epochs: u64,
    audit: Option<Audit>,
    /// A digest of the running set (each job with its start), independent
    /// of order, kept at every start and end: where two pieces of a run
    /// may have the same state (see [`pieces`]).
    running_digest: u64,
}

/// One running job's share of [`Sim::running_digest`].
fn running_share(job: JobIdx, start: Time) -> u64 {
    // splitmix64's finalizer, twice, so that near jobs and starts spread.
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    mix(mix(u64::from(job).wrapping_add(0x9e37_79b9_7f4a_7c15)) ^ start as u64)
}

impl<'w, 'p> Sim<'w, 'p> {
    fn new(workload: &'w Workload, policy: &'p mut dyn Policy, opts: SimOptions) -> Self {
        let n = workload.jobs.len();
        // One pass over the (large) jobs; chunks and moldable jobs, which
        // most workloads lack, get their own passes only when present.
        let (mut jobs, mut runtimes) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut chunked, mut moldable) = (false, false);
        for j in &workload.jobs {
            jobs.push(JobInfo {
                submit: j.submit,
                estimate: j.estimate.max(1),
                procs: j.procs,
                user: j.user,
                group: j.group,
                user_group: j.user_group,
                deadline: j.deadline,
            });
            runtimes.push(j.sim_runtime().max(1));
            chunked |= j.follows.is_some();
            moldable |= j.speedup.is_some();
        }
        let successor = if chunked {
            successors(workload)
        } else {
            HashMap::new()
        };
        let list_waiting = policy.reads_waiting();
        let list_running =
            policy.reads_running() || !opts.events.is_per_instant() || cfg!(debug_assertions);
        let name = policy.name();
        let admits_all = policy.admits_all();
        let mut sim = Sim {
            workload,
            policy,
            name,
            events: opts.events,
            board: Board {
                procs: workload.procs,
                free: workload.procs,
                jobs,
                waiting: Vec::new(),
                waiting_from: 0,
                waiting_count: 0,
                list_waiting,
                list_running,
                running: BTreeSet::new(),
                arrived: Vec::new(),
                finished: Vec::new(),
                speedups: if moldable {
                    moldable::models(workload)
                } else {
                    Vec::new()
                },
            },
            runtimes,
            successor,
            admits_all,
            next_arrival: 0,
            finish_queue: BinaryHeap::new(),
            start_seq: 0,
            wakeups: BinaryHeap::new(),
            is_waiting: vec![false; n],
            released: Vec::new(),
            released_submitted: 0,
            incoming: Vec::new(),
            started: Vec::new(),
            runs: vec![None; n],
            releases: Vec::new(),
            molded: Vec::new(),
            widths: Vec::new(),
            epochs: 0,
            audit: opts.audit.then(Audit::default),
            running_digest: 0,
        };
        sim.skip_followers();
        sim
    }

    /// Runs to the end, one instant at a time.
    fn run(mut self) -> Result<Outcome, SimError> {
        while let Some(now) = self.next_instant() {
            self.step(now)?;
        }
        Ok(self.outcome())
    }

    /// What the run gave.
    fn outcome(self) -> Outcome {
        Outcome {
            policy: self.name,
            runs: self.runs,
            releases: self.releases,
            widths: self.widths,
            epochs: self.epochs,
            audit: self.audit,
        }
    }

    /// One instant: per instant, finishes, then arrivals, then one epoch
    /// and its starts; per event, an epoch and its starts after each one.
    fn step(&mut self, now: Time) -> Result<(), SimError> {
        match self.events {
            EventMode::PerInstant => {
                self.apply_finishes(now);
                self.admit_arrivals(now);
                self.run_epoch(now)?;
                self.apply_starts(now)?;
            }
            EventMode::SubmissionsFirst => self.step_per_event(now, true)?,
            EventMode::CompletionsFirst => self.step_per_event(now, false)?,
        }
        self.check_stalled(now)
    }

    /// Every event at `now`, one at a time, each followed by its own epoch;
    /// at equal times submissions go first when `submissions_first`, else
    /// completions. An instant with no event (a wake-up) gets one epoch.
    // Out of line, while the per-instant path's parts (`run_epoch`,
    // `apply_starts`, `finish`, `admit`) are inlined into `step`: so the
    // default runs the instructions it ran before the per-event modes
    // (cachegrind, within 0.5%).
    #[inline(never)]
    fn step_per_event(&mut self, now: Time, submissions_first: bool) -> Result<(), SimError> {
        self.released.clear();
        self.released_submitted = 0;
        // A job whose estimate runs out now ends now, whatever the order of
        // this second's events, and the scheduler knows it: from the first
        // epoch of the second it is no longer running and its processors
        // are free, so what a policy plans from `running` agrees with
        // `free`. Its completion event (its `finished` entry and notice)
        // still comes in its place. Running jobs are sorted by expected end
        // and none expected before now is left, so they lead the list.
        let b = &mut self.board;
        while let Some(r) = b.running.first().copied() {
            if r.expected_end > now {
                break;
            }
            b.running.pop_first();
            b.free += b.jobs[r.job as usize].procs;
            self.running_digest = self
                .running_digest
                .wrapping_sub(running_share(r.job, r.start));
        }
        let mut any = false;
        while self.next_event(now, submissions_first) {
            any = true;
            self.run_epoch(now)?;
            self.apply_starts(now)?;
        }
        if !any {
            // A wake-up alone: nothing arrived or finished.
            self.board.arrived.clear();
            self.board.finished.clear();
            self.run_epoch(now)?;
            self.apply_starts(now)?;
        }
        Ok(())
    }

    /// Per event: applies the next event at `now`, false when none is left.
    fn next_event(&mut self, now: Time, submissions_first: bool) -> bool {
        type Apply<'w, 'p> = fn(&mut Sim<'w, 'p>, Time) -> bool;
        let (first, then): (Apply, Apply) = if submissions_first {
            (Self::submit_next, Self::complete_next)
        } else {
            (Self::complete_next, Self::submit_next)
        };
        first(self, now) || then(self, now)
    }

    /// Per event: submits the next job due at `now` (the trace's first,
    /// then released chunks), leaving it alone in `arrived` if admitted.
    /// False when none is due.
    fn submit_next(&mut self, now: Time) -> bool {
        let job = match self.workload.jobs.get(self.next_arrival) {
            Some(j) if j.submit == now => {
                let job = self.next_arrival as JobIdx;
                self.next_arrival += 1;
                self.skip_followers();
                job
            }
            _ => match self.released.get(self.released_submitted) {
                Some(&chunk) => {
                    self.released_submitted += 1;
                    self.note_release(chunk, now);
                    chunk
                }
                None => return false,
            },
        };
        self.board.finished.clear();
        self.board.arrived.clear();
        self.admit(job, now);
        true
    }

    /// Per event: ends the next job that ends at `now` (in start order),
    /// leaving it alone in `finished`. False when none does.
    fn complete_next(&mut self, now: Time) -> bool {
        match self.finish_queue.peek() {
            Some(&Reverse((t, order))) if t == now => {
                self.finish_queue.pop();
                let job = order as JobIdx;
                self.board.arrived.clear();
                self.board.finished.clear();
                self.finish(job, now);
                true
            }
            _ => false,
        }
    }

    /// Follow-on chunks arrive when their predecessor ends, not by the trace.
    fn skip_followers(&mut self) {
        let jobs = &self.workload.jobs;
        while self.next_arrival < jobs.len() && jobs[self.next_arrival].follows.is_some() {
            self.next_arrival += 1;
        }
    }

    /// The next instant where a job arrives or ends or the policy asked to
    /// be woken, `None` when nothing is left; wake-ups up to it are spent.
    fn next_instant(&mut self) -> Option<Time> {
        let next_submit = self.workload.jobs.get(self.next_arrival).map(|j| j.submit);
        let next_finish = self.finish_queue.peek().map(|Reverse((t, _))| *t);
        let next_wakeup = self.wakeups.peek().map(|Reverse(t)| *t);
        let now = [next_submit, next_finish, next_wakeup]
            .into_iter()
            .flatten()
            .min()?;
        while self.wakeups.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.wakeups.pop();
        }
        Some(now)
    }

    /// Ends the jobs that end at `now`, telling the policy, and notes the
    /// chunks their ends release.
    fn apply_finishes(&mut self, now: Time) {
        self.board.finished.clear();
        self.released.clear();
        while let Some(&Reverse((t, order))) = self.finish_queue.peek() {
            if t != now {
                break;
            }
            self.finish_queue.pop();
            let job = order as JobIdx;
            self.finish(job, now);
        }
    }

    /// Ends `job` at `now`: tells the policy, frees its processors, adds it
    /// to `finished` and notes the chunk its end releases.
    #[inline(always)]
    fn finish(&mut self, job: JobIdx, now: Time) {
        let b = &mut self.board;
        self.policy.job_finished(job, &b.jobs, now);
        if let Some(next) = self.successor.get(&job) {
            self.released.push(*next);
        }
        let info = &b.jobs[job as usize];
        let start = self.runs[job as usize].map(|r| r.start).unwrap_or(now);
        let key = Running {
            expected_end: start.saturating_add(info.estimate),
            job,
            start,
        };
        let early = now < key.expected_end;
        // Per event, a job ending at its estimate left `running` at the
        // start of the second (see `step_per_event`).
        if early || self.events.is_per_instant() {
            b.free += info.procs;
            if b.list_running {
                b.running.remove(&key);
            }
            self.running_digest = self.running_digest.wrapping_sub(running_share(job, start));
        }
        b.finished.push(Finished { job, start, early });
    }

    /// Offers the trace's jobs submitted at `now`, then the chunks released
    /// at `now`, to the policy's admission, in that order.
    fn admit_arrivals(&mut self, now: Time) {
        self.incoming.clear();
        while let Some(j) = self.workload.jobs.get(self.next_arrival) {
            if j.submit != now {
                break;
            }
            self.incoming.push(self.next_arrival as JobIdx);
            self.next_arrival += 1;
            self.skip_followers();
        }
        // Chunks released by this instant's finishes arrive after the trace's jobs.
        let released = std::mem::take(&mut self.released);
        for &chunk in &released {
            self.note_release(chunk, now);
        }
        self.incoming.extend_from_slice(&released);
        self.released = released;
        self.board.arrived.clear();
        let incoming = std::mem::take(&mut self.incoming);
        for &job in &incoming {
            self.admit(job, now);
        }
        self.incoming = incoming;
    }

    /// A follow-on chunk is submitted when released, not by the trace.
    fn note_release(&mut self, chunk: JobIdx, now: Time) {
        self.board.jobs[chunk as usize].submit = now;
        self.releases.push((chunk, now));
    }

    /// Asks the policy to admit `job`; an admitted job waits and is added
    /// to `arrived`.
    #[inline(always)]
    fn admit(&mut self, job: JobIdx, now: Time) {
        if self.admits_all || self.policy.admit(job, &self.board.state(now, self.epochs)) {
            self.is_waiting[job as usize] = true;
            self.board.waiting_count += 1;
            if self.board.list_waiting {
                self.board.waiting.push(job);
            }
            self.board.arrived.push(job);
        }
    }

    /// One scheduling epoch: the policy's starts are left in `self.started`.
    #[inline(always)]
    fn run_epoch(&mut self, now: Time) -> Result<(), SimError> {
        if let Some(a) = self.audit.as_mut() {
            a.epochs.push(now);
        }
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        let mut molded = std::mem::take(&mut self.molded);
        molded.clear();
        let mut epoch = Epoch {
            state: self.board.state(now, self.epochs),
            free_left: self.board.free,
            started,
            molded,
            wake_at: None,
            violation: None,
            audit: self.audit.as_mut(),
            epoch_index: self.epochs,
        };
        self.policy.schedule(&mut epoch);
        self.epochs += 1;
        let Epoch {
            started,
            molded,
            violation,
            wake_at,
            ..
        } = epoch;
        self.started = started;
        self.molded = molded;
        if let Some(t) = wake_at {
            self.wakeups.push(Reverse(t));
        }
        match violation {
            Some(message) => Err(self.violation(message)),
            None => Ok(()),
        }
    }

    /// Starts the jobs the epoch started, telling the policy.
    #[inline(always)]
    fn apply_starts(&mut self, now: Time) -> Result<(), SimError> {
        if self.started.is_empty() {
            return Ok(());
        }
        self.mold_started();
        let b = &mut self.board;
        for &job in &self.started {
            let idx = job as usize;
            if !self.is_waiting[idx] {
                let message = format!("started job {job} at {now}, which is not waiting");
                return Err(SimError::PolicyViolation {
                    policy: self.name.clone(),
                    message,
                });
            }
            self.is_waiting[idx] = false;
            let info = &b.jobs[idx];
            b.free -= info.procs;
            let end = now.saturating_add(self.runtimes[idx]);
            self.runs[idx] = Some(Run { start: now, end });
            let r = Running {
                expected_end: now.saturating_add(info.estimate),
                job,
                start: now,
            };
            if b.list_running {
                b.running.insert(r);
            }
            self.running_digest = self.running_digest.wrapping_add(running_share(job, now));
            // Job indices and start counts fit in 32 bits (JobIdx is u32).
            let order = match self.events {
                EventMode::PerInstant => job as u64,
                _ => (self.start_seq << 32) | job as u64,
            };
            self.start_seq += 1;
            self.finish_queue.push(Reverse((end, order)));
            self.policy.job_started(job, &b.jobs, now);
        }
        b.waiting_count -= self.started.len();
        if b.list_waiting {
            b.drop_started(&self.is_waiting, self.started.len());
        }
        Ok(())
    }

    /// Gives the moldable jobs just started their widths, with their run
    /// times and estimates there, before they are started.
    fn mold_started(&mut self) {
        for &(job, width) in &self.molded {
            let idx = job as usize;
            let j = &self.workload.jobs[idx];
            // Checked by `Epoch::start_moldable`: the job has a model.
            let Some(model) = &j.speedup else { continue };
            let (runtime, estimate) = moldable::at_width(j, model, width);
            let info = &mut self.board.jobs[idx];
            info.procs = width;
            info.estimate = estimate.max(1);
            self.runtimes[idx] = runtime.max(1);
            self.widths.push((job, width));
        }
    }

    /// Nothing left to happen while jobs still wait: the policy will never
    /// start them.
    fn check_stalled(&self, now: Time) -> Result<(), SimError> {
        let b = &self.board;
        if self.finish_queue.is_empty()
            && self.wakeups.is_empty()
            && self.next_arrival == self.workload.jobs.len()
            && b.waiting_count > 0
        {
            return Err(SimError::Stalled {
                policy: self.name.clone(),
                waiting: b.waiting_count,
                now,
            });
        }
        Ok(())
    }

    fn violation(&self, message: String) -> SimError {
        SimError::PolicyViolation {
            policy: self.name.clone(),
            message,
        }
    }
}

/// For each job that a follow-on chunk follows, that chunk's index.
fn successors(workload: &Workload) -> HashMap<JobIdx, JobIdx> {
    let mut out = HashMap::new();
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

/// `workload` as it was really submitted and run in `outcome`: follow-on
/// chunks get the submit times at which they were released, moldable jobs
/// the widths they ran on (with their run times and estimates there).
/// Measures read submit times and widths from the workload, so they must
/// see this one.
pub fn realized<'w>(workload: &'w Workload, outcome: &Outcome) -> std::borrow::Cow<'w, Workload> {
    if outcome.releases.is_empty() && outcome.widths.is_empty() {
        return std::borrow::Cow::Borrowed(workload);
    }
    let mut w = workload.clone();
    for &(job, at) in &outcome.releases {
        let j = &mut w.jobs[job as usize];
        j.submit = at;
        if let Some(r) = j.record_mut() {
            r.submit = at;
        }
    }
    moldable::apply_widths(&mut w, outcome);
    std::borrow::Cow::Owned(w)
}
