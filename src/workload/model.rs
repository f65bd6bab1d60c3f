//! The built-in synthetic workload: the Lublin–Feitelson model of rigid
//! batch jobs, with user runtime estimates from the Tsafrir–Etsion–Feitelson
//! model.
//!
//! # Sources
//!
//! * U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
//!   modeling the characteristics of rigid jobs", J. Parallel & Distributed
//!   Computing 63(11), 2003. The paper's full text was not reachable from
//!   here, so the parameter values are those of the authors' own generator,
//!   `m_lublin99.c`, published with the model on the Parallel Workloads
//!   Archive (<https://www.cs.huji.ac.il/labs/parallel/workload/models.html>,
//!   <https://www.cs.huji.ac.il/labs/parallel/workload/m_lublin99/>). They
//!   were checked against a second, independent copy: the batch constants of
//!   GridSim's Java port `WorkloadLublin99` are the same. We use the **batch**
//!   parameter set (the model also has an interactive set and a "whole sample"
//!   set).
//! * D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling user runtime
//!   estimates", JSSPP 2005, LNCS 3834
//!   (<https://www.cs.huji.ac.il/labs/parallel/workload/m_tsafrir05/Est05JSSPP.pdf>).
//!   Parameter values are those documented in the authors' reference
//!   implementation `est_model.hh` / `est_model.cc` on the Archive
//!   (<https://www.cs.huji.ac.il/labs/parallel/workload/m_tsafrir05/>). The
//!   paper's abstract confirms the model's central fact: about 90% of jobs use
//!   one of only 20 estimate values, the most popular being the maximum.
//!
//! The code here is written from those descriptions; none of it is copied.
//!
//! # Job size (Lublin & Feitelson)
//!
//! With probability `SERIAL_PROB` a job is serial. Otherwise `x` is drawn
//! from a two-stage uniform distribution: with probability `SIZE_UPROB`
//! uniform on `[ULOW, UMED]`, otherwise uniform on `[UMED, UHI]`. With
//! probability `POW2_PROB` (a share of *all* jobs, as in the reference
//! program, so only `1 - 0.2927 - 0.6686 = 3.9%` of jobs fall in the third
//! branch) the size is `2^round(x)`, else `round(2^x)`.
//!
//! The machine size enters through `UHI = log2(procs)`. `UMED = UHI - 2`,
//! the offset of the published batch values (`UHI = 7`, `UMED = 5` for the
//! 128-node machine they were fitted for; the authors advise
//! `UMED = UHI - 1.5 .. 3.5`). `ULOW = 1.2`. On machines too small for these
//! to be ordered, `ULOW` is lowered to `UHI` and `UMED` raised to `ULOW`. On
//! a machine that is not a power of two, `2^round(x)` can exceed it; such a
//! job gets the largest power of two that fits. Every size lies in
//! `1..=procs`.
//!
//! # Runtime (Lublin & Feitelson)
//!
//! The natural log of the runtime is hyper-gamma: gamma(`a1`, `b1`) with
//! probability `p`, else gamma(`a2`, `b2`) (shape, scale). The mixing
//! probability depends on the size, `p = pa * procs + pb` clamped to `[0, 1]`.
//! That is linear in the **number of processors**, as in the authors'
//! program, not in `log2(procs)`: with `pa = -0.003` a serial job has
//! `p = 0.70` and a 128-processor job `p = 0.31`, which is the size/runtime
//! correlation the model is built to show; with `log2` the correlation
//! would all but vanish. Draws with a log runtime above 12 (`e^12` s, about
//! 45 hours) are rejected and redrawn, as in the reference program.
//!
//! # Arrivals (Lublin & Feitelson)
//!
//! The natural log of the inter-arrival time is gamma(`aarr * ARAR`, `barr`),
//! redrawn when above 13. The published `aarr` describes rush hours and
//! `ARAR` ("arrive rush-all ratio") rescales it to the whole day. The daily
//! cycle comes from a second gamma, (`anum`, `bnum`), giving each half-hour
//! slot of the day a weight: the probability mass of that gamma on
//! `[j - 0.5, j + 0.5]`, where `j` counts slots on a day that starts at 05:00
//! (the quietest time), the 05:00 slot being `j = 11`. Weights are scaled to
//! average 1. The gaps are then laid out on a time axis that runs faster
//! during heavy slots: a slot of weight `w` lasts 1800 s of clock time but
//! absorbs `1800 w` seconds of gaps. This is the reference program's
//! "points per bucket" mechanism, written as a piecewise-linear time change.
//! The long-run mean inter-arrival time is therefore the mean gap, about
//! 3,517 s. The median drawn gap is 226 s (`e^(aarr * ARAR * barr)`); the
//! median gap on the clock is shorter, about 150 s, because most jobs arrive
//! in busy slots.
//! Job 1 arrives at 0, which is midnight (the reference program also starts
//! at hour 0), and each later job one gap after the one before it.
//!
//! # Runtime estimates (Tsafrir, Etsion & Feitelson)
//!
//! The Lublin model has no estimates. Estimates come from the 2005 model,
//! fed with one mandatory input, the system's maximal estimate, which is set
//! here to 48 hours ([`estimates::MAX_ESTIMATE`]). The reference program
//! describes its runtime limit `e^12` s as "two days", and 48 h is the round
//! value just above every runtime it can produce. The model builds a histogram
//! of estimate values and deals those values out to the jobs:
//!
//! * Number of distinct values: piecewise-linear in the job count through
//!   (0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340),
//!   (250000, 565), constant beyond.
//! * The 20 "head" values: the maximum; the 15 values common to all four
//!   traces the authors studied (5, 10, 15, 20, 30 min; 1, 2, 3, 4, 5, 6, 8,
//!   10, 12, 18 h) that are below it; then round values (multiples of 200 h,
//!   100 h, 50 h, 10 h, 5 h, 2 h, 1 h, 20 min, 10 min, 5 min, counting down
//!   from the maximum) until there are 20.
//! * Head shares: popularity rank `x = 2..=20` gets `a e^(b x) + c` percent
//!   (a = 14.0491, b = -0.177531, c = 0.462513); rank 1 gets what remains of
//!   the head's 89%, 21.7% here. The maximum is rank 1.
//! * Which head value gets which rank: the authors' program records, for
//!   each of four traces (SDSC, CTC, KTH, Blue Horizon), the popularity rank
//!   of each time-ordered top-20 value. **Approximation:** their program builds a new
//!   random permutation constrained by all four tables. We instead draw one
//!   of the four observed permutations at random (seeded) and move the
//!   maximum to rank 1, shifting the ranks it passes.
//! * Tail values (ranks 21 and up): with `K` bins in all and `T = K - 20`
//!   in the tail, the `i`-th (i = 1..=T) lies at `M (α-1) x / (α-x)` for
//!   the maximal estimate `M`,
//!   `x = i / T`, `α = 1 + 12.1039 K^-0.6026`, rounded to the minute and
//!   moved by +30, -30, +20, -20, +10 or -10 s if that collides with a value
//!   already taken (dropped if all collide). Their shares follow
//!   `795.6 r^-2.267` for popularity rank `r`, scaled to the tail's 11%, and
//!   are matched to the values at random.
//! * Shares become job counts by largest remainder (the reference program
//!   rounds each share and then repairs the total with its own heuristics;
//!   largest remainder hits the total exactly in one step).
//! * Dealing: jobs in decreasing runtime order each take an estimate drawn
//!   uniformly from the unused values that are at least their runtime.
//!   If none is left the job gets the maximum (the reference program aborts
//!   instead). With these parameters that did not happen in 200 seeds of
//!   20,000 jobs.
//!
//! So every estimate is at least the runtime, and at most 48 h.
//!
//! # Users (goalc's addition, optional)
//!
//! The Lublin–Feitelson model has no users. Fairshare (FAIR) and owner
//! objectives over user groups (GREEDY) mean nothing without them, so
//! [`ModelParams::users`] adds `N` users, drawn after the jobs from a
//! stream of their own: the jobs' sizes, times and estimates are the same
//! bits with users or without. Two facts shape the draw, both measured on
//! the ten Parallel Workloads Archive traces the project uses (CTC, KTH,
//! LANL CM-5, LLNL Atlas, NASA iPSC, OSC, SDSC Blue, SDSC Paragon, SDSC SP2,
//! Sandia Ross; cleaned versions):
//!
//! * **Activity is Zipf-like.** Ranked by jobs, the k-th user's job count
//!   falls as `k^-s`; a least-squares fit of log count on log rank over the
//!   busier half of each trace's users gives `s` from 0.72 to 1.24, median
//!   1.0. In every trace the busiest tenth of the users submit about half
//!   the jobs (47% to 65%) and use 63% to 90% of the processor-seconds.
//!   A fresh draw therefore picks user `k` of `N` with probability
//!   `(1/k) / H_N` (Zipf, `s = 1`): with 64 users the busiest has 21% of
//!   the draws and the busiest 6 have 52%.
//! * **Users repeat their jobs.** In the traces, a job has the same user
//!   as the latest earlier job of the same size 44% to 76% of the time
//!   (median 63%), where independent users would give 1% to 11%. So with
//!   probability [`USER_REPEAT`] = 0.6 a job takes the user of the latest
//!   earlier job of its size, and otherwise a fresh draw; a job whose size
//!   is new always draws. The chance of the same user is then
//!   `0.6 + 0.4 * sum of squared shares`, about 0.63 for 64 users. Each
//!   user's jobs thus gather in a few widths and come in runs, as on a real
//!   machine; that is what makes fairshare's order differ from arrival
//!   order in a way one can see.
//!
//! A job's user is marginally still Zipf (a repeated user is the user of an
//! earlier job, itself Zipf-distributed), so the repetition moves no
//! user's expected share. Users are numbered 1..=`N` by expected activity.
//! The number of users in a run is the caller's: the traces have 29 to
//! 152 distinct users in 3,000 consecutive jobs, median of the ten
//! medians 64, which is what `goalc bench` takes on the model. Groups
//! (GREEDY's) follow from the users' consumption when a goal asks for them;
//! the SWF group field stays -1, as nothing in the model says which users
//! would share one.
//!
//! # Whole seconds
//!
//! * Runtime: `floor(e^x)` for the drawn log runtime `x >= 0`, so at least 1 s
//!   (the reference program also truncates).
//! * Submit time: `floor` of the continuous arrival time, so submit times are
//!   nondecreasing and start at 0.
//! * Sizes: `round` is half away from zero.
//! * Estimates are whole seconds by construction.
//!
//! # Determinism
//!
//! One `ChaCha8Rng::seed_from_u64(seed)` per component, on separate ChaCha
//! streams (arrivals, sizes and runtimes, estimates, users), so a change in one
//! component does not shift the random numbers of another. Random integers
//! are drawn as `u64`, never `usize`, so 32- and 64-bit targets agree. The
//! model's own transcendental functions (`exp`, `exp2`, `ln`, `pow`, `ln Γ`)
//! come from the [`libm`] crate, a pure-Rust port of musl's libm that gives
//! the same bits on every platform, never from the system's math library
//! (`f64::exp` and friends), whose last-bit results may differ between
//! systems. The gamma CDF, which `libm` does not offer, is written here
//! (`gamma_cdf`) from `libm`'s functions and IEEE basic operations. The
//! one remaining dependency on the system's math library is inside
//! `rand_distr`'s gamma sampler.
//!
//! # Output
//!
//! User and group are unknown (-1), as the published model has none,
//! unless users are asked for (then the user is 1..=`N`, the group still
//! -1). Every job is
//! measured and has no deadline. The SWF record has wait -1, status 1,
//! allocated = requested processors, requested time = estimate.

