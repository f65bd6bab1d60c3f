//! Workloads: the jobs a simulation runs, where they came from, and what was
//! left out of them.
//!
//! A [`Workload`] is built by reading a trace ([`swf`]) or by the built-in
//! model ([`model`]), then reshaped by pure functions ([`transform`]). The
//! simulation core only ever sees the finished `Workload`.

pub mod groups;
pub mod input;
pub mod model;
pub mod speedup;
pub mod swf;
pub mod transform;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub use swf::{SwfHeader, SwfRecord};

/// Simulated time, in whole seconds. Integer so that event order never
/// depends on floating-point rounding.
pub type Time = i64;

/// The largest time goalc accepts, in seconds (about 285 million years), and
/// the negative of it the smallest: in every time field of a trace that it
/// computes with (all but the wait, which it only carries through), in
/// durations, and as the result of every transform.
///
/// It is 2^53 - 1, so that (a) every accepted time is exact as an `f64` (and
/// in any JSON reader), and the float arithmetic of load scaling and
/// measures starts from exact values; (b) 1024 such times add up without
/// overflowing an `i64` (2^63 / 2^53), so sums such as submit + wait + run
/// time + estimate, with plenty of room for more terms, cannot overflow;
/// (c) it is far beyond any real trace (the Parallel Workloads Archive
/// spans decades, about 10^9 s).
pub const MAX_TIME: Time = (1 << 53) - 1;

/// One rigid job as the simulator runs it.
///
/// `runtime` is what the job really takes; `estimate` is what the scheduler is
/// told. A job whose runtime exceeds its estimate is killed at the estimate
/// (the batch systems the traces come from enforce the wall-clock limit), so
/// the simulated run time is [`Job::sim_runtime`].
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Job number from the trace (SWF field 1); unique within a workload.
    pub number: i64,
    pub submit: Time,
    pub runtime: Time,
    pub estimate: Time,
    pub procs: u32,
    pub user: i64,
    pub group: i64,
    /// GREEDY's user group by share of consumption (1 = the heaviest users),
    /// 0 until [`groups::assign`] sets it. Not the trace's group (SWF field
    /// 13, `group`): the owner's classes of users.
    pub user_group: u8,
    /// Completion deadline, when the workload carries one (admission control).
    pub deadline: Option<Time>,
    /// True for a job whose user asked for its deadline; false for a job
    /// without one, or with only an artificial deadline that keeps it from
    /// starving under admission control (QOPS, section 4).
    pub deadline_job: bool,
    /// False for warm-up and cool-down jobs: simulated, not measured.
    pub measured: bool,
    /// For a follow-on chunk of a job split by a run-time limit: the number
    /// of the chunk before it. Such a job is submitted when that chunk ends
    /// (its `submit` field until then is the original job's submit time).
    pub follows: Option<i64>,
    /// How the job's run time depends on its width, when it is moldable
    /// (the scheduler picks its width); `None` for a rigid job, which runs
    /// on `procs`. `runtime` and `estimate` are then as measured on `procs`.
    pub speedup: Option<speedup::Downey>,
    /// No requested time in the trace (SWF field 9 zero or below): the
    /// estimate was taken from the run time.
    pub no_requested_time: bool,
    /// A requested processor count of zero or below other than -1 (SWF
    /// field 8): the allocated count was taken instead.
    pub bad_requested_procs: bool,
    /// The trace's own fields, kept so a schedule can be written back as
    /// SWF; `None` when the workload was made without them (a run that
    /// writes no SWF: they are more than half of a job's size, and every
    /// run pays for filling them). Boxed, so a job without one stays small.
    pub swf: Option<Box<SwfRecord>>,
}

impl Job {
    /// Run time in the simulation: the job is killed when it reaches its estimate.
    pub fn sim_runtime(&self) -> Time {
        self.runtime.min(self.estimate)
    }

    /// The job's SWF record to change along with the job, when it keeps one.
    pub fn record_mut(&mut self) -> Option<&mut SwfRecord> {
        self.swf.as_deref_mut()
    }
}

impl Job {
    /// A measured job with an exact estimate and no user, deadline or
    /// group; the model and unit tests set what they need on it.
    pub(crate) fn plain(number: i64, submit: Time, runtime: Time, procs: u32) -> Job {
        Job {
            number,
            submit,
            runtime,
            estimate: runtime,
            procs,
            user: -1,
            group: -1,
            user_group: 0,
            deadline: None,
            deadline_job: false,
            measured: true,
            follows: None,
            speedup: None,
            no_requested_time: true,
            bad_requested_procs: false,
            swf: None,
        }
    }
}

/// Why a job of the trace is not in the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Run time missing (-1) or not positive.
    RuntimeMissing,
    /// Neither requested nor allocated processors are positive.
    ProcsMissing,
    /// Wider than the machine.
    TooWide,
    /// Submit time missing (-1) or negative.
    SubmitMissing,
    /// Outside the time window, warm-up and cool-down included.
    OutsideWindow,
    /// After the first jobs kept (`--first-jobs`).
    PastFirstJobs,
    /// A record of one partial execution of a checkpointed or swapped job
    /// (SWF status 2 to 4, beside the job's summary line of the same number).
    PartialRecord,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DropReason::RuntimeMissing => "run time missing or <= 0",
            DropReason::ProcsMissing => "processors missing or <= 0",
            DropReason::TooWide => "wider than the machine",
            DropReason::SubmitMissing => "submit time missing or < 0",
            DropReason::OutsideWindow => "outside the time window",
            DropReason::PastFirstJobs => "after the first jobs kept",
            DropReason::PartialRecord => {
                "partial-execution records beside their job's summary line"
            }
        })
    }
}

