//! Queue orders: which waiting job comes first.
//!
//! Ties always break by earlier submit, then by lower job index (arrival
//! order), as Slurm does, so every order is total and runs are deterministic.
//!
//! [`Order::Fairshare`] needs each user's usage history; a [`Ranker`] keeps
//! it, so dispatch policies sort through a `Ranker` and forward the core's
//! start and finish notices to it.

use super::fairshare::{Decay, UsageLedger};
use crate::sim::{JobIdx, JobInfo, State};
use crate::workload::Time;
use std::cmp::Ordering;
use std::fmt;

/// The queue orders of the baselines.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// First come, first served: arrival order.
    Fcfs,
    /// Largest current expansion factor first: (wait + estimate) / estimate.
    Lxf,
    /// Shortest (estimated) job first.
    Sjf,
    /// Least decayed usage of the job's user first (FAIR).
    Fairshare(Decay),
}

impl Order {
    /// Every order, fairshare with its default decay.
    pub const ALL: [Order; 4] = [
        Order::Fcfs,
        Order::Lxf,
        Order::Sjf,
        Order::Fairshare(Decay::CPLANT),
    ];

    pub fn name(self) -> &'static str {
        match self {
            Order::Fcfs => "fcfs",
            Order::Lxf => "lxf",
            Order::Sjf => "sjf",
            Order::Fairshare(_) => "fairshare",
        }
    }

    /// Sorts `queue` (given in arrival order) into this order at time `now`.
    /// Without usage history fairshare sees every user at zero usage, which
    /// is arrival order; policies use a [`Ranker`] to sort by fairshare.
    pub fn sort(self, now: Time, jobs: &[JobInfo], queue: &mut [JobIdx]) {
        match self {
            // The core hands the queue over in arrival order already.
            Order::Fcfs | Order::Fairshare(_) => {}
            Order::Lxf => queue.sort_by(|&a, &b| ranked_cmp(true, now, jobs, a, b)),
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
    /// The name; a fairshare order with other than the default decay also
    /// says which, e.g. `fairshare(half-life 7d)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Fairshare(d) if *d != Decay::CPLANT => write!(f, "fairshare({d})"),
            _ => f.write_str(self.name()),
        }
    }
}

/// Implements the core's start and finish notices of
/// [`crate::sim::Policy`] by forwarding them to the policy's [`Ranker`]
/// field, so fairshare usage accrues whatever the dispatch rule.
macro_rules! forward_usage_notices {
    ($field:ident) => {
        fn job_started(
            &mut self,
            job: $crate::sim::JobIdx,
            jobs: &[$crate::sim::JobInfo],
            now: $crate::workload::Time,
        ) {
            self.$field.job_started(job, jobs, now)
        }

        fn job_finished(
            &mut self,
            job: $crate::sim::JobIdx,
            jobs: &[$crate::sim::JobInfo],
            now: $crate::workload::Time,
        ) {
            self.$field.job_finished(job, jobs, now)
        }
    };
}
pub(crate) use forward_usage_notices;

/// A queue order with the state it needs: for fairshare, the usage ledger.
pub struct Ranker {
    order: Order,
    ledger: Option<UsageLedger>,
    keys: Vec<(f64, Time, JobIdx)>,
    last: LastOrder,
}

impl Ranker {
    pub fn new(order: Order) -> Self {
        Ranker {
            order,
            ledger: None,
            keys: Vec::new(),
            last: LastOrder::default(),
        }
    }

    pub fn order(&self) -> Order {
        self.order
    }

    /// Whether the order follows from the jobs and the time alone: the
    /// fairshare orders remember usage (see
    /// [`crate::sim::Policy::forgets_with_empty_queue`]).
    pub fn forgets(&self) -> bool {
        !matches!(self.order, Order::Fairshare(_))
    }

    /// The usage ledger, for fairshare orders (created on first use).
    pub fn ledger(&mut self, jobs: &[JobInfo]) -> Option<&mut UsageLedger> {
        let Order::Fairshare(decay) = self.order else {
            return None;
        };
        Some(
            self.ledger
                .get_or_insert_with(|| UsageLedger::new(decay, jobs)),
        )
    }

    /// The usage ledger of a fairshare order, which a kept fair queue
    /// reads; only for such an order.
    pub fn fair_ledger(&mut self, jobs: &[JobInfo]) -> &mut UsageLedger {
        self.ledger(jobs).expect("a fairshare order keeps usage")
    }

    /// Forwarded from [`crate::sim::Policy::job_started`].
    pub fn job_started(&mut self, job: JobIdx, jobs: &[JobInfo], now: Time) {
        if let Some(l) = self.ledger(jobs) {
            l.started(job, jobs[job as usize].procs, now);
        }
    }

