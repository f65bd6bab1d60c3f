//! Conservative backfilling: every waiting job holds a reservation, made at
//! its arrival at the earliest start that delays no earlier reservation.
//!
//! The profile persists across epochs. When a job ends before its estimate,
//! the rest of its hold is released and the schedule is compressed: in queue
//! order, each reservation moves to its earliest start with its own hold
//! counted as free. Its old slot is always such a start, so a reservation
//! only ever moves earlier. With exact estimates nothing ends early and every job
//! starts exactly at its first reservation.

use super::FreeRuns;
use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy, Profile};
use crate::workload::Time;

const NONE: Time = Time::MIN;

pub struct Conservative {
    rank: Ranker,
    profile: Option<Profile>,
    /// Reservation start per job index, NONE when the job holds none.
    reservation: Vec<Time>,
    queue: Vec<JobIdx>,
    /// Where each width fits, during a compression pass.
    runs: FreeRuns,
    /// The earliest reservation of a waiting job (`Time::MAX` for none):
    /// reservations only move earlier and leave by starting, so the queue
    /// is read for due jobs only when one is.
    next_due: Time,
    /// Whether alike jobs next in the queue are answered with the first
    /// (always, but in the test of that against one by one).
    alike_together: bool,
    /// Jobs answered with the one before them, for that test.
    #[cfg(test)]
    answered_together: u64,
}

impl Conservative {
    pub fn new(order: Order) -> Self {
        Conservative {
            rank: Ranker::new(order),
            profile: None,
            reservation: Vec::new(),
            queue: Vec::new(),
            runs: FreeRuns::default(),
            next_due: Time::MAX,
            alike_together: true,
            #[cfg(test)]
            answered_together: 0,
        }
    }
}

