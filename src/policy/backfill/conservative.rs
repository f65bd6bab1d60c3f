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
            for &job in self.rank.queue(&epoch.state, &mut self.queue) {
                let old = self.reservation[job as usize];
                if old == NONE {
                    continue; // arrived now: placed below
                }
                let info = &jobs[job as usize];
                let Some(at) = self
                    .runs
                    .earlier_start(profile, info.procs, info.estimate, old)
                else {
                    continue;
                };
                profile.move_earlier(old, at, info.estimate, info.procs);
                self.runs.changed(at);
                self.next_due = self.next_due.min(at);
                self.reservation[job as usize] = at;
                epoch.reserve(job, at);
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