use super::transform::MAX_BUILT_JOBS;
use super::{Job, SwfHeader, SwfRecord, Time, Workload, MAX_TIME};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};

/// Runtime estimates: Tsafrir, Etsion & Feitelson 2005.
pub mod estimates;
/// Who submits each job (goalc's addition).
mod users;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelParams {
    /// Number of jobs.
    pub jobs: usize,
    /// Processors of the machine.
    pub procs: u32,
    /// Seed of the random streams: the same parameters give the same workload.
    pub seed: u64,
    /// Widest job: sizes (and through them run times) follow the model fitted
    /// to a machine this wide, placed on the bigger machine of `procs`, as on
    /// a grid or capacity machine where thousands of narrow jobs run at once.
    /// `None`: the machine's own width.
    pub widest: Option<u32>,
    /// Users who submit the jobs (see "Users" in the module documentation):
    /// `None` leaves every job without a user (-1), as the published model.
    pub users: Option<u32>,
}

impl Default for ModelParams {
    fn default() -> Self {
        ModelParams {
            jobs: 10_000,
            procs: 128,
            seed: 1,
            widest: None,
            users: None,
        }
    }
}

impl ModelParams {
    /// The parameters [`generate`] refuses whatever the seed; it may still
    /// refuse jobs whose arrivals reach past the largest time.
    pub fn check(&self) -> Result<(), ModelError> {
        if self.jobs == 0 {
            return Err(ModelError::NoJobs);
        }
        if self.procs < 1 {
            return Err(ModelError::NoProcs);
        }
        if let Some(w) = self.widest.filter(|w| !(1..=self.procs).contains(w)) {
            return Err(ModelError::Widest {
                widest: w,
                procs: self.procs,
            });
        }
        if let Some(u) = self.users.filter(|u| !(1..=MAX_USERS).contains(u)) {
            return Err(ModelError::Users(u));
        }
        if self.jobs > MAX_BUILT_JOBS {
            return Err(ModelError::BeyondMemory(self.jobs));
        }
        Ok(())
    }
}

