//! One GREEDY fitness evaluation, as `goalc train` makes 10,500 of them:
//! the greedy schedule of the training workload and its owner objective.
//!
//! The workload is the paper's: CTC-SP2 (430 batch processors) scaled to
//! 1,024 processors (about 133,000 jobs), from `$GOALC_TRACES`; without it,
//! a 100,000-job model workload on 1,024 processors with 200 synthetic
//! users stands in, so the bench always runs. Criteria: f2 and f1 with the
//! middle of the training box, and f2 with parameters drawn at random in it
//! (fixed seed), since training evaluates anywhere in the box.
//!
//! Run with `GOALC_TRACES=../shared/traces cargo bench --bench greedy`.

use criterion::{criterion_group, criterion_main, Criterion};
use goalc::measures::owner::OwnerObjective;
use goalc::policy::greedy::Family;
use goalc::run::scale::{scale_to_machine, ScaleSpec};
use goalc::train::greedy::GreedyTraining;
use goalc::workload::groups::Bands;
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::Workload;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const CTC: &str = "CTC-SP2-1996-3.1-cln.swf.gz";

fn scaled_ctc() -> Option<Workload> {
    let path = PathBuf::from(std::env::var_os("GOALC_TRACES")?).join(CTC);
    if !path.exists() {
        return None;
    }
    let w = read_path(
        &path,
        &ReadOptions {
            procs: Some(430),
            ..ReadOptions::default()
        },
    )
    .expect("trace");
    Some(
        scale_to_machine(&w, &ScaleSpec::new(1024))
            .expect("scaling")
            .workload,
    )
}

fn workload() -> (String, Workload) {
    match scaled_ctc() {
        Some(w) => ("CTC-SP2@1024".into(), w),
        None => {
            eprintln!("GOALC_TRACES unset or {CTC} missing: using a model workload");
            let mut w = generate(&ModelParams {
                jobs: 100_000,
                procs: 1024,
                seed: 1,
                widest: None,
                users: None,
            })
            .expect("model");
            // The model has no users; a skewed draw of 200 gives every
            // group members.
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            for j in &mut w.jobs {
                let u: f64 = rng.gen();
                j.user = 1 + (200.0 * u * u * u) as i64;
            }
            ("model-100k".into(), w)
        }
    }
}

fn evaluation(c: &mut Criterion) {
    let (name, w) = workload();
    let mut g = c.benchmark_group("greedy_eval");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for (label, family, random) in [
        ("f2-middle", Family::F2, false),
        ("f2-random", Family::F2, true),
        ("f1-middle", Family::F1, false),
    ] {
        let t = GreedyTraining::new(
            [family; 3],
            Bands::paper(),
            OwnerObjective::paper(),
            std::slice::from_ref(&w),
        )
        .expect("training");
        let x: Vec<f64> = t
            .bounds()
            .0
            .iter()
            .map(|&(lo, hi)| {
                let u: f64 = if random { rng.gen() } else { 0.5 };
                lo + u * (hi - lo)
            })
            .collect();
        eprintln!("{name}/{label}: objective {:.1}", t.fitness(&x));
        g.bench_function(format!("{name}/{label}"), |b| {
            b.iter(|| t.fitness(black_box(&x)))
        });
    }
    g.finish();
}

criterion_group!(benches, evaluation);
criterion_main!(benches);
