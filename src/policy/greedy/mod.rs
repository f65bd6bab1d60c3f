//! GREEDY's scheduler (section III): no backfilling; at every submission
//! and completion the waiting queue is sorted by a criterion with dynamic
//! parts (the job's wait), and jobs start from the head as long as the
//! head fits, as in FCFS. The criterion and its parameters depend on the
//! situation (time of week, see [`week`]); user groups (see
//! [`crate::workload::groups`]) weigh jobs through w_i and K_i.
//!
//! Only the head of the sorted queue matters, so the queue is never sorted:
//! a kinetic tournament (see [`tournament`]) keeps the head between events
//! and replays only what changed: a few comparisons per submission, start
//! and crossing of two jobs' values. An epoch with no free processor starts
//! nothing, whatever the order, and leaves the queue alone.

pub mod criterion;
mod tournament;
pub mod week;

pub use criterion::{Criterion, Family};
pub use week::{Calendar, Situation};

use crate::sim::{Epoch, JobIdx, JobInfo, Policy};
use crate::workload::Time;
use serde::Serialize;
use std::fmt;
use tournament::{Entry, Tournament};

/// A greedy scheduler: a criterion per situation. Its jobs carry their
/// user groups (the goal's, assigned to the workload before it runs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GreedySpec {
    /// In [`Situation::ALL`] order: weekend, weekday day, weekday night.
    pub criteria: [Criterion; 3],
}

impl GreedySpec {
    /// The criterion of a situation.
    pub fn criterion(&self, s: Situation) -> &Criterion {
        &self.criteria[s.index()]
    }

    /// The policy object on a trace with wall clock `calendar`.
    pub fn build(&self, calendar: Calendar) -> Greedy {
        Greedy::new(self.clone(), calendar)
    }

    /// The policy in words, as (field, sentence) lines.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let mut lines = vec![(
            "dispatch",
            "greedy, no backfilling: at every submission and completion the queue is sorted by \
             the criterion of the time of week, largest value first (ties by earlier submit, \
             then trace order); jobs start from the head while it fits"
                .to_string(),
        )];
        for s in Situation::ALL {
            let c = self.criterion(s);
            lines.push((
                s.name(),
                format!("{} = {}; {c}", c.family, c.family.formula()),
            ));
        }
        lines
    }
}

impl fmt::Display for GreedySpec {
    /// `greedy(f2,f2,f1)`: the criteria of weekend, weekday day and night.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.criteria.iter().map(|c| c.family.name()).collect();
        write!(f, "greedy({})", names.join(","))
    }
}

/// The greedy scheduler at work.
pub struct Greedy {
    spec: GreedySpec,
    clock: week::Clock,
    /// The waiting jobs, one queue per distinct criterion, each in its
    /// order. The active one (the situation's) is always up to date. At a
    /// change of situation the next one is made again from it, which costs
    /// the queue's length; while the queue is long, every queue is kept up
    /// to date instead, which costs a few comparisons per job and queue.
    queues: Vec<(Criterion, Tournament)>,
    /// Per situation, its criterion's queue.
    queue_of: [usize; 3],
    active: usize,
    /// Whether the inactive queues are up to date too.
    all_current: bool,
    /// Queue lengths at which that starts and stops.
    keep_all: (usize, usize),
    /// Jobs submitted while no processor was free, not yet queued:
    /// nothing can start then, so the queues are left alone.
    pending: Vec<JobIdx>,
}

/// Queue lengths at which all queues start and stop being kept up to date:
/// near where remaking one at each change of situation (about two a day)
/// starts to cost more than keeping it, with room between them so that a
/// queue near one does not make them flip.
const KEEP_ALL_FROM: usize = 4096;
const KEEP_ALL_BELOW: usize = 1024;

