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
//! queue of jobs that cannot start costs nothing per epoch. EASY in LXF or
//! SJF order keeps that queue too, for the same search, and the queue in
//! its order ([`Head`]), from which classic EASY takes the first job and
//! deeper EASY reads the jobs that start or reserve before the search, so
//! that it never sorts the queue. EASY in fairshare order keeps its queue
//! too ([`FairBackfill`]): sorted while short; while long, read per user
//! in order for the jobs that start or reserve, and searched for those
//! that may backfill.

use super::fair::{FairBackfill, Front};
use super::ranked::{start_in_queue_order, Kept, Pass, Turn};
use super::waiting::{Anyone, JobTest, Position};
use super::{LiveProfile, RunningEnds, WaitingQueue};
use crate::policy::fairshare::UsageLedger;
use crate::policy::head::Head;
use crate::policy::long_queue::LongQueue;
use crate::policy::{Order, Ranker};
use crate::sim::{Epoch, JobIdx, Policy, Profile};
use crate::workload::Time;

pub struct Easy {
    rank: Ranker,
    depth: u32,
    queue: Vec<JobIdx>,
    profile: LiveProfile,
    /// The running jobs' ends, all classic EASY in its own queue plans on
    /// (the profile is then not kept).
    ends: RunningEnds,
    /// The waiting jobs, when the policy keeps its own queue.
    own_queue: Option<WaitingQueue>,
    /// The first waiting job, for classic EASY in LXF or SJF order (its own
    /// queue then finds the jobs that may backfill).
    head: Option<Head>,
    /// The jobs that may backfill at an epoch, with their positions.
    found: Vec<(JobIdx, Position)>,
    /// Scratch space for reading `head` in order: the jobs read.
    head_read: Vec<JobIdx>,
    /// EASY in fairshare order, but for dynamic reservations (which
    /// reserve for every job at every epoch): the waiting jobs, kept by
    /// the policy.
    fair: Option<FairBackfill>,
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
        let head = if depth != u32::MAX {
            Head::new(order)
        } else {
            None
        };
        let own_queue =
            (order == Order::Fcfs && depth != u32::MAX || head.is_some()).then(WaitingQueue::new);
        Easy {
            rank: Ranker::new(order),
            depth,
            queue: Vec::new(),
            profile: LiveProfile::new(),
            ends: RunningEnds::new(),
            own_queue,
            head,
            found: Vec::new(),
            head_read: Vec::new(),
            fair: (depth != u32::MAX && matches!(order, Order::Fairshare(_)))
                .then(FairBackfill::new),
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

    fn admits_all(&self) -> bool {
        true
    }

    fn reads_waiting(&self) -> bool {
        self.own_queue.is_none() && self.fair.is_none()
    }

    fn reads_running(&self) -> bool {
        // The ends and the profile follow the running jobs from this
        // policy's starts and the finished jobs; they read the set only at
        // their first sync, when nothing runs yet.
        false
    }

    fn forgets_with_empty_queue(&self) -> bool {
        // Reservations are planned afresh at every epoch; the profile and
        // the ends follow the running jobs.
        self.rank.forgets()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        let classic = self.depth == 1;
        if classic {
            self.ends.sync(state);
        } else {
            self.profile.sync(state);
        }
        if let Some(queue) = self.own_queue.as_mut() {
            for &job in state.arrived {
                let info = &state.jobs[job as usize];
                queue.push(job, info.procs, info.estimate);
                if let Some(head) = self.head.as_mut() {
                    head.push(job, state.jobs, state.now);
                }
            }
            if let Some(head) = self.head.as_mut() {
                // Only a long queue is read for the jobs that fit from the
                // head; the classes cost every arrival and start.
                let long = LongQueue::BACKFILL.keeps(head.by_class(), queue.len());
                head.set_width_classes(long, state.jobs, state.now);
            }
            if !queue.is_empty() && state.free > 0 {
                if let Some(head) = self.head.as_mut() {
                    let kept = Kept {
                        queue,
                        head,
                        found: &mut self.found,
                        head_read: &mut self.head_read,
                    };
                    if classic {
                        ranked_shadow_pass(epoch, &mut self.ends, kept);
                    } else {
                        ranked_queue_pass(epoch, &mut self.profile, kept, self.depth);
                    }
                } else if classic {
                    shadow_pass(epoch, &mut self.ends, queue);
                } else {
                    own_queue_pass(epoch, &mut self.profile, queue, self.depth);
                }
            }
            return;
        }
        if let Some(kept) = self.fair.as_mut() {
            let (jobs, now) = (state.jobs, state.now);
            kept.arrive(state.arrived, self.rank.fair_ledger(jobs), jobs);
            // As below: a full machine starts nothing, and the sort (whose
            // usages a kept queue brings up to date alike) is not made.
            if kept.is_empty() || state.free == 0 {
                return;
            }
            if kept.is_long() {
                let ledger = self.rank.fair_ledger(jobs);
                if classic {
                    fair_shadow_pass(epoch, &mut self.ends, kept, ledger);
                } else {
                    fair_queue_pass(epoch, &mut self.profile, (kept, ledger), self.depth);
                }
                return;
            }
            let queue = kept.sorted(&mut self.rank, (jobs, now), &mut self.queue);
            if classic {
                shadow_walk(epoch, &mut self.ends, queue.iter().copied());
            } else {
                backfill_pass(epoch, &mut self.profile, queue, queue.len(), self.depth);
            }
            kept.remove(epoch.started(), self.rank.fair_ledger(jobs), jobs);
            return;
        }
        // Nothing can start on a full machine, and with nothing finishing
        // now the reservations cannot have moved either.
        if state.waiting.is_empty() || state.free == 0 {
            return;
        }
        let queue = self.rank.queue(state, &mut self.queue);
        if classic {
            shadow_walk(epoch, &mut self.ends, queue.iter().copied());
        } else {
            backfill_pass(epoch, &mut self.profile, queue, queue.len(), self.depth);
        }
    }
}

/// Where classic EASY's head job waits: the shadow time, and the processors
/// free there beyond the head's (what jobs running past it may use).
#[derive(Debug, Clone, Copy)]
struct Shadow {
    at: Time,
    spare: u64,
}

impl Shadow {
    /// For a head job of `p` that does not fit in the `free` processors.
    fn of(ends: &RunningEnds, free: u32, p: u32) -> Shadow {
        let (at, freed) = ends
            .first_reaching(u64::from(p - free))
            .expect("the running jobs hold what a job of the machine's width lacks");
        Shadow {
            at,
            spare: u64::from(free) + freed - u64::from(p),
        }
    }

