//! Cost of one admission decision (QoPS, MSB, MRT; EDF heuristic) against
//! reserved schedules of 10, 100 and 1000 jobs on a 128-processor machine.
//!
//! The instances are random but seeded: running jobs on three quarters of
//! the machine, then reserved jobs placed in EDF order of tentative
//! deadlines, each given its real deadline at its completion plus a random
//! slack (uniform up to 4 h, or up to 24 h), so that the existing schedule
//! is feasible. The new job's deadline leaves room to append it, so it is
//! admissible (MSB and QoPS always admit it); MRT, which rebuilds the whole
//! schedule, runs out of backtracks with 1000 jobs and 4 h slacks, and that
//! rejection is what is timed there (the bench prints every decision).
//! Building the instance is outside the timed part.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use goalc::policy::admission::mrt::Mrt;
use goalc::policy::admission::msb::Msb;
use goalc::policy::admission::qops::Qops;
use goalc::policy::admission::{by_start, place, Admission, Heuristic, Pending, Reserved};
use goalc::sim::Profile;
use goalc::workload::Time;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;

const PROCS: u32 = 128;
const NOW: Time = 1_000_000;

struct Instance {
    base: Profile,
    reserved: Vec<Reserved>,
    new: Pending,
}

/// A job width as in real traces: mostly small powers of two.
fn width(rng: &mut ChaCha8Rng) -> u32 {
    let p = 1 << rng.gen_range(0..=6);
    if rng.gen_bool(0.2) {
        rng.gen_range(1..=p)
    } else {
        p
    }
}

fn instance(n: usize, slack: Time, seed: u64) -> Instance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut base = Profile::new(PROCS, NOW);
    // Running jobs filling most of the machine for up to two hours.
    let mut busy = 0;
    while busy < PROCS * 3 / 4 {
        let p = width(&mut rng).min(PROCS - busy);
        base.allocate(NOW, rng.gen_range(60..7200), p);
        busy += p;
    }
    let mut jobs: Vec<Pending> = (0..n as u32)
        .map(|job| {
            let estimate = rng.gen_range(60..14_400);
            Pending {
                job,
                submit: NOW - rng.gen_range(0..86_400),
                procs: width(&mut rng),
                estimate,
                // Tentative, for the EDF order only.
                deadline: NOW + estimate * rng.gen_range(2..20),
            }
        })
        .collect();
    Heuristic::Edf.sort(NOW, &mut jobs);
    let mut profile = base.clone();
    let mut reserved = Vec::with_capacity(n);
    place(NOW, &mut profile, &jobs, &mut reserved);
    for r in &mut reserved {
        r.job.deadline = r.start + r.job.estimate + rng.gen_range(0..slack);
    }
    by_start(&mut reserved);
    let procs = 16;
    let estimate = 3600;
    let append = profile.earliest_start(procs, estimate, NOW);
    let new = Pending {
        job: n as u32,
        submit: NOW,
        procs,
        estimate,
        deadline: append + estimate + 3600,
    };
    Instance {
        base,
        reserved,
        new,
    }
}

fn algorithms() -> Vec<Box<dyn Admission>> {
    vec![
        Box::new(Qops::new(Heuristic::Edf, 5)),
        Box::new(Msb::new(Heuristic::Edf)),
        Box::new(Mrt::new(Heuristic::Edf, 10)),
    ]
}

fn decision(c: &mut Criterion) {
    let mut g = c.benchmark_group("admission");
    for (label, slack) in [("slack4h", 4 * 3600), ("slack24h", 24 * 3600)] {
        for n in [10, 100, 1000] {
            let inst = instance(n, slack, 42 + n as u64);
            if n >= 1000 {
                g.sample_size(10).measurement_time(Duration::from_secs(10));
            } else {
                g.sample_size(50).measurement_time(Duration::from_secs(5));
            }
            for mut algo in algorithms() {
                let admitted = algo
                    .admit(NOW, &inst.base, &inst.reserved, inst.new)
                    .is_some();
                eprintln!(
                    "{} with {n} reserved, {label}: {}",
                    algo.name(),
                    if admitted { "admits" } else { "rejects" }
                );
                let id = BenchmarkId::new(format!("{}/{label}", algo.name()), n);
                g.bench_with_input(id, &inst, |b, inst| {
                    b.iter(|| {
                        black_box(algo.admit(
                            black_box(NOW),
                            black_box(&inst.base),
                            black_box(&inst.reserved),
                            black_box(inst.new),
                        ))
                    })
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, decision);
criterion_main!(benches);
