//! Workload transforms: each a pure function from a workload to a new one.
//!
//! The SWF record of every job is kept in step with the simulated fields, so
//! a transformed workload can be written back as SWF.

mod moldable;
mod scale_machine;

pub use moldable::{effective_load, make_moldable, MoldableSpec, Parallelism, Sigma};
pub use scale_machine::{scale_machine, MachineScale, DEFAULT_ENLARGE};

use super::{DropReason, Job, Time, Workload, MAX_TIME};

/// The most jobs a transform may build. A job costs about 1 KiB at the
/// peak of a run (its copies in the workloads, the simulation and the
/// measures: 17 M chunks of a split trace took 17 GB), so this bounds a run
/// at some 8 GiB, a third of the machines goalc is built for, and refuses
/// a mistyped factor or limit before it exhausts memory.
pub const MAX_BUILT_JOBS: usize = 1 << 23;

/// A transform could not be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransformError {
    #[error("target load must be a positive number, got {}", Load(*.0, None))]
    BadLoad(f64),
    #[error("load factor must be at least 1, got {}", Load(*.0, None))]
    BadFactor(f64),
    #[error("workload `{0}` has no jobs, or no work, to scale")]
    NothingToScale(String),
    #[error(
        "workload `{0}` has one job: offered load is measured between submits, so scaling it \
         needs at least two"
    )]
    OneJob(String),
    #[error(
        "workload `{name}` reaches offered load {}, not {}, when scaled by {how} ({why}){hint}",
        Load(*reached, Some(3)),
        Load(*target, None)
    )]
    LoadNotReached {
        name: String,
        target: f64,
        reached: f64,
        how: &'static str,
        why: String,
        hint: &'static str,
    },
    #[error("time window is empty: it ends ({end}s) at or before it starts ({start}s)")]
    EmptyWindow { start: Time, end: Time },
    #[error("{what} must not be negative, got {value}s")]
    Negative { what: &'static str, value: Time },
    #[error("trace `{trace}`: {why}, so its dates and calendar months are unknown")]
    NoStartTime { trace: String, why: String },
    #[error("run-time limit must be positive, got {0}s")]
    BadLimit(Time),
    #[error("{what} {value}s is beyond {MAX_TIME}s, the largest time goalc accepts")]
    TimeOutOfRange { what: &'static str, value: Time },
    #[error(
        "{what} would take times of workload `{name}` beyond {MAX_TIME}s, the largest time \
         goalc accepts"
    )]
    TooLong { what: String, name: String },
    #[error("the machine to scale to must have at least 1 processor, got 0")]
    NoMachine,
    #[error(
        "workload `{name}` runs on {from} processors; scaling it to {to} would shrink it, and \
         the method only enlarges (give at least {from})"
    )]
    SmallerMachine { name: String, from: u32, to: u32 },
    #[error(
        "scale factor must be a number from 1 to {max} (the new machine's processors), got {factor}"
    )]
    BadScaleFactor { factor: f64, max: u32 },
    #[error("share of enlarged jobs must be a number from 0 to 1, got {0}")]
    BadShare(f64),
    #[error(
        "{what} could make workload `{name}` up to {} jobs, more than the {limit} goalc \
         builds at once",
        Count(*jobs)
    )]
    TooManyJobs {
        what: String,
        name: String,
        jobs: u128,
        limit: usize,
    },
    #[error(
        "workload `{0}` has jobs split by a run-time limit; scale it to the new machine before \
         splitting it"
    )]
    SplitJobs(String),
    #[error(
        "workload `{name}`: job numbers up to {largest} leave no room after them to number the \
         {what} (renumber its jobs)"
    )]
    NoJobNumbers {
        name: String,
        largest: i64,
        what: String,
    },
}

/// Numbers for the jobs a transform adds: after the workload's largest,
/// in the order taken, as a batch system goes on numbering. Checked,
/// because a trace may hold a number near `i64::MAX`, and a number that
/// wrapped around would land on one of its own jobs.
struct NewNumbers {
    largest: i64,
    next: Option<i64>,
}

impl NewNumbers {
    fn after(w: &Workload) -> Self {
        let largest = w.jobs.iter().map(|j| j.number).max().unwrap_or(0);
        NewNumbers {
            largest,
            next: largest.checked_add(1),
        }
    }

    /// The next number, or an error saying that `w` has none left for
    /// the `what` (e.g. "copies of load factor 2").
    fn take(&mut self, w: &Workload, what: impl Fn() -> String) -> Result<i64, TransformError> {
        let Some(number) = self.next else {
            return Err(TransformError::NoJobNumbers {
                name: w.name.clone(),
                largest: self.largest,
                what: what(),
            });
        };
        self.next = number.checked_add(1);
        Ok(number)
    }
}

/// A count of jobs in an error: in scientific notation past 10^15, where
/// the digits stop meaning anything (a count from a factor of 1e308).
struct Count(u128);

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            n if n > 1_000_000_000_000_000 => write!(f, "{:.1e}", n as f64),
            n => write!(f, "{n}"),
        }
    }
}

