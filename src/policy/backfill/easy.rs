//! EASY backfilling with reservation depth N.
//!
//! Each epoch plans on the running jobs' profile, kept from epoch to epoch
//! (see [`LiveProfile`]). Walking the queue in order, each of the first N
//! jobs that cannot start now gets a reservation at its earliest start in
//! the profile; every other job starts now only if it fits in the profile
//! without touching those reservations. With N = 1 this is classic EASY: the head job's
//! reservation is the "shadow time" and backfilled jobs either end before it
//! or use only the processors it leaves spare.
//!
//! Reservations are planned afresh at every epoch, as Maui does with
//! RESERVATIONDEPTH. The first one only ever moves earlier; with N > 1 a
//! later one can move later when an earlier reservation moves up into its
//! slot, so only the first carries a firm guarantee.
//!
//! In FCFS order with a bounded depth the policy keeps its own queue
//! ([`WaitingQueue`]): a list while short, a tree while long, whose search
//! for the jobs that may start now looks only where one may be, so a long
//! queue of jobs that cannot start costs nothing per epoch.

use super::{LiveProfile, WaitingQueue};
use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy, Profile};
use crate::workload::Time;

pub struct Easy {
    rank: Ranker,
    depth: u32,
    queue: Vec<JobIdx>,
    profile: LiveProfile,
    /// The waiting jobs, when the policy keeps its own queue.
    own_queue: Option<WaitingQueue>,
}

impl Easy {
    /// FAIR's conservative backfilling with dynamic reservations: every
    /// waiting job gets a reservation, rebuilt in queue order at every
    /// epoch, so none is a guarantee.
    pub fn dynamic(order: Order) -> Self {
        Easy::new(order, u32::MAX)
    }

    /// `depth` >= 1 reservations.
    pub fn new(order: Order, depth: u32) -> Self {
        let depth = depth.max(1);
        // Unbounded depth reserves for every job at every epoch anyway.
        let own_queue = (order == Order::Fcfs && depth != u32::MAX).then(WaitingQueue::new);
        Easy {
            rank: Ranker::new(order),
            depth,
            queue: Vec::new(),
            profile: LiveProfile::new(),
            own_queue,
        }
    }
}

impl Policy for Easy {
    crate::policy::order::forward_usage_notices!(rank);

    fn name(&self) -> String {
        if self.depth == u32::MAX {
            format!("{}-dynamic", self.rank.order())
        } else if self.depth == 1 {
            format!("{}-easy", self.rank.order())
        } else {
            format!("{}-easy:{}", self.rank.order(), self.depth)
        }
    }

    fn reads_waiting(&self) -> bool {
        self.own_queue.is_none()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        self.profile.sync(state);
        if let Some(queue) = self.own_queue.as_mut() {
            for &job in state.arrived {
                let info = &state.jobs[job as usize];
                queue.push(job, info.procs, info.estimate);
            }
            if !queue.is_empty() && state.free > 0 {
                own_queue_pass(epoch, &mut self.profile, queue, self.depth);
            }
            return;
        }
        // Nothing can start on a full machine, and with nothing finishing
        // now the reservations cannot have moved either.
        if state.waiting.is_empty() || state.free == 0 {
            return;
        }
        self.rank.sorted_queue(state, &mut self.queue);
        let all = self.queue.len();
        backfill_pass(epoch, &mut self.profile, &self.queue, all, self.depth);
    }
}

