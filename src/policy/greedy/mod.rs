//! GREEDY's scheduler (section III): no backfilling; at every submission
//! and completion the waiting queue is sorted by a criterion with dynamic
//! parts (the job's wait), and jobs start from the head as long as the
//! head fits, as in FCFS. The criterion and its parameters depend on the
//! situation (time of week, see [`week`]); user groups (see
//! [`crate::workload::groups`]) weigh jobs through w_i and K_i.
//!
//! Only the head of the sorted queue matters, so the queue is never sorted
//! whole: each epoch computes every waiting job's value once and finds the
//! head with one pass per job it starts (plus one for the head that does
//! not fit). An epoch with no free processor starts nothing, whatever the
//! order, and computes nothing.

pub mod criterion;
pub mod week;

pub use criterion::{Criterion, Family};
pub use week::{Calendar, Situation};

use crate::sim::{Epoch, JobIdx, Policy};
use crate::workload::Time;
use serde::Serialize;
use std::fmt;

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
    /// (value, submit, job) of the waiting jobs, reused across epochs.
    keyed: Vec<(f64, Time, JobIdx)>,
}

impl Greedy {
    pub fn new(spec: GreedySpec, calendar: Calendar) -> Self {
        Greedy {
            spec,
            clock: week::Clock::new(calendar),
            keyed: Vec::new(),
        }
    }
}

impl Policy for Greedy {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        let now = state.now;
        if state.waiting.is_empty() || epoch.free() == 0 {
            return;
        }
        let crit = self.spec.criterion(self.clock.at(now));
        self.keyed.clear();
        self.keyed.extend(state.waiting.iter().map(|&j| {
            let info = &state.jobs[j as usize];
            debug_assert!(info.user_group >= 1, "job {j} has no user group");
            let value = crit.value(
                info.user_group,
                (now - info.submit) as f64,
                info.estimate as f64,
                f64::from(info.procs),
            );
            (value, info.submit, j)
        }));
        // The head of the sorted queue, again and again while it fits: a
        // pass per start finds it, cheaper than sorting a long queue of
        // which only the first few jobs matter.
        while let Some((at, &(_, _, job))) = self
            .keyed
            .iter()
            .enumerate()
            .min_by(|(_, x), (_, y)| before(x, y))
        {
            if epoch.state.jobs[job as usize].procs > epoch.free() {
                break;
            }
            epoch.start(job);
            self.keyed.swap_remove(at);
        }
    }
}

/// The queue order: largest value first; ties by earlier submit, then
/// trace order.
fn before(x: &(f64, Time, JobIdx), y: &(f64, Time, JobIdx)) -> std::cmp::Ordering {
    y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{simulate, SimOptions};
    use crate::workload::{Job, SwfHeader, Workload};

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
}