    /// Forwarded from [`crate::sim::Policy::job_finished`].
    pub fn job_finished(&mut self, job: JobIdx, jobs: &[JobInfo], now: Time) {
        if let Some(l) = self.ledger(jobs) {
            l.finished(job, jobs[job as usize].procs, now);
        }
    }

    /// Sorts `queue` (given in arrival order) into the order at `now`.
    pub fn sort(&mut self, now: Time, jobs: &[JobInfo], queue: &mut [JobIdx]) {
        let mut keys = std::mem::take(&mut self.keys);
        match self.ledger(jobs) {
            Some(ledger) => ledger.sort(now, jobs, queue, &mut keys),
            None => self.order.sort(now, jobs, queue),
        }
        self.keys = keys;
    }

    /// The waiting queue of `state` in this order: the core's own list in
    /// arrival order, lent as it is (copying it at every epoch cost more
    /// than the rest of an FCFS run), otherwise sorted into `buf`.
    ///
    /// Every order is total (ties go by submit time, then job index), so
    /// the result does not depend on the order the queue is handed to the
    /// sort in. It is handed over in the order of the last call: from one
    /// epoch to the next few jobs change places, and the stable sort takes
    /// a nearly sorted queue in about linear time, where a queue of
    /// thousands sorted afresh at every epoch made LXF and fairshare cost
    /// grow with the queue times its logarithm.
    pub fn queue<'q>(&mut self, state: &State<'q>, buf: &'q mut Vec<JobIdx>) -> &'q [JobIdx] {
        if matches!(self.order, Order::Fcfs) {
            return state.waiting;
        }
        self.queue_of(state.waiting, (state.jobs, state.now), buf)
    }

    /// [`Ranker::queue`] of a queue the policy keeps itself (`waiting`, in
    /// any order), sorted into `buf`.
    pub fn queue_of<'q>(
        &mut self,
        waiting: &[JobIdx],
        (jobs, now): (&[JobInfo], Time),
        buf: &'q mut Vec<JobIdx>,
    ) -> &'q [JobIdx] {
        self.last.arrange(waiting, jobs.len(), buf);
        self.sort(now, jobs, buf);
        self.last.remember(buf);
        buf
    }
}

/// The order a queue was last sorted into, to start the next sort from.
#[derive(Debug, Default)]
struct LastOrder {
    jobs: Vec<JobIdx>,
    /// Per job index, as of the latest call: `call` when the job is
    /// waiting, `call + 1` once it is placed.
    mark: Vec<u64>,
    call: u64,
}

impl LastOrder {
    /// Fills `buf` with `waiting` (job indices below `jobs`): those of the
    /// last order still waiting, in that order, then the others in
    /// arrival order.
    fn arrange(&mut self, waiting: &[JobIdx], jobs: usize, buf: &mut Vec<JobIdx>) {
        if self.mark.len() != jobs {
            self.mark = vec![0; jobs];
            self.call = 0;
        }
        self.call += 2;
        let (listed, placed) = (self.call, self.call + 1);
        for &j in waiting {
            self.mark[j as usize] = listed;
        }
        buf.clear();
        for &j in self.jobs.iter().chain(waiting) {
            let mark = &mut self.mark[j as usize];
            if *mark == listed {
                *mark = placed;
                buf.push(j);
            }
        }
    }

    fn remember(&mut self, sorted: &[JobIdx]) {
        self.jobs.clear();
        self.jobs.extend_from_slice(sorted);
    }
}

/// The order of waiting jobs `a` and `b` at `now`, LXF's if `lxf`, else
/// SJF's, ties by job index: `Less` when `a` comes first ([`Order::sort`]'s
/// order).
pub(crate) fn ranked_cmp(lxf: bool, now: Time, jobs: &[JobInfo], a: JobIdx, b: JobIdx) -> Ordering {
    let (x, y) = (&jobs[a as usize], &jobs[b as usize]);
    let order = if lxf {
        lxf_cmp(now, x, y)
    } else {
        (x.estimate, x.submit).cmp(&(y.estimate, y.submit))
    };
    order.then(a.cmp(&b))
}

