//! The simulation core enforces its rules whatever the policy does, and is
//! deterministic.

mod common;
use common::tiny;
use goalc::policy::PolicySpec;
use goalc::sim::{simulate, Epoch, Policy, SimError, SimOptions};
use goalc::workload::model::{generate, ModelParams};

/// Starts every waiting job, fitting or not.
struct Greedy;
impl Policy for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        for &job in epoch.state.waiting {
            epoch.start(job);
        }
    }
}

/// Never starts anything.
struct Idle;
impl Policy for Idle {
    fn name(&self) -> String {
        "idle".into()
    }
    fn schedule(&mut self, _: &mut Epoch<'_>) {}
}

/// Starts jobs only at multiples of 100 s, asking to be woken for them.
struct Batched;
impl Policy for Batched {
    fn name(&self) -> String {
        "batched".into()
    }
    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let now = epoch.now();
        if now % 100 != 0 {
            epoch.wake_at(now - now % 100 + 100);
            return;
        }
        for &job in epoch.state.waiting {
            if epoch.state.jobs[job as usize].procs <= epoch.free() {
                epoch.start(job);
            }
        }
    }
}

/// Rejects jobs wider than half the machine.
struct Picky;
impl Policy for Picky {
    fn name(&self) -> String {
        "picky".into()
    }
    fn admit(&mut self, job: u32, state: &goalc::sim::State<'_>) -> bool {
        state.jobs[job as usize].procs * 2 <= state.procs
    }
    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        for &job in epoch.state.waiting {
            if epoch.state.jobs[job as usize].procs <= epoch.free() {
                epoch.start(job);
            }
        }
    }
}

#[test]
fn overcommitting_policy_is_stopped() {
    let w = tiny(4, &[(0, 10, 10, 3), (0, 10, 10, 3)]);
    let err = simulate(&w, &mut Greedy, SimOptions::default()).unwrap_err();
    assert!(matches!(err, SimError::PolicyViolation { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("needing 3 processors with 1 free at 0"),
        "{err}"
    );
}

#[test]
fn policy_that_never_starts_is_reported_stalled() {
    let w = tiny(4, &[(0, 10, 10, 3), (5, 10, 10, 1)]);
    let err = simulate(&w, &mut Idle, SimOptions::default()).unwrap_err();
    assert_eq!(
        err,
        SimError::Stalled {
            policy: "idle".into(),
            waiting: 2,
            now: 5
        }
    );
}

#[test]
fn wake_ups_give_epochs_where_no_event_falls() {
    let w = tiny(4, &[(30, 10, 10, 1), (150, 10, 10, 1)]);
    let o = simulate(&w, &mut Batched, SimOptions::default()).unwrap();
    let starts: Vec<i64> = o.runs.iter().map(|r| r.unwrap().start).collect();
    assert_eq!(starts, vec![100, 200]);
}

#[test]
fn rejected_jobs_never_run() {
    let w = tiny(4, &[(0, 10, 10, 3), (1, 10, 10, 2)]);
    let o = simulate(&w, &mut Picky, SimOptions::default()).unwrap();
    assert_eq!(o.runs[0], None);
    assert_eq!(o.runs[1].map(|r| r.start), Some(1));
    let m = goalc::measures::measure(&w, &o, Default::default());
    assert_eq!((m.jobs, m.rejected), (1, 1));
}

#[test]
fn same_inputs_give_identical_outcomes() {
    let w = generate(&ModelParams {
        jobs: 3000,
        procs: 64,
        seed: 11,
        widest: None,
        users: None,
    })
    .unwrap();
    for name in [
        "fcfs-backfill",
        "lxf-backfill",
        "conservative",
        "list",
        "no-guarantee",
    ] {
        let spec: PolicySpec = name.parse().unwrap();
        let a = simulate(&w, spec.build().as_mut(), SimOptions::default()).unwrap();
        let b = simulate(&w, spec.build().as_mut(), SimOptions::default()).unwrap();
        assert_eq!(a, b, "{name}");
    }
}
