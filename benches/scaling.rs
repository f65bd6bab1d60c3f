//! How the cost of a whole simulation grows, one dimension at a time, for
//! every baseline, on the built-in model (no download needed):
//!
//! - `jobs`: 10k, 100k and 1M jobs on a fixed 128-processor machine;
//! - `machine`: 128 to 131,072 processors with 20,000 jobs at most 16 wide
//!   and the arrival rate scaled with the machine (offered load 0.9), so
//!   that on the big machines thousands of jobs run at once;
//! - `queue`: a 1,024-processor machine at offered loads 0.7 to 1.0, so the
//!   waiting queue grows from a handful of jobs to thousands;
//! - `wide`: 1,024 to 262,144 processors with 20,000 jobs of the model's
//!   own widths (up to the whole machine) at offered load 0.95, so a long
//!   queue of wide jobs waits on a big machine.
//!
//! A cost that is linear in jobs and flat in machine size shows as a
//! constant time per job (criterion's throughput) along each group. The
//! workloads are generated outside the timed part.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use goalc::policy::{all_baselines, PolicySpec};
use goalc::sim::{simulate, SimOptions};
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::transform::scale_load_by_arrivals;
use goalc::workload::Workload;
use std::hint::black_box;
use std::time::Duration;

fn model(jobs: usize, procs: u32, widest: Option<u32>, load: Option<f64>) -> Workload {
    let w = generate(&ModelParams {
        jobs,
        procs,
        seed: 1,
        widest,
        users: None,
    })
    .expect("model");
    match load {
        Some(l) => scale_load_by_arrivals(&w, l).expect("load"),
        None => w,
    }
}

fn run(w: &Workload, spec: PolicySpec) -> u64 {
    let mut p = spec.build();
    simulate(w, p.as_mut(), SimOptions::default())
        .expect("simulation")
        .epochs
}

/// One group: every baseline on every workload of the dimension.
fn group(c: &mut Criterion, name: &str, workloads: &[(String, Workload)]) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (label, w) in workloads {
        g.throughput(Throughput::Elements(w.jobs.len() as u64));
        for spec in all_baselines() {
            g.bench_with_input(BenchmarkId::new(spec.to_string(), label), w, |b, w| {
                b.iter(|| run(black_box(w), spec))
            });
        }
    }
    g.finish();
}

fn jobs(c: &mut Criterion) {
    let ws: Vec<(String, Workload)> = [10_000, 100_000, 1_000_000]
        .into_iter()
        .map(|n| (format!("{n}"), model(n, 128, None, None)))
        .collect();
    group(c, "scaling_jobs", &ws);
}

fn machine(c: &mut Criterion) {
    let ws: Vec<(String, Workload)> = [128, 1024, 8192, 131_072]
        .into_iter()
        .map(|p| (format!("{p}"), model(20_000, p, Some(16), Some(0.9))))
        .collect();
    group(c, "scaling_machine", &ws);
}

fn queue(c: &mut Criterion) {
    let ws: Vec<(String, Workload)> = [0.7, 0.85, 1.0]
        .into_iter()
        .map(|l| (format!("load={l}"), model(20_000, 1024, None, Some(l))))
        .collect();
    group(c, "scaling_queue", &ws);
}

fn wide(c: &mut Criterion) {
    let ws: Vec<(String, Workload)> = [1024, 16_384, 262_144]
        .into_iter()
        .map(|p| (format!("{p}"), model(20_000, p, None, Some(0.95))))
        .collect();
    group(c, "scaling_wide", &ws);
}

criterion_group!(benches, jobs, machine, queue, wide);
criterion_main!(benches);
