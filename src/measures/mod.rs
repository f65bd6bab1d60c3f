//! Measures of a simulated schedule (definitions in SPEC.md, "Measures").
//!
//! Per-job measures are taken over the *measured* jobs that ran (warm-up and
//! cool-down jobs and rejected jobs are excluded); system measures
//! (utilization, loss of capacity) count every job's use of the machine
//! within the measured jobs' time span, so a window is judged by the load the
//! machine really carried.
//!
//! Measures read outcomes of the core ([`crate::sim`]) and may use policy
//! mechanisms to build reference schedules (FAIR's fair start time is a list
//! schedule in fairshare order, see [`fairness`]); neither the core nor any
//! policy imports a measure, so a policy cannot depend on how it is judged.
//! A search objective's own measures are planned ones, over one epoch, and
//! live with the search ([`crate::policy::objective`]).

pub mod fairness;
pub mod moldable;
pub mod owner;

use crate::sim::{Outcome, Run};
use crate::workload::{Dropped, Time, Workload};
use serde::{Deserialize, Serialize};

/// Settings of the measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasureOptions {
    /// Lower bound on the run time in the bounded slowdown, seconds.
    pub tau: Time,
}

impl Default for MeasureOptions {
    fn default() -> Self {
        MeasureOptions { tau: 60 }
    }
}

/// The measures of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// Measured jobs that ran.
    pub jobs: usize,
    /// Jobs rejected at admission (measured ones).
    pub rejected: usize,
    pub avg_wait: f64,
    pub max_wait: Time,
    pub p50_wait: Time,
    pub p90_wait: Time,
    pub p98_wait: Time,
    /// Mean [`bounded_slowdown`]. One name everywhere a user reads it
    /// (field, report columns, the language's `avg_slowdown`); the GOAL
    /// paper writes it avgX, a notation kept only in the compact policy
    /// labels (`A-Tradeoff(T_w:avgX)`) because those follow the paper.
    pub avg_slowdown: f64,
    /// Largest [`bounded_slowdown`].
    pub max_slowdown: f64,
    pub avg_response: f64,
    /// Fraction of processor time used between first start and last end.
    pub utilization: f64,
    /// Last end - first submit.
    pub makespan: Time,
    /// FAIR eq. 1: idle processor time while jobs waited, per processor time.
    pub loss_of_capacity: f64,
    /// GREEDY eq. 6: response time weighted by processor-seconds.
    pub awrt: f64,
    pub tau: Time,
    pub dropped: Dropped,
    pub classes: ClassTable,
}

/// wait = start - submit.
pub fn wait(submit: Time, run: Run) -> Time {
    run.start - submit
}

/// Bounded slowdown = max(1, (wait + run) / max(run, tau)).
pub fn bounded_slowdown(submit: Time, run: Run, tau: Time) -> f64 {
    let runtime = run.end - run.start;
    let response = run.end - submit;
    (response as f64 / runtime.max(tau).max(1) as f64).max(1.0)
}

/// Nearest-rank percentile of sorted values: the value at 1-based rank
/// ceil(q * n). `None` for no values.
pub fn percentile(sorted: &[Time], q: f64) -> Option<Time> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The nearest-rank percentiles `qs` (ascending) of `values`, as
/// [`percentile`] finds them in the sorted values, 0 for no values.
/// Reorders `values`.
fn order_statistics<const N: usize>(values: &mut [Time], qs: [f64; N]) -> [Time; N] {
    let mut out = [0; N];
    let n = values.len();
    if n == 0 {
        return out;
    }
    // Nothing below the rank found last is larger than what is above it,
    // so the next rank is selected among the values from there on.
    let mut done = 0;
    for (q, slot) in qs.into_iter().zip(&mut out) {
        let rank = (((q * n as f64).ceil() as usize).clamp(1, n) - 1).max(done);
        values[done..].select_nth_unstable(rank - done);
        done = rank;
        *slot = values[rank];
    }
    out
}