    /// Whether a job of `p` for `d` from `now` leaves the head its start.
    fn allows(shadow: Option<Shadow>, now: Time, p: u32, d: Time) -> bool {
        shadow.is_none_or(|s| now.saturating_add(d) <= s.at || u64::from(p) <= s.spare)
    }

    /// A job ending at `end` started: past the shadow time it holds its
    /// processors there.
    fn started(shadow: &mut Option<Shadow>, end: Time, p: u32) {
        if let Some(s) = shadow.as_mut().filter(|s| end > s.at) {
            s.spare -= u64::from(p);
        }
    }
}

/// Classic EASY over `queue` in its order, planned on the running jobs'
/// ends alone: the same starts and reservation as [`backfill_pass`] with
/// one reservation on the profile.
fn shadow_walk(
    epoch: &mut Epoch<'_>,
    ends: &mut RunningEnds,
    queue: impl IntoIterator<Item = JobIdx>,
) {
    let now = epoch.state.now;
    let mut shadow: Option<Shadow> = None;
    for job in queue {
        let info = epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let free = epoch.free();
        let start = match shadow {
            Some(_) => p <= free && Shadow::allows(shadow, now, p, d),
            None if p <= free => true,
            None => {
                let s = Shadow::of(ends, free, p);
                epoch.reserve(job, s.at);
                shadow = Some(s);
                false
            }
        };
        if start {
            let end = now.saturating_add(d);
            Shadow::started(&mut shadow, end, p);
            ends.start(end, job, p);
            epoch.start(job);
        }
        if shadow.is_some() && epoch.free() == 0 {
            break;
        }
    }
}

/// Which waiting jobs classic EASY may start now: those that fit in the
/// free processors and leave the head its start.
struct Backfillable {
    free: u32,
    shadow: Option<Shadow>,
    now: Time,
    /// The same test on a subtree's bounds, on 32 bits: at most `free` and
    /// either at most `spare` wide or at most `short` long, where a job
    /// that ends by the shadow time is never longer than `short`.
    short: u32,
    spare: u32,
}

impl Backfillable {
    fn new(free: u32, shadow: Option<Shadow>, now: Time) -> Self {
        let (short, spare) = shadow.map_or((u32::MAX, u32::MAX), |s| {
            let short = if s.at == Time::MAX {
                Time::MAX
            } else {
                s.at.saturating_sub(now)
            };
            let clamp = |v: Time| v.clamp(0, Time::from(u32::MAX)) as u32;
            (clamp(short), s.spare.min(u64::from(u32::MAX)) as u32)
        });
        Backfillable {
            free,
            shadow,
            now,
            short,
            spare,
        }
    }
}

impl JobTest for Backfillable {
    fn job(&mut self, p: u32, d: Time) -> bool {
        p <= self.free && Shadow::allows(self.shadow, self.now, p, d)
    }