/// Why `users` is refused: none is said by leaving it out (the command
/// line's and suite files' 0), so only too many reaches those.
fn users_message(users: u32) -> String {
    if users == 0 {
        "model parameter users must be at least 1, got 0 (leave it out for no users)".into()
    } else {
        format!("model parameter users must be at most {MAX_USERS}, got {users}")
    }
}

/// Parameters that make no sense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("model parameter jobs must be at least 1, got 0")]
    NoJobs,
    #[error("model parameter procs must be at least 1, got 0")]
    NoProcs,
    #[error("model parameter widest must be between 1 and procs ({procs}), got {widest}")]
    Widest { widest: u32, procs: u32 },
    #[error("{}", users_message(*.0))]
    Users(u32),
    #[error(
        "model parameter jobs ({0}) makes arrivals reach beyond {MAX_TIME}s, the largest time \
         goalc accepts"
    )]
    TooManyJobs(usize),
    #[error("model parameter jobs ({0}) is more than the {MAX_BUILT_JOBS} goalc builds at once")]
    BeyondMemory(usize),
}

// ---------------------------------------------------------------------------
// Job size: Lublin & Feitelson 2003, batch jobs (m_lublin99.c, *_BATCH).
// ---------------------------------------------------------------------------

/// Probability that a job is serial.
const SERIAL_PROB: f64 = 0.2927;
/// Probability (of all jobs) that a job's size is a power of two > 1.
const POW2_PROB: f64 = 0.6686;
/// log2 of the smallest parallel size (2^1.2 rounds to 2).
const SIZE_ULOW: f64 = 1.2;
/// `UHI - UMED` of the published batch parameters (7 - 5).
const SIZE_UMED_BELOW_UHI: f64 = 2.0;
/// Probability of the lower stage `[ULOW, UMED]` of the two-stage uniform.
const SIZE_UPROB: f64 = 0.875;

// ---------------------------------------------------------------------------
// Runtime: Lublin & Feitelson 2003, batch jobs. Hyper-gamma on ln(runtime),
// gamma(shape a, scale b), mixing probability p = pa * procs + pb.
// ---------------------------------------------------------------------------

const RUN_A1: f64 = 6.57;
const RUN_B1: f64 = 0.823;
const RUN_A2: f64 = 639.1;
const RUN_B2: f64 = 0.0156;
const RUN_PA: f64 = -0.003;
const RUN_PB: f64 = 0.6986;
/// Largest accepted ln(runtime); larger draws are redrawn.
const RUN_LOG_MAX: f64 = 12.0;

// ---------------------------------------------------------------------------
// Arrivals: Lublin & Feitelson 2003, batch jobs. Gamma on ln(inter-arrival),
// daily cycle from a gamma over half-hour slots.
// ---------------------------------------------------------------------------

/// Shape of ln(inter-arrival time) at rush hours.
const ARR_AARR: f64 = 6.0415;
/// Scale of ln(inter-arrival time).
const ARR_BARR: f64 = 0.8531;
/// Rush-hour to whole-day ratio applied to the shape.
const ARR_ARAR: f64 = 1.0519;
/// Shape of the time-of-day gamma (in half-hour slots).
const ARR_ANUM: f64 = 6.1271;
/// Scale of the time-of-day gamma (in half-hour slots).
const ARR_BNUM: f64 = 5.2740;
/// Largest accepted ln(inter-arrival time); larger draws are redrawn.
const ARR_LOG_MAX: f64 = 13.0;
/// Half-hour slots in a day.
const SLOTS_PER_DAY: usize = 48;
/// Length of a slot, seconds.
const SLOT_SECONDS: f64 = 1800.0;
/// The slot the model's day starts at (05:00-05:30)...
const DAY_FIRST_SLOT: usize = 10;
/// ...and its abscissa for the time-of-day gamma.
const DAY_FIRST_POSITION: usize = 11;

// ---------------------------------------------------------------------------
// Users: goalc's addition, fitted to the reference traces (module docs).
// ---------------------------------------------------------------------------

/// Probability that a job goes to the user of the latest earlier job of
/// the same size (a repeated run) instead of a fresh draw by activity.
const USER_REPEAT: f64 = 0.6;
/// The most users the model draws from (the reference traces have 60 to
/// 679 in all); bounds the table of cumulative weights.
pub const MAX_USERS: u32 = 100_000;

// Independent random streams of one seed.
const STREAM_ARRIVALS: u64 = 1;
const STREAM_JOBS: u64 = 2;
const STREAM_ESTIMATES: u64 = 3;
const STREAM_USERS: u64 = 4;

/// Generates the model workload described in the module documentation.
pub fn generate(p: &ModelParams) -> Result<Workload, ModelError> {
    p.check()?;
    let widest = p.widest.unwrap_or(p.procs);
    let n = p.jobs;

    let submits = arrivals(n, &mut stream(p.seed, STREAM_ARRIVALS));
    // Run times (below e^RUN_LOG_MAX) and estimates (below MAX_ESTIMATE)
    // are bounded by the model; only the arrivals add up with the jobs.
    if submits.last().is_some_and(|&t| t > MAX_TIME) {
        return Err(ModelError::TooManyJobs(n));
    }

    let sizes = SizeModel::for_machine(widest);
    let runtimes_model = RuntimeModel::new();
    let mut rng = stream(p.seed, STREAM_JOBS);
    let mut procs = Vec::with_capacity(n);
    let mut runtimes = Vec::with_capacity(n);
    for _ in 0..n {
        let size = sizes.sample(&mut rng);
        procs.push(size);
        runtimes.push(runtimes_model.sample(size, &mut rng));
    }

    let estimates = estimates::assign(&runtimes, &mut stream(p.seed, STREAM_ESTIMATES));
    // Last, from a stream of their own: users never change the jobs.
    let users = match p.users {
        Some(count) => users::assign(&procs, count, &mut stream(p.seed, STREAM_USERS)),
        None => vec![-1; n],
    };

    let jobs = (0..n)
        .map(|i| {
            let number = i as i64 + 1;
            let swf = SwfRecord {
                job_number: number,
                submit: submits[i],
                wait: -1,
                run_time: runtimes[i],
                allocated_procs: i64::from(procs[i]),
                requested_procs: i64::from(procs[i]),
                requested_time: estimates[i],
                status: 1,
                user: users[i],
                ..SwfRecord::unknown()
            };
            Job {
                estimate: estimates[i],
                user: users[i],
                no_requested_time: estimates[i] <= 0,
                swf: Some(Box::new(swf)),
                ..Job::plain(number, submits[i], runtimes[i], procs[i])
            }
        })
        .collect();

    Ok(Workload::new(workload_name(p), p.procs, header(p), jobs))
}

/// The name of the workload the model makes with `p`: its parameters and
/// seed, as reports show it.
pub fn workload_name(p: &ModelParams) -> String {
    let mut name = match p.widest {
        Some(w) => format!("lublin-{}-{}-w{w}-s{}", p.jobs, p.procs, p.seed),
        None => format!("lublin-{}-{}-s{}", p.jobs, p.procs, p.seed),
    };
    if let Some(u) = p.users {
        name.push_str(&format!("-u{u}"));
    }
    name
}

