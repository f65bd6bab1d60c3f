//! List scheduling as FAIR describes it ("no holes"): each processor has a
//! time at which it becomes free; each job in queue order starts at the
//! earliest time `p` processors are free, and those processors' free time
//! moves to its planned end. Time before a processor's free time is never
//! used, so there are no holes to backfill; but a later job may still start
//! before an earlier one on processors the earlier one does not need, which
//! makes it less strict than no backfilling. Of the processors free by its
//! start, a job takes those freed latest (FAIR leaves the choice open; taking
//! the earliest-freed ones would make list scheduling identical to FCFS
//! without backfilling online).
//!
//! Online, the list schedule is recomputed at every epoch from the running
//! jobs' estimated ends, and the jobs it plans to start now are started.

use super::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy};
use crate::workload::Time;

pub struct ListScheduler {
    rank: Ranker,
    queue: Vec<JobIdx>,
    /// Free times of processors, as (time, count) sorted by time.
    free_at: Vec<(Time, u32)>,
}

impl ListScheduler {
    pub fn new(order: Order) -> Self {
        ListScheduler {
            rank: Ranker::new(order),
            queue: Vec::new(),
            free_at: Vec::new(),
        }
    }
}

impl Policy for ListScheduler {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!("{}-list", self.rank.order())
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        if state.waiting.is_empty() || state.free == 0 {
            return;
        }
        let now = state.now;
        self.free_at.clear();
        self.free_at.push((now, state.free));
        for r in state.running {
            let procs = state.jobs[r.job as usize].procs;
            match self.free_at.last_mut() {
                Some(last) if last.0 == r.expected_end => last.1 += procs,
                _ => self.free_at.push((r.expected_end, procs)),
            }
        }
        self.rank.sorted_queue(state, &mut self.queue);
        let mut to_start = Vec::new();
        for &job in &self.queue {
            let info = &state.jobs[job as usize];
            let start = take_earliest(&mut self.free_at, info.procs);
            let end = start.saturating_add(info.estimate);
            let pos = self.free_at.partition_point(|e| e.0 < end);
            match self.free_at.get_mut(pos) {
                Some(e) if e.0 == end => e.1 += info.procs,
                _ => self.free_at.insert(pos, (end, info.procs)),
            }
            if start == now {
                to_start.push(job);
            }
            // Once nothing is free now, no later job can start now.
            if self.free_at.first().is_none_or(|e| e.0 > now) {
                break;
            }
        }
        for job in to_start {
            epoch.start(job);
        }
    }
}

/// Finds the earliest time `p` processors are free, takes the `p` of them
/// that became free latest by then (so the idle gap before the job is
/// smallest and earlier-free processors stay for later jobs), removes them
/// from `free_at` and returns the start time.
pub(crate) fn take_earliest(free_at: &mut Vec<(Time, u32)>, p: u32) -> Time {
    let mut seen = 0;
    let mut last = 0;
    for (i, e) in free_at.iter().enumerate() {
        seen += e.1;
        last = i;
        if seen >= p {
            break;
        }
    }
    debug_assert!(seen >= p, "job wider than the machine");
    let start = free_at[last].0;
    let mut need = p;
    let mut i = last + 1;
    while need > 0 && i > 0 {
        i -= 1;
        let take = need.min(free_at[i].1);
        free_at[i].1 -= take;
        need -= take;
    }
    free_at.retain(|e| e.1 > 0);
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_earliest_uses_latest_free_processors_by_the_start() {
        let mut f = vec![(0, 2), (10, 3), (20, 5)];
        // 4 processors are free at 10: the 3 freed at 10 and one freed at 0.
        assert_eq!(take_earliest(&mut f, 4), 10);
        assert_eq!(f, vec![(0, 1), (20, 5)]);
        assert_eq!(take_earliest(&mut f, 1), 0);
        assert_eq!(f, vec![(20, 5)]);
        assert_eq!(take_earliest(&mut f, 5), 20);
        assert!(f.is_empty());
    }
}
