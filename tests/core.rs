//! The simulation core enforces its rules whatever the policy does, and is
//! deterministic.

mod common;
use common::tiny;
use goalc::policy::{all_baselines, PolicySpec};
use goalc::sim::{
    simulate, Epoch, EventMode, JobIdx, JobInfo, Policy, SimError, SimOptions, State,
};
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::Time;

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

/// `inner`, but asking the core to keep the running set.
struct KeepsRunning(Box<dyn Policy>);
impl Policy for KeepsRunning {
    fn name(&self) -> String {
        self.0.name()
    }
    fn admit(&mut self, job: JobIdx, state: &State<'_>) -> bool {
        self.0.admit(job, state)
    }
    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        self.0.schedule(epoch)
    }
    fn reads_waiting(&self) -> bool {
        self.0.reads_waiting()
    }
    fn reads_running(&self) -> bool {
        true
    }
    fn job_started(&mut self, job: JobIdx, jobs: &[JobInfo], now: Time) {
        self.0.job_started(job, jobs, now)
    }
    fn job_finished(&mut self, job: JobIdx, jobs: &[JobInfo], now: Time) {
        self.0.job_finished(job, jobs, now)
    }
}

/// The baselines that say they do not read the running set (most do not)
/// schedule exactly as when the core keeps it for them, in every event
/// mode: what they keep of the running jobs themselves is all they use.
#[test]
fn policies_that_skip_the_running_set_schedule_as_with_it() {
    let workloads = [
        common::model_at_load(4_000, 128, None, 0.7, 1),
        common::model_at_load(4_000, 128, None, 0.95, 2),
        common::model_at_load(4_000, 4096, Some(16), 1.1, 3),
    ];
    let mut skipping = 0;
    for spec in all_baselines() {
        if spec.build().reads_running() {
            continue;
        }
        skipping += 1;
        for w in &workloads {
            for events in [
                EventMode::PerInstant,
                EventMode::SubmissionsFirst,
                EventMode::CompletionsFirst,
            ] {
                let opts = SimOptions {
                    events,
                    ..SimOptions::default()
                };
                let alone = simulate(w, spec.build().as_mut(), opts).unwrap();
                let kept = simulate(w, &mut KeepsRunning(spec.build()), opts).unwrap();
                assert_eq!(alone, kept, "{spec} on {} ({events})", w.name);
            }
        }
    }
    assert!(
        skipping >= 6,
        "only {skipping} baselines skip the running set"
    );
}

/// Records the largest running set it was shown.
struct Probe {
    reads: bool,
    largest: usize,
}
impl Policy for Probe {
    fn name(&self) -> String {
        "probe".into()
    }
    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        self.largest = self.largest.max(epoch.state.running.len());
        for &job in epoch.state.waiting {
            if epoch.state.jobs[job as usize].procs <= epoch.free() {
                epoch.start(job);
            }
        }
    }
    fn reads_running(&self) -> bool {
        self.reads
    }
}

/// The set is kept for a policy that reads it and for the per-event modes
/// (whose second starts from it), and left empty otherwise (but in builds
/// with debug assertions, whose policies check what they keep against it).
#[test]
fn the_running_set_is_kept_only_where_it_is_read() {
    let w = common::model_at_load(1_000, 64, None, 0.8, 4);
    let largest = |reads, events| {
        let mut probe = Probe { reads, largest: 0 };
        let opts = SimOptions {
            events,
            ..SimOptions::default()
        };
        simulate(&w, &mut probe, opts).unwrap();
        probe.largest
    };
    assert!(largest(true, EventMode::PerInstant) > 10);
    assert!(largest(false, EventMode::SubmissionsFirst) > 10);
    let skipped = largest(false, EventMode::PerInstant);
    if cfg!(debug_assertions) {
        assert!(skipped > 10);
    } else {
        assert_eq!(skipped, 0);
    }
}