/// The header a trace of this model carries.
fn header(p: &ModelParams) -> SwfHeader {
    let mut lines = vec![
        " Version: 2.2".to_string(),
        format!(" Computer: Lublin-Feitelson model (batch), seed {}", p.seed),
        " Installation: synthetic workload generated by goalc".to_string(),
        " Acknowledge: U. Lublin and D. G. Feitelson, JPDC 63(11) 2003 (jobs); \
         D. Tsafrir, Y. Etsion and D. G. Feitelson, JSSPP 2005 (estimates)"
            .to_string(),
        " Information: https://www.cs.huji.ac.il/labs/parallel/workload/models.html".to_string(),
        format!(" MaxJobs: {}", p.jobs),
        format!(" MaxRecords: {}", p.jobs),
        " UnixStartTime: 0".to_string(),
        " TimeZoneString: UTC".to_string(),
        format!(" MaxProcs: {}", p.procs),
        format!(" MaxNodes: {}", p.procs),
    ];
    if let Some(w) = p.widest {
        lines.push(format!(
            " Note: job sizes of the model fitted to a {w}-processor machine"
        ));
    }
    lines.extend([format!(
        " Note: runtime estimates from the Tsafrir-Etsion-Feitelson model, maximal estimate {} s",
        estimates::MAX_ESTIMATE
    )]);
    if let Some(u) = p.users {
        lines.push(format!(
            " Note: {u} users added by goalc: Zipf activity (exponent 1), a job repeats the user of \
             the latest job of its size with probability {USER_REPEAT}"
        ));
    }
    SwfHeader {
        lines,
        unix_start_time: Some(0),
        source: None,
    }
}