/// [`backfill_pass`] over the whole queue in arrival order, kept in
/// `queue`: the same starts and reservations, in the same order. Up to
/// `depth` reservations are made walking from the head; then each search
/// finds the first later job that fits now.
fn own_queue_pass(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    queue: &mut WaitingQueue,
    depth: u32,
) {
    let now = epoch.state.now;
    let mut from = 0;
    let mut reserved = 0;
    // Classic EASY's one reservation is not written into the profile (and
    // taken out again at the epoch's end): a job fits beside it by two
    // questions to the profile, which costs less than the two changes.
    let mut shadow: Option<Hold> = None;
    while reserved < depth {
        let Some((job, at_position)) = queue.first(from, |_, _| true) else {
            break;
        };
        from = at_position + 1;
        let info = epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let at = live.profile().earliest_start(p, d, now);
        if at == now {
            live.start(now, d, p);
            epoch.start(job);
            queue.remove(job, at_position);
        } else {
            if depth == 1 {
                shadow = Some(Hold {
                    at,
                    end: at.saturating_add(d),
                    procs: p,
                });
            } else {
                live.reserve(at, d, p);
            }
            epoch.reserve(job, at);
            reserved += 1;
        }
    }
    // A tree asks about many subtrees: per width asked, until when that
    // many stay free (a job fits now when it ends by then), valid until
    // the next start. A list asks once per job: a window check stops
    // sooner.
    let long = queue.is_tree();
    let mut free_until: Vec<(u32, Option<Time>)> = Vec::new();
    while epoch.free() > 0 {
        let free = epoch.free();
        let profile = live.profile();
        free_until.clear();
        let fits = |p: u32, d: Time| {
            if p > free {
                false
            } else if long {
                let until = match free_until.iter().find(|&&(q, _)| q == p) {
                    Some(&(_, until)) => until,
                    None => {
                        let until = free_until_beside(profile, shadow, p, now);
                        free_until.push((p, until));
                        until
                    }
                };
                until.is_some_and(|end| now.saturating_add(d) <= end)
            } else {
                fits_beside(profile, shadow, p, d, now)
            }
        };
        let Some((job, at_position)) = queue.first(from, fits) else {
            break;
        };
        from = at_position + 1;
        let info = epoch.state.jobs[job as usize];
        live.start(now, info.estimate, info.procs);
        epoch.start(job);
        queue.remove(job, at_position);
    }
    live.end_epoch();
    queue.settle();
}

/// A reservation's hold kept beside the profile: `procs` over `[at, end)`,
/// `at` after now.
#[derive(Debug, Clone, Copy)]
struct Hold {
    at: Time,
    end: Time,
    procs: u32,
}

/// True when `p` processors are free over `[now, now + d)` in `profile`
/// with `hold` taken too: free throughout, and over the hold beside its
/// processors.
fn fits_beside(profile: &Profile, hold: Option<Hold>, p: u32, d: Time, now: Time) -> bool {
    if !profile.fits(p, d, now) {
        return false;
    }
    let end = now.saturating_add(d);
    match hold {
        Some(h) if end > h.at => profile.fits(p + h.procs, end.min(h.end) - h.at, h.at),
        _ => true,
    }
}

/// [`Profile::free_until`] of `profile` with `hold` taken too.
fn free_until_beside(profile: &Profile, hold: Option<Hold>, p: u32, now: Time) -> Option<Time> {
    let until = profile.free_until(p, now)?;
    let Some(h) = hold.filter(|h| until > h.at) else {
        return Some(until);
    };
    // Fewer than `p` beside the hold from the first step over it with
    // fewer than `p` plus its processors.
    match profile.free_until(p + h.procs, h.at) {
        None => Some(h.at),
        Some(e) if e < h.end => Some(until.min(e)),
        Some(_) => Some(until),
    }
}

