//! Queue orders: which waiting job comes first.
//!
//! Ties always break by earlier submit, then by lower job index (arrival
//! order), as Slurm does, so every order is total and runs are deterministic.

use crate::sim::{JobIdx, JobInfo, State};
use crate::workload::Time;
use std::cmp::Ordering;
use std::fmt;

/// The queue orders of the baselines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// First come, first served: arrival order.
    Fcfs,
    /// Largest current expansion factor first: (wait + estimate) / estimate.
    Lxf,
    /// Shortest (estimated) job first.
    Sjf,
}

impl Order {
    pub const ALL: [Order; 3] = [Order::Fcfs, Order::Lxf, Order::Sjf];

    pub fn name(self) -> &'static str {
        match self {
            Order::Fcfs => "fcfs",
            Order::Lxf => "lxf",
            Order::Sjf => "sjf",
        }
    }

    /// Sorts `queue` (given in arrival order) into this order at time `now`.
    pub fn sort(self, now: Time, jobs: &[JobInfo], queue: &mut [JobIdx]) {
        match self {
            // The core hands the queue over in arrival order already.
            Order::Fcfs => {}
            Order::Lxf => queue.sort_by(|&a, &b| {
                lxf_cmp(now, &jobs[a as usize], &jobs[b as usize]).then(a.cmp(&b))
            }),
            Order::Sjf => queue.sort_by_key(|&j| {
                let info = &jobs[j as usize];
                (info.estimate, info.submit, j)
            }),
        }
    }

    /// Copies the waiting queue of `state` into `buf`, sorted.
    pub fn sorted_queue(self, state: &State<'_>, buf: &mut Vec<JobIdx>) {
        buf.clear();
        buf.extend_from_slice(state.waiting);
        self.sort(state.now, state.jobs, buf);
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Larger expansion factor first, compared exactly in integers:
/// (wa + ea) / ea > (wb + eb) / eb  <=>  (wa + ea) * eb > (wb + eb) * ea.
fn lxf_cmp(now: Time, a: &JobInfo, b: &JobInfo) -> Ordering {
    let xa = (now - a.submit + a.estimate) as i128 * b.estimate as i128;
    let xb = (now - b.submit + b.estimate) as i128 * a.estimate as i128;
    xb.cmp(&xa).then(a.submit.cmp(&b.submit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: Time, estimate: Time) -> JobInfo {
        JobInfo {
            submit,
            estimate,
            procs: 1,
            user: -1,
            group: -1,
            deadline: None,
        }
    }

    #[test]
    fn lxf_prefers_large_expansion_factor() {
        // At t=100: job 0 waited 100 for 100 s of work (xf 2), job 1 waited
        // 50 for 10 s (xf 6), job 2 waited 0 for 1 s (xf 1).
        let jobs = [job(0, 100), job(50, 10), job(100, 1)];
        let mut q = vec![0, 1, 2];
        Order::Lxf.sort(100, &jobs, &mut q);
        assert_eq!(q, vec![1, 0, 2]);
    }

    #[test]
    fn lxf_ties_break_by_submit_then_index() {
        let jobs = [job(10, 10), job(0, 20), job(0, 20)];
        // xf: job 0 (90+10)/10 = 10, jobs 1, 2: (100+20)/20 = 6.
        let mut q = vec![2, 1, 0];
        Order::Lxf.sort(100, &jobs, &mut q);
        assert_eq!(q, vec![0, 1, 2]);
    }

    #[test]
    fn sjf_orders_by_estimate() {
        let jobs = [job(0, 30), job(5, 10), job(1, 10)];
        let mut q = vec![0, 1, 2];
        Order::Sjf.sort(100, &jobs, &mut q);
        assert_eq!(q, vec![2, 1, 0]);
    }
}