impl Greedy {
    pub fn new(spec: GreedySpec, calendar: Calendar) -> Self {
        // Situations with equal criteria share a queue.
        let mut distinct: Vec<&Criterion> = Vec::new();
        let queue_of = spec.criteria.each_ref().map(|c| {
            distinct.iter().position(|d| *d == c).unwrap_or_else(|| {
                distinct.push(c);
                distinct.len() - 1
            })
        });
        let queues = distinct
            .into_iter()
            .map(|c| (c.clone(), Tournament::default()))
            .collect();
        Greedy {
            clock: week::Clock::new(calendar),
            queues,
            queue_of,
            active: 0,
            all_current: false,
            keep_all: (KEEP_ALL_FROM, KEEP_ALL_BELOW),
            pending: Vec::new(),
            spec,
        }
    }

    /// Makes queue `q` again from the active one, in its criterion's order.
    fn remake(&mut self, q: usize, jobs: &[JobInfo], now: Time) {
        let (front, back) = self.queues.split_at_mut(q.max(self.active));
        let (from, to) = if q < self.active {
            (&back[0].1, &mut front[q])
        } else {
            (&front[self.active].1, &mut back[0])
        };
        let crit = &to.0;
        to.1.rebuild_like(from, now, |j| entry(crit, j, &jobs[j as usize]).line);
    }
}

/// A waiting job as a queue sees it under `crit`.
fn entry(crit: &Criterion, job: JobIdx, info: &JobInfo) -> Entry {
    debug_assert!(info.user_group >= 1, "job {job} has no user group");
    Entry {
        line: crit.line(info.user_group, info.estimate as f64, f64::from(info.procs)),
        submit: info.submit,
        job,
    }
}