/// A load in an error, as given or to `decimals`, within a plausible
/// range; beyond it in scientific notation (a mistyped 1e300 is not 300
/// digits). Zero is plain `0`, not `0e0`.
struct Load(f64, Option<usize>);

impl std::fmt::Display for Load {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Load(x, _) if x != 0.0 && !(1e-4..1e6).contains(&x.abs()) => write!(f, "{x:e}"),
            Load(x, Some(decimals)) => write!(f, "{x:.decimals$}"),
            Load(x, None) => write!(f, "{x}"),
        }
    }
}

/// A target offered load in range: finite and positive.
pub fn target_load_in_range(target: f64) -> Result<f64, TransformError> {
    if target.is_finite() && target > 0.0 {
        Ok(target)
    } else {
        Err(TransformError::BadLoad(target))
    }
}

/// A QOPS load factor in range: finite and at least 1.
pub fn load_factor_in_range(factor: f64) -> Result<f64, TransformError> {
    if factor.is_finite() && factor >= 1.0 {
        Ok(factor)
    } else {
        Err(TransformError::BadFactor(factor))
    }
}

/// A share of enlarged jobs in range: from 0 to 1.
pub fn enlarge_share_in_range(share: f64) -> Result<f64, TransformError> {
    if (0.0..=1.0).contains(&share) {
        Ok(share)
    } else {
        Err(TransformError::BadShare(share))
    }
}

fn check_load(w: &Workload, target: f64) -> Result<f64, TransformError> {
    target_load_in_range(target)?;
    let current = w.offered_load();
    if w.jobs.len() == 1 {
        return Err(TransformError::OneJob(w.name.clone()));
    }
    if w.jobs.is_empty() || current <= 0.0 {
        return Err(TransformError::NothingToScale(w.name.clone()));
    }
    Ok(current)
}

/// Scales the offered load to `target` by shrinking (or stretching) the
/// inter-arrival times, as GOAL does: every submit time moves to
/// `first + (submit - first) * current / target`, rounded to the second.
/// Run times are untouched.
pub fn scale_load_by_arrivals(w: &Workload, target: f64) -> Result<Workload, TransformError> {
    let current = check_load(w, target)?;
    let factor = current / target;
    let first = w.jobs[0].submit;
    let mut out = w.clone();
    for j in &mut out.jobs {
        let offset = ((j.submit - first) as f64 * factor).round();
        if offset > (MAX_TIME - first) as f64 {
            return Err(TransformError::TooLong {
                what: format!("load {}", Load(target, None)),
                name: w.name.clone(),
            });
        }
        let submit = first + offset as Time;
        let shift = submit - j.submit;
        if let Some(r) = j.record_mut() {
            r.submit += shift;
        }
        j.submit = submit;
    }
    out.name = format!("{}@{target}", w.name);
    let (span, scaled) = (w.submit_span(), out.submit_span());
    reached(out, target, "arrivals", RUNTIMES_INSTEAD, || match span {
        0 => "every job is submitted in the same second: there are no gaps to stretch".into(),
        _ => format!(
            "its first and last submits, {span}s apart, would be {scaled}s apart, in whole \
             seconds"
        ),
    })
}

/// Load is measured on whole seconds: a workload of a few seconds, or of
/// jobs of a second or two, may not reach the load asked for. Within 1% it
/// is taken (real traces come within 0.1%); farther it is an error, not a
/// workload named for a load it does not have.
fn reached(
    w: Workload,
    target: f64,
    how: &'static str,
    hint: &'static str,
    why: impl Fn() -> String,
) -> Result<Workload, TransformError> {
    let reached = w.offered_load();
    if (reached / target - 1.0).abs() <= 0.01 {
        return Ok(w);
    }
    Err(TransformError::LoadNotReached {
        name: w
            .name
            .rsplit_once('@')
            .map_or(&*w.name, |(n, _)| n)
            .to_string(),
        target,
        reached,
        how,
        why: why(),
        hint,
    })
}

const RUNTIMES_INSTEAD: &str = "; --load-by runtimes stretches run times instead";
const ARRIVALS_INSTEAD: &str = "; --load-by arrivals moves submit times instead";

/// Scales the offered load to `target` by stretching run times (and
/// estimates, by the same factor), as MOLD does; arrivals are untouched.
/// Each scaled time is rounded and at least one second.
pub fn scale_load_by_runtimes(w: &Workload, target: f64) -> Result<Workload, TransformError> {
    let current = check_load(w, target)?;
    let mut out = stretch(w, target / current, || {
        format!("load {}", Load(target, None))
    })?;
    out.name = format!("{}@{target}r", w.name);
    // Moving submits cannot help a workload submitted in one second.
    let hint = if w.submit_span() > 0 {
        ARRIVALS_INSTEAD
    } else {
        ""
    };
    reached(out, target, "run times", hint, || {
        "run times are whole seconds, at least one".into()
    })
}

