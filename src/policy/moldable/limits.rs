//! Fair-share partition limits for moldable jobs, with the MOLD paper's
//! overbooking and efficiency factors (Sabin, Lang and Sadayappan,
//! sections 4-5 and Fig. 1).
//!
//! Each job's limit is its square-root weight fraction of the machine,
//! `sqrt(w_i) / sum_j sqrt(w_j)` (weights in processor-seconds), times the
//! overbooking factor ObF. With an efficiency factor EF > 0, processors then
//! move one at a time from the job whose speedup curve is flattest at its
//! limit to the one whose curve is steepest, each job staying within
//! `[max(1, (1 - EF) L), min(machine, (1 + EF) L)]` of its fair-share limit
//! `L`, until the flattest is no flatter than the steepest: that evens out
//! the marginal speedups, which is what maximises the sum of speedups (the
//! "instantaneous effective utilization").
//!
//! "Flattest" is measured by what a processor fewer costs the giver and
//! "steepest" by what one more brings the taker, and, as the paper says of
//! Fig. 1, a job either gains or loses, never both: with one slope for
//! both, two jobs could hand the same processor back and forth forever.
//!
//! On a machine wider than [`FINEST_STEPS`] processors they move in lots
//! of `procs / FINEST_STEPS` (rounded up; fewer at a bound), each slope
//! the speedup per processor over the lot: one at a time, a machine of
//! millions traded millions of times per decision.

use super::step_of;
#[cfg(doc)]
use super::FINEST_STEPS;
use crate::workload::speedup::Downey;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One job asking for a limit.
#[derive(Debug, Clone, Copy)]
pub(super) struct Claim {
    /// Processor-seconds it asks for (recorded width x estimate).
    pub weight: f64,
    pub model: Downey,
}

/// The speedup per processor that `m` more at `n` add (none past the
/// widest width a job may get).
#[inline]
fn gain(model: &Downey, n: u32, m: u32) -> f64 {
    if n >= model.widest() {
        0.0
    } else {
        per_processor(model.speedup(n + m) - model.speedup(n), m)
    }
}

/// `delta` over `m` processors, per processor: no division for one, the
/// lot on every machine up to [`FINEST_STEPS`] wide.
#[inline]
fn per_processor(delta: f64, m: u32) -> f64 {
    if m == 1 {
        delta
    } else {
        delta / f64::from(m)
    }
}

/// The speedup per processor that `m` fewer at `n` cost (`n > m`).
#[inline]
fn loss(model: &Downey, n: u32, m: u32) -> f64 {
    if n > model.widest() {
        0.0
    } else {
        per_processor(model.speedup(n) - model.speedup(n - m), m)
    }
}

/// The lot a job at `n` within `(low, high)` gives (`giving`) or takes:
/// `lot` processors, or as many as its bound leaves.
fn lot_at(n: u32, (low, high): (u32, u32), lot: u32, giving: bool) -> u32 {
    if giving {
        lot.min(n - low)
    } else {
        lot.min(high - n)
    }
}

/// A heap entry: a job's slope when pushed, and the move count of the job
/// then, so that entries left behind by a later move are skipped.
#[derive(Debug, Clone, Copy)]
struct Entry {
    slope: f64,
    job: usize,
    moves: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// By slope, then by job index: deterministic among equal slopes.
    fn cmp(&self, other: &Self) -> Ordering {
        self.slope
            .total_cmp(&other.slope)
            .then(self.job.cmp(&other.job))
    }
}