impl Policy for Greedy {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    /// The queues are the policy's own: jobs enter them on arrival and
    /// leave them only when it starts them.
    fn reads_waiting(&self) -> bool {
        false
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        let now = state.now;
        self.pending.extend_from_slice(state.arrived);
        let active = self.active;
        if self.queues[active].1.len() + self.pending.len() == 0 || epoch.free() == 0 {
            return;
        }
        let jobs = state.jobs;
        for (q, (crit, queue)) in self.queues.iter_mut().enumerate() {
            if q == active || self.all_current {
                queue.advance(now);
                for &j in &self.pending {
                    queue.insert(entry(crit, j, &jobs[j as usize]), now);
                }
            }
        }
        self.pending.clear();
        let want = self.queue_of[self.clock.at(now).index()];
        if want != self.active {
            if !self.all_current {
                self.remake(want, jobs, now);
            }
            self.active = want;
        }
        let waiting = self.queues[self.active].1.len();
        if !self.all_current && waiting >= self.keep_all.0 && self.queues.len() > 1 {
            for q in 0..self.queues.len() {
                if q != self.active {
                    self.remake(q, jobs, now);
                }
            }
            self.all_current = true;
        } else if self.all_current && waiting < self.keep_all.1 {
            self.all_current = false;
        }
        let active = self.active;
        while let Some(job) = self.queues[active].1.head() {
            if jobs[job as usize].procs > epoch.free() {
                break;
            }
            epoch.start(job);
            let slot = self.queues[active].1.pop(now).expect("a head to pop");
            if self.all_current {
                for (q, (_, queue)) in self.queues.iter_mut().enumerate() {
                    if q != active {
                        debug_assert_eq!(queue.job_in(slot), job, "queues out of step");
                        queue.remove_slot(slot, now);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{simulate, EventMode, SimOptions};
    use crate::workload::{Job, SwfHeader, Time, Workload};
    use proptest::prelude::*;

    fn job(number: i64, submit: Time, runtime: Time, procs: u32, group: u8) -> Job {
        Job {
            user: i64::from(group),
            user_group: group,
            ..Job::plain(number, submit, runtime, procs)
        }
    }

    fn spec(c: Criterion) -> GreedySpec {
        GreedySpec {
            criteria: [c.clone(), c.clone(), c],
        }
    }

    fn starts(w: &Workload, spec: &GreedySpec) -> Vec<Time> {
        let mut p = spec.build(Calendar::UTC_EPOCH);
        let o = simulate(w, &mut p, SimOptions::default()).unwrap();
        o.runs.iter().map(|r| r.unwrap().start).collect()
    }

    #[test]
    fn hand_computed_greedy_schedule() {
        // 4 processors. Job 1 (4 wide, 0-100) fills the machine. At 10,
        // job 2 (group 2, 2 wide, 50 s) and job 3 (group 1, 4 wide, 50 s)
        // arrive; at 20 job 4 (group 2, 2 wide, 50 s).
        let w = Workload::new(
            "t",
            4,
            SwfHeader::default(),
            vec![
                job(1, 0, 100, 4, 1),
                job(2, 10, 50, 2, 2),
                job(3, 10, 50, 4, 1),
                job(4, 20, 50, 2, 2),
            ],
        );
        // Group 1 first (K 5 against 0, no wait term): at 100 job 3 heads
        // the queue and runs 100-150, then jobs 2 and 4 together 150-200.
        let by_group = spec(Criterion {
            family: Family::F4,
            a: 0.0,
            b: 0.0,
            w: vec![1.0, 1.0],
            k: vec![5.0, 0.0],
        });
        assert_eq!(starts(&w, &by_group), vec![0, 150, 100, 150]);
        // Wait first (f2 with a 1): at 100 jobs 2 and 3 have waited 90,
        // job 4 80; job 2 goes before job 3 (same value, same submit,
        // earlier in the trace): job 2 runs 100-150; job 3 does not fit
        // and job 4, which would, waits behind it (no backfilling). At 150
        // job 3 (waited 140) goes before job 4 (130): 150-200, then 4.
        let by_wait = spec(Criterion {
            family: Family::F2,
            a: 1.0,
            b: 0.0,
            w: vec![1.0, 1.0],
            k: vec![0.0, 0.0],
        });
        assert_eq!(starts(&w, &by_wait), vec![0, 100, 150, 200]);
        // Weighing group 2 down (w 0.5) while waits are equal puts job 3
        // (group 1, value 90) before job 2 (45): 3 runs 100-150, then 2
        // and 4.
        let weighted = spec(Criterion {
            w: vec![1.0, 0.5],
            ..by_wait.criteria[0].clone()
        });
        assert_eq!(starts(&w, &weighted), vec![0, 150, 100, 150]);
    }

    #[test]
    fn a_blocked_head_blocks_the_queue() {
        // 4 processors, job 1 takes 3 until 100. Job 2 (4 wide) heads
        // the queue by K; job 3 (1 wide) would fit at once but waits.
        let w = Workload::new(
            "t",
            4,
            SwfHeader::default(),
            vec![
                job(1, 0, 100, 3, 1),
                job(2, 5, 10, 4, 1),
                job(3, 6, 10, 1, 2),
            ],
        );
        let s = spec(Criterion {
            family: Family::F1,
            a: 0.0,
            b: 0.0,
            w: vec![1.0, 1.0],
            k: vec![1.0, 0.0],
        });
        assert_eq!(starts(&w, &s), vec![0, 100, 110]);
    }

    #[test]
    fn the_criterion_follows_the_time_of_week() {
        // Unix 0 is Thursday 1970-01-01 00:00 UTC, a weekday night; 8:00
        // starts the weekday day. Two 1-wide jobs queue behind a full
        // machine until 9:00; the night criterion prefers group 2, the day
        // criterion group 1, and the day's decides at 9:00.
        let h = 3600;
        let w = Workload::new(
            "t",
            1,
            SwfHeader::default(),
            vec![
                job(1, 0, 9 * h, 1, 1),
                job(2, 10, 100, 1, 1),
                job(3, 10, 100, 1, 2),
            ],
        );
        let prefer = |g1: f64, g2: f64| Criterion {
            family: Family::F4,
            a: 0.0,
            b: 0.0,
            w: vec![1.0, 1.0],
            k: vec![g1, g2],
        };
        let night_prefers_2 = GreedySpec {
            criteria: [prefer(0.0, 1.0), prefer(1.0, 0.0), prefer(0.0, 1.0)],
        };
        assert_eq!(starts(&w, &night_prefers_2), vec![0, 9 * h, 9 * h + 100]);
        let day_prefers_2 = GreedySpec {
            criteria: [prefer(1.0, 0.0), prefer(0.0, 1.0), prefer(1.0, 0.0)],
        };
        assert_eq!(starts(&w, &day_prefers_2), vec![0, 9 * h + 100, 9 * h]);
    }

    /// The order's definition: every epoch, a scan of the waiting jobs
    /// for the first, again after each start.
    struct Scan {
        spec: GreedySpec,
        clock: week::Clock,
    }

    impl Policy for Scan {
        fn name(&self) -> String {
            "scan".into()
        }

        fn schedule(&mut self, epoch: &mut Epoch<'_>) {
            let now = epoch.state.now;
            let crit = self.spec.criterion(self.clock.at(now)).clone();
            let mut waiting: Vec<Entry> = epoch
                .state
                .waiting
                .iter()
                .map(|&j| entry(&crit, j, &epoch.state.jobs[j as usize]))
                .collect();
            while let Some(b) = tournament::scan(&waiting, now) {
                let job = waiting[b].job;
                if epoch.state.jobs[job as usize].procs > epoch.free() {
                    break;
                }
                epoch.start(job);
                waiting.swap_remove(b);
            }
        }
    }

    fn arb_criterion() -> impl Strategy<Value = Criterion> {
        // Coarse grids make ties and crossings at whole seconds common.
        let unit = || prop_oneof![(0u32..5).prop_map(|v| f64::from(v) / 4.0), 0.0..1.0f64];
        let k = || prop_oneof![(0u32..6).prop_map(f64::from), 0.0..5.0f64];
        (
            0usize..4,
            unit(),
            unit(),
            proptest::collection::vec(unit(), 3),
            proptest::collection::vec(k(), 3),
        )
            .prop_map(|(f, a, b, w, k)| Criterion {
                family: Family::ALL[f],
                a,
                b: if Family::ALL[f].has_b() { b } else { 0.0 },
                w,
                k,
            })
    }

    fn arb_workload() -> impl Strategy<Value = Workload> {
        let spec = (0i64..4000, 1i64..3000, 1i64..4000, 1u32..=8, 1u8..=3);
        proptest::collection::vec(spec, 1..80).prop_map(|mut specs| {
            specs.sort_by_key(|s| s.0);
            let jobs = specs
                .into_iter()
                .enumerate()
                .map(|(i, (submit, run, est, procs, g))| Job {
                    estimate: est.max(run),
                    ..job(i as i64 + 1, submit * 60, run * 10, procs, g)
                })
                .collect();
            Workload::new("random", 8, SwfHeader::default(), jobs)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The tournaments schedule exactly as the scan, in every event
        /// mode, across situation changes (the calendar starts on Friday
        /// 17:00 UTC, so the workload's days see all three), whether the
        /// inactive queues are remade at each change, always kept up to
        /// date, or kept while the queue is long.
        #[test]
        fn the_tournament_schedules_as_the_scan(
            w in arb_workload(),
            criteria in (arb_criterion(), arb_criterion(), arb_criterion()),
            mode in 0usize..3,
            keep_all in prop_oneof![Just((KEEP_ALL_FROM, KEEP_ALL_BELOW)), Just((0, 0)), Just((6, 3))],
        ) {
            let spec = GreedySpec { criteria: [criteria.0, criteria.1, criteria.2] };
            let calendar = Calendar { unix_start: 86_400 + 17 * 3600, ..Calendar::UTC_EPOCH };
            let events = [EventMode::PerInstant, EventMode::SubmissionsFirst, EventMode::CompletionsFirst][mode];
            let opts = SimOptions { events, ..SimOptions::default() };
            let mut greedy = spec.build(calendar);
            greedy.keep_all = keep_all;
            let fast = simulate(&w, &mut greedy, opts).unwrap();
            let mut scan = Scan { spec: spec.clone(), clock: week::Clock::new(calendar) };
            let slow = simulate(&w, &mut scan, opts).unwrap();
            prop_assert_eq!(fast.runs, slow.runs);
        }
    }
}