/// Multiplies every run time and estimate by `factor`, each rounded and at
/// least one second, keeping the SWF fields in step; an error, naming
/// `what` asked for it, when a time would pass [`MAX_TIME`].
fn stretch(
    w: &Workload,
    factor: f64,
    what: impl Fn() -> String,
) -> Result<Workload, TransformError> {
    let scale = |t: Time| {
        let scaled = (t as f64 * factor).round();
        if scaled > MAX_TIME as f64 {
            return Err(TransformError::TooLong {
                what: what(),
                name: w.name.clone(),
            });
        }
        Ok((scaled as Time).max(1))
    };
    let mut out = w.clone();
    for j in &mut out.jobs {
        j.runtime = scale(j.runtime)?;
        j.estimate = scale(j.estimate)?;
        let (runtime, estimate) = (j.runtime, j.estimate);
        if let Some(r) = j.record_mut() {
            r.run_time = runtime;
            if r.requested_time > 0 {
                r.requested_time = estimate;
            }
        }
    }
    Ok(out)
}

/// A measured time window with a warm-up before it and a cool-down after it.
/// Times are offsets from the first submit of the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: Time,
    pub end: Time,
    pub warmup: Time,
    pub cooldown: Time,
}

/// Keeps the jobs submitted in `[start - warmup, end + cooldown)` and marks
/// only those in `[start, end)` as measured. Warm-up jobs fill the machine
/// so the window does not begin on an empty system; cool-down jobs keep
/// competing with the window's last jobs so these do not finish on an
/// emptying machine. Jobs outside are dropped and counted.
pub fn window(w: &Workload, win: Window) -> Result<Workload, TransformError> {
    if win.end <= win.start {
        return Err(TransformError::EmptyWindow {
            start: win.start,
            end: win.end,
        });
    }
    for (what, value) in [("warm-up", win.warmup), ("cool-down", win.cooldown)] {
        if value < 0 {
            return Err(TransformError::Negative { what, value });
        }
    }
    // Within the range, first submit + offset - warm-up cannot overflow.
    for (what, value) in [
        ("window start", win.start),
        ("window end", win.end),
        ("warm-up", win.warmup),
        ("cool-down", win.cooldown),
    ] {
        if value.unsigned_abs() > MAX_TIME as u64 {
            return Err(TransformError::TimeOutOfRange { what, value });
        }
    }
    let Some(first) = w.jobs.first().map(|j| j.submit) else {
        return Ok(w.clone());
    };
    let (start, end) = (first + win.start, first + win.end);
    let mut out = Workload {
        jobs: Vec::new(),
        name: w.name.clone(),
        header: w.header.clone(),
        dropped: w.dropped.clone(),
        procs: w.procs,
    };
    for j in &w.jobs {
        if j.submit < start - win.warmup || j.submit >= end + win.cooldown {
            out.dropped.add(DropReason::OutsideWindow);
            continue;
        }
        let mut j = j.clone();
        j.measured = j.submit >= start && j.submit < end;
        out.jobs.push(j);
    }
    Ok(out)
}

/// The header's `UnixStartTime`, or why there is none to use.
fn unix_start(w: &Workload) -> Result<i64, TransformError> {
    let why = match w.header.unix_start() {
        Ok(Some(t)) => return Ok(t),
        Ok(None) => "no `UnixStartTime` header".to_string(),
        Err(why) => why,
    };
    Err(TransformError::NoStartTime {
        trace: w.name.clone(),
        why,
    })
}

/// The UTC dates of the first and last submits of `w`, simulated time 0
/// being Unix time `unix_start` (1970-01-01 when `None`, as without a
/// `UnixStartTime`): `None` without jobs; an error saying why when a
/// submit falls past any calendar (chrono's, some 262,000 years either
/// side of 1970), where no date or time of week can be had.
pub fn submit_dates(
    w: &Workload,
    unix_start: Option<i64>,
) -> Result<Option<(chrono::NaiveDate, chrono::NaiveDate)>, String> {
    let (Some(first), Some(last)) = (w.jobs.first(), w.jobs.last()) else {
        return Ok(None);
    };
    let date = |t: Time| {
        let unix = unix_start.unwrap_or(0).checked_add(t)?;
        chrono::DateTime::from_timestamp(unix, 0).map(|d| d.date_naive())
    };
    match (date(first.submit), date(last.submit), unix_start) {
        (Some(d0), Some(d1), _) => Ok(Some((d0, d1))),
        (.., Some(t)) => {
            // The line to look at, unless the start was set in code.
            let place = match w.header.start_time() {
                Ok(Some(said)) if said == t => w.header.place_of("UnixStartTime"),
                _ => String::new(),
            };
            Err(format!(
                "{place}`UnixStartTime` {t} puts its submits past any calendar"
            ))
        }
        (.., None) => Err(format!(
            "without `UnixStartTime` its submits, {}s to {}s after 1970-01-01, are past any \
             calendar",
            first.submit, last.submit
        )),
    }
}

