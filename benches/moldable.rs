//! One scheduling decision of the MOLD paper's iterative scheduler: the
//! paper's took "a few hundred milliseconds"; and whole runs of its
//! fair-share scheduler on machines of growing size, where each job may
//! scale to the whole machine (`moldable_fair_share_machine`: the cost
//! should not grow with the machine).
//!
//! The decisions are real ones: CTC-SP2 (from `$GOALC_TRACES`; without it
//! the built-in model on 338 processors) with run times stretched to
//! offered load 0.9 and every job moldable (A = system size, and A uniform
//! in 1-2 times the width; sigma uniform in 0-2). The whole trace is
//! simulated under the iterative scheduler once, outside the timed part,
//! keeping the queue and running jobs of every 200th decision; the
//! decisions at the median, 90th and 99th percentile of queue length are
//! then timed. Run with `GOALC_TRACES=../shared/traces cargo bench --bench
//! moldable`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use goalc::policy::moldable::{FairShare, Iterative, Planner, Queued};
use goalc::sim::{simulate, Epoch, Policy, Profile, SimOptions};
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{
    make_moldable, scale_load_by_runtimes, MoldableSpec, Parallelism, Sigma,
};
use goalc::workload::{Time, Workload};
use std::hint::black_box;
use std::path::PathBuf;

/// One decision's input.
struct Decision {
    running: Profile,
    now: Time,
    procs: u32,
    queue: Vec<Queued>,
}

/// The iterative scheduler, keeping every `every`-th decision.
struct Keep {
    inner: Iterative,
    every: u64,
    seen: u64,
    kept: Vec<Decision>,
}

impl Policy for Keep {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        if !state.waiting.is_empty() {
            self.seen += 1;
            if self.seen % self.every == 0 {
                let mut running = Profile::new(state.procs, state.now);
                state.running_profile(&mut running);
                let queue = state
                    .waiting
                    .iter()
                    .map(|&job| Queued {
                        job,
                        info: state.jobs[job as usize],
                        model: state.speedup(job).copied(),
                    })
                    .collect();
                self.kept.push(Decision {
                    running,
                    now: state.now,
                    procs: state.procs,
                    queue,
                });
            }
        }
        self.inner.schedule(epoch);
    }
}

fn rigid() -> Workload {
    let ctc = std::env::var_os("GOALC_TRACES")
        .map(|d| PathBuf::from(d).join("CTC-SP2-1996-3.1-cln.swf.gz"))
        .filter(|p| p.exists());
    match ctc {
        Some(path) => read_path(&path, &ReadOptions::default()).expect("CTC-SP2"),
        None => {
            eprintln!(
                "GOALC_TRACES unset or CTC-SP2 missing: the built-in model on 338 processors"
            );
            generate(&ModelParams {
                jobs: 20_000,
                procs: 338,
                seed: 1,
                widest: None,
                users: None,
            })
            .expect("model")
        }
    }
}

fn decisions(c: &mut Criterion) {
    let loaded = scale_load_by_runtimes(&rigid(), 0.9).expect("load");
    let mut g = c.benchmark_group("moldable_iterative_decision");
    for (label, parallelism) in [
        ("a_system", Parallelism::System),
        ("a_random", Parallelism::PAPER_RANDOM),
    ] {
        let spec = MoldableSpec {
            parallelism,
            sigma: Sigma::PAPER,
            seed: 1,
        };
        let w = make_moldable(&loaded, &spec).expect("moldable");
        let mut keep = Keep {
            inner: Iterative::new(),
            every: 200,
            seen: 0,
            kept: Vec::new(),
        };
        simulate(&w, &mut keep, SimOptions::default()).expect("simulation");
        let mut kept = keep.kept;
        kept.sort_by_key(|d| d.queue.len());
        for (pct, at) in [
            (50, kept.len() / 2),
            (90, kept.len() * 9 / 10),
            (99, kept.len() * 99 / 100),
        ] {
            let d = &kept[at.min(kept.len() - 1)];
            let id = BenchmarkId::new(label, format!("p{pct}-queue{}", d.queue.len()));
            let mut planner = Planner::default();
            g.bench_with_input(id, d, |b, d| {
                b.iter(|| black_box(planner.plan(&d.running, d.now, d.procs, &d.queue).len()))
            });
        }
    }
    g.finish();
}

/// 3,000 model jobs of up to 64 processors, moldable up to the whole
/// machine (A = system size), under fair-share limits (ObF 1, EF 0), on
/// machines of 1,024 to 131,072 processors.
fn fair_share_by_machine(c: &mut Criterion) {
    let mut g = c.benchmark_group("moldable_fair_share_machine");
    for procs in [1_024, 16_384, 131_072] {
        let rigid = generate(&ModelParams {
            jobs: 3_000,
            procs,
            seed: 1,
            widest: Some(64),
            users: None,
        })
        .expect("model");
        let spec = MoldableSpec {
            parallelism: Parallelism::System,
            sigma: Sigma::PAPER,
            seed: 1,
        };
        let w = make_moldable(&rigid, &spec).expect("moldable");
        g.bench_with_input(BenchmarkId::from_parameter(procs), &w, |b, w| {
            b.iter(|| {
                let mut policy = FairShare::new(1.0, 0.0);
                black_box(simulate(w, &mut policy, SimOptions::default()).expect("run"))
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = decisions, fair_share_by_machine
}
criterion_main!(benches);