/// Counts of dropped jobs by reason, reported with every run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped(pub BTreeMap<DropReason, u64>);

impl Dropped {
    pub fn add(&mut self, reason: DropReason) {
        *self.0.entry(reason).or_insert(0) += 1;
    }
    pub fn get(&self, reason: DropReason) -> u64 {
        self.0.get(&reason).copied().unwrap_or(0)
    }
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }
}

impl fmt::Display for Dropped {
    /// The counts by reason, e.g. `2 wider than the machine, 1 submit time
    /// missing`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (reason, n)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n} {reason}")?;
        }
        Ok(())
    }
}

/// A machine and the jobs submitted to it, sorted by (submit, number).
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Short name for reports (file stem or model name).
    pub name: String,
    /// Processors of the machine the jobs run on.
    pub procs: u32,
    pub header: SwfHeader,
    pub jobs: Vec<Job>,
    pub dropped: Dropped,
}

impl Workload {
    /// Builds a workload, sorting jobs into submit order (ties by job number)
    /// so every consumer sees one canonical order.
    pub fn new(name: impl Into<String>, procs: u32, header: SwfHeader, mut jobs: Vec<Job>) -> Self {
        // Traces are mostly in this order already; checking is cheaper than
        // even a sort that finds one run.
        if !jobs.is_sorted_by_key(Self::order) {
            jobs.sort_by_key(Self::order);
        }
        Self::in_order(name, procs, header, jobs)
    }

    /// [`Workload::new`] for jobs known to be in order already (the reader
    /// sees the order as it goes, and a pass over large jobs costs).
    pub(crate) fn in_order(
        name: impl Into<String>,
        procs: u32,
        header: SwfHeader,
        jobs: Vec<Job>,
    ) -> Self {
        debug_assert!(jobs.is_sorted_by_key(Self::order));
        Workload {
            name: name.into(),
            procs,
            header,
            jobs,
            dropped: Dropped::default(),
        }
    }

    /// The canonical order of jobs: by submit time, ties by job number.
    fn order(j: &Job) -> (Time, i64) {
        (j.submit, j.number)
    }

    /// Offered load: processor-seconds asked for per processor-second of the
    /// submit span, sum(procs * runtime) / (procs * (last submit - first submit)).
    /// Uses simulated run times (killed at the estimate).
    pub fn offered_load(&self) -> f64 {
        self.load_of(|j| j.procs as f64 * j.sim_runtime() as f64)
    }

    /// The sum of `work` over the jobs (processor-seconds) per
    /// processor-second of the submit span; 0 without jobs.
    pub fn load_of(&self, work: impl Fn(&Job) -> f64) -> f64 {
        self.load_from_work(self.jobs.iter().map(work).sum())
    }

    /// `total` processor-seconds per processor-second of the submit span;
    /// 0 without jobs.
    pub fn load_from_work(&self, total: f64) -> f64 {
        if self.jobs.is_empty() {
            return 0.0;
        }
        let span = self.submit_span().max(1) as f64;
        total / (self.procs as f64 * span)
    }

    /// Seconds from the first submit to the last: the span offered load is
    /// measured over (0 without jobs).
    pub fn submit_span(&self) -> Time {
        match (self.jobs.first(), self.jobs.last()) {
            (Some(first), Some(last)) => last.submit - first.submit,
            _ => 0,
        }
    }

    /// The share of the work (processor-seconds, simulated run times) that
    /// would run after the last submit even if no job waited. Near 0 for a
    /// workload long against its jobs; large when a few long jobs are
    /// submitted within a short span, where an offered load over that span
    /// says nothing about what the machine can carry.
    pub fn work_beyond_span(&self) -> f64 {
        let Some(last) = self.jobs.last().map(|j| j.submit) else {
            return 0.0;
        };
        let (mut total, mut beyond) = (0.0, 0.0);
        for j in &self.jobs {
            let run = j.sim_runtime();
            let after = (j.submit + run - last).clamp(0, run);
            total += j.procs as f64 * run as f64;
            beyond += j.procs as f64 * after as f64;
        }
        if total > 0.0 {
            beyond / total
        } else {
            0.0
        }
    }

    pub fn measured_count(&self) -> usize {
        self.jobs.iter().filter(|j| j.measured).count()
    }
}

#[cfg(test)]
mod tests {
    use super::Job;

    /// Every run fills its jobs' fresh pages once and reads them several
    /// times: a job is kept to 128 bytes, its SWF record boxed apart.
    #[test]
    fn a_job_is_at_most_128_bytes() {
        assert!(
            std::mem::size_of::<Job>() <= 128,
            "{}",
            std::mem::size_of::<Job>()
        );
    }
}