    fn bound(&mut self, p: u32, d: u32) -> bool {
        (p <= self.free) & ((d <= self.short) | (p <= self.spare))
    }
}

/// Classic EASY (one reservation) over the whole queue in arrival order,
/// kept in `queue`, planned on the running jobs' ends alone: the same
/// starts and reservation as [`backfill_pass`] on the profile. The head
/// jobs start while they fit; the first that does not takes the shadow
/// time, the first end by which enough processors are free; then each
/// search finds the first later job that fits now and either ends by the
/// shadow time or leaves the head its processors there.
fn shadow_pass(epoch: &mut Epoch<'_>, ends: &mut RunningEnds, queue: &mut WaitingQueue) {
    let now = epoch.state.now;
    let mut from = 0;
    let mut shadow: Option<Shadow> = None;
    while let Some((job, at_position)) = queue.first(from, Anyone) {
        from = at_position + 1;
        let info = epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let free = epoch.free();
        if p <= free {
            ends.start(now.saturating_add(d), job, p);
            epoch.start(job);
            queue.remove(job, at_position);
            continue;
        }
        let s = Shadow::of(ends, free, p);
        epoch.reserve(job, s.at);
        shadow = Some(s);
        break;
    }
    while epoch.free() > 0 {
        let fits = Backfillable::new(epoch.free(), shadow, now);
        let Some((job, at_position)) = queue.first(from, fits) else {
            break;
        };
        from = at_position + 1;
        let info = epoch.state.jobs[job as usize];
        let end = now.saturating_add(info.estimate);
        Shadow::started(&mut shadow, end, info.procs);
        ends.start(end, job, info.procs);
        epoch.start(job);
        queue.remove(job, at_position);
    }
    queue.settle();
}

/// Classic EASY in LXF or SJF order, with the same starts and reservation
/// as a walk of the sorted queue ([`shadow_walk`]), without sorting it:
/// the first jobs start while they fit, taken from the head; the first
/// that does not takes the shadow time. Then only the jobs that fit now
/// and leave the head its start may backfill; as jobs start, fewer
/// processors are left and no other job comes to fit, so those jobs,
/// found in the arrival-order queue's tree and put in queue order, are
/// all the walk would start, tested again in turn.
fn ranked_shadow_pass(epoch: &mut Epoch<'_>, ends: &mut RunningEnds, mut kept: Kept<'_>) {
    let (now, jobs) = (epoch.state.now, epoch.state.jobs);
    kept.head.advance(jobs, now);
    let mut shadow: Option<Shadow> = None;
    while let Some(job) = kept.head.first() {
        let info = jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let free = epoch.free();
        if p <= free {
            ends.start(now.saturating_add(d), job, p);
            epoch.start(job);
            kept.head.remove(job, jobs, now);
            kept.queue.remove(job, kept.queue.position(job));
            continue;
        }
        let s = Shadow::of(ends, free, p);
        epoch.reserve(job, s.at);
        shadow = Some(s);
        break;
    }
    if shadow.is_some() && epoch.free() > 0 {
        start_in_queue_order(
            &mut ShadowBackfill {
                epoch,
                ends,
                shadow,
            },
            &mut kept,
            jobs,
            now,
        );
    }
    kept.queue.settle();
}

/// Classic EASY in fairshare order on a long queue, with the same starts
/// and reservation as a walk of the sorted queue ([`shadow_walk`]): the
/// first jobs start while they fit, read in order from the users' queues;
/// the first that does not takes the shadow time; then the jobs that fit
/// now and leave the head its start have their turns in fairshare order
/// ([`FairBackfill::backfill`]).
fn fair_shadow_pass(
    epoch: &mut Epoch<'_>,
    ends: &mut RunningEnds,
    kept: &mut FairBackfill,
    ledger: &mut UsageLedger,
) {
    let (now, jobs) = (epoch.state.now, epoch.state.jobs);
    let mut shadow: Option<Shadow> = None;
    kept.walk_front(ledger, jobs, now, |job| {
        let info = jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let free = epoch.free();
        if p <= free {
            ends.start(now.saturating_add(d), job, p);
            epoch.start(job);
            return Front::Started;
        }
        let s = Shadow::of(ends, free, p);
        epoch.reserve(job, s.at);
        shadow = Some(s);
        Front::Last
    });
    if shadow.is_some() && epoch.free() > 0 {
        let mut pass = ShadowBackfill {
            epoch,
            ends,
            shadow,
        };
        kept.backfill(&mut pass, ledger, jobs, now);
    }
}

/// EASY with more than one reservation in fairshare order on a long
/// queue, with the same starts and reservations as [`backfill_pass`] on
/// the sorted queue: read in order from the users' queues, jobs start or
/// take reservations until `depth` are held; then the jobs that fit now
/// have their turns in fairshare order ([`FairBackfill::backfill`]).
fn fair_queue_pass(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    (kept, ledger): (&mut FairBackfill, &mut UsageLedger),
    depth: u32,
) {
    let (now, jobs) = (epoch.state.now, epoch.state.jobs);
    let mut reserved = 0;
    kept.walk_front(ledger, jobs, now, |job| {
        let info = jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let (at, ends) = live.profile().earliest_start_near(p, d, now);
        if at == now {
            live.start_near(now, d, p, ends);
            epoch.start(job);
            return Front::Started;
        }
        live.reserve_near(at, d, p, ends);
        epoch.reserve(job, at);
        reserved += 1;
        if reserved < depth {
            Front::Stays
        } else {
            Front::Last
        }
    });
    if epoch.free() > 0 {
        // The jobs holding reservations do not fit now: their earliest
        // start was later, before they held theirs.
        let mut pass = ProfileBackfill {
            epoch,
            live,
            asked: Vec::new(),
        };
        kept.backfill(&mut pass, ledger, jobs, now);
    }
    live.end_epoch();
}

/// Classic EASY's backfilling after the shadow time is set, one job at a
/// time.
struct ShadowBackfill<'e, 'a> {
    epoch: &'e mut Epoch<'a>,
    ends: &'e mut RunningEnds,
    shadow: Option<Shadow>,
}

impl Pass for ShadowBackfill<'_, '_> {
    type Fits<'p>
        = Backfillable
    where
        Self: 'p;