/// The limits of `claims` on a machine of `procs`, into `out` (same order);
/// returns the number of trades EF made.
///
/// `others` is the sum of the square-root weights of the other jobs in the
/// system (running ones, rigid ones): they count in the shares, but get no
/// limit.
pub(super) fn limits(
    claims: &[Claim],
    others: f64,
    procs: u32,
    overbooking: f64,
    efficiency: f64,
    out: &mut Vec<u32>,
) -> u64 {
    out.clear();
    let total: f64 = others + claims.iter().map(|c| c.weight.max(0.0).sqrt()).sum::<f64>();
    let machine = f64::from(procs);
    for c in claims {
        let share = if total > 0.0 {
            c.weight.max(0.0).sqrt() / total
        } else {
            1.0 / claims.len() as f64
        };
        let limit = (share * machine * overbooking).round().clamp(1.0, machine);
        out.push(limit as u32);
    }
    if efficiency <= 0.0 || claims.len() < 2 {
        return 0;
    }
    let bounds: Vec<(u32, u32)> = out
        .iter()
        .map(|&l| {
            let l = f64::from(l);
            let low = ((1.0 - efficiency) * l).ceil().max(1.0);
            let high = ((1.0 + efficiency) * l).floor().min(machine);
            (low as u32, high as u32)
        })
        .collect();
    // Fig. 1's canMove: strictly inside its bounds.
    let movable = |n: u32, (low, high): (u32, u32)| n > low && n < high;
    let lot = step_of(procs);
    let mut trades = 0;
    let mut moves = vec![0u32; claims.len()];
    // Once a job has given (taken), it only gives (takes).
    let mut gave = vec![None::<bool>; claims.len()];
    // The flattest giver on top of one heap, the steepest taker on top of
    // the other.
    let mut flattest = BinaryHeap::new();
    let mut steepest = BinaryHeap::new();
    let push = |job: usize,
                n: u32,
                moves: u32,
                gave: Option<bool>,
                flattest: &mut BinaryHeap<_>,
                steepest: &mut BinaryHeap<_>| {
        let model = &claims[job].model;
        if gave != Some(false) {
            flattest.push(std::cmp::Reverse(Entry {
                slope: loss(model, n, lot_at(n, bounds[job], lot, true)),
                job,
                moves,
            }));
        }
        if gave != Some(true) {
            steepest.push(Entry {
                slope: gain(model, n, lot_at(n, bounds[job], lot, false)),
                job,
                moves,
            });
        }
    };
    for job in 0..claims.len() {
        if movable(out[job], bounds[job]) {
            push(job, out[job], 0, None, &mut flattest, &mut steepest);
        }
    }
    let current = |e: &Entry, out: &[u32], moves: &[u32]| {
        e.moves == moves[e.job] && movable(out[e.job], bounds[e.job])
    };
    loop {
        while flattest.peek().is_some_and(|r| !current(&r.0, out, &moves)) {
            flattest.pop();
        }
        while steepest.peek().is_some_and(|e| !current(e, out, &moves)) {
            steepest.pop();
        }
        let (Some(std::cmp::Reverse(mut s)), Some(mut l)) =
            (flattest.peek().copied(), steepest.peek().copied())
        else {
            return trades;
        };
        if s.job == l.job {
            // One job tops both (it has not moved yet): pair it with the
            // next of either heap, whichever trade gains more.
            let next_flat = second(&mut flattest, |r| current(&r.0, out, &moves)).map(|r| r.0);
            let next_steep = second(&mut steepest, |e| current(e, out, &moves));
            let gap = |a: Option<Entry>, b: Option<Entry>| a.zip(b).map(|(a, b)| b.slope - a.slope);
            match (gap(next_flat, Some(l)), gap(Some(s), next_steep)) {
                (Some(x), y) if y.is_none_or(|y| x >= y) => s = next_flat.expect("gap"),
                (_, Some(_)) => l = next_steep.expect("gap"),
                _ => return trades,
            }
        }
        if s.slope >= l.slope {
            return trades;
        }
        trades += 1;
        // A trader's entry on top of its heap takes its new slope in place
        // (one sift, no stale entry left behind to pop later); one that was
        // not on top (a job paired as the second of its heap) is pushed.
        let (g, t) = (s.job, l.job);
        let giver_on_top = flattest.peek().is_some_and(|r| r.0.job == g);
        let taker_on_top = steepest.peek().is_some_and(|e| e.job == t);
        let m = lot_at(out[g], bounds[g], lot, true).min(lot_at(out[t], bounds[t], lot, false));
        out[g] -= m;
        out[t] += m;
        gave[g] = Some(true);
        gave[t] = Some(false);
        moves[g] += 1;
        moves[t] += 1;
        let flat = movable(out[g], bounds[g]).then(|| {
            std::cmp::Reverse(Entry {
                slope: loss(
                    &claims[g].model,
                    out[g],
                    lot_at(out[g], bounds[g], lot, true),
                ),
                job: g,
                moves: moves[g],
            })
        });
        renew(&mut flattest, giver_on_top, flat);
        let steep = movable(out[t], bounds[t]).then(|| Entry {
            slope: gain(
                &claims[t].model,
                out[t],
                lot_at(out[t], bounds[t], lot, false),
            ),
            job: t,
            moves: moves[t],
        });
        renew(&mut steepest, taker_on_top, steep);
    }
}

/// Puts a trader's new entry in `heap` (`None` once it may not move): in
/// place of its old one when that is on top, else pushed.
fn renew<T: Ord>(heap: &mut BinaryHeap<T>, on_top: bool, entry: Option<T>) {
    match (entry, on_top) {
        (Some(e), true) => *heap.peek_mut().expect("the trader on top") = e,
        (Some(e), false) => heap.push(e),
        (None, true) => {
            heap.pop();
        }
        (None, false) => {}
    }
}