/// The calendar months (UTC) the trace's submits span, as
/// (`YYYY-MM`, start, end) with start and end offsets from the first submit,
/// ready for [`window`]. Needs the header's `UnixStartTime`.
pub fn calendar_months(w: &Workload) -> Result<Vec<(String, Time, Time)>, TransformError> {
    use chrono::{Datelike, NaiveDate};
    let unix_start = unix_start(w)?;
    let dates = submit_dates(w, Some(unix_start)).map_err(|why| TransformError::NoStartTime {
        trace: w.name.clone(),
        why,
    })?;
    let (Some((d0, d1)), Some(first)) = (dates, w.jobs.first()) else {
        return Ok(Vec::new());
    };
    let month_start = |y: i32, m: u32| {
        NaiveDate::from_ymd_opt(y, m, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|d| d.and_utc().timestamp() - unix_start)
    };
    let mut months = Vec::new();
    let (mut y, mut m) = (d0.year(), d0.month());
    while (y, m) <= (d1.year(), d1.month()) {
        let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
        if let (Some(a), Some(b)) = (month_start(y, m), month_start(ny, nm)) {
            months.push((format!("{y:04}-{m:02}"), a - first.submit, b - first.submit));
        }
        (y, m) = (ny, nm);
    }
    Ok(months)
}

/// Offsets from the first submit of the UTC dates `from` (00:00) and `to`
/// (00:00, so the window ends the day before), as a window needs them.
pub fn date_offsets(
    w: &Workload,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
) -> Result<(Time, Time), TransformError> {
    let unix_start = unix_start(w)?;
    let first = w.jobs.first().map_or(0, |j| j.submit);
    let at = |d: chrono::NaiveDate| {
        d.and_hms_opt(0, 0, 0)
            .map_or(0, |t| t.and_utc().timestamp() - unix_start - first)
    };
    Ok((at(from), at(to)))
}

/// The first `n` jobs in submit order (QOPS uses 5000-job subsets); the
/// rest are dropped and counted as such.
pub fn first_jobs(w: &Workload, n: usize) -> Workload {
    let mut out = w.clone();
    for _ in n.min(out.jobs.len())..out.jobs.len() {
        out.dropped.add(DropReason::PastFirstJobs);
    }
    out.jobs.truncate(n);
    out
}

