//! FAIR's hybrid fair start time (FST) and the measures built on it
//! (FAIR, section IV, "A Hybrid 'Fairshare' Metric").
//!
//! A job's FST is its start in a list schedule (no holes, no backfilling
//! into them; [`crate::policy::list`]) of the system as it stood when the job
//! arrived, with the queue in fairshare order and no later arrivals. A job
//! that starts after its FST was delayed by jobs that fairshare ranks below
//! it (lower-priority or later jobs), which FAIR calls unfair.
//!
//! Precisely, for each job `j` that ran, at its arrival `a` (its submit
//! time in the workload given, which callers take from
//! [`crate::sim::realized`] so that runtime-limit chunks arrive when they
//! were really released):
//!
//! * running jobs are those with `start < a < end`; each frees its
//!   processors at its real `end`; the other processors are free at `a`;
//! * queued jobs are those submitted before `a`, or at `a` with an index not
//!   after `j` (so `j` itself), that start at or after `a`;
//! * each user's usage at `a` is the decayed processor-seconds of every run
//!   up to `a` ([`UsageLedger`]: usage accrues while jobs run);
//! * the queued jobs are sorted in fairshare order at `a` (least usage,
//!   then submit, then index) and list-scheduled in that order, each
//!   holding its processors for its real run time (`end - start`) and
//!   taking, of the processors free by its start, those freed latest.
//!   `j`'s start in that schedule is `FST_j`; only the jobs ahead of `j`
//!   matter, so only they are placed.
//!
//! Rejected jobs (no run) take no part. `j` is late when `start_j > FST_j`;
//! its miss time is `max(0, start_j - FST_j)`, and FAIR's average fair start
//! miss time divides the sum of miss times by the number of jobs, late or
//! not. The measures are taken over the measured jobs that ran, while the
//! state at each arrival includes every job (warm-up and cool-down too).
//!
//! The computation is one sweep over arrivals, starts and ends in time
//! order: the running jobs are kept as a sorted multiset of (end,
//! processors) and the queue as a set, so each arrival costs the list
//! schedule of the jobs ahead of it, not a simulation from scratch.

use super::{width_class, width_classes};
// The FST is defined by a reference schedule, so the measure runs the
// policies' own mechanisms (the usage ledger, list placement) rather than
// copies that could drift from them. Measures sit above policies
// (workload -> sim -> policy -> measures) and no policy imports a measure,
// so this is no loop.
use crate::policy::fairshare::{Decay, UsageLedger};
use crate::policy::list::FreeTimes;
use crate::sim::{JobIdx, JobInfo, Outcome};
use crate::workload::{Time, Workload};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

/// FAIR's hybrid fairshare fairness measures of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    /// Measured jobs that ran.
    pub jobs: usize,
    /// Jobs that started after their fair start time.
    pub late: usize,
    /// 100 * late / jobs (0 when there are no jobs).
    pub pct_late: f64,
    /// FAIR's average fair start miss time: sum of max(0, start - FST) over
    /// all jobs / jobs, seconds.
    pub avg_miss: f64,
    /// Average turnaround (end - submit), seconds.
    pub avg_turnaround: f64,
    /// One row per FAIR width class (1, 2, 3-4, 5-8, ... up to the machine),
    /// in order, empty classes included with zeros.
    pub by_width: Vec<WidthFairness>,
}

/// The fairness measures of the jobs of one width class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WidthFairness {
    /// Class label, e.g. `3-4`.
    pub width: String,
    pub jobs: usize,
    pub late: usize,
    pub pct_late: f64,
    pub avg_miss: f64,
    pub avg_turnaround: f64,
}

/// Exact sums of one group of jobs.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    jobs: usize,
    late: usize,
    miss: i128,
    turnaround: i128,
}

impl Sums {
    fn add(&mut self, miss: Time, turnaround: Time) {
        self.jobs += 1;
        self.late += usize::from(miss > 0);
        self.miss += miss as i128;
        self.turnaround += turnaround as i128;
    }