/// One EASY pass at this epoch over `queue`, on `profile` synced to this
/// epoch: each of the first `reservable` jobs that cannot start now
/// takes a reservation at its earliest start, until `depth` are held
/// (`u32::MAX`: unlimited); every other job starts now only if it fits
/// without touching them.
pub(crate) fn backfill_pass(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    queue: &[JobIdx],
    reservable: usize,
    depth: u32,
) {
    let now = epoch.state.now;
    let mut reserved = 0;
    for (i, &job) in queue.iter().enumerate() {
        let info = epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let may_reserve = i < reservable && reserved < depth;
        if may_reserve {
            let at = live.profile().earliest_start(p, d, now);
            if at == now {
                live.start(now, d, p);
                epoch.start(job);
            } else {
                live.reserve(at, d, p);
                epoch.reserve(job, at);
                reserved += 1;
            }
        } else if p <= epoch.free() && live.profile().fits(p, d, now) {
            live.start(now, d, p);
            epoch.start(job);
        }
        // Once nothing is free, no later job can start now; reservations
        // still to be made matter only for the audit, and with unlimited
        // depth they are rebuilt next time anyway.
        let reservations_done = reserved >= depth || depth == u32::MAX || i + 1 >= reservable;
        if reservations_done && epoch.free() == 0 {
            break;
        }
    }
    live.end_epoch();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{simulate, EventMode, SimOptions};
    use crate::workload::model::{generate, ModelParams};
    use crate::workload::transform::scale_load_by_arrivals;

    /// FCFS EASY walking the core's waiting list, as every other order does.
    fn walking(depth: u32) -> Easy {
        Easy {
            own_queue: None,
            ..Easy::new(Order::Fcfs, depth)
        }
    }

    proptest::proptest! {
        /// A hold kept beside the profile answers as the hold written in.
        #[test]
        fn a_hold_beside_answers_as_a_hold_within(
            held in proptest::collection::vec((0..300i64, 1..400i64, 1..16u32), 0..30),
            hold in (1..300i64, 1..300i64, 1..16u32),
            asks in proptest::collection::vec((1..500i64, 1..20u32), 1..40),
        ) {
            let mut profile = Profile::new(16, 0);
            // Running jobs from 0, other holds later: free goes up and down.
            for (t, d, p) in held {
                if profile.fits(p, d, t) {
                    profile.allocate(t, d, p);
                }
            }
            let (from, d, p) = hold;
            let at = profile.earliest_start(p, d, from);
            let beside = Hold { at, end: at + d, procs: p };
            let mut within = profile.clone();
            within.allocate(at, d, p);
            for (d, p) in asks {
                proptest::prop_assert_eq!(
                    fits_beside(&profile, Some(beside), p, d, 0),
                    within.fits(p, d, 0),
                    "fits {} for {}", p, d
                );
                proptest::prop_assert_eq!(
                    free_until_beside(&profile, Some(beside), p, 0),
                    within.free_until(p, 0),
                    "free until, {}", p
                );
            }
        }
    }

    /// Queues of thousands (offered load above 1) on a small machine and on
    /// a big one with narrow jobs, short ones on a machine at load 0.8: the
    /// own queue, a list or a tree by its length, gives the walk's schedule
    /// and reservations, in every event mode.
    #[test]
    fn own_queue_gives_the_walks_schedule() {
        let shapes = [(128, None, 1.3), (4096, Some(16), 1.2), (256, None, 0.8)];
        for (procs, widest, load) in shapes {
            let w = generate(&ModelParams {
                jobs: 4000,
                procs,
                seed: 3,
                widest,
                users: None,
            })
            .expect("model");
            let w = scale_load_by_arrivals(&w, load).expect("load");
            for events in [
                EventMode::PerInstant,
                EventMode::SubmissionsFirst,
                EventMode::CompletionsFirst,
            ] {
                for depth in [1, 4] {
                    let opts = SimOptions {
                        audit: true,
                        events,
                    };
                    let mut own = Easy::new(Order::Fcfs, depth);
                    assert!(own.own_queue.is_some());
                    let a = simulate(&w, &mut own, opts).expect("own queue");
                    let b = simulate(&w, &mut walking(depth), opts).expect("walk");
                    let what = format!("{procs} procs, load {load}, {events}, depth {depth}");
                    assert_eq!(a.runs, b.runs, "{what}");
                    let (ra, rb) = (a.audit.expect("audit"), b.audit.expect("audit"));
                    assert_eq!(ra.reservations, rb.reservations, "{what}");
                }
            }
        }
    }
}