/// Larger expansion factor first, compared exactly in integers:
/// (wa + ea) / ea > (wb + eb) / eb  <=>  (wa + ea) * eb > (wb + eb) * ea.
fn lxf_cmp(now: Time, a: &JobInfo, b: &JobInfo) -> Ordering {
    // In 64 bits when nothing overflows (every real trace), else in 128:
    // waits and estimates near the largest time must not overflow.
    let narrow = || {
        let x = |j: &JobInfo, other: &JobInfo| {
            now.checked_sub(j.submit)?
                .checked_add(j.estimate)?
                .checked_mul(other.estimate)
        };
        Some(x(b, a)?.cmp(&x(a, b)?))
    };
    narrow()
        .unwrap_or_else(|| lxf_factors_cmp_wide(now, a, b))
        .then(a.submit.cmp(&b.submit))
}

/// [`lxf_cmp`]'s comparison of expansion factors, without the tie on
/// submit, in 128 bits: nothing overflows there.
fn lxf_factors_cmp_wide(now: Time, a: &JobInfo, b: &JobInfo) -> Ordering {
    let x = |j: &JobInfo, other: &JobInfo| {
        (i128::from(now) - i128::from(j.submit) + i128::from(j.estimate))
            * i128::from(other.estimate)
    };
    x(b, a).cmp(&x(a, b))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A job of one processor, for tests of orders.
    pub(crate) fn job(submit: Time, estimate: Time) -> JobInfo {
        JobInfo {
            submit,
            estimate,
            procs: 1,
            user: -1,
            group: -1,
            user_group: 0,
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

    /// LXF compared in 128-bit integers only, as the 64-bit path must.
    fn lxf_cmp_wide(now: Time, a: &JobInfo, b: &JobInfo) -> Ordering {
        lxf_factors_cmp_wide(now, a, b).then(a.submit.cmp(&b.submit))
    }

    /// Times small and large, near the 64-bit path's bounds and past them.
    fn any_time() -> impl proptest::strategy::Strategy<Value = Time> {
        use proptest::prelude::*;
        prop_oneof![
            0i64..5_000,
            (1i64 << 31) - 3..(1i64 << 31) + 3,
            0i64..(1i64 << 33),
            0i64..crate::workload::MAX_TIME,
        ]
    }

    proptest::proptest! {
        #[test]
        fn lxf_compares_as_in_wide_integers(
            now in any_time(),
            (sa, ea) in (any_time(), any_time()),
            (sb, eb) in (any_time(), any_time()),
        ) {
            let (a, b) = (job(sa, ea.max(1)), job(sb, eb.max(1)));
            proptest::prop_assert_eq!(lxf_cmp(now, &a, &b), lxf_cmp_wide(now, &a, &b));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(200))]
        /// Epoch after epoch, with jobs leaving the queue anywhere in it
        /// and arriving at its end, the queue sorted from the last call's
        /// order is the queue sorted afresh, in every order that sorts.
        #[test]
        fn sorting_from_the_last_order_sorts_as_afresh(
            jobs in proptest::collection::vec((0i64..50, 1i64..400, 1u32..4, 0i64..3), 1..80),
            leave in proptest::collection::vec(proptest::bool::weighted(0.3), 80),
        ) {
            let mut submit = 0;
            let jobs: Vec<JobInfo> = jobs
                .iter()
                .map(|&(gap, estimate, procs, user)| {
                    submit += gap;
                    JobInfo { procs, user, ..job(submit, estimate) }
                })
                .collect();
            let running = std::collections::BTreeSet::new();
            for order in [Order::Lxf, Order::Sjf, Order::Fairshare(Decay::CPLANT)] {
                let mut rank = Ranker::new(order);
                let (mut waiting, mut buf) = (Vec::new(), Vec::new());
                let mut next = 0;
                for (epoch, now) in (0..submit + 60).step_by(7).enumerate() {
                    let mut k = 0;
                    waiting.retain(|&j: &JobIdx| {
                        k += 1;
                        let gone = leave[(j as usize + k + epoch) % leave.len()];
                        if gone {
                            rank.job_started(j, &jobs, now);
                        }
                        !gone
                    });
                    while next < jobs.len() && jobs[next].submit <= now {
                        waiting.push(next as JobIdx);
                        next += 1;
                    }
                    let mut afresh = waiting.clone();
                    rank.sort(now, &jobs, &mut afresh);
                    let state = crate::policy::testing::state_at((now, 4, 0), &jobs, &waiting, &running, epoch as u64);
                    let sorted = rank.queue(&state, &mut buf);
                    proptest::prop_assert_eq!(sorted, &afresh[..], "{} at {}", order, now);
                }
            }
        }
    }

    #[test]
    fn sjf_orders_by_estimate() {
        let jobs = [job(0, 30), job(5, 10), job(1, 10)];
        let mut q = vec![0, 1, 2];
        Order::Sjf.sort(100, &jobs, &mut q);
        assert_eq!(q, vec![2, 1, 0]);
    }
}
