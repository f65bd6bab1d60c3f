//! Backfilling in LXF or SJF order without sorting the queue: the jobs
//! that may start now, started in queue order.
//!
//! Starts only take processors, so a job that does not fit at a pass's
//! start never comes to fit during it, and a walk of the sorted queue
//! starts exactly the jobs that fit at the start, in queue order, each
//! tested again at its turn. Usually few fit: they are found in the
//! arrival-order queue's tree ([`WaitingQueue`]) and sorted. On a queue
//! where thousands fit while few processors are free (an overloaded
//! machine, a burst of narrow jobs), finding and sorting them all at every
//! epoch cost the queue's length each time, and nearly all of them were
//! tested in vain. Past [`FOUND_AT_MOST`] found (when the head keeps its
//! width classes, as it does for long queues), the queue is read instead
//! in order from its tournament, only the jobs whose bounds may fit what
//! is still free ([`Head::narrow_in_order`]), until nothing is; if that
//! reading passes [`READ_AT_MOST`] nodes, the rest are found and sorted
//! after all, so that no pass costs much more than it did.

use super::waiting::{JobTest, Position};
use super::WaitingQueue;
use crate::policy::head::Head;
use crate::policy::order::ranked_cmp;
use crate::sim::{JobIdx, JobInfo};
use crate::workload::Time;

/// Jobs found that may start, past which the queue is read in order.
/// Unit tests take every path on small workloads: their policies are
/// checked against walks of the sorted queue.
pub(super) const FOUND_AT_MOST: usize = if cfg!(test) { 3 } else { 256 };

/// Nodes of the tournament read, past which the rest are found.
const READ_AT_MOST: usize = if cfg!(test) { 40 } else { 4096 };

/// What backfilling in LXF or SJF order keeps from epoch to epoch, besides
/// its plan.
pub(super) struct Kept<'a> {
    /// The waiting jobs in arrival order.
    pub queue: &'a mut WaitingQueue,
    /// The waiting jobs in queue order.
    pub head: &'a mut Head,
    /// Scratch space: the jobs found that may start, with their positions.
    pub found: &'a mut Vec<(JobIdx, Position)>,
    /// Scratch space for reading `head` in order: the jobs read.
    pub head_read: &'a mut Vec<JobIdx>,
}

/// A job's turn in a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Turn {
    /// It started.
    Started,
    /// It cannot start now.
    Passed,
    /// Nothing more can start in this pass; the job was not tested.
    Done,
}

/// One pass of a backfilling policy over the jobs that may start now.
pub(super) trait Pass {
    /// The test, as of now, that every job that may start now passes
    /// (see [`JobTest`]).
    type Fits<'p>: JobTest
    where
        Self: 'p;

    fn fits(&self) -> Self::Fits<'_>;

    /// Whether a job as narrow as `procs` and as short as `estimate`
    /// (`u32::MAX`: that long or longer) may start now: the test of a
    /// subtree's bounds, as [`JobTest::bound`].
    fn may_fit(&mut self, procs: u32, estimate: u32) -> bool {
        self.fits().bound(procs, estimate)
    }

    /// Starts `job` if it may start now.
    fn turn(&mut self, job: JobIdx) -> Turn;
}

/// Gives every waiting job that may start now its turn, in `head`'s order
/// at `now`, and takes the jobs started out of the queues: what a walk of
/// the sorted queue would start. `head` must be advanced to `now`.
pub(super) fn start_in_queue_order(
    pass: &mut impl Pass,
    kept: &mut Kept<'_>,
    jobs: &[JobInfo],
    now: Time,
) {
    let (queue, head) = (&mut *kept.queue, &mut *kept.head);
    let (found, head_read) = (&mut *kept.found, &mut *kept.head_read);
    let most = if head.by_class() {
        FOUND_AT_MOST
    } else {
        usize::MAX
    };
    if find(queue, &mut pass.fits(), most, found) {
        let lxf = head.lxf();
        sort_and_start(pass, (queue, Some(head)), (jobs, now, lxf), found);
        return;
    }
    found.clear();
    let mut reader = head.narrow_in_order(jobs, now, head_read, READ_AT_MOST);
    while let Some(job) = reader.next_fitting(&mut MayFit(pass)) {
        match pass.turn(job) {
            Turn::Started => found.push((job, 0)),
            Turn::Passed => {}
            Turn::Done => break,
        }
    }
    let rest = reader.stopped();
    for &(job, _) in found.iter() {
        head.remove(job, jobs, now);
        queue.remove(job, queue.position(job));
    }
    if rest {
        // Jobs before the last one read were passed, started or too wide:
        // found again, they cannot start.
        find(queue, &mut pass.fits(), usize::MAX, found);
        let lxf = head.lxf();
        sort_and_start(pass, (queue, Some(head)), (jobs, now, lxf), found);
    }
}

/// [`start_in_queue_order`] for a queue kept without a head (too short to
/// be worth one): the jobs that may start are found and sorted.
/// `lxf`: the order is LXF, else SJF.
pub(super) fn start_sorted(
    pass: &mut impl Pass,
    queue: &mut WaitingQueue,
    found: &mut Vec<(JobIdx, Position)>,
    (jobs, now, lxf): (&[JobInfo], Time, bool),
) {
    find(queue, &mut pass.fits(), usize::MAX, found);
    sort_and_start(pass, (queue, None), (jobs, now, lxf), found);
}

/// A pass's [`Pass::may_fit`] as a test of bounds.
struct MayFit<'p, P>(&'p mut P);

impl<P: Pass> JobTest for MayFit<'_, P> {
    fn job(&mut self, procs: u32, estimate: Time) -> bool {
        let estimate = estimate.clamp(0, Time::from(u32::MAX)) as u32;
        self.0.may_fit(procs, estimate)
    }

    fn bound(&mut self, procs: u32, estimate: u32) -> bool {
        self.0.may_fit(procs, estimate)
    }
}

/// Into `found`, in arrival order with their positions, the jobs of
/// `queue` that pass `fits`; false when there are more than `most`.
pub(super) fn find(
    queue: &WaitingQueue,
    fits: &mut impl JobTest,
    most: usize,
    found: &mut Vec<(JobIdx, Position)>,
) -> bool {
    found.clear();
    let mut from = 0;
    while let Some((job, at)) = queue.first_by(from, fits) {
        if found.len() == most {
            return false;
        }
        found.push((job, at));
        from = at + 1;
    }
    true
}

/// Gives the jobs `found` their turns in `head`'s order.
fn sort_and_start(
    pass: &mut impl Pass,
    (queue, mut head): (&mut WaitingQueue, Option<&mut Head>),
    (jobs, now, lxf): (&[JobInfo], Time, bool),
    found: &mut [(JobIdx, Position)],
) {
    found.sort_by(|a, b| ranked_cmp(lxf, now, jobs, a.0, b.0));
    for &(job, at) in found.iter() {
        match pass.turn(job) {
            Turn::Started => {
                if let Some(head) = head.as_deref_mut() {
                    head.remove(job, jobs, now);
                }
                queue.remove(job, at);
            }
            Turn::Passed => {}
            Turn::Done => break,
        }
    }
}
