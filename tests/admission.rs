//! Admission control keeps its promise: with exact run times, every
//! admitted job completes by its deadline, under every algorithm, on many
//! random small workloads and on a slice of every reference trace.

mod common;
use goalc::policy::admission::{AdmissionSpec, Algorithm, Heuristic};
use goalc::run::deadlines::{synthesize, DeadlineSpec};
use goalc::sim::invariants::check_schedule;
use goalc::sim::{simulate, SimOptions};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{duplicate_load, exact_estimates, first_jobs};
use goalc::workload::{Job, Workload};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

fn specs() -> Vec<AdmissionSpec> {
    let mut v = Vec::new();
    for heuristic in [Heuristic::Edf, Heuristic::Llf] {
        for algorithm in [
            Algorithm::Qops { k: 5 },
            Algorithm::Msb,
            Algorithm::Mrt { backtracks: 10 },
        ] {
            v.push(AdmissionSpec {
                algorithm,
                heuristic,
            });
        }
    }
    v
}

/// Runs `spec` and checks the promise; returns (admitted, rejected).
fn check(w: &Workload, spec: &AdmissionSpec) -> (usize, usize) {
    let mut p = spec.build();
    let o = simulate(w, &mut p, SimOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
    check_schedule(w, &o).unwrap_or_else(|e| panic!("{} {spec}: {e:?}", w.name));
    let mut admitted = 0;
    for (job, run) in w.jobs.iter().zip(&o.runs) {
        if let Some(r) = run {
            admitted += 1;
            let deadline = job.deadline.expect("every job has a deadline");
            assert!(
                r.end <= deadline,
                "{} {spec}: job {} ends at {} after its deadline {deadline}",
                w.name,
                job.number,
                r.end
            );
        }
    }
    (admitted, w.jobs.len() - admitted)
}

/// A random small workload with exact run times.
fn random_workload(seed: u64) -> Workload {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let procs = rng.gen_range(4..=32u32);
    let n = rng.gen_range(5..=40usize);
    let mut t = 0;
    let jobs: Vec<(i64, i64, i64, u32)> = (0..n)
        .map(|_| {
            t += rng.gen_range(0..600);
            let run = rng.gen_range(1..3000);
            (t, run, run, rng.gen_range(1..=procs))
        })
        .collect();
    common::tiny(procs, &jobs)
}

#[test]
fn admitted_jobs_meet_their_deadlines_on_random_workloads() {
    let mut total = (0, 0);
    for seed in 0..300u64 {
        let w = random_workload(seed);
        let spec = DeadlineSpec {
            stringency: [0.0, 0.2, 0.5, 0.8][(seed % 4) as usize],
            share: [1.0, 0.8, 0.2][(seed % 3) as usize],
            relaxation: 2.0,
            seed,
        };
        let w = synthesize(&w, &spec).unwrap();
        for s in specs() {
            let (a, r) = check(&w, &s);
            total.0 += a;
            total.1 += r;
        }
    }
    // Both outcomes occur, so the test exercises admission and rejection.
    assert!(total.0 > 1000 && total.1 > 100, "{total:?}");
}

#[test]
fn admitted_jobs_meet_their_deadlines_on_every_reference_trace() {
    let traces = common::reference_traces();
    if traces.is_empty() {
        eprintln!("GOALC_TRACES is not set: admission is not checked on the reference traces");
        return;
    }
    traces.par_iter().for_each(|path| {
        let w = read_path(path, &ReadOptions::default()).unwrap();
        let w = duplicate_load(&first_jobs(&exact_estimates(&w), 400), 1.4, 1).unwrap();
        let w = synthesize(
            &w,
            &DeadlineSpec {
                stringency: 0.2,
                share: 0.8,
                relaxation: 5.0,
                seed: 1,
            },
        )
        .unwrap();
        for s in specs() {
            check(&w, &s);
        }
    });
}

#[test]
fn deadline_synthesis_follows_the_paper() {
    // Trace B of hand_schedules.rs under EASY: responses 100, 199, 351, 250.
    let w = common::trace_b();
    let all = synthesize(
        &w,
        &DeadlineSpec {
            stringency: 0.5,
            share: 1.0,
            relaxation: 2.0,
            seed: 1,
        },
    )
    .unwrap();
    // Deadline = submit + max(run, (1 - S) * response), rounded up.
    let deadlines: Vec<i64> = all.jobs.iter().map(|j: &Job| j.deadline.unwrap()).collect();
    assert_eq!(deadlines, vec![100, 1 + 100, 2 + 176, 3 + 250]);
    assert!(all.jobs.iter().all(|j| j.deadline_job));
    // No deadline jobs: max(24h, R * run).
    let none = synthesize(
        &w,
        &DeadlineSpec {
            stringency: 0.5,
            share: 0.000_001,
            relaxation: 2.0,
            seed: 1,
        },
    )
    .unwrap();
    assert!(none
        .jobs
        .iter()
        .all(|j| !j.deadline_job && j.deadline == Some(j.submit + 86_400)));
}
