//! The Tsafrir–Etsion–Feitelson model of user runtime estimates; see the
//! parent module for the description and sources.

use super::Time;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::BTreeSet;

const MINUTE: Time = 60;
const HOUR: Time = 3600;

/// The system's maximal estimate: just above the largest Lublin runtime,
/// e^12 s ≈ 45.2 h, which the reference program calls "two days".
pub const MAX_ESTIMATE: Time = 48 * HOUR;

/// Number of "head" estimate values, used by about 90% of jobs.
const HEAD_BINS: usize = 20;
/// Percentage of jobs using a head value.
const HEAD_SHARE: f64 = 89.0;
/// Head shares, popularity rank x = 2..=20: a * e^(b x) + c percent.
const HEAD_SIZE_A: f64 = 14.0491;
const HEAD_SIZE_B: f64 = -0.177531;
const HEAD_SIZE_C: f64 = 0.462513;
/// Tail shares, popularity rank r >= 21: a * r^b, scaled to 100 - 89%.
const TAIL_SIZE_A: f64 = 795.6;
const TAIL_SIZE_B: f64 = -2.267;
/// Tail times: α = 1 + p * K^q for K bins in all.
const TAIL_TIME_P: f64 = 12.1039;
const TAIL_TIME_Q: f64 = -0.6026;
/// Nudges (seconds) tried in turn when a tail time collides.
const TAIL_TIME_NUDGES: [Time; 7] = [0, 30, -30, 20, -20, 10, -10];

/// Number of distinct estimates as a function of the job count:
/// piecewise linear through these (jobs, bins) points, flat after.
const BIN_COUNT_CURVE: [(u64, u64); 7] = [
    (0, 0),
    (20, 10),
    (200, 20),
    (1000, 35),
    (10_000, 90),
    (70_000, 340),
    (250_000, 565),
];

/// Estimates among the top 20 of all four traces studied.
const JOINT_VALUES: [Time; 15] = [
    5 * MINUTE,
    10 * MINUTE,
    15 * MINUTE,
    20 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    5 * HOUR,
    6 * HOUR,
    8 * HOUR,
    10 * HOUR,
    12 * HOUR,
    18 * HOUR,
];

/// Units whose multiples fill the head up to 20 values, in order.
const ROUND_UNITS: [Time; 10] = [
    200 * HOUR,
    100 * HOUR,
    50 * HOUR,
    10 * HOUR,
    5 * HOUR,
    2 * HOUR,
    HOUR,
    20 * MINUTE,
    10 * MINUTE,
    5 * MINUTE,
];

/// Observed popularity rank (1 = most popular) of each top-20 estimate,
/// by time rank (0 = the maximum, then 1..=19 shortest to longest), in
/// the SDSC, CTC, KTH and Blue Horizon traces.
pub(super) const RANK_PERMUTATIONS: [[u8; HEAD_BINS]; 4] = [
    [
        3, 1, 4, 17, 13, 7, 8, 18, 2, 6, 16, 10, 5, 15, 14, 19, 11, 12, 9, 20,
    ],
    [
        1, 3, 4, 2, 12, 9, 8, 18, 6, 7, 11, 20, 16, 5, 14, 13, 10, 15, 17, 19,
    ],
    [
        1, 4, 10, 14, 20, 2, 3, 7, 12, 6, 19, 5, 18, 16, 9, 17, 15, 13, 8, 11,
    ],
    [
        1, 6, 5, 3, 7, 2, 18, 19, 4, 11, 20, 9, 10, 14, 13, 16, 15, 17, 8, 12,
    ],
];

/// One estimate per job, each at least the job's runtime.
pub(super) fn assign(runtimes: &[Time], rng: &mut ChaCha8Rng) -> Vec<Time> {
    let n = runtimes.len();
    let mut pool: Vec<Time> = Vec::with_capacity(n);
    for (time, count) in histogram(n, rng) {
        pool.resize(pool.len() + count, time);
    }
    debug_assert_eq!(pool.len(), n);
    pool.sort_unstable_by_key(|&t| Reverse(t));

    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&i| (Reverse(runtimes[i]), i));

    // pool[taken..] is unused. Of it, pool[taken..fits] holds exactly the
    // values >= the current runtime: pool[fits..] is still in its
    // original descending order and below the runtime, and the swaps
    // below stay inside [taken, fits).
    let mut estimates = vec![0; n];
    let mut fits = 0;
    for (taken, &job) in order.iter().enumerate() {
        let runtime = runtimes[job];
        fits = fits.max(taken);
        while fits < n && pool[fits] >= runtime {
            fits += 1;
        }
        if fits == taken {
            // Nothing long enough is left; pool[taken] is given up.
            estimates[job] = MAX_ESTIMATE;
            continue;
        }
        let pick = taken + rng.gen_range(0..(fits - taken) as u64) as usize;
        pool.swap(taken, pick);
        estimates[job] = pool[taken];
    }
    estimates
}

/// The estimate histogram for `n` jobs: (value, number of jobs), the
/// counts summing to `n`.
pub(super) fn histogram(n: usize, rng: &mut ChaCha8Rng) -> Vec<(Time, usize)> {
    let bins_total = bin_count(n as u64);
    let head = head_times(MAX_ESTIMATE);
    let head_pct = head_shares(head.len());
    let ranks = popularity_ranks(head.len(), rng);
    let mut bins: Vec<(Time, f64)> = head
        .iter()
        .zip(&ranks)
        .map(|(&time, &rank)| (time, head_pct[rank - 1]))
        .collect();

    if bins_total > head.len() {
        let times = tail_times(bins_total - head.len(), bins_total, &head);
        let mut shares = tail_shares(times.len());
        shuffle(&mut shares, rng);
        bins.extend(times.into_iter().zip(shares));
    }
    apportion(n, &bins)
}

