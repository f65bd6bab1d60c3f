//! Backfilling in LXF or SJF order without sorting the queue: the jobs
//! that may start now, started in queue order.
//!
//! Starts only take processors, so a job that does not fit at a pass's
//! start never comes to fit during it, and a walk of the sorted queue
//! starts exactly the jobs that fit at the start, in queue order, each
//! tested again at its turn. Usually few fit: they are found in the
//! arrival-order queue's tree ([`WaitingQueue`]) and sorted. On a queue
//! where thousands fit while few processors are free (an overloaded
//! machine of narrow jobs), finding and sorting them all at every epoch
//! cost the queue's length each time, and nearly all of them were tested
//! in vain. Past [`FOUND_AT_MOST`] found, the queue is read instead in
//! order from its tournament ([`Head::in_order`]), which stops when
//! nothing is free; and if that reading passes over [`PASSED_AT_MOST`]
//! jobs that cannot start, the rest are found and sorted after all, so
//! that no pass costs much more than it did.

use super::waiting::{JobTest, Position};
use super::WaitingQueue;
use crate::policy::head::Head;
use crate::sim::{JobIdx, JobInfo};
use crate::workload::Time;

/// Jobs found that may start, past which the queue is read in order.
/// Unit tests take every path on small workloads: their policies are
/// checked against walks of the sorted queue.
const FOUND_AT_MOST: usize = if cfg!(test) { 3 } else { 256 };

/// Jobs read in order that could not start, past which the rest are found.
const PASSED_AT_MOST: usize = if cfg!(test) { 5 } else { 256 };

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

    /// Starts `job` if it may start now.
    fn turn(&mut self, job: JobIdx) -> Turn;
}

/// Gives every waiting job that may start now its turn, in `head`'s order
/// at `now`, and takes the jobs started out of the queues: what a walk of
/// the sorted queue would start. `head` must be advanced to `now`.
pub(super) fn start_in_queue_order(
    pass: &mut impl Pass,
    kept: Kept<'_>,
    jobs: &[JobInfo],
    now: Time,
) {
    let Kept {
        queue,
        head,
        found,
        head_read,
    } = kept;
    if find(queue, &mut pass.fits(), FOUND_AT_MOST, found) {
        sort_and_start(pass, (queue, head), jobs, now, found);
        return;
    }
    found.clear();
    let mut passed = 0;
    let mut rest = false;
    for job in head.in_order(jobs, now, head_read) {
        match pass.turn(job) {
            Turn::Started => found.push((job, 0)),
            Turn::Passed => {
                passed += 1;
                if passed > PASSED_AT_MOST {
                    rest = true;
                    break;
                }
            }
            Turn::Done => break,
        }
    }
    for &(job, _) in found.iter() {
        head.remove(job, jobs, now);
        queue.remove(job, queue.position(job));
    }
    if rest {
        // Every job read has started or cannot: the jobs found now all
        // come after them in queue order.
        find(queue, &mut pass.fits(), usize::MAX, found);
        sort_and_start(pass, (queue, head), jobs, now, found);
    }
}

/// Into `found`, in arrival order with their positions, the jobs of
/// `queue` that pass `fits`; false when there are more than `most`.
fn find(
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
    (queue, head): (&mut WaitingQueue, &mut Head),
    jobs: &[JobInfo],
    now: Time,
    found: &mut [(JobIdx, Position)],
) {
    found.sort_by(|a, b| head.cmp(a.0, b.0, jobs, now));
    for &(job, at) in found.iter() {
        match pass.turn(job) {
            Turn::Started => {
                head.remove(job, jobs, now);
                queue.remove(job, at);
            }
            Turn::Passed => {}
            Turn::Done => break,
        }
    }
}
