//! Cost of one scheduling epoch of goal-oriented search: a 128-processor
//! machine with running jobs, 10, 30 or 100 waiting jobs, node budgets of
//! 1000, 4000 and 64000, for A-Tradeoff(T_w:avgX) with DDS-LXF (the paper's
//! recommended policy).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use goalc::policy::objective::{Difference, Measure, Model, Objective, Reference};
use goalc::policy::search::traverse::Traversal;
use goalc::policy::search::{search_epoch, SearchSpec};
use goalc::policy::Order;
use goalc::sim::{JobIdx, JobInfo, Profile, Running, State};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

const PROCS: u32 = 128;
const NOW: i64 = 1_000_000;

/// Jobs 0..running are running (expected ends sorted), the rest wait.
fn scenario(waiting: usize) -> (Vec<JobInfo>, Vec<Running>, Vec<JobIdx>, u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(waiting as u64);
    let mut jobs = Vec::new();
    let mut running = Vec::new();
    let mut used = 0;
    // Running jobs fill 120 of 128 processors.
    while used < 120 {
        let procs = rng.gen_range(1..=16).min(120 - used);
        let start = NOW - rng.gen_range(0..20_000);
        let estimate = rng.gen_range(600..40_000) + (NOW - start);
        jobs.push(JobInfo {
            submit: start - rng.gen_range(0..5_000),
            estimate,
            procs,
            user: 1,
            group: 1,
            user_group: 0,
            deadline: None,
        });
        running.push(Running {
            expected_end: start + estimate,
            job: (jobs.len() - 1) as JobIdx,
            start,
        });
        used += procs;
    }
    running.sort();
    let mut queue = Vec::new();
    for _ in 0..waiting {
        let p: u32 = if rng.gen_bool(0.5) {
            rng.gen_range(1..=8)
        } else {
            1 << rng.gen_range(3..7)
        };
        jobs.push(JobInfo {
            submit: NOW - rng.gen_range(0..100_000),
            estimate: rng.gen_range(60..50_000),
            procs: p,
            user: 1,
            group: 1,
            user_group: 0,
            deadline: None,
        });
        queue.push((jobs.len() - 1) as JobIdx);
    }
    queue.sort_by_key(|&j| (jobs[j as usize].submit, j));
    (jobs, running, queue, PROCS - used)
}

fn epochs(c: &mut Criterion) {
    let mut g = c.benchmark_group("search_epoch");
    for waiting in [10, 30, 100] {
        let (jobs, running, queue, free) = scenario(waiting);
        let state = State {
            now: NOW,
            procs: PROCS,
            free,
            jobs: &jobs,
            waiting: &queue,
            running: &running.iter().copied().collect(),
            arrived: &[],
            finished: &[],
            speedups: &[],
            epoch: 0,
        };
        for budget in [1000, 4000, 64000] {
            let spec = SearchSpec {
                objective: Objective {
                    model: Model::Tradeoff(Reference::A),
                    measures: vec![Measure::TotalExcessiveWait, Measure::AvgSlowdown],
                    difference: Difference::Relaxed { percent: 1.0 },
                },
                traversal: Traversal::Dds,
                branch: Order::Lxf,
                budget,
                tau: 60,
            };
            let mut order = Vec::new();
            let mut profile = Profile::new(PROCS, NOW);
            g.bench_with_input(
                BenchmarkId::new(format!("waiting={waiting}"), format!("L={budget}")),
                &spec,
                |b, spec| {
                    b.iter(|| search_epoch(black_box(spec), &state, &mut order, &mut profile))
                },
            );
        }
    }
    g.finish();
}

criterion_group!(benches, epochs);
criterion_main!(benches);