/// Computes every measure of `outcome` on `workload`.
pub fn measure(workload: &Workload, outcome: &Outcome, opts: MeasureOptions) -> Measures {
    let mut waits = Vec::new();
    let (mut sum_slowdown, mut max_slowdown, mut sum_response) = (0.0, 0.0f64, 0.0);
    let (mut awrt_num, mut awrt_den) = (0.0, 0.0);
    let mut rejected = 0;
    let (mut first_submit, mut first_start, mut last_end) = (Time::MAX, Time::MAX, Time::MIN);
    let mut classes = ClassTable::new(workload.procs);
    // The system measures count every job that ran; one pass over the
    // (large) jobs gathers what they need.
    let mut ran = Vec::with_capacity(workload.jobs.len());
    for (job, run) in workload.jobs.iter().zip(&outcome.runs) {
        if let Some(r) = run {
            ran.push(Ran {
                submit: job.submit,
                start: r.start,
                end: r.end,
                procs: i64::from(job.procs),
            });
        }
        if !job.measured {
            continue;
        }
        let Some(run) = *run else {
            rejected += 1;
            continue;
        };
        let w = wait(job.submit, run);
        let slowdown = bounded_slowdown(job.submit, run, opts.tau);
        waits.push(w);
        sum_slowdown += slowdown;
        max_slowdown = max_slowdown.max(slowdown);
        let response = (run.end - job.submit) as f64;
        sum_response += response;
        let area = (run.end - run.start) as f64 * job.procs as f64;
        awrt_num += area * response;
        awrt_den += area;
        first_submit = first_submit.min(job.submit);
        first_start = first_start.min(run.start);
        last_end = last_end.max(run.end);
        classes.add(job.procs, run.end - run.start, w, slowdown);
    }
    let n = waits.len();
    let mean = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
    let avg_wait = mean(waits.iter().map(|&w| w as f64).sum());
    // Four order statistics need no full sort: each selection partitions
    // the part above the one before.
    let [p50_wait, p90_wait, p98_wait, max_wait] =
        order_statistics(&mut waits, [0.5, 0.9, 0.98, 1.0]);
    let (utilization, loss_of_capacity, makespan) = if n == 0 {
        (0.0, 0.0, 0)
    } else {
        (
            utilization(&ran, workload.procs, first_start, last_end),
            loss_of_capacity(&ran, workload.procs, first_submit, last_end),
            last_end - first_submit,
        )
    };
    Measures {
        jobs: n,
        rejected,
        avg_wait,
        max_wait,
        p50_wait,
        p90_wait,
        p98_wait,
        avg_slowdown: mean(sum_slowdown),
        max_slowdown,
        avg_response: mean(sum_response),
        utilization,
        makespan,
        loss_of_capacity,
        awrt: if awrt_den > 0.0 {
            awrt_num / awrt_den
        } else {
            0.0
        },
        tau: opts.tau,
        dropped: workload.dropped.clone(),
        classes,
    }
}

/// Total normalized excessive wait against a threshold (GOAL, section 4):
/// each measured job that waited longer than `threshold` counts
/// (wait - threshold) / threshold; thresholds come from FCFS-backfill's
/// maximum and 98th-percentile wait on the same trace and load.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Excess {
    pub threshold: Time,
    pub total: f64,
    /// Jobs with a nonzero normalized excessive wait.
    pub jobs: usize,
}

pub fn normalized_excess(w: &Workload, o: &Outcome, threshold: Time) -> Excess {
    let base = threshold.max(1) as f64;
    let mut total = 0.0;
    let mut jobs = 0;
    for (job, run) in w.jobs.iter().zip(&o.runs) {
        let Some(run) = run.filter(|_| job.measured) else {
            continue;
        };
        let over = wait(job.submit, run) - threshold;
        if over > 0 {
            total += over as f64 / base;
            jobs += 1;
        }
    }
    Excess {
        threshold,
        total,
        jobs,
    }
}

/// What admission control did (QOPS, section 5): measured jobs not
/// admitted, their share of processor-seconds, deadlines missed by admitted
/// jobs (none with exact run times), and how the jobs without a user
/// deadline fared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdmissionMeasures {
    pub unadmitted_pct: f64,
    pub unadmitted_work_pct: f64,
    /// Admitted jobs that finished after their deadline.
    pub missed: usize,
    pub deadline_jobs: usize,
    /// Mean response and bounded slowdown of the admitted jobs without a
    /// user deadline; `None` when there are none (every job has a deadline,
    /// F = 100%, or none of the others was admitted): a mean over no jobs
    /// is no value, and a 0 would read as the best possible.
    pub non_deadline_avg_response: Option<f64>,
    pub non_deadline_avg_slowdown: Option<f64>,
}