/// QOPS's load by duplication: for a load factor `factor` >= 1, copies of
/// round((factor - 1) * n) randomly chosen jobs are added at random submit
/// times within the trace's span. The choices come from one seeded sequence,
/// so a higher factor's workload is a superset of a lower one's with the
/// same arrival times for the common jobs, as the paper requires. Copies get
/// new job numbers after the largest one (an error when there is no room).
pub fn duplicate_load(w: &Workload, factor: f64, seed: u64) -> Result<Workload, TransformError> {
    use rand::{Rng, SeedableRng};
    load_factor_in_range(factor)?;
    let (Some(first), Some(last)) = (w.jobs.first(), w.jobs.last()) else {
        return Err(TransformError::NothingToScale(w.name.clone()));
    };
    let (first, last) = (first.submit, last.submit);
    let n = w.jobs.len();
    let copies = ((factor - 1.0) * n as f64).round();
    if n as f64 + copies > MAX_BUILT_JOBS as f64 {
        return Err(TransformError::TooManyJobs {
            what: format!("load factor {}", Load(factor, None)),
            name: w.name.clone(),
            jobs: (n as f64 + copies) as u128,
            limit: MAX_BUILT_JOBS,
        });
    }
    let copies = copies as usize;
    // One pass over a shuffled order of all jobs (then again, for factors
    // above 2) keeps every prefix of copies the same for every factor.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..n).collect();
    let mut numbers = NewNumbers::after(w);
    let mut out = w.clone();
    let mut added = 0;
    while added < copies {
        // Fisher-Yates, drawn as u64 so every platform shuffles alike.
        for i in (1..n).rev() {
            let j = (rng.gen::<u64>() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &i in order.iter().take(copies - added) {
            let mut copy = w.jobs[i].clone();
            let submit = first + (rng.gen::<u64>() % ((last - first) as u64 + 1)) as Time;
            copy.submit = submit;
            copy.number = numbers.take(w, || {
                format!("copies of load factor {}", Load(factor, None))
            })?;
            if let Some(r) = copy.swf.as_deref_mut() {
                r.submit = submit;
                r.job_number = copy.number;
            }
            out.jobs.push(copy);
            added += 1;
        }
    }
    out.jobs.sort_by_key(|j| (j.submit, j.number));
    out.name = format!("{}x{factor}dup", w.name);
    Ok(out)
}

/// QOPS's load by expansion: every run time and estimate multiplied by the
/// load factor (rounded, at least one second); arrivals unchanged.
pub fn expand_load(w: &Workload, factor: f64) -> Result<Workload, TransformError> {
    load_factor_in_range(factor)?;
    let mut out = stretch(w, factor, || format!("load factor {}", Load(factor, None)))?;
    out.name = format!("{}x{factor}exp", w.name);
    Ok(out)
}

/// FAIR's maximum run-time limit: a job that runs longer than `limit`
/// seconds is split into consecutive chunks of at most `limit`, each
/// submitted when the one before it ends (the site's checkpoint-and-restart
/// scripts resubmit it). Every job's estimate is capped at the limit, since
/// no job may ask for more. The first chunk keeps the job's number and
/// submit time; follow-on chunks get new numbers after the largest one, in
/// job order (an error when there is no room), and name their predecessor
/// in [`Job::follows`] and in SWF field 17 (preceding job, think time 0).
/// The split uses the simulated run time (a job killed at its estimate is
/// split up to the estimate).
pub fn limit_runtime(w: &Workload, limit: Time) -> Result<Workload, TransformError> {
    if limit <= 0 {
        return Err(TransformError::BadLimit(limit));
    }
    // Count the chunks before making them: a run time of centuries under a
    // limit of hours is millions of chunks.
    let chunks = |j: &Job| chunks_under_limit(j, limit);
    let total: u128 = w.jobs.iter().map(chunks).sum();
    if total > MAX_BUILT_JOBS as u128 {
        let longest = w
            .jobs
            .iter()
            .max_by_key(|j| chunks(j))
            .expect("jobs to split");
        return Err(TransformError::TooManyJobs {
            what: format!(
                "a run-time limit of {limit}s (job {} alone splits into {} chunks)",
                longest.number,
                chunks(longest)
            ),
            name: w.name.clone(),
            jobs: total,
            limit: MAX_BUILT_JOBS,
        });
    }
    let mut numbers = NewNumbers::after(w);
    // Exactly as many as counted: a vector grown by doubling would hold up
    // to twice that while it moves.
    let mut jobs = Vec::with_capacity(total as usize);
    for j in &w.jobs {
        let run = j.sim_runtime();
        let mut first = j.clone();
        first.estimate = j.estimate.min(limit);
        // A chunk asks for its estimate, as the site's scripts would.
        first.no_requested_time = false;
        if let Some(r) = first.swf.as_deref_mut() {
            r.requested_time = first.estimate;
        }
        if run <= limit {
            jobs.push(first);
            continue;
        }
        first.runtime = limit;
        if let Some(r) = first.record_mut() {
            r.run_time = limit;
        }
        let mut prev = first.number;
        jobs.push(first);
        let mut done = limit;
        while done < run {
            let mut c = j.clone();
            c.number = numbers.take(w, || format!("chunks of a run-time limit of {limit}s"))?;
            c.runtime = (run - done).min(limit);
            c.estimate = (j.estimate - done).min(limit);
            c.follows = Some(prev);
            c.no_requested_time = false;
            if let Some(r) = c.swf.as_deref_mut() {
                r.job_number = c.number;
                r.run_time = c.runtime;
                r.requested_time = c.estimate;
                r.preceding_job = prev;
                r.think_time = 0;
            }
            prev = c.number;
            done += c.runtime;
            jobs.push(c);
        }
    }
    debug_assert_eq!(jobs.len() as u128, total);
    let mut out = Workload::new(w.name.clone(), w.procs, w.header.clone(), jobs);
    out.dropped = w.dropped.clone();
    Ok(out)
}

/// How many jobs [`limit_runtime`] makes of `j` under a limit of `limit`
/// seconds (more than 0): 1 when it runs no longer.
pub fn chunks_under_limit(j: &Job, limit: Time) -> u128 {
    (j.sim_runtime().max(1) as u128).div_ceil(limit as u128)
}

/// Tells the scheduler each job's exact run time (GOAL's assumption).
pub fn exact_estimates(w: &Workload) -> Workload {
    let mut out = w.clone();
    for j in &mut out.jobs {
        j.estimate = j.runtime;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Job, SwfHeader, SwfRecord};

    fn job(number: i64, submit: Time, runtime: Time, estimate: Time, procs: u32) -> Job {
        let mut swf = SwfRecord::unknown();
        swf.job_number = number;
        swf.submit = submit;
        swf.run_time = runtime;
        swf.requested_time = estimate;
        swf.requested_procs = procs as i64;
        Job {
            estimate,
            user: 1,
            group: 1,
            no_requested_time: estimate <= 0,
            swf: Some(Box::new(swf)),
            ..Job::plain(number, submit, runtime, procs)
        }
    }

    fn workload() -> Workload {
        // 10 processors; work 4*100 + 6*100 + 1*40 = 1040 over a 200 s span:
        // load 0.52 (job 3 overran its 40 s estimate, so counts 40 s).
        Workload::new(
            "w",
            10,
            SwfHeader::default(),
            vec![
                job(1, 0, 100, 150, 4),
                job(2, 100, 100, 100, 6),
                job(3, 200, 50, 40, 1),
            ],
        )
    }

    #[test]
    fn offered_load_uses_killed_runtimes() {
        assert!((workload().offered_load() - 0.52).abs() < 1e-12);
    }

    #[test]
    fn load_by_arrivals_shrinks_gaps() {
        let w = scale_load_by_arrivals(&workload(), 1.04).unwrap();
        let submits: Vec<Time> = w.jobs.iter().map(|j| j.submit).collect();
        assert_eq!(submits, vec![0, 50, 100]);
        assert_eq!(w.jobs[1].swf.as_ref().unwrap().submit, 50);
        assert!((w.offered_load() - 1.04).abs() < 1e-12);
        assert_eq!(w.jobs[0].runtime, 100);
    }

    #[test]
    fn load_by_runtimes_stretches_jobs() {
        let w = scale_load_by_runtimes(&workload(), 1.04).unwrap();
        let rt: Vec<(Time, Time)> = w.jobs.iter().map(|j| (j.runtime, j.estimate)).collect();
        assert_eq!(rt, vec![(200, 300), (200, 200), (100, 80)]);
        assert_eq!(w.jobs[0].submit, 0);
    }

    #[test]
    fn bad_load_is_an_error() {
        assert_eq!(
            scale_load_by_arrivals(&workload(), -1.0),
            Err(TransformError::BadLoad(-1.0))
        );
        assert!(scale_load_by_runtimes(&workload(), f64::NAN).is_err());
    }

    #[test]
    fn scaling_past_the_largest_time_is_an_error() {
        // 200 s of submits stretched by 0.52 / 1e-14.
        let e = scale_load_by_arrivals(&workload(), 1e-14).unwrap_err();
        assert_eq!(
            e.to_string(),
            "load 1e-14 would take times of workload `w` beyond 9007199254740991s, the largest \
             time goalc accepts"
        );
        scale_load_by_arrivals(&workload(), 1e-13).unwrap();
        assert!(matches!(
            scale_load_by_runtimes(&workload(), 1e300),
            Err(TransformError::TooLong { .. })
        ));
        assert!(matches!(
            expand_load(&workload(), 1e14),
            Err(TransformError::TooLong { .. })
        ));
        // Up to the bound is fine: 150 s * 6e13 = 9e15 s.
        let w = expand_load(&workload(), 6e13).unwrap();
        assert_eq!(w.jobs[0].estimate, 9_000_000_000_000_000);
    }

    #[test]
    fn window_beyond_the_largest_time_is_an_error() {
        let win = Window {
            start: 0,
            end: Time::MAX,
            warmup: 0,
            cooldown: 0,
        };
        assert_eq!(
            window(&workload(), win),
            Err(TransformError::TimeOutOfRange {
                what: "window end",
                value: Time::MAX
            })
        );
        let win = Window {
            end: MAX_TIME,
            cooldown: MAX_TIME,
            ..win
        };
        assert_eq!(window(&workload(), win).unwrap().jobs.len(), 3);
    }

    #[test]
    fn window_marks_warmup_and_cooldown_unmeasured() {
        let w = window(
            &workload(),
            Window {
                start: 100,
                end: 150,
                warmup: 100,
                cooldown: 0,
            },
        )
        .unwrap();
        let kept: Vec<(i64, bool)> = w.jobs.iter().map(|j| (j.number, j.measured)).collect();
        assert_eq!(kept, vec![(1, false), (2, true)]);
        assert_eq!(w.dropped.get(DropReason::OutsideWindow), 1);
        let w = window(
            &workload(),
            Window {
                start: 100,
                end: 150,
                warmup: 0,
                cooldown: 100,
            },
        )
        .unwrap();
        let kept: Vec<(i64, bool)> = w.jobs.iter().map(|j| (j.number, j.measured)).collect();
        assert_eq!(kept, vec![(2, true), (3, false)]);
    }

    #[test]
    fn empty_window_is_an_error() {
        let win = Window {
            start: 10,
            end: 10,
            warmup: 0,
            cooldown: 0,
        };
        assert!(window(&workload(), win).is_err());
    }

    #[test]
    fn calendar_months_follow_the_utc_calendar() {
        let mut w = workload();
        // 1996-09-30 23:59:00 UTC: job 1 in September, jobs 2 and 3 (100 s
        // and 200 s later) in October.
        w.header.unix_start_time = Some(844_127_940);
        let months = calendar_months(&w).unwrap();
        assert_eq!(months.len(), 2);
        assert_eq!(months[0].0, "1996-09");
        assert_eq!(months[1], ("1996-10".to_string(), 60, 60 + 31 * 86_400));
        w.header.unix_start_time = None;
        assert_eq!(
            calendar_months(&w).unwrap_err().to_string(),
            format!(
                "trace `{}`: no `UnixStartTime` header, so its dates and calendar months are unknown",
                w.name
            )
        );
        // There but unusable, the line and the value are said.
        w.header.lines.push(" UnixStartTime: 1e3".into());
        let e = calendar_months(&w).unwrap_err().to_string();
        assert!(
            e.contains("header `; UnixStartTime: 1e3`: `1e3` is not a time in whole seconds"),
            "{e}"
        );
        // Usable, but past any calendar (GREEDY's clock makes the same check).
        w.header.lines.clear();
        w.header.unix_start_time = Some(10_000_000_000_000);
        assert_eq!(
            calendar_months(&w).unwrap_err().to_string(),
            "trace `w`: `UnixStartTime` 10000000000000 puts its submits past any calendar, so \
             its dates and calendar months are unknown"
        );
    }

    #[test]
    fn duplication_adds_copies_and_higher_loads_are_supersets() {
        let w = workload();
        let a = duplicate_load(&w, 1.34, 7).unwrap();
        let b = duplicate_load(&w, 1.67, 7).unwrap();
        let c = duplicate_load(&w, 3.0, 7).unwrap();
        assert_eq!((a.jobs.len(), b.jobs.len(), c.jobs.len()), (4, 5, 9));
        // Every job of a lower load is in the higher load, same submit.
        for (lo, hi) in [(&a, &b), (&b, &c)] {
            for j in &lo.jobs {
                assert!(
                    hi.jobs
                        .iter()
                        .any(|k| k.number == j.number && k.submit == j.submit),
                    "{}",
                    j.number
                );
            }
        }
        // Copies have fresh numbers and submits within the span.
        assert!(c.jobs.iter().all(|j| (0..=200).contains(&j.submit)));
        let mut numbers: Vec<i64> = c.jobs.iter().map(|j| j.number).collect();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers.len(), 9);
        assert_eq!(duplicate_load(&w, 1.0, 7).unwrap().jobs.len(), 3);
        assert!(duplicate_load(&w, 0.5, 7).is_err());
        // Same seed, same workload.
        assert_eq!(duplicate_load(&w, 1.67, 7).unwrap(), b);
    }

    #[test]
    fn expansion_scales_run_times() {
        let w = expand_load(&workload(), 1.5).unwrap();
        let rt: Vec<(Time, Time)> = w.jobs.iter().map(|j| (j.runtime, j.estimate)).collect();
        assert_eq!(rt, vec![(150, 225), (150, 150), (75, 60)]);
    }

    #[test]
    fn first_jobs_keeps_a_prefix() {
        let w = first_jobs(&workload(), 2);
        assert_eq!(w.jobs.len(), 2);
        assert_eq!(w.dropped.get(DropReason::PastFirstJobs), 1);
        assert_eq!(w.dropped.get(DropReason::OutsideWindow), 0);
    }

    #[test]
    fn exact_estimates_copy_runtime() {
        let w = exact_estimates(&workload());
        assert!(w.jobs.iter().all(|j| j.estimate == j.runtime));
        // A job that overran its estimate now runs whole.
        assert_eq!(w.jobs[2].sim_runtime(), 50);
    }

    #[test]
    fn a_load_the_workload_cannot_reach_is_an_error_not_a_misnamed_workload() {
        // All three jobs in one second: no arrivals to stretch.
        let mut w = workload();
        for j in &mut w.jobs {
            j.submit = 0;
        }
        let err = scale_load_by_arrivals(&w, 0.5).unwrap_err();
        assert_eq!(
            err.to_string(),
            "workload `w` reaches offered load 104.000, not 0.5, when scaled by arrivals \
             (every job is submitted in the same second: there are no gaps to stretch); \
             --load-by runtimes stretches run times instead"
        );
        // Load 40 puts the submits 2.6 s apart: 3 in whole seconds.
        let err = scale_load_by_arrivals(&workload(), 40.0).unwrap_err();
        assert!(
            err.to_string().contains(
                "reaches offered load 34.667, not 40, when scaled by arrivals (its first and \
                 last submits, 200s apart, would be 3s apart, in whole seconds)"
            ),
            "{err}"
        );
        // A mistyped load is not printed as 300 digits.
        let err = scale_load_by_arrivals(&workload(), 1e300).unwrap_err();
        assert!(err.to_string().contains("not 1e300,"), "{err}");
        // Run times of a second cannot shrink: 0.001 would need 0.1 s.
        let mut w = workload();
        for j in &mut w.jobs {
            (j.runtime, j.estimate) = (1, 1);
        }
        let err = scale_load_by_runtimes(&w, 0.0001).unwrap_err();
        assert!(
            matches!(err, TransformError::LoadNotReached { reached, .. } if (reached - 0.0055).abs() < 1e-9),
            "{err}"
        );
        // One job has no span to measure a load over.
        let mut one = workload();
        one.jobs.truncate(1);
        assert_eq!(
            scale_load_by_runtimes(&one, 0.5),
            Err(TransformError::OneJob("w".into()))
        );
        // Within 1% is taken: whole seconds round every load a little.
        let near = scale_load_by_arrivals(&workload(), 0.9).unwrap();
        assert!((near.offered_load() / 0.9 - 1.0).abs() <= 0.01);
    }

    #[test]
    fn transforms_refuse_to_build_more_jobs_than_fit_in_memory() {
        // The job size the bound's memory is reckoned from is pinned in
        // workload's own tests.
        // Job 2 runs for a century: a limit of an hour makes 876,006
        // chunks of it; a second, more than MAX_BUILT_JOBS in all.
        let mut w = workload();
        w.jobs[1].runtime = 100 * 365 * 86_400 + 21_600;
        w.jobs[1].estimate = w.jobs[1].runtime;
        let hourly = limit_runtime(&w, 3600).unwrap();
        assert_eq!(hourly.jobs.len(), 2 + 876_006);
        let err = limit_runtime(&w, 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a run-time limit of 1s (job 2 alone splits into 3153621600 chunks) could make \
             workload `w` up to 3153621740 jobs, more than the 8388608 goalc builds at once"
        );
        let err = duplicate_load(&workload(), 1e12, 1).unwrap_err();
        assert!(
            matches!(
                err,
                TransformError::TooManyJobs {
                    jobs: 3_000_000_000_000,
                    ..
                }
            ),
            "{err}"
        );
        // A mistyped factor or load is said in a few characters, not 309
        // digits, and so is the count it would make.
        let err = duplicate_load(&workload(), 1e308, 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "load factor 1e308 could make workload `w` up to 3.4e38 jobs, more than the 8388608 \
             goalc builds at once"
        );
        let err = expand_load(&workload(), 1e300).unwrap_err().to_string();
        assert!(
            err.starts_with("load factor 1e300 would take times"),
            "{err}"
        );
        let err = scale_load_by_arrivals(&workload(), 1e-300)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("load 1e-300 would take times"), "{err}");
        assert_eq!(
            TransformError::BadFactor(1e-300).to_string(),
            "load factor must be at least 1, got 1e-300"
        );
        // `--load 0` is said as given, not as `0e0`.
        assert_eq!(
            TransformError::BadLoad(0.0).to_string(),
            "target load must be a positive number, got 0"
        );
        assert_eq!(
            TransformError::BadFactor(0.0).to_string(),
            "load factor must be at least 1, got 0"
        );
    }

    /// New jobs are numbered after the largest number up to `i64::MAX`
    /// and no farther: past it they wrapped onto the trace's own numbers
    /// (a chunk took i64::MIN, which job 3 holds, and was lost from the
    /// measures).
    #[test]
    fn new_job_numbers_stop_at_the_largest_number() {
        let mut w = workload();
        for (j, number) in w.jobs.iter_mut().zip([i64::MIN, i64::MAX - 2, 5]) {
            j.number = number;
            j.swf.as_mut().unwrap().job_number = number;
        }
        // Job 1 (100 s) splits into two chunks under 50 s, into four under
        // 25 s: room for two new numbers after i64::MAX - 2.
        let split = limit_runtime(&w, 50).unwrap();
        let numbers: Vec<i64> = split.jobs.iter().map(|j| j.number).collect();
        assert_eq!(
            numbers,
            [i64::MIN, i64::MAX - 1, i64::MAX - 2, i64::MAX, 5],
            "job 2 (100 s) splits too"
        );
        assert_eq!(
            limit_runtime(&w, 25).unwrap_err().to_string(),
            format!(
                "workload `w`: job numbers up to {} leave no room after them to number the \
                 chunks of a run-time limit of 25s (renumber its jobs)",
                i64::MAX - 2
            )
        );
        // Load factor 1.67: two copies fit, 2.0 needs three.
        let copies = duplicate_load(&w, 1.67, 7).unwrap();
        let mut numbers: Vec<i64> = copies.jobs.iter().map(|j| j.number).collect();
        numbers.sort();
        assert_eq!(numbers, [i64::MIN, 5, i64::MAX - 2, i64::MAX - 1, i64::MAX]);
        assert!(copies
            .jobs
            .iter()
            .all(|j| j.swf.as_ref().unwrap().job_number == j.number));
        assert!(matches!(
            duplicate_load(&w, 2.0, 7),
            Err(TransformError::NoJobNumbers { ref what, largest, .. })
                if what == "copies of load factor 2" && largest == i64::MAX - 2
        ));
    }

    #[test]
    fn runtime_limit_splits_into_chained_chunks() {
        // 100 s limit: a 250 s job (estimate 300) becomes 100 + 100 + 50,
        // estimates 100, 100, 100; a 90 s job asking for 500 s keeps its run
        // time and may ask for only 100 s.
        let w = Workload::new(
            "t",
            4,
            SwfHeader::default(),
            vec![job(1, 0, 250, 300, 2), job(7, 5, 90, 500, 1)],
        );
        let out = limit_runtime(&w, 100).unwrap();
        let got: Vec<(i64, Time, Time, Option<i64>)> = out
            .jobs
            .iter()
            .map(|j| (j.number, j.runtime, j.estimate, j.follows))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 100, 100, None),
                (8, 100, 100, Some(1)),
                (9, 50, 100, Some(8)),
                (7, 90, 100, None),
            ]
        );
        assert_eq!(out.jobs[2].swf.as_ref().unwrap().preceding_job, 8);
        assert_eq!(out.jobs[2].swf.as_ref().unwrap().think_time, 0);
        assert!(limit_runtime(&w, 0).is_err());
    }
}
