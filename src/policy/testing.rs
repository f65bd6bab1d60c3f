//! What the policies' tests share: model workloads at a given offered load
//! and the event modes.

use crate::sim::{simulate, EventMode, JobIdx, JobInfo, Policy, Running, SimOptions, State};
use crate::workload::model::{generate, ModelParams};
use crate::workload::transform::scale_load_by_arrivals;
use crate::workload::Time;
use crate::workload::Workload;
use std::collections::BTreeSet;

/// Every way the core turns a second's events into epochs.
pub(crate) const EVENT_MODES: [EventMode; 3] = [
    EventMode::PerInstant,
    EventMode::SubmissionsFirst,
    EventMode::CompletionsFirst,
];

/// `jobs` model jobs on `procs` processors, at most `widest` wide, of
/// `users` users, at offered load `load` (above 1 the queue grows long).
pub(crate) fn model_at(
    (jobs, procs, widest, users): (usize, u32, Option<u32>, Option<u32>),
    seed: u64,
    load: f64,
) -> Workload {
    let w = generate(&ModelParams {
        jobs,
        procs,
        seed,
        widest,
        users,
    })
    .expect("model");
    scale_load_by_arrivals(&w, load).expect("load")
}

/// An epoch's state at `now` on `procs` processors with `free` of them
/// free, in which nothing arrived or finished.
pub(crate) fn state_at<'a>(
    (now, procs, free): (Time, u32, u32),
    jobs: &'a [JobInfo],
    waiting: &'a [JobIdx],
    running: &'a BTreeSet<Running>,
    epoch: u64,
) -> State<'a> {
    State {
        now,
        procs,
        free,
        jobs,
        waiting,
        running,
        arrived: &[],
        finished: &[],
        speedups: &[],
        epoch,
    }
}

/// An unaudited run in `events` mode.
pub(crate) fn unaudited(events: EventMode) -> SimOptions {
    SimOptions {
        audit: false,
        events,
    }
}

/// Runs `a` and `b` on `w`, audited, in `events` mode, and asserts that
/// they start the same jobs at the same times and hold the same
/// reservations; `what` names the case in a failure.
pub(crate) fn assert_same_plans(
    w: &Workload,
    (a, b): (&mut dyn Policy, &mut dyn Policy),
    events: EventMode,
    what: &str,
) {
    let opts = SimOptions {
        audit: true,
        events,
    };
    let a = simulate(w, a, opts).expect("first policy");
    let b = simulate(w, b, opts).expect("second policy");
    assert_eq!(a.runs, b.runs, "{what}");
    let (ra, rb) = (a.audit.expect("audit"), b.audit.expect("audit"));
    assert_eq!(ra.reservations, rb.reservations, "{what}");
}