/// Distinct estimate values for `n` jobs.
pub(super) fn bin_count(n: u64) -> usize {
    let last = BIN_COUNT_CURVE[BIN_COUNT_CURVE.len() - 1];
    if n >= last.0 {
        return last.1 as usize;
    }
    let k = BIN_COUNT_CURVE
        .iter()
        .position(|&(x, _)| n <= x)
        .expect("n is below the last point");
    if k == 0 {
        return 0;
    }
    let (x0, y0) = BIN_COUNT_CURVE[k - 1];
    let (x1, y1) = BIN_COUNT_CURVE[k];
    // y0 + round((n - x0) * slope), half up, in integers.
    let (dx, dy) = (x1 - x0, y1 - y0);
    (y0 + (2 * (n - x0) * dy + dx) / (2 * dx)) as usize
}

/// The head values: `max` first, then the rest in increasing order.
pub(super) fn head_times(max: Time) -> Vec<Time> {
    let mut rest: Vec<Time> = JOINT_VALUES.iter().copied().filter(|&t| t < max).collect();
    'units: for unit in ROUND_UNITS {
        let mut t = max / unit * unit;
        while t > 0 {
            if rest.len() + 1 >= HEAD_BINS {
                break 'units;
            }
            if t != max && !rest.contains(&t) {
                rest.push(t);
            }
            t -= unit;
        }
    }
    rest.sort_unstable();
    let mut head = Vec::with_capacity(rest.len() + 1);
    head.push(max);
    head.extend(rest);
    head
}

/// Percent of jobs for popularity ranks 1..=h (index 0 is rank 1).
pub(super) fn head_shares(h: usize) -> Vec<f64> {
    let mut pct = vec![0.0; h];
    for (i, p) in pct.iter_mut().enumerate().skip(1) {
        let rank = (i + 1) as f64;
        *p = HEAD_SIZE_A * libm::exp(HEAD_SIZE_B * rank) + HEAD_SIZE_C;
    }
    pct[0] = HEAD_SHARE - pct.iter().sum::<f64>();
    pct
}

/// Popularity rank (1-based) of each of the `h` head values, by time rank:
/// one observed trace's ranks, drawn at random, with the maximum
/// promoted to rank 1 and the ranks closed up to 1..=h.
fn popularity_ranks(h: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let observed = &RANK_PERMUTATIONS[rng.gen_range(0..RANK_PERMUTATIONS.len() as u64) as usize];
    let mut by_popularity: Vec<usize> = (0..h).collect();
    by_popularity.sort_unstable_by_key(|&t| if t == 0 { 0 } else { observed[t] });
    let mut ranks = vec![0; h];
    for (r, &t) in by_popularity.iter().enumerate() {
        ranks[t] = r + 1;
    }
    ranks
}

/// `count` tail values, distinct from each other and from `head`, in
/// `(0, MAX_ESTIMATE)`; fewer if collisions cannot be avoided.
fn tail_times(count: usize, bins_total: usize, head: &[Time]) -> Vec<Time> {
    let alpha = 1.0 + TAIL_TIME_P * libm::pow(bins_total as f64, TAIL_TIME_Q);
    let mut taken: BTreeSet<Time> = head.iter().copied().collect();
    let mut out = Vec::with_capacity(count);
    for i in 1..=count {
        let x = i as f64 / count as f64;
        let y = (alpha - 1.0) * x / (alpha - x);
        let minutes = (y * MAX_ESTIMATE as f64 / MINUTE as f64).round() as Time;
        let aligned = minutes * MINUTE;
        let free = TAIL_TIME_NUDGES
            .iter()
            .map(|d| aligned + d)
            .find(|&t| t > 0 && t < MAX_ESTIMATE && !taken.contains(&t));
        if let Some(t) = free {
            taken.insert(t);
            out.push(t);
        }
    }
    out
}

/// Percent of jobs for popularity ranks 21..21+count, summing to 100 - 89.
fn tail_shares(count: usize) -> Vec<f64> {
    let raw: Vec<f64> = (0..count)
        .map(|i| TAIL_SIZE_A * libm::pow((HEAD_BINS + 1 + i) as f64, TAIL_SIZE_B))
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.iter().map(|r| r * (100.0 - HEAD_SHARE) / sum).collect()
}

/// Splits `n` jobs among the bins in proportion to their shares, by
/// largest remainder (ties to the earlier bin).
fn apportion(n: usize, bins: &[(Time, f64)]) -> Vec<(Time, usize)> {
    let total: f64 = bins.iter().map(|b| b.1).sum();
    let quotas: Vec<f64> = bins.iter().map(|b| n as f64 * b.1 / total).collect();
    let mut counts: Vec<usize> = quotas.iter().map(|q| q.floor() as usize).collect();
    let short = n - counts.iter().sum::<usize>();
    let mut by_remainder: Vec<usize> = (0..bins.len()).collect();
    by_remainder.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in by_remainder.iter().take(short) {
        counts[i] += 1;
    }
    bins.iter().zip(counts).map(|(b, c)| (b.0, c)).collect()
}

/// Fisher–Yates with `u64` draws (the same on every platform).
fn shuffle<T>(v: &mut [T], rng: &mut ChaCha8Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.gen_range(0..=i as u64) as usize;
        v.swap(i, j);
    }
}