    /// (pct_late, avg_miss, avg_turnaround)
    fn averages(&self) -> (f64, f64, f64) {
        if self.jobs == 0 {
            return (0.0, 0.0, 0.0);
        }
        let n = self.jobs as f64;
        (
            100.0 * self.late as f64 / n,
            self.miss as f64 / n,
            self.turnaround as f64 / n,
        )
    }
}

/// The fairness measures of `o` on `w` (the realized workload), with usage
/// decaying by `decay`.
pub fn fairness(w: &Workload, o: &Outcome, decay: Decay) -> Fairness {
    let fst = fair_start_times(w, o, decay);
    let (bounds, labels) = width_classes(w.procs);
    let mut total = Sums::default();
    let mut classes = vec![Sums::default(); bounds.len()];
    for ((job, run), fst) in w.jobs.iter().zip(&o.runs).zip(&fst) {
        let (Some(run), Some(fst)) = (run, fst) else {
            continue;
        };
        if !job.measured {
            continue;
        }
        let miss = (run.start - fst).max(0);
        let turnaround = run.end - job.submit;
        total.add(miss, turnaround);
        classes[width_class(&bounds, job.procs)].add(miss, turnaround);
    }
    let (pct_late, avg_miss, avg_turnaround) = total.averages();
    Fairness {
        jobs: total.jobs,
        late: total.late,
        pct_late,
        avg_miss,
        avg_turnaround,
        by_width: labels
            .into_iter()
            .zip(&classes)
            .map(|(width, s)| {
                let (pct_late, avg_miss, avg_turnaround) = s.averages();
                WidthFairness {
                    width,
                    jobs: s.jobs,
                    late: s.late,
                    pct_late,
                    avg_miss,
                    avg_turnaround,
                }
            })
            .collect(),
    }
}

/// Fairshare sort key: (usage, submit, index).
type Key = (f64, Time, JobIdx);

fn key_cmp(a: &Key, b: &Key) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// Adds `procs` processors freed at `t` to the free times.
fn add_free(free: &mut BTreeMap<Time, u32>, t: Time, procs: u32) {
    *free.entry(t).or_insert(0) += procs;
}

/// Removes `procs` processors freed at `t` from the free times.
fn remove_free(free: &mut BTreeMap<Time, u32>, t: Time, procs: u32) {
    if let Entry::Occupied(mut e) = free.entry(t) {
        *e.get_mut() = e.get().saturating_sub(procs);
        if *e.get() == 0 {
            e.remove();
        }
    }
}