    fn fits(&self) -> Backfillable {
        Backfillable::new(self.epoch.free(), self.shadow, self.epoch.state.now)
    }

    fn turn(&mut self, job: JobIdx) -> Turn {
        let (free, now) = (self.epoch.free(), self.epoch.state.now);
        if free == 0 {
            return Turn::Done;
        }
        let info = self.epoch.state.jobs[job as usize];
        if info.procs > free || !Shadow::allows(self.shadow, now, info.procs, info.estimate) {
            return Turn::Passed;
        }
        let end = now.saturating_add(info.estimate);
        Shadow::started(&mut self.shadow, end, info.procs);
        self.ends.start(end, job, info.procs);
        self.epoch.start(job);
        Turn::Started
    }
}

/// Whether a job of `p` for `d` fits in `profile` at `now`, asked as until
/// when `p` stay free: one search per width, kept in `asked`, answers every
/// estimate (a tree's search asks about many subtrees). Valid while the
/// profile does not change.
fn fits_by_free_until(
    asked: &mut Vec<(u32, Option<Time>)>,
    profile: &Profile,
    (p, d): (u32, Time),
    now: Time,
) -> bool {
    let until = match asked.iter().find(|&&(q, _)| q == p) {
        Some(&(_, until)) => until,
        None => {
            let until = profile.free_until(p, now);
            asked.push((p, until));
            until
        }
    };
    until.is_some_and(|end| now.saturating_add(d) <= end)
}

/// [`backfill_pass`] over the whole queue in arrival order, kept in
/// `queue`, with more than one reservation: the same starts and
/// reservations, in the same order. Up to `depth` reservations are made
/// walking from the head; then each search finds the first later job that
/// fits now.
fn own_queue_pass(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    queue: &mut WaitingQueue,
    depth: u32,
) {
    own_queue_walk(epoch, live, queue, depth);
    live.end_epoch();
    queue.settle();
}

/// [`own_queue_pass`] leaving its reservations on `live` and its queue's
/// gaps open, for a pass that goes on over other jobs (the starvation
/// queue's, see `starving.rs`).
pub(super) fn own_queue_walk(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    queue: &mut WaitingQueue,
    depth: u32,
) {
    let now = epoch.state.now;
    let mut from = 0;
    let mut reserved = 0;
    while reserved < depth {
        let Some((job, at_position)) = queue.first(from, Anyone) else {
            break;
        };
        from = at_position + 1;
        let info = epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let (at, ends) = live.profile().earliest_start_near(p, d, now);
        if at == now {
            live.start_near(now, d, p, ends);
            epoch.start(job);
            queue.remove(job, at_position);
        } else {
            live.reserve_near(at, d, p, ends);
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
                fits_by_free_until(&mut free_until, profile, (p, d), now)
            } else {
                profile.fits(p, d, now)
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
}

/// [`backfill_pass`] in LXF or SJF order with more than one reservation,
/// with the same starts and reservations, without sorting the queue: the
/// jobs are read in queue order from the head, each starting now or taking
/// a reservation, until `depth` are held. Every later job then starts only
/// if it fits now; starts only take processors, so no job comes to fit
/// during the pass, and the jobs that fit at its start, found in the
/// arrival-order queue's tree and put in queue order, are all the walk
/// would start, tested again in turn.
fn ranked_queue_pass(
    epoch: &mut Epoch<'_>,
    live: &mut LiveProfile,
    mut kept: Kept<'_>,
    depth: u32,
) {
    let (now, jobs) = (epoch.state.now, epoch.state.jobs);
    kept.head.advance(jobs, now);
    kept.found.clear();
    let mut reserved = 0;
    for job in kept.head.in_order(jobs, now, kept.head_read) {
        if reserved >= depth {
            break;
        }
        let info = jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        let (at, ends) = live.profile().earliest_start_near(p, d, now);
        if at == now {
            live.start_near(now, d, p, ends);
            epoch.start(job);
            kept.found.push((job, kept.queue.position(job)));
        } else {
            live.reserve_near(at, d, p, ends);
            epoch.reserve(job, at);
            reserved += 1;
        }
    }
    for &(job, at) in kept.found.iter() {
        kept.head.remove(job, jobs, now);
        kept.queue.remove(job, at);
    }
    if epoch.free() > 0 {
        // The jobs holding reservations do not fit now: their earliest
        // start was later, before they held theirs.
        let mut pass = ProfileBackfill {
            epoch,
            live,
            asked: Vec::new(),
        };
        start_in_queue_order(&mut pass, &mut kept, jobs, now);
    }
    live.end_epoch();
    kept.queue.settle();
}

/// Backfilling on the profile after the reservations are made, one job at
/// a time.
pub(super) struct ProfileBackfill<'e, 'a> {
    pub epoch: &'e mut Epoch<'a>,
    pub live: &'e mut LiveProfile,
    /// Per width asked, until when that many stay free, until the next
    /// start.
    pub asked: Vec<(u32, Option<Time>)>,
}

/// Whether a job fits in the free processors and in the profile now.
pub(super) struct FitsNow<'p> {
    free: u32,
    profile: &'p Profile,
    now: Time,
    /// Per width asked, until when that many stay free: a job fits now
    /// when it ends by then.
    asked: Vec<(u32, Option<Time>)>,
}

impl JobTest for FitsNow<'_> {
    fn job(&mut self, p: u32, d: Time) -> bool {
        p <= self.free && fits_by_free_until(&mut self.asked, self.profile, (p, d), self.now)
    }
}

impl Pass for ProfileBackfill<'_, '_> {
    type Fits<'p>
        = FitsNow<'p>
    where
        Self: 'p;