impl Policy for Conservative {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        format!("{}-conservative", self.rank.order())
    }

    fn admits_all(&self) -> bool {
        true
    }

    fn forgets_with_empty_queue(&self) -> bool {
        // With no job waiting no reservation is held: the profile is the
        // running jobs' holds.
        self.rank.forgets()
    }

    fn reads_running(&self) -> bool {
        // The kept profile holds the running jobs: each reservation's hold
        // stays in it when the job starts, and early ends give back the rest.
        false
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        // Copy the slices out so the epoch stays free for decisions.
        let (now, procs) = (epoch.state.now, epoch.state.procs);
        let (jobs, waiting) = (epoch.state.jobs, epoch.state.waiting);
        let arrived = epoch.state.arrived;
        if self.reservation.len() != jobs.len() {
            self.reservation = vec![NONE; jobs.len()];
            self.next_due = Time::MAX;
        }
        let profile = self.profile.get_or_insert_with(|| Profile::new(procs, now));
        profile.advance(now);

        let compress = epoch.state.release_early_finishes(profile);

        if compress && waiting.len() > arrived.len() {
            self.runs.reset();
            let queue = self.rank.queue(&epoch.state, &mut self.queue);
            let mut k = 0;
            while k < queue.len() {
                let job = queue[k];
                k += 1;
                let old = self.reservation[job as usize];
                if old == NONE {
                    continue; // arrived now: placed below
                }
                let info = &jobs[job as usize];
                let (p, d) = (info.procs, info.estimate);
                // The jobs next in the queue with the same width and
                // estimate, held at the same time (a job array's), ask the
                // same question as this one.
                let reservation = &self.reservation;
                let alike = |j: JobIdx| {
                    reservation[j as usize] == old
                        && jobs[j as usize].procs == p
                        && jobs[j as usize].estimate == d
                };
                let mut same = match self.alike_together {
                    true => queue[k..].iter().take_while(|&&j| alike(j)).count(),
                    false => 0,
                };
                let Some(at) = self.runs.earlier_start(profile, p, d, old) else {
                    // On the same profile, none of them moves either.
                    k += same;
                    #[cfg(test)]
                    {
                        self.answered_together += same as u64;
                    }
                    continue;
                };
                // Each one that moves leaves the profile before `at` as it
                // was, so the next starts at `at` too while `p` more are
                // free there, and later otherwise: as many as fit at `at`
                // move in one change.
                if same > 0 {
                    let room = profile.min_free(at, at.saturating_add(d).min(old)) / p;
                    same = same.min((room as usize).saturating_sub(1));
                }
                let moved = &queue[k - 1..k + same];
                k += same;
                #[cfg(test)]
                {
                    self.answered_together += same as u64;
                }
                profile.move_earlier(old, at, d, p * moved.len() as u32);
                self.runs.changed(at);
                self.next_due = self.next_due.min(at);
                for &j in moved {
                    self.reservation[j as usize] = at;
                    epoch.reserve(j, at);
                }
            }
        }

        if !arrived.is_empty() {
            self.queue.clear();
            self.queue.extend_from_slice(arrived);
            self.rank.sort(now, jobs, &mut self.queue);
            for &job in &self.queue {
                let info = &jobs[job as usize];
                let at = profile.earliest_start(info.procs, info.estimate, now);
                profile.allocate(at, info.estimate, info.procs);
                self.next_due = self.next_due.min(at);
                self.reservation[job as usize] = at;
                epoch.reserve(job, at);
            }
        }

        // Start what is due; the hold stays in the profile as the running
        // job. A reservation may start where no job arrives or ends (its
        // predecessor ended early), so ask to be woken for the next one.
        if self.next_due <= now {
            let mut next = Time::MAX;
            for &job in waiting {
                let at = self.reservation[job as usize];
                if at == now {
                    self.reservation[job as usize] = NONE;
                    epoch.start(job);
                } else if at != NONE {
                    next = next.min(at);
                }
            }
            self.next_due = next;
        }
        debug_assert_eq!(
            self.next_due,
            waiting
                .iter()
                .map(|&j| self.reservation[j as usize])
                .filter(|&at| at != NONE)
                .min()
                .unwrap_or(Time::MAX),
            "earliest reservation at {now}"
        );
        debug_assert!(self.next_due > now, "a reservation passed at {now}");
        if self.next_due != Time::MAX {
            epoch.wake_at(self.next_due);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::{assert_same_plans, model_at, EVENT_MODES};
    use crate::workload::Workload;

    /// `w` with every `every`th job made a job array of `copies` jobs: the
    /// same submit, width and estimate, run times spread below the
    /// estimate, so some end early and the rest of the array moves up.
    fn with_arrays(w: &Workload, every: usize, copies: usize) -> Workload {
        let mut jobs = Vec::new();
        let mut number = 0;
        for (i, j) in w.jobs.iter().enumerate() {
            let n = if i % every == 0 { copies } else { 1 };
            for c in 0..n {
                number += 1;
                let mut copy = j.clone();
                copy.number = number;
                copy.runtime = (j.estimate * (c as Time % 4 + 1) / 4).max(1);
                jobs.push(copy);
            }
        }
        Workload::new(w.name.clone(), w.procs, w.header.clone(), jobs)
    }

    /// Alike jobs next in the queue answered with the first give the
    /// schedule and reservations of asking each in turn, in every order
    /// and event mode, on a long queue and a short one.
    #[test]
    fn alike_jobs_answered_together_plan_as_one_by_one() {
        for (procs, load, every, copies) in [(128, 1.2, 7, 12), (1024, 0.8, 3, 40)] {
            let w = with_arrays(&model_at((600, procs, None, None), 3, load), every, copies);
            for events in EVENT_MODES {
                for order in [Order::Fcfs, Order::Lxf, Order::Sjf] {
                    let mut together = Conservative::new(order);
                    let mut one_by_one = Conservative {
                        alike_together: false,
                        ..Conservative::new(order)
                    };
                    let what = format!("{procs} procs, load {load}, {events}, {order}");
                    assert_same_plans(&w, (&mut together, &mut one_by_one), events, &what);
                    assert!(
                        together.answered_together > 100,
                        "{what}: {}",
                        together.answered_together
                    );
                    assert_eq!(one_by_one.answered_together, 0);
                }
            }
        }
    }
}