/// Each job's hybrid fair start time (None for jobs that did not run).
pub fn fair_start_times(w: &Workload, o: &Outcome, decay: Decay) -> Vec<Option<Time>> {
    let n = w.jobs.len().min(o.runs.len());
    let jobs = &w.jobs[..n];
    let runs = &o.runs[..n];
    let infos: Vec<JobInfo> = jobs
        .iter()
        .map(|j| JobInfo {
            submit: j.submit,
            estimate: j.estimate,
            procs: j.procs,
            user: j.user,
            group: j.group,
            user_group: j.user_group,
            deadline: j.deadline,
        })
        .collect();
    let mut ledger = UsageLedger::new(decay, &infos);
    let ran = || (0..n as JobIdx).filter(|&i| runs[i as usize].is_some());
    let run = |i: JobIdx| runs[i as usize].expect("ran");

    let mut arrivals: Vec<JobIdx> = ran().collect();
    arrivals.sort_by_key(|&i| (jobs[i as usize].submit, i));
    // Every run leaves the queue at its start; only runs of positive length
    // occupy processors and accrue usage.
    let mut starts: Vec<(Time, JobIdx)> = ran().map(|i| (run(i).start, i)).collect();
    starts.sort_unstable();
    let mut ends: Vec<(Time, JobIdx)> = ran()
        .filter(|&i| run(i).end > run(i).start)
        .map(|i| (run(i).end, i))
        .collect();
    ends.sort_unstable();

    let mut fst = vec![None; w.jobs.len()];
    // Running jobs' processors by end: a map, so that a start or an end
    // costs O(log n) with thousands running.
    let mut running: BTreeMap<Time, u32> = BTreeMap::new();
    let mut busy: u64 = 0;
    // Queued jobs as a set: a vector plus each job's position in it.
    let mut queue: Vec<JobIdx> = Vec::new();
    let mut pos = vec![u32::MAX; n];
    let (mut si, mut ei) = (0, 0);
    let mut ahead: Vec<Key> = Vec::new();
    let (mut near, mut later) = (Vec::new(), Vec::new());

    for &j in &arrivals {
        let a = jobs[j as usize].submit;
        pos[j as usize] = queue.len() as u32;
        queue.push(j);
        // Ends up to `a` and starts before it, in time order, ends first at
        // equal times.
        loop {
            let end = ends.get(ei).filter(|e| e.0 <= a).copied();
            let start = starts.get(si).filter(|s| s.0 < a).copied();
            match (end, start) {
                (Some((t, k)), s) if s.is_none_or(|s| t <= s.0) => {
                    ei += 1;
                    let p = jobs[k as usize].procs;
                    ledger.finished(k, p, t);
                    remove_free(&mut running, t, p);
                    busy = busy.saturating_sub(p as u64);
                }
                (_, Some((t, k))) => {
                    si += 1;
                    let at = std::mem::replace(&mut pos[k as usize], u32::MAX);
                    if at != u32::MAX {
                        queue.swap_remove(at as usize);
                        if let Some(&moved) = queue.get(at as usize) {
                            pos[moved as usize] = at;
                        }
                    }
                    let r = run(k);
                    if r.end > r.start {
                        let p = jobs[k as usize].procs;
                        ledger.started(k, p, t);
                        add_free(&mut running, r.end, p);
                        busy += p as u64;
                    }
                }
                _ => break,
            }
        }

        // The jobs ahead of `j` in fairshare order at `a`.
        let key_j: Key = (ledger.usage(j, a), a, j);
        ahead.clear();
        for &k in &queue {
            if k == j {
                continue;
            }
            let key = (ledger.usage(k, a), jobs[k as usize].submit, k);
            if key_cmp(&key, &key_j) == Ordering::Less {
                ahead.push(key);
            }
        }
        ahead.sort_unstable_by(key_cmp);

        // List-schedule them from the state at `a`, then `j`: the running
        // jobs' free times (all after `a`) read only as far as needed.
        let idle = (w.procs as u64).saturating_sub(busy) as u32;
        let total = idle as u64 + busy;
        near.clear();
        if idle > 0 {
            near.push((a, idle));
        }
        let kept = running.iter().map(|(&t, &p)| (t, p));
        let mut free = FreeTimes::new(&mut near, kept, &mut later, a);
        let width = |k: JobIdx| (jobs[k as usize].procs as u64).min(total) as u32;
        for &(_, _, k) in &ahead {
            let p = width(k);
            let start = if p == 0 { a } else { free.take_earliest(p) };
            let r = run(k);
            free.free_at(start + (r.end - r.start), p);
        }
        let p = width(j);
        fst[j as usize] = Some(if p == 0 { a } else { free.take_earliest(p) });
    }
    fst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_times_stay_merged() {
        let mut l = BTreeMap::new();
        add_free(&mut l, 10, 2);
        add_free(&mut l, 5, 1);
        add_free(&mut l, 10, 3);
        assert_eq!(l.into_iter().collect::<Vec<_>>(), vec![(5, 1), (10, 5)]);
        let mut l = BTreeMap::from([(5, 1), (10, 5)]);
        remove_free(&mut l, 10, 5);
        remove_free(&mut l, 7, 1);
        assert_eq!(l.into_iter().collect::<Vec<_>>(), vec![(5, 1)]);
    }
}