    fn fits(&self) -> FitsNow<'_> {
        FitsNow {
            free: self.epoch.free(),
            profile: self.live.profile_ref(),
            now: self.epoch.state.now,
            asked: Vec::new(),
        }
    }

    fn may_fit(&mut self, procs: u32, estimate: u32) -> bool {
        let (free, now) = (self.epoch.free(), self.epoch.state.now);
        procs <= free
            && fits_by_free_until(
                &mut self.asked,
                self.live.profile_ref(),
                (procs, Time::from(estimate)),
                now,
            )
    }

    fn turn(&mut self, job: JobIdx) -> Turn {
        let (free, now) = (self.epoch.free(), self.epoch.state.now);
        if free == 0 {
            return Turn::Done;
        }
        let info = self.epoch.state.jobs[job as usize];
        let (p, d) = (info.procs, info.estimate);
        if p > free || !self.live.profile().fits(p, d, now) {
            return Turn::Passed;
        }
        self.live.start(now, d, p);
        self.epoch.start(job);
        self.asked.clear();
        Turn::Started
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
            let (at, ends) = live.profile().earliest_start_near(p, d, now);
            if at == now {
                live.start_near(now, d, p, ends);
                epoch.start(job);
            } else {
                live.reserve_near(at, d, p, ends);
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
    use crate::policy::testing::{assert_same_plans, model_at, EVENT_MODES};

    proptest::proptest! {
        /// The 32-bit test of a subtree's bounds passes every job the
        /// exact test passes, extreme times included.
        #[test]
        fn backfillable_bounds_pass_every_job_that_fits(
            free in 0..300u32,
            shadow in proptest::option::of((extreme_time(), 0..400u64)),
            now in extreme_time(),
            p in 1..400u32,
            d in extreme_time(),
        ) {
            let shadow = shadow.map(|(at, spare)| Shadow { at: at.max(now), spare });
            let mut test = Backfillable::new(free, shadow, now);
            if test.job(p, d) {
                proptest::prop_assert!(test.bound(p, d.clamp(0, Time::from(u32::MAX)) as u32));
            }
        }
    }

    fn extreme_time() -> impl proptest::strategy::Strategy<Value = Time> {
        use proptest::prelude::*;
        prop_oneof![
            0..100_000i64,
            prop::sample::select(vec![
                0,
                Time::from(u32::MAX) - 1,
                Time::from(u32::MAX),
                Time::from(u32::MAX) + 1,
                1 << 62,
                Time::MAX - 1,
                Time::MAX,
            ]),
        ]
    }

    /// FCFS EASY walking the core's waiting list, as every other order does.
    fn walking(depth: u32) -> Easy {
        Easy {
            own_queue: None,
            ..Easy::new(Order::Fcfs, depth)
        }
    }

    /// Stress shapes of `jobs` model jobs: a small machine with a queue of
    /// thousands (offered load above 1), thousands of narrow jobs at once
    /// on a big one, and short queues at load 0.8.
    fn shapes(jobs: usize, seed: u64) -> Vec<(String, crate::workload::Workload)> {
        [(128, None, 1.3), (4096, Some(16), 1.2), (256, None, 0.8)]
            .into_iter()
            .map(|(procs, widest, load)| {
                let w = model_at((jobs, procs, widest, None), seed, load);
                (format!("{procs} procs, load {load}"), w)
            })
            .collect()
    }

    /// Classic EASY planned on the profile, as every deeper EASY is.
    struct OnProfile {
        rank: Ranker,
        live: LiveProfile,
        queue: Vec<JobIdx>,
    }

    impl Policy for OnProfile {
        fn name(&self) -> String {
            "easy-on-profile".into()
        }

        fn schedule(&mut self, epoch: &mut Epoch<'_>) {
            self.live.sync(&epoch.state);
            if epoch.state.waiting.is_empty() || epoch.state.free == 0 {
                return;
            }
            let queue = self.rank.queue(&epoch.state, &mut self.queue);
            backfill_pass(epoch, &mut self.live, queue, queue.len(), 1);
        }
    }

    /// Classic EASY on the running jobs' ends gives the schedule and the
    /// reservations of EASY on the profile: in every order, event mode and
    /// shape (a small machine with a long queue, thousands of narrow jobs
    /// at once on a big one, short queues).
    #[test]
    fn classic_easy_on_ends_plans_as_on_the_profile() {
        for (shape, w) in shapes(3000, 11) {
            for events in EVENT_MODES {
                for order in [Order::Fcfs, Order::Lxf, Order::Sjf] {
                    let mut on_profile = OnProfile {
                        rank: Ranker::new(order),
                        live: LiveProfile::new(),
                        queue: Vec::new(),
                    };
                    let mut on_ends = Easy::new(order, 1);
                    let what = format!("{shape}, {events}, {order}");
                    assert_same_plans(&w, (&mut on_ends, &mut on_profile), events, &what);
                }
            }
        }
    }

    /// More than one reservation in LXF and SJF order: the head read in
    /// order and the arrival-order queue's tree give the sorted walk's
    /// schedule and reservations, in every shape and event mode.
    #[test]
    fn ranked_queue_gives_the_sorted_walks_schedule() {
        for (shape, w) in shapes(3000, 5) {
            for events in EVENT_MODES {
                for order in [Order::Lxf, Order::Sjf] {
                    for depth in [2, 4] {
                        let mut ranked = Easy::new(order, depth);
                        assert!(ranked.head.is_some() && ranked.own_queue.is_some());
                        let mut sorted = Easy {
                            own_queue: None,
                            head: None,
                            ..Easy::new(order, depth)
                        };
                        let what = format!("{shape}, {events}, {order}, depth {depth}");
                        assert_same_plans(&w, (&mut ranked, &mut sorted), events, &what);
                    }
                }
            }
        }
    }

    /// EASY in fairshare order on its kept queue gives the schedule and
    /// reservations of the walk of the sorted queue, with one reservation
    /// and with several, with users, in every event mode, on long and
    /// short queues (short for unit tests: every path is taken).
    #[test]
    fn fair_queue_gives_the_sorted_walks_schedule() {
        use crate::policy::fairshare::Decay;
        for (procs, load) in [(128, 1.3), (256, 0.8), (64, 2.0)] {
            let w = model_at((3000, procs, None, Some(16)), 7, load);
            for events in EVENT_MODES {
                for depth in [1, 4] {
                    let fairshare = Order::Fairshare(Decay::CPLANT);
                    let mut kept = Easy::new(fairshare, depth);
                    assert!(kept.fair.is_some() && !kept.reads_waiting());
                    let mut sorting = Easy {
                        fair: None,
                        ..Easy::new(fairshare, depth)
                    };
                    let what = format!("{procs} procs, load {load}, {events}, depth {depth}");
                    assert_same_plans(&w, (&mut kept, &mut sorting), events, &what);
                }
            }
        }
    }

    /// Queues of thousands (offered load above 1) on a small machine and on
    /// a big one with narrow jobs, short ones on a machine at load 0.8: the
    /// own queue, a list or a tree by its length, gives the walk's schedule
    /// and reservations, in every event mode.
    #[test]
    fn own_queue_gives_the_walks_schedule() {
        for (shape, w) in shapes(4000, 3) {
            for events in EVENT_MODES {
                for depth in [1, 4] {
                    let mut own = Easy::new(Order::Fcfs, depth);
                    assert!(own.own_queue.is_some());
                    let what = format!("{shape}, {events}, depth {depth}");
                    assert_same_plans(&w, (&mut own, &mut walking(depth)), events, &what);
                }
            }
        }
    }
}