fn stream(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Draws from `dist` until the value is at most `max`.
fn gamma_at_most(dist: &Gamma<f64>, max: f64, rng: &mut ChaCha8Rng) -> f64 {
    loop {
        let x = dist.sample(rng);
        if x <= max {
            return x;
        }
    }
}

// ---------------------------------------------------------------------------
// Sizes
// ---------------------------------------------------------------------------

/// The two-stage uniform size model, fitted to one machine.
#[derive(Debug, Clone, Copy)]
struct SizeModel {
    procs: u32,
    ulow: f64,
    umed: f64,
    uhi: f64,
}

impl SizeModel {
    fn for_machine(procs: u32) -> Self {
        let uhi = log2_u32(procs);
        let ulow = SIZE_ULOW.min(uhi);
        let umed = (uhi - SIZE_UMED_BELOW_UHI).max(ulow);
        SizeModel {
            procs,
            ulow,
            umed,
            uhi,
        }
    }

    fn sample(&self, rng: &mut ChaCha8Rng) -> u32 {
        let kind: f64 = rng.gen();
        if kind < SERIAL_PROB {
            return 1;
        }
        let x = self.two_stage_uniform(rng);
        let size = if kind < SERIAL_PROB + POW2_PROB {
            // x >= 0, so floor(x + 0.5) rounds half away from zero.
            let power = 1u64 << ((x + 0.5).floor() as u32);
            if power > u64::from(self.procs) {
                // Largest power of two that fits the machine.
                1u64 << (31 - self.procs.leading_zeros())
            } else {
                power
            }
        } else {
            (libm::exp2(x) + 0.5).floor() as u64
        };
        size.clamp(1, u64::from(self.procs)) as u32
    }

    fn two_stage_uniform(&self, rng: &mut ChaCha8Rng) -> f64 {
        let stage: f64 = rng.gen();
        let u: f64 = rng.gen();
        if stage < SIZE_UPROB {
            self.ulow + (self.umed - self.ulow) * u
        } else {
            self.umed + (self.uhi - self.umed) * u
        }
    }
}

/// log2 of a positive integer; exact for powers of two.
fn log2_u32(n: u32) -> f64 {
    debug_assert!(n > 0);
    let whole = 31 - n.leading_zeros();
    let frac = f64::from(n) / (1u64 << whole) as f64; // in [1, 2)
    f64::from(whole) + libm::log(frac) / std::f64::consts::LN_2
}

// ---------------------------------------------------------------------------
// Runtimes
// ---------------------------------------------------------------------------

struct RuntimeModel {
    short: Gamma<f64>,
    long: Gamma<f64>,
}

impl RuntimeModel {
    fn new() -> Self {
        RuntimeModel {
            short: Gamma::new(RUN_A1, RUN_B1).expect("constant gamma parameters"),
            long: Gamma::new(RUN_A2, RUN_B2).expect("constant gamma parameters"),
        }
    }

    /// Mixing probability of the short (first) gamma for a job of `procs`.
    fn short_prob(procs: u32) -> f64 {
        (RUN_PA * f64::from(procs) + RUN_PB).clamp(0.0, 1.0)
    }

    fn sample(&self, procs: u32, rng: &mut ChaCha8Rng) -> Time {
        let p = Self::short_prob(procs);
        let log_runtime = loop {
            let coin: f64 = rng.gen();
            let x = if coin < p {
                self.short.sample(rng)
            } else {
                self.long.sample(rng)
            };
            if x <= RUN_LOG_MAX {
                break x;
            }
        };
        (libm::exp(log_runtime).floor() as Time).max(1)
    }
}

// ---------------------------------------------------------------------------
// Arrivals
// ---------------------------------------------------------------------------

/// Submit times of `n` jobs, the first at 0 (midnight).
fn arrivals(n: usize, rng: &mut ChaCha8Rng) -> Vec<Time> {
    let log_gap = Gamma::new(ARR_AARR * ARR_ARAR, ARR_BARR).expect("constant gamma parameters");
    let mut clock = DailyClock::new(daily_weights());
    let mut out = Vec::with_capacity(n);
    out.push(0);
    for _ in 1..n {
        let gap = libm::exp(gamma_at_most(&log_gap, ARR_LOG_MAX, rng));
        out.push(clock.advance(gap).floor() as Time);
    }
    out
}

/// Relative arrival intensity of each half-hour slot of the day (slot 0 is
/// 00:00-00:30), averaging 1.
fn daily_weights() -> [f64; SLOTS_PER_DAY] {
    let mut w = [0.0; SLOTS_PER_DAY];
    for (slot, weight) in w.iter_mut().enumerate() {
        let since_start = (slot + SLOTS_PER_DAY - DAY_FIRST_SLOT) % SLOTS_PER_DAY;
        let j = (DAY_FIRST_POSITION + since_start) as f64;
        *weight = gamma_cdf(j + 0.5, ARR_ANUM, ARR_BNUM) - gamma_cdf(j - 0.5, ARR_ANUM, ARR_BNUM);
    }
    let mean = w.iter().sum::<f64>() / SLOTS_PER_DAY as f64;
    for weight in &mut w {
        *weight /= mean;
    }
    w
}

/// Lays gaps out on the clock: a slot of weight `w` lasts [`SLOT_SECONDS`]
/// but absorbs `w * SLOT_SECONDS` seconds of gaps.
struct DailyClock {
    weights: [f64; SLOTS_PER_DAY],
    /// Slots since time 0 that are fully used up.
    slot: u64,
    /// Seconds of gaps already absorbed by the current slot.
    used: f64,
}

impl DailyClock {
    fn new(weights: [f64; SLOTS_PER_DAY]) -> Self {
        DailyClock {
            weights,
            slot: 0,
            used: 0.0,
        }
    }

    fn weight(&self) -> f64 {
        self.weights[(self.slot % SLOTS_PER_DAY as u64) as usize]
    }

    /// Moves the clock on by `gap` and returns the new time in seconds.
    fn advance(&mut self, gap: f64) -> f64 {
        self.used += gap;
        loop {
            let capacity = self.weight() * SLOT_SECONDS;
            if self.used < capacity {
                break;
            }
            self.used -= capacity;
            self.slot += 1;
        }
        self.slot as f64 * SLOT_SECONDS + self.used / self.weight()
    }
}

// ---------------------------------------------------------------------------
// Gamma CDF
// ---------------------------------------------------------------------------

/// P(X <= x) for X ~ gamma(shape, scale), the regularized lower incomplete
/// gamma function at x / scale.
///
/// Hand-written because `libm` has no incomplete gamma function; it is
/// built from `libm`'s `exp`, `log` and `lgamma` and IEEE basic operations
/// only, so it too gives the same bits on every platform.
fn gamma_cdf(x: f64, shape: f64, scale: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let x = x / scale;
    let a = shape;
    // e^-x x^a / Γ(a), the common factor of both expansions.
    let front = libm::exp(-x + a * libm::log(x) - libm::lgamma(a));
    if x < a + 1.0 {
        // Series: P = front * Σ x^n / (a (a+1) ... (a+n)).
        let mut term = 1.0 / a;
        let mut sum = term;
        let mut denom = a;
        for _ in 0..1000 {
            denom += 1.0;
            term *= x / denom;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        (front * sum).min(1.0)
    } else {
        // Continued fraction for Q = 1 - P, evaluated by modified Lentz.
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let i = f64::from(i);
            let an = -i * (i - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (1.0 - front * h).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(jobs: usize, procs: u32, seed: u64) -> Workload {
        generate(&ModelParams {
            jobs,
            procs,
            seed,
            widest: None,
            users: None,
        })
        .expect("valid parameters")
    }

    fn fraction(count: usize, of: usize) -> f64 {
        count as f64 / of as f64
    }

    fn assert_near(what: &str, got: f64, want: f64, tol: f64) {
        assert!(
            (got - want).abs() <= tol,
            "{what}: got {got:.4}, want {want:.4} ± {tol}"
        );
    }

    // ---- parameters and errors ------------------------------------------

    #[test]
    fn default_params() {
        assert_eq!(
            ModelParams::default(),
            ModelParams {
                jobs: 10_000,
                procs: 128,
                seed: 1,
                widest: None,
                users: None,
            }
        );
    }

    #[test]
    fn zero_jobs_is_an_error_naming_jobs() {
        let err = generate(&ModelParams {
            jobs: 0,
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(err, ModelError::NoJobs);
        assert!(err.to_string().contains("jobs"), "{err}");
    }

    #[test]
    fn more_jobs_than_memory_holds_is_an_error_before_allocating() {
        let err = generate(&ModelParams {
            jobs: 100_000_000_000,
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(err, ModelError::BeyondMemory(100_000_000_000));
        assert_eq!(
            err.to_string(),
            "model parameter jobs (100000000000) is more than the 8388608 goalc builds at once"
        );
    }

    #[test]
    fn zero_procs_is_an_error_naming_procs() {
        let err = generate(&ModelParams {
            procs: 0,
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(err, ModelError::NoProcs);
        assert!(err.to_string().contains("procs"), "{err}");
    }

    // ---- determinism -----------------------------------------------------

    #[test]
    fn same_seed_same_workload() {
        let a = gen(3000, 128, 42);
        let b = gen(3000, 128, 42);
        assert_eq!(a, b);
    }

    #[test]
    fn different_seed_different_workload() {
        let a = gen(3000, 128, 1);
        let b = gen(3000, 128, 2);
        assert_ne!(a.jobs, b.jobs);
        let differ = |f: fn(&Job) -> i64| {
            a.jobs
                .iter()
                .zip(&b.jobs)
                .filter(|(x, y)| f(x) != f(y))
                .count()
        };
        // Each component differs, not just one of them.
        assert!(differ(|j| j.submit) > 2900);
        assert!(differ(|j| j.runtime) > 2500);
        assert!(differ(|j| j.procs as i64) > 1000);
        assert!(differ(|j| j.estimate) > 1000);
    }

    /// A fingerprint of one fixed workload. If this changes, every seed's
    /// workload has changed: update it only for an intended model change.
    #[test]
    fn output_is_pinned() {
        let w = gen(1000, 128, 7);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for j in &w.jobs {
            for v in [j.submit, j.runtime, j.estimate, i64::from(j.procs)] {
                for byte in v.to_le_bytes() {
                    h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
        assert_eq!(h, PINNED_FINGERPRINT, "fingerprint {h:#x}");
    }
    const PINNED_FINGERPRINT: u64 = 0x3ea0_4749_918a_884e;

    // ---- invariants --------------------------------------------------------

    fn check_invariants(p: &ModelParams) {
        let w = generate(p).unwrap();
        assert_eq!(w.name, format!("lublin-{}-{}-s{}", p.jobs, p.procs, p.seed));
        assert_eq!(w.procs, p.procs);
        assert_eq!(w.jobs.len(), p.jobs);
        assert_eq!(w.dropped.total(), 0);
        assert_eq!(w.header.machine_size(), Ok(Some(p.procs)));
        assert_eq!(w.header.unix_start_time, Some(0));
        assert_eq!(w.header.get("Version"), Some("2.2"));
        assert_eq!(w.header.get("MaxJobs"), Some(p.jobs.to_string().as_str()));
        assert_eq!(
            w.header.get("MaxRecords"),
            Some(p.jobs.to_string().as_str())
        );
        assert_eq!(w.header.get("MaxProcs"), Some(p.procs.to_string().as_str()));
        assert_eq!(w.header.get("MaxNodes"), Some(p.procs.to_string().as_str()));
        assert_eq!(w.header.get("UnixStartTime"), Some("0"));
        assert_eq!(
            w.header.get("Computer"),
            Some(format!("Lublin-Feitelson model (batch), seed {}", p.seed).as_str())
        );
        assert!(w
            .header
            .lines
            .iter()
            .all(|l| l.starts_with(' ') && !l.starts_with(';')));

        assert_eq!(w.jobs[0].submit, 0);
        let mut prev_submit = 0;
        for (i, j) in w.jobs.iter().enumerate() {
            assert_eq!(j.number, i as i64 + 1);
            assert!(
                j.submit >= prev_submit,
                "job {}: submit goes back",
                j.number
            );
            prev_submit = j.submit;
            assert!(j.runtime >= 1, "job {}: runtime {}", j.number, j.runtime);
            assert!(
                j.runtime <= 162_754,
                "job {}: runtime {}",
                j.number,
                j.runtime
            );
            assert!(
                (1..=p.procs).contains(&j.procs),
                "job {}: procs {}",
                j.number,
                j.procs
            );
            assert!(
                j.estimate >= j.runtime,
                "job {}: estimate < runtime",
                j.number
            );
            assert!(j.estimate <= estimates::MAX_ESTIMATE);
            assert_eq!(j.sim_runtime(), j.runtime);
            assert_eq!((j.user, j.group), (-1, -1));
            assert_eq!(j.deadline, None);
            assert!(j.measured);
            let want = SwfRecord {
                job_number: j.number,
                submit: j.submit,
                wait: -1,
                run_time: j.runtime,
                allocated_procs: i64::from(j.procs),
                requested_procs: i64::from(j.procs),
                requested_time: j.estimate,
                status: 1,
                ..SwfRecord::unknown()
            };
            assert_eq!(j.swf.as_deref(), Some(&want), "job {}", j.number);
        }
    }

    #[test]
    fn invariants_hold_across_sizes() {
        for (jobs, procs) in [
            (1, 128),
            (2, 1),
            (5, 2),
            (37, 3),
            (500, 4),
            (2000, 100),
            (2000, 128),
            (3000, 1024),
            (1000, 1 << 20),
            (300, u32::MAX),
        ] {
            for seed in [0, 1, u64::MAX] {
                check_invariants(&ModelParams {
                    jobs,
                    procs,
                    seed,
                    widest: None,
                    users: None,
                });
            }
        }
    }

    // ---- users -------------------------------------------------------------

    fn with_users(jobs: usize, seed: u64, users: u32) -> Workload {
        generate(&ModelParams {
            jobs,
            seed,
            users: Some(users),
            ..Default::default()
        })
        .expect("valid parameters")
    }

    #[test]
    fn users_leave_every_job_as_it_was() {
        for seed in [0, 1, 7, u64::MAX] {
            let plain = gen(3000, 128, seed);
            let w = with_users(3000, seed, 64);
            assert_eq!(w.name, format!("lublin-3000-128-s{seed}-u64"));
            assert_eq!(w.jobs.len(), plain.jobs.len());
            for (a, b) in plain.jobs.iter().zip(&w.jobs) {
                assert!(
                    (1..=64).contains(&b.user),
                    "job {}: user {}",
                    b.number,
                    b.user
                );
                assert_eq!(b.swf.as_ref().unwrap().user, b.user);
                assert_eq!(b.group, -1);
                // Everything but the user is the published model's.
                let unuser = |j: &Job| Job {
                    user: -1,
                    swf: j
                        .swf
                        .as_ref()
                        .map(|r| Box::new(SwfRecord { user: -1, ..**r })),
                    ..j.clone()
                };
                assert_eq!(unuser(b), *a);
            }
        }
    }

    #[test]
    fn same_seed_same_users_and_other_seeds_others() {
        let users = |seed| -> Vec<i64> {
            with_users(2000, seed, 64)
                .jobs
                .iter()
                .map(|j| j.user)
                .collect()
        };
        assert_eq!(users(5), users(5));
        let (a, b) = (users(5), users(6));
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        // Independent users agree on about 7% of jobs (sum of squared shares).
        assert!(same < 400, "{same} of 2000 jobs have the same user");
    }

    #[test]
    fn zipf_activity_by_hand() {
        // Two users: weights 1 and 1/2, so user 1 takes [0, 2/3) of [0, 1).
        let two = users::Activity::zipf(2);
        assert_eq!(two.user_at(0.0), 1);
        assert_eq!(two.user_at(0.6666), 1);
        assert_eq!(two.user_at(0.6667), 2);
        assert_eq!(two.user_at(1.0 - f64::EPSILON), 2);
        assert_near("share of user 1 of 2", two.share(1), 2.0 / 3.0, 1e-12);
        assert_eq!(users::Activity::zipf(1).user_at(0.99), 1);
        // 64 users: H_64 = 4.7439, so user 1 has 21.08%, users 1..=6 51.6%.
        let many = users::Activity::zipf(64);
        assert_near("share of user 1 of 64", many.share(1), 0.2108, 1e-4);
        let top6: f64 = (1..=6).map(|k| many.share(k)).sum();
        assert_near("share of users 1..=6 of 64", top6, 0.5164, 1e-4);
        assert_eq!(many.user_at(0.2107), 1);
        assert_eq!(many.user_at(0.2109), 2);
    }

    #[test]
    fn a_few_users_submit_most_jobs() {
        let w = with_users(20_000, 3, 64);
        let mut count = vec![0usize; 65];
        for j in &w.jobs {
            count[j.user as usize] += 1;
        }
        // Repetition keeps each user's expected share; runs of repeated
        // jobs widen the spread around it.
        assert_near("share of user 1", fraction(count[1], 20_000), 0.2108, 0.05);
        let mut ranked = count[1..].to_vec();
        ranked.sort_unstable_by(|a, b| b.cmp(a));
        let top6: usize = ranked[..6].iter().sum();
        // The reference traces' busiest tenth submit 47% to 65% of the jobs.
        let top6 = fraction(top6, 20_000);
        assert!(
            (0.45..=0.65).contains(&top6),
            "top 6 of 64 users: {top6:.3}"
        );
        assert!(ranked[63] > 0, "every user has jobs: {ranked:?}");
    }

    #[test]
    fn users_repeat_the_latest_user_of_a_size() {
        let w = with_users(20_000, 4, 64);
        let mut latest = std::collections::HashMap::new();
        let (mut repeats, mut followers) = (0, 0);
        for j in &w.jobs {
            if let Some(&u) = latest.get(&j.procs) {
                followers += 1;
                repeats += usize::from(u == j.user);
            }
            latest.insert(j.procs, j.user);
        }
        // 0.6 + 0.4 * (sum over k of (1/k)^2) / H_64^2 = 0.6 + 0.4 * 0.0724.
        assert_near("repeated users", fraction(repeats, followers), 0.629, 0.02);
    }

    #[test]
    fn one_user_has_every_job() {
        assert!(with_users(300, 1, 1).jobs.iter().all(|j| j.user == 1));
    }

    #[test]
    fn users_out_of_range_are_an_error_naming_users() {
        for bad in [0, MAX_USERS + 1] {
            let err = generate(&ModelParams {
                users: Some(bad),
                ..Default::default()
            })
            .unwrap_err();
            assert_eq!(err, ModelError::Users(bad));
            assert!(err.to_string().contains("users"), "{err}");
        }
        assert_eq!(
            ModelError::Users(MAX_USERS + 1).to_string(),
            format!(
                "model parameter users must be at most {MAX_USERS}, got {}",
                MAX_USERS + 1
            )
        );
        assert!(generate(&ModelParams {
            jobs: 10,
            users: Some(MAX_USERS),
            ..Default::default()
        })
        .is_ok());
    }

    #[test]
    fn the_header_says_users_were_added() {
        let w = with_users(10, 1, 8);
        assert!(
            w.header
                .lines
                .iter()
                .any(|l| l.starts_with(" Note: 8 users added by goalc")),
            "{:?}",
            w.header.lines
        );
        assert!(!gen(10, 128, 1)
            .header
            .lines
            .iter()
            .any(|l| l.contains("users")));
    }

    #[test]
    fn single_processor_machine_runs_only_serial_jobs() {
        assert!(gen(500, 1, 3).jobs.iter().all(|j| j.procs == 1));
    }

    #[test]
    fn power_of_two_jobs_fit_a_machine_that_is_not_a_power_of_two() {
        let w = gen(20_000, 100, 5);
        assert!(w.jobs.iter().all(|j| j.procs <= 100));
        // 2^round(log2 100) = 128 would not fit; those jobs become 64, and
        // the third branch still reaches sizes between 64 and 100.
        assert!(w.jobs.iter().any(|j| j.procs == 64));
        assert!(w.jobs.iter().any(|j| j.procs > 64));
    }

    // ---- statistics against the model's parameters ---------------------
    //
    // The expected values below were computed independently of this code
    // (a separate script integrating the model's distributions numerically,
    // for a 128-processor machine); tolerances are about 4 standard errors
    // for 20,000 jobs.

    const N: usize = 20_000;

    #[test]
    fn serial_share_matches_serial_probability() {
        let w = gen(N, 128, 11);
        let serial = w.jobs.iter().filter(|j| j.procs == 1).count();
        assert_near("serial share", fraction(serial, N), SERIAL_PROB, 0.013);
    }

    #[test]
    fn power_of_two_share_among_parallel_jobs() {
        // 0.6686 / 0.7073 from the power-of-two branch, plus the jobs of the
        // third branch whose round(2^x) happens to be a power of two: 0.9553.
        let w = gen(N, 128, 12);
        let parallel: Vec<u32> = w.jobs.iter().map(|j| j.procs).filter(|&p| p > 1).collect();
        let pow2 = parallel.iter().filter(|p| p.is_power_of_two()).count();
        assert_near(
            "power-of-two share",
            fraction(pow2, parallel.len()),
            0.9553,
            0.008,
        );
        let mean = w.jobs.iter().map(|j| f64::from(j.procs)).sum::<f64>() / N as f64;
        assert_near("mean size", mean, 13.89, 0.8);
        assert!(w.jobs.iter().any(|j| j.procs == 128));
    }

    #[test]
    fn runtime_distribution_matches_hyper_gamma() {
        let w = gen(N, 128, 13);
        let mut rt: Vec<Time> = w.jobs.iter().map(|j| j.runtime).collect();
        rt.sort_unstable();
        // Median: 815 s; the 48% and 52% quantiles are 649 s and 1045 s.
        let median = rt[N / 2];
        assert!((649..=1045).contains(&median), "median runtime {median}");
        // CDF at fixed points.
        for (t, want) in [
            (60, 0.1926),
            (600, 0.4726),
            (3600, 0.5923),
            (21_600, 0.8174),
            (36_000, 0.9579),
            (64_800, 0.9943),
        ] {
            let below = rt.partition_point(|&r| r < t);
            assert_near(
                &format!("P(runtime < {t})"),
                fraction(below, N),
                want,
                0.015,
            );
        }
    }

    #[test]
    fn wider_jobs_run_longer() {
        // P(runtime > 1 h) is 0.373 for serial jobs and 0.602 for jobs of
        // 64 processors or more (6.5% of jobs).
        let w = gen(N, 128, 14);
        let long_share = |keep: &dyn Fn(u32) -> bool| {
            let sel: Vec<&Job> = w.jobs.iter().filter(|j| keep(j.procs)).collect();
            fraction(sel.iter().filter(|j| j.runtime > 3600).count(), sel.len())
        };
        assert_near("serial long share", long_share(&|p| p == 1), 0.3727, 0.025);
        assert_near("wide long share", long_share(&|p| p >= 64), 0.6021, 0.06);
    }

    #[test]
    fn mean_interarrival_matches_gamma() {
        // E[e^G | G <= 13] for G ~ gamma(6.0415 * 1.0519, 0.8531) is 3,517 s
        // with a standard deviation of 20,323 s: 4.1% standard error of the
        // mean over 20,000 gaps.
        for seed in [15, 16] {
            let w = gen(N, 128, seed);
            let mean = w.jobs.last().unwrap().submit as f64 / (N - 1) as f64;
            assert!(
                (2900.0..=4250.0).contains(&mean),
                "seed {seed}: mean gap {mean:.0}"
            );
            // The median drawn gap is e^(6.355 * 0.8531) = 226 s; on the
            // clock most jobs arrive in busy slots, which shorten gaps, so
            // the median clock gap is lower (about 150 s), and far below
            // the mean.
            let mut gaps: Vec<Time> = w
                .jobs
                .windows(2)
                .map(|p| p[1].submit - p[0].submit)
                .collect();
            gaps.sort_unstable();
            let median = gaps[gaps.len() / 2];
            assert!(
                (100..=226).contains(&median),
                "seed {seed}: median gap {median}"
            );
        }
    }

    #[test]
    fn arrivals_follow_the_daily_cycle() {
        // Expected share of arrivals from 09:00 to 17:00: 0.514; from 00:00
        // to 06:00: 0.095.
        let w = gen(N, 128, 17);
        let in_window = |from: i64, to: i64| {
            let c = w
                .jobs
                .iter()
                .filter(|j| (from..to).contains(&(j.submit % 86_400)))
                .count();
            fraction(c, N)
        };
        assert_near("09-17 share", in_window(9 * 3600, 17 * 3600), 0.5138, 0.04);
        assert_near("00-06 share", in_window(0, 6 * 3600), 0.0948, 0.025);
    }

    #[test]
    fn daily_weights_have_the_published_shape() {
        let w = daily_weights();
        assert_near("mean weight", w.iter().sum::<f64>() / 48.0, 1.0, 1e-12);
        // Values from the independent script.
        assert_near("04:30 (quietest)", w[9], 0.235, 0.001);
        assert_near("05:00 (day start)", w[10], 0.347, 0.001);
        assert_near("13:00 (busiest)", w[26], 1.666, 0.001);
        let (busiest, _) = w
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        let (quietest, _) = w
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        assert_eq!((busiest, quietest), (26, 9));
    }

    // ---- estimates --------------------------------------------------------

    #[test]
    fn rank_tables_are_permutations() {
        for perm in estimates::RANK_PERMUTATIONS {
            let mut sorted = perm;
            sorted.sort_unstable();
            assert_eq!(sorted.to_vec(), (1..=20).collect::<Vec<u8>>());
        }
    }

    #[test]
    fn head_values_for_48_hours() {
        let h = 3600;
        let m = 60;
        assert_eq!(
            estimates::head_times(48 * h),
            vec![
                48 * h,
                5 * m,
                10 * m,
                15 * m,
                20 * m,
                30 * m,
                h,
                2 * h,
                3 * h,
                4 * h,
                5 * h,
                6 * h,
                8 * h,
                10 * h,
                12 * h,
                18 * h,
                20 * h,
                30 * h,
                40 * h,
                45 * h,
            ]
        );
        let shares = estimates::head_shares(20);
        assert_near("rank 1 share", shares[0], 21.733, 0.001);
        assert_near("rank 2 share", shares[1], 10.3128, 0.0001);
        assert_near("rank 20 share", shares[19], 0.8658, 0.0001);
        assert_near("head share", shares.iter().sum(), 89.0, 1e-9);
    }

    #[test]
    fn bin_count_follows_the_published_curve() {
        let b = estimates::bin_count;
        assert_eq!([b(0), b(1), b(20), b(200), b(1000)], [0, 1, 10, 20, 35]);
        assert_eq!(
            [b(10_000), b(20_000), b(70_000), b(250_000), b(10_000_000)],
            [90, 132, 340, 565, 565]
        );
    }

    #[test]
    fn histogram_counts_sum_to_the_job_count() {
        for n in [1, 7, 199, 1000, 20_000, 300_000] {
            let hist = estimates::histogram(n, &mut stream(9, 0));
            assert_eq!(hist.iter().map(|b| b.1).sum::<usize>(), n, "n = {n}");
            let distinct: BTreeSet<Time> = hist.iter().map(|b| b.0).collect();
            assert_eq!(distinct.len(), hist.len(), "n = {n}: duplicate values");
            assert!(hist
                .iter()
                .all(|b| b.0 > 0 && b.0 <= estimates::MAX_ESTIMATE));
        }
    }

    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn estimates_follow_the_tsafrir_model() {
        let w = gen(N, 128, 18);
        let mut counts: BTreeMap<Time, usize> = BTreeMap::new();
        for j in &w.jobs {
            *counts.entry(j.estimate).or_default() += 1;
        }
        // The maximum is the most popular value: 21.73% of jobs, exactly
        // apportioned unless a job needed the fallback.
        let at_max = counts[&estimates::MAX_ESTIMATE];
        assert_eq!(
            at_max,
            (0.21733 * N as f64).round() as usize,
            "jobs at the maximum"
        );
        let mut sizes: Vec<usize> = counts.values().copied().collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(sizes[0], at_max);
        // The 20 head values carry 89% of jobs; 132 values in all.
        assert_near(
            "top-20 share",
            fraction(sizes.iter().take(20).sum(), N),
            0.89,
            0.005,
        );
        assert!(
            (125..=132).contains(&counts.len()),
            "{} distinct estimates",
            counts.len()
        );
        // Estimates are far from exact, as in real traces.
        let exact = w.jobs.iter().filter(|j| j.estimate == j.runtime).count();
        assert!(fraction(exact, N) < 0.01);
        let mean_accuracy = w
            .jobs
            .iter()
            .map(|j| j.runtime as f64 / j.estimate as f64)
            .sum::<f64>()
            / N as f64;
        assert!(
            (0.15..0.3).contains(&mean_accuracy),
            "mean accuracy {mean_accuracy}"
        );
    }

    #[test]
    fn dealing_respects_runtimes_and_the_histogram() {
        // Runtimes of up to 1000 s: every histogram can cover them.
        let runtimes: Vec<Time> = (0..5000).map(|i| 1 + (i * 7919) % 1000).collect();
        let est = estimates::assign(&runtimes, &mut stream(4, 0));
        let hist = estimates::histogram(runtimes.len(), &mut stream(4, 0));
        assert!(runtimes.iter().zip(&est).all(|(r, e)| e >= r));
        // Same generator state, so the dealt values are the histogram's.
        let mut dealt: BTreeMap<Time, usize> = BTreeMap::new();
        for &e in &est {
            *dealt.entry(e).or_default() += 1;
        }
        let want: BTreeMap<Time, usize> = hist.into_iter().filter(|b| b.1 > 0).collect();
        assert_eq!(dealt, want);
    }

    #[test]
    fn dealing_falls_back_to_the_maximum_when_nothing_fits() {
        // Every runtime above every histogram value except the maximum.
        let runtimes = vec![estimates::MAX_ESTIMATE - 1; 100];
        let est = estimates::assign(&runtimes, &mut stream(4, 0));
        assert!(est.iter().all(|&e| e == estimates::MAX_ESTIMATE));
    }

    // ---- math -------------------------------------------------------------

    #[test]
    fn libm_exp_and_log_agree_with_std() {
        let mut x = -40.0;
        while x < 40.0 {
            let (got, want) = (libm::exp(x), x.exp());
            assert!(
                ((got - want) / want).abs() < 4e-16,
                "exp({x}) = {got}, std {want}"
            );
            x += 0.0137;
        }
        for x in [
            1e-300, 1e-310, 0.1, 0.5, 0.999, 1.0, 1.5, 2.0, 3.0, 128.0, 1e10, 1.7e308,
        ] {
            let (got, want) = (libm::log(x), x.ln());
            assert!(
                (got - want).abs() <= 4e-16 * want.abs().max(1e-300),
                "ln({x}) = {got}, std {want}"
            );
        }
        assert_eq!(libm::log(1.0), 0.0);
        assert_eq!(log2_u32(128), 7.0);
        assert_eq!(log2_u32(1), 0.0);
        assert!((log2_u32(100) - 100f64.log2()).abs() < 1e-15);
        assert_eq!(libm::exp(0.0), 1.0);
    }

    #[test]
    fn gamma_functions() {
        assert!((libm::lgamma(0.5) - 0.572_364_942_924_700_1).abs() < 1e-13);
        assert!((libm::lgamma(10.0) - 362_880f64.ln()).abs() < 1e-13);
        assert!((libm::lgamma(6.1271) - 5.005_792_787_211_044).abs() < 1e-12);
        // Integer shapes have a closed form: 1 - e^-x Σ_{i<k} x^i / i!.
        for k in [1u32, 2, 5, 12] {
            for x in [0.1, 1.0, 4.0, 11.0, 13.0, 30.0] {
                let mut term = 1.0;
                let mut sum = 1.0;
                for i in 1..k {
                    term *= x / f64::from(i);
                    sum += term;
                }
                let want = 1.0 - (-x).exp() * sum;
                let got = gamma_cdf(x, f64::from(k), 1.0);
                assert!(
                    (got - want).abs() < 1e-13,
                    "P({k}, {x}) = {got}, want {want}"
                );
            }
        }
        // Scale enters as x / scale.
        assert!((gamma_cdf(10.0, 3.0, 2.0) - gamma_cdf(5.0, 3.0, 1.0)).abs() < 1e-15);
        assert_eq!(gamma_cdf(0.0, 3.0, 1.0), 0.0);
    }
}