pub fn admission_measures(w: &Workload, o: &Outcome, opts: MeasureOptions) -> AdmissionMeasures {
    let (mut jobs, mut rejected, mut work, mut rejected_work, mut missed, mut deadline_jobs) =
        (0, 0, 0.0, 0.0, 0, 0);
    let (mut nd, mut nd_resp, mut nd_slowdown) = (0usize, 0.0, 0.0);
    for (job, run) in w.jobs.iter().zip(&o.runs) {
        if !job.measured {
            continue;
        }
        jobs += 1;
        let area = job.sim_runtime() as f64 * job.procs as f64;
        work += area;
        deadline_jobs += usize::from(job.deadline_job);
        match run {
            None => {
                rejected += 1;
                rejected_work += area;
            }
            Some(r) => {
                if job.deadline.is_some_and(|d| r.end > d) {
                    missed += 1;
                }
                if !job.deadline_job {
                    nd += 1;
                    nd_resp += (r.end - job.submit) as f64;
                    nd_slowdown += bounded_slowdown(job.submit, *r, opts.tau);
                }
            }
        }
    }
    let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
    let mean = |a: f64| (nd > 0).then(|| a / nd as f64);
    AdmissionMeasures {
        unadmitted_pct: pct(rejected as f64, jobs as f64),
        unadmitted_work_pct: pct(rejected_work, work),
        missed,
        deadline_jobs,
        non_deadline_avg_response: mean(nd_resp),
        non_deadline_avg_slowdown: mean(nd_slowdown),
    }
}

/// A job that ran: when it came, started and ended, and its width.
struct Ran {
    submit: Time,
    start: Time,
    end: Time,
    procs: i64,
}

/// sum(run * procs) / (machine procs * (to - from)), counting every job's
/// run clipped to `[from, to)`.
fn utilization(ran: &[Ran], procs: u32, from: Time, to: Time) -> f64 {
    if to <= from {
        return 0.0;
    }
    let used: f64 = ran
        .iter()
        .map(|r| (r.end.min(to) - r.start.max(from)).max(0) as f64 * r.procs as f64)
        .sum();
    used / (procs as f64 * (to - from) as f64)
}

/// FAIR eq. 1: the integral over `[from, to)` of
/// min(processors wanted by queued jobs, processors idle), divided by
/// (to - from) * machine procs. Zero for a work-conserving schedule.
fn loss_of_capacity(ran: &[Ran], procs: u32, from: Time, to: Time) -> f64 {
    if to <= from {
        return 0.0;
    }
    // Three streams of (time, processors), each sorted by time: arrivals
    // (queued += p), starts (queued -= p, busy += p), ends (busy -= p).
    // Arrivals come sorted with the workload; two sorts of plain pairs
    // then cost far less than one sort of all events, and a radix sort of
    // their times (only the bytes in which they differ) less than a
    // comparison sort. The order of equal times does not matter: all
    // changes at an instant count before the next interval.
    let stream = |time: fn(&Ran) -> Time| -> Vec<(Time, i64)> {
        let mut v: Vec<_> = ran.iter().map(|r| (time(r), r.procs)).collect();
        if !v.is_sorted_by_key(|e| e.0) {
            radsort::sort_by_key(&mut v, |e| e.0);
        }
        v
    };
    let (arrivals, starts, ends) = (stream(|r| r.submit), stream(|r| r.start), stream(|r| r.end));
    let (mut a, mut s, mut e) = (0, 0, 0);
    let (mut queued, mut busy, mut lost) = (0i64, 0i64, 0f64);
    let mut t = from;
    loop {
        let next = |v: &[(Time, i64)], i: usize| v.get(i).map_or(Time::MAX, |x| x.0);
        let time = next(&arrivals, a).min(next(&starts, s)).min(next(&ends, e));
        if a == arrivals.len() && s == starts.len() && e == ends.len() {
            break;
        }
        if time > t {
            let (lo, hi) = (t.max(from), time.min(to));
            if hi > lo {
                let idle = procs as i64 - busy;
                lost += queued.min(idle).max(0) as f64 * (hi - lo) as f64;
            }
            t = time;
        }
        // Every change at this instant before the next interval counts.
        while a < arrivals.len() && arrivals[a].0 == time {
            queued += arrivals[a].1;
            a += 1;
        }
        while s < starts.len() && starts[s].0 == time {
            queued -= starts[s].1;
            busy += starts[s].1;
            s += 1;
        }
        while e < ends.len() && ends[e].0 == time {
            busy -= ends[e].1;
            e += 1;
        }
    }
    lost / (procs as f64 * (to - from) as f64)
}