/// The valid entry below the top of `heap` (entries failing `valid` are
/// dropped on the way), the top staying in place.
fn second<T: Ord + Copy>(heap: &mut BinaryHeap<T>, valid: impl Fn(&T) -> bool) -> Option<T> {
    let top = heap.pop()?;
    while heap.peek().is_some_and(|e| !valid(e)) {
        heap.pop();
    }
    let next = heap.peek().copied();
    heap.push(top);
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(weight: f64, a: f64, sigma: f64) -> Claim {
        Claim {
            weight,
            model: Downey::new(a, sigma).unwrap(),
        }
    }

    /// Fig. 1 read literally: at every trade the flattest giver and the
    /// steepest taker are found by looking at every job.
    fn limits_by_looking_at_every_job(
        claims: &[Claim],
        others: f64,
        procs: u32,
        (obf, ef): (f64, f64),
    ) -> Vec<u32> {
        let mut out = Vec::new();
        limits(claims, others, procs, obf, 0.0, &mut out);
        if ef <= 0.0 || claims.len() < 2 {
            return out;
        }
        let machine = f64::from(procs);
        let bounds: Vec<(u32, u32)> = out
            .iter()
            .map(|&l| {
                let l = f64::from(l);
                let low = ((1.0 - ef) * l).ceil().max(1.0) as u32;
                (low, ((1.0 + ef) * l).floor().min(machine) as u32)
            })
            .collect();
        let mut gave = vec![None::<bool>; claims.len()];
        let lot = step_of(procs);
        loop {
            let movable = |j: usize| out[j] > bounds[j].0 && out[j] < bounds[j].1;
            let entries = |giving: bool, except: Option<usize>| {
                (0..claims.len())
                    .filter(|&j| movable(j) && gave[j] != Some(!giving) && Some(j) != except)
                    .map(|j| {
                        let model = &claims[j].model;
                        let m = lot_at(out[j], bounds[j], lot, giving);
                        let slope = if giving {
                            loss(model, out[j], m)
                        } else {
                            gain(model, out[j], m)
                        };
                        Entry {
                            slope,
                            job: j,
                            moves: 0,
                        }
                    })
                    .collect::<Vec<Entry>>()
            };
            let (Some(mut s), Some(mut l)) = (
                entries(true, None).into_iter().min(),
                entries(false, None).into_iter().max(),
            ) else {
                return out;
            };
            if s.job == l.job {
                let next_flat = entries(true, Some(s.job)).into_iter().min();
                let next_steep = entries(false, Some(l.job)).into_iter().max();
                let gap =
                    |a: Option<Entry>, b: Option<Entry>| a.zip(b).map(|(a, b)| b.slope - a.slope);
                match (gap(next_flat, Some(l)), gap(Some(s), next_steep)) {
                    (Some(x), y) if y.is_none_or(|y| x >= y) => s = next_flat.unwrap(),
                    (_, Some(_)) => l = next_steep.unwrap(),
                    _ => return out,
                }
            }
            if s.slope >= l.slope {
                return out;
            }
            let m = lot_at(out[s.job], bounds[s.job], lot, true).min(lot_at(
                out[l.job],
                bounds[l.job],
                lot,
                false,
            ));
            out[s.job] -= m;
            out[l.job] += m;
            gave[s.job] = Some(true);
            gave[l.job] = Some(false);
        }
    }

    proptest::proptest! {
        /// The heaps, their tops changed in place, trade as looking at
        /// every job does.
        #[test]
        fn heaps_trade_as_looking_at_every_job(
            procs in proptest::prop_oneof![1u32..40, 1u32..3000, 16_000u32..200_000],
            raw in proptest::collection::vec((1.0f64..1e6, 0.0f64..1.2, 0.0f64..2.5), 0..25),
            others in 0.0f64..3000.0,
            obf in proptest::prop_oneof![proptest::strategy::Just(1.0), 0.5f64..6.0],
            ef in proptest::prop_oneof![proptest::strategy::Just(1.0), 0.01f64..1.0],
        ) {
            let claims: Vec<Claim> = raw
                .iter()
                .map(|&(w, a, sigma)| claim(w, (a * f64::from(procs)).max(1.0), sigma))
                .collect();
            let mut out = Vec::new();
            limits(&claims, others, procs, obf, ef, &mut out);
            let want = limits_by_looking_at_every_job(&claims, others, procs, (obf, ef));
            proptest::prop_assert_eq!(out, want);
        }
    }

    #[test]
    fn square_root_shares_scaled_by_overbooking() {
        // Weights 100, 400, 1600: roots 10, 20, 40 of 70, on 70 processors:
        // limits 10, 20, 40; with ObF 2: 20, 40, 70 (at most the machine).
        let claims = [
            claim(100.0, 70.0, 0.0),
            claim(400.0, 70.0, 0.0),
            claim(1600.0, 70.0, 0.0),
        ];
        let mut out = Vec::new();
        limits(&claims, 0.0, 70, 1.0, 0.0, &mut out);
        assert_eq!(out, vec![10, 20, 40]);
        limits(&claims, 0.0, 70, 2.0, 0.0, &mut out);
        assert_eq!(out, vec![20, 40, 70]);
        // The third one running: it still has its share, but no limit.
        limits(&claims[..2], 40.0, 70, 1.0, 0.0, &mut out);
        assert_eq!(out, vec![10, 20]);
    }

    #[test]
    fn efficiency_moves_processors_to_the_steeper_curve() {
        // Two equal weights on 20 processors: fair-share limits 10 and 10.
        // Job 0 scales linearly to 20 (slope 1 everywhere); job 1 has A = 10
        // (slope 0 from 10 on: S is flat at A). With EF 0.5 the bounds are
        // [5, 15]: job 1 gives processors while its slope is below job 0's.
        let claims = [claim(1.0, 20.0, 0.0), claim(1.0, 10.0, 0.0)];
        let mut out = Vec::new();
        limits(&claims, 0.0, 20, 1.0, 0.5, &mut out);
        // Job 1 is linear up to its A: its 10th processor is worth as much
        // as job 0's 11th, so nothing moves.
        assert_eq!(out, vec![10, 10]);
        // Sigma 2 makes job 1's curve flatter than linear (its 10th
        // processor adds 0.38, its 6th 0.55), so it gives until its lower
        // bound (5), as job 0 takes until its upper bound (15).
        let claims = [claim(1.0, 20.0, 0.0), claim(1.0, 10.0, 2.0)];
        limits(&claims, 0.0, 20, 1.0, 0.5, &mut out);
        assert_eq!(out, vec![15, 5]);
        // EF 0: the fair-share limits as they are.
        limits(&claims, 0.0, 20, 1.0, 0.0, &mut out);
        assert_eq!(out, vec![10, 10]);
    }

    #[test]
    fn a_huge_machine_trades_in_lots() {
        // The trade of efficiency_moves_processors_to_the_steeper_curve on
        // 2^31 processors: job 1, flat past 10 processors, gives all but
        // its lower bound (1) to job 0, linear to the machine. One at a
        // time that is 2^30 - 1 trades; in lots of 2^31 / FINEST_STEPS
        // (131,072) about 8,192, the last one smaller (to the bound).
        let procs = 1 << 31;
        let claims = [claim(1.0, f64::from(procs), 0.0), claim(1.0, 10.0, 2.0)];
        assert_eq!(step_of(procs), 131_072);
        let mut out = Vec::new();
        let trades = limits(&claims, 0.0, procs, 1.0, 1.0, &mut out);
        assert_eq!(out, vec![procs - 1, 1]);
        assert_eq!(trades, 8_192);
    }

    #[test]
    fn three_jobs_worked_by_hand() {
        // Weights 1, 1, 4 on 16 processors: roots 1, 1, 2 of 4, limits 4,
        // 4, 8. Models: job 0 linear to 16 (slope 1); job 1 sigma 1, A 4
        // (S(n) = 8n / (8 + n - 1): S(3) = 24/10, S(4) = 32/11, slope at
        // 3 = 0.509; at 4 it is 0: no wider than A); job 2 linear to 16.
        // EF 0.5: bounds [2, 6], [2, 6], [4, 12]. Job 1 is flattest at 4
        // (slope 0) and gives to the lowest-indexed steepest (job 2 wins
        // ties by index), then at 3 (0.509) and stops at its bound 2; jobs
        // 0 and 2 keep slope 1 and never trade with each other.
        let claims = [
            claim(1.0, 16.0, 0.0),
            claim(1.0, 4.0, 1.0),
            claim(4.0, 16.0, 0.0),
        ];
        let mut out = Vec::new();
        limits(&claims, 0.0, 16, 1.0, 0.5, &mut out);
        assert_eq!(out.iter().sum::<u32>(), 16);
        assert_eq!(out[1], 2);
        assert_eq!(out, vec![4, 2, 10]);
    }
}
