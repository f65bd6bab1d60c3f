//! A big machine with thousands of narrow jobs running at once: the shape
//! where planning on a profile rebuilt from every running job at every event
//! costs (events x running jobs). Every baseline's schedule is pinned by a
//! digest of all start times, so a faster profile must give the very same
//! schedules, and the invariants are checked on each.

mod common;
use common::model_at_load;
use goalc::measures::{measure, MeasureOptions};
use goalc::policy::{all_baselines, PolicySpec};
use goalc::sim::invariants::check_schedule;
use goalc::sim::{simulate, Outcome, SimOptions};
use goalc::workload::Workload;
use rayon::prelude::*;
use std::fmt::Write as _;

/// 8,192 processors, jobs at most 16 wide, offered load 1.2: thousands of
/// jobs run at once and a queue forms (`goalc generate --jobs 12000 --procs
/// 8192 --widest 16 --seed 5`, then `--load 1.2`).
fn workload() -> Workload {
    model_at_load(12_000, 8192, Some(16), 1.2, 5)
}

/// FNV-1a over every job's start and end: equal digests, equal schedules.
fn digest(o: &Outcome) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in &o.runs {
        let (s, e) = r.map_or((-1, -1), |r| (r.start, r.end));
        for b in s.to_le_bytes().into_iter().chain(e.to_le_bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[test]
fn thousands_of_running_jobs_keep_every_baseline_schedule() {
    let w = workload();
    let mut specs = all_baselines();
    for name in ["fairshare-dynamic", "fairshare-starvation:24h:all"] {
        specs.push(name.parse::<PolicySpec>().expect("policy name"));
    }
    let rows: Vec<(String, Option<Vec<String>>, usize)> = specs
        .par_iter()
        .map(|spec| {
            let mut p = spec.build();
            let o = simulate(
                &w,
                p.as_mut(),
                SimOptions {
                    audit: true,
                    ..SimOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
            let errs = check_schedule(&w, &o).err();
            let m = measure(&w, &o, MeasureOptions::default());
            let peak = peak_running(&o);
            let line = format!(
                "{:<30} schedule {:016x}  epochs {:>6}  wait avg {:>12.3}  bsld avg {:>9.4}",
                spec.to_string(),
                digest(&o),
                o.epochs,
                m.avg_wait,
                m.avg_slowdown
            );
            (line, errs, peak)
        })
        .collect();
    let mut text = String::new();
    for (line, errs, _) in &rows {
        assert!(errs.is_none(), "{line}: {errs:#?}");
        let _ = writeln!(text, "{line}");
    }
    // The shape this test is about: thousands of jobs at once under FCFS.
    let fcfs_peak = rows[0].2;
    assert!(fcfs_peak >= 1000, "only {fcfs_peak} jobs ran at once");
    insta::with_settings!({snapshot_path => "../snapshots/traces", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("big-machine-narrow-jobs", text);
    });
}

/// The most jobs running at one time.
fn peak_running(o: &Outcome) -> usize {
    let mut events: Vec<(i64, i32)> = o
        .runs
        .iter()
        .flatten()
        .flat_map(|r| [(r.start, 1), (r.end, -1)])
        .collect();
    // Ends before starts at the same second: a freed processor is reused.
    events.sort_by_key(|&(t, d)| (t, d));
    let (mut now, mut peak) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        peak = peak.max(now);
    }
    peak as usize
}

/// Admission control on the same kind of machine: QoPS, MSB and MRT keep
/// the running jobs' profile from event to event instead of rebuilding it
/// at every arrival, and must give the very same schedules (pinned), with
/// every admitted job's deadline met. The model's estimates are inexact,
/// so jobs end early and reservations move.
#[test]
fn thousands_of_running_jobs_keep_every_admission_schedule() {
    use goalc::policy::admission::{AdmissionSpec, Algorithm, Heuristic};
    use goalc::run::deadlines::{synthesize, DeadlineSpec};
    let w = model_at_load(6_000, 4096, Some(16), 2.0, 5);
    // Most jobs with the artificial deadline, which inexact estimates
    // can meet: admitted jobs then end early and reservations move.
    let spec = DeadlineSpec {
        share: 0.2,
        relaxation: 50.0,
        ..DeadlineSpec::default()
    };
    let w = synthesize(&w, &spec).expect("deadlines");
    let algorithms = [
        Algorithm::Qops { k: 5 },
        Algorithm::Msb,
        Algorithm::Mrt { backtracks: 10 },
    ];
    let rows: Vec<String> = algorithms
        .par_iter()
        .flat_map(|&algorithm| [Heuristic::Edf, Heuristic::Llf].map(|h| (algorithm, h)))
        .map(|(algorithm, heuristic)| {
            let spec = AdmissionSpec {
                algorithm,
                heuristic,
            };
            let mut p = spec.build();
            let o = simulate(&w, &mut p, SimOptions::default())
                .unwrap_or_else(|e| panic!("{spec}: {e}"));
            if let Err(errs) = check_schedule(&w, &o) {
                panic!("{spec}: {errs:#?}");
            }
            let admitted = o.runs.iter().flatten().count();
            let late = w
                .jobs
                .iter()
                .zip(&o.runs)
                .filter(|(j, r)| r.is_some_and(|r| j.deadline.is_some_and(|d| r.end > d)))
                .count();
            assert_eq!(late, 0, "{spec}: admitted jobs past their deadline");
            let m = measure(&w, &o, MeasureOptions::default());
            format!(
                "{:<16} schedule {:016x}  admitted {:>5}  peak running {:>5}  wait avg {:>10.3}",
                spec.to_string(),
                digest(&o),
                admitted,
                peak_running(&o),
                m.avg_wait
            )
        })
        .collect();
    let text = rows.join("\n") + "\n";
    insta::with_settings!({snapshot_path => "../snapshots/traces", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("big-machine-admission", text);
    });
}

/// The widest machine a trace can name (`u32::MAX` processors, jobs as
/// wide as the model draws on it, and some of the whole machine): every
/// baseline runs within bounded memory (conservative's per-width table
/// once took 16 GiB), keeps the invariants and runs every job (a waiting
/// job of `u32::MAX` processors was once taken for a queue's empty slot
/// and never started).
#[test]
fn a_machine_of_u32_max_processors_runs_every_baseline() {
    let mut w = model_at_load(400, u32::MAX, None, 1.5, 3);
    for j in w.jobs.iter_mut().step_by(37) {
        j.procs = u32::MAX;
    }
    assert!(
        w.jobs
            .iter()
            .any(|j| j.procs > 1 << 31 && j.procs < u32::MAX),
        "no job wider than 2^31"
    );
    let outcomes: Vec<(String, Outcome)> = all_baselines()
        .par_iter()
        .map(|spec| {
            let mut p = spec.build();
            let o = simulate(&w, p.as_mut(), SimOptions::default())
                .unwrap_or_else(|e| panic!("{spec}: {e}"));
            if let Err(errs) = check_schedule(&w, &o) {
                panic!("{spec}: {errs:#?}");
            }
            (spec.to_string(), o)
        })
        .collect();
    let run = |name: &str| {
        let (_, o) = outcomes.iter().find(|(n, _)| n == name).expect(name);
        digest(o)
    };
    // A queue forms, so backfilling changes the schedule, and every job
    // runs under every baseline.
    assert_ne!(run("fcfs-nobackfill"), run("fcfs-easy"));
    for (name, o) in &outcomes {
        assert_eq!(o.runs.iter().flatten().count(), w.jobs.len(), "{name}");
    }
}