/// Job classes by width and run time, FAIR's Table I categories: widths
/// 1, 2, 3-4, 5-8, ... (powers of two) and run times 0-1h, 1-8h, 8-16h,
/// 16-24h, 1-2d, 2d+.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ClassTableFields")]
pub struct ClassTable {
    pub widths: Vec<String>,
    pub runtimes: Vec<String>,
    /// cells[width][runtime]
    pub cells: Vec<Vec<ClassCell>>,
    #[serde(skip)]
    width_bounds: Vec<u32>,
}

/// A [`ClassTable`] as stored: its width bounds are not written, being
/// the powers of two [`width_classes`] made, one per width label.
#[derive(Deserialize)]
struct ClassTableFields {
    widths: Vec<String>,
    runtimes: Vec<String>,
    cells: Vec<Vec<ClassCell>>,
}

impl From<ClassTableFields> for ClassTable {
    fn from(f: ClassTableFields) -> Self {
        let width_bounds = (0..f.widths.len())
            .map(|i| 1u32.checked_shl(i as u32).unwrap_or(u32::MAX))
            .collect();
        ClassTable {
            widths: f.widths,
            runtimes: f.runtimes,
            cells: f.cells,
            width_bounds,
        }
    }
}

/// Jobs of one class.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassCell {
    pub jobs: usize,
    pub avg_wait: f64,
    pub avg_slowdown: f64,
}

const RUNTIME_BOUNDS: [(Time, &str); 6] = [
    (3600, "0-1h"),
    (8 * 3600, "1-8h"),
    (16 * 3600, "8-16h"),
    (24 * 3600, "16-24h"),
    (48 * 3600, "1-2d"),
    (Time::MAX, "2d+"),
];

impl ClassTable {
    fn new(procs: u32) -> Self {
        let (width_bounds, widths) = width_classes(procs);
        ClassTable {
            runtimes: RUNTIME_BOUNDS.iter().map(|b| b.1.to_string()).collect(),
            cells: vec![vec![ClassCell::default(); RUNTIME_BOUNDS.len()]; width_bounds.len()],
            widths,
            width_bounds,
        }
    }

    /// Adds one job; averages are kept as running means.
    fn add(&mut self, procs: u32, runtime: Time, wait: Time, slowdown: f64) {
        let wi = width_class(&self.width_bounds, procs);
        let ri = RUNTIME_BOUNDS.partition_point(|b| b.0 <= runtime);
        let c = &mut self.cells[wi][ri.min(RUNTIME_BOUNDS.len() - 1)];
        c.jobs += 1;
        let n = c.jobs as f64;
        c.avg_wait += (wait as f64 - c.avg_wait) / n;
        c.avg_slowdown += (slowdown - c.avg_slowdown) / n;
    }
}

/// FAIR's width classes on a `procs`-processor machine: upper bounds 1, 2,
/// 4, 8, ... until the machine is covered, and their labels "1", "2",
/// "3-4", "5-8", ...
pub(crate) fn width_classes(procs: u32) -> (Vec<u32>, Vec<String>) {
    let mut width_bounds = vec![1u32];
    while *width_bounds.last().unwrap_or(&1) < procs {
        let next = width_bounds.last().unwrap_or(&1).saturating_mul(2);
        width_bounds.push(next);
    }
    let widths = width_bounds
        .iter()
        .map(|&hi| match hi {
            1 => "1".to_string(),
            2 => "2".to_string(),
            _ => format!("{}-{}", hi / 2 + 1, hi),
        })
        .collect();
    (width_bounds, widths)
}

/// Index into [`width_classes`]' bounds of a `procs`-wide job (wider jobs
/// than the machine fall in the last class).
pub(crate) fn width_class(bounds: &[u32], procs: u32) -> usize {
    bounds
        .partition_point(|&hi| hi < procs)
        .min(bounds.len() - 1)
}
