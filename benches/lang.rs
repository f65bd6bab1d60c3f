//! Cost of turning goal text into policies: parse + check + compile of every
//! file in `goals/` (files read once, outside the timed part).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use goalc::lang::check_text;
use std::hint::black_box;

fn goals(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/goals");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("goals/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "goal"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).expect("goal file"),
            )
        })
        .collect();
    files.sort();
    let mut g = c.benchmark_group("lang");
    g.throughput(Throughput::Elements(files.len() as u64));
    g.bench_function("parse+check+compile goals/", |b| {
        b.iter(|| {
            files
                .iter()
                .filter(|(name, text)| check_text(black_box(name), black_box(text)).goal.is_some())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, goals);
criterion_main!(benches);
