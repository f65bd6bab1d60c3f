//! FAIR's hybrid fair start time measure on the paper's workload: the
//! Sandia Ross (CPlant) trace from 2002-12-01 to 2003-07-14 inclusive
//! (about 13,000 jobs), simulated once under the CPlant policy
//! (`fairshare-starvation:24h:all`) outside the timed part. Without
//! `$GOALC_TRACES` (or without that trace in it), a 13,000-job model
//! workload (with 64 synthetic users) stands in, so the bench always runs.
//!
//! Run with `GOALC_TRACES=../shared/traces cargo bench --bench fairness`.

use chrono::NaiveDate;
use criterion::{criterion_group, criterion_main, Criterion};
use goalc::measures::fairness::fairness;
use goalc::policy::fairshare::Decay;
use goalc::policy::PolicySpec;
use goalc::sim::{realized, simulate, Outcome, SimOptions};
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{window, Window};
use goalc::workload::Workload;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const ROSS: &str = "Sandia-Ross-2001-1.1-cln.swf.gz";

/// The FAIR paper's period of the Ross trace, or `None` without the trace.
fn ross_period() -> Option<Workload> {
    let dir = std::env::var_os("GOALC_TRACES")?;
    let path = PathBuf::from(dir).join(ROSS);
    if !path.exists() {
        return None;
    }
    let w = read_path(&path, &ReadOptions::default()).expect("trace");
    let unix_start = w
        .header
        .unix_start_time
        .expect("UnixStartTime in the header");
    let first = w.jobs.first().expect("jobs").submit;
    // Offsets from the first submit, as a window takes them.
    let offset = |y, m, d| {
        NaiveDate::from_ymd_opt(y, m, d)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .expect("date")
            .and_utc()
            .timestamp()
            - unix_start
            - first
    };
    let win = Window {
        start: offset(2002, 12, 1),
        end: offset(2003, 7, 15),
        warmup: 0,
        cooldown: 0,
    };
    Some(window(&w, win).expect("window"))
}

fn workload() -> (String, Workload) {
    match ross_period() {
        Some(w) => ("Ross-2002-12..2003-07".into(), w),
        None => {
            eprintln!("GOALC_TRACES unset or {ROSS} missing: using a model workload");
            let mut w = generate(&ModelParams {
                jobs: 13_000,
                procs: 1024,
                seed: 1,
                widest: None,
                users: None,
            })
            .expect("model");
            // The model has no users; 64 of them make fairshare matter.
            for j in &mut w.jobs {
                j.user = 1 + (j.number * 7919) % 64;
            }
            ("model-13k".into(), w)
        }
    }
}

fn fair_start(c: &mut Criterion) {
    let (name, w) = workload();
    let spec: PolicySpec = "fairshare-starvation:24h:all".parse().expect("policy");
    let o: Outcome =
        simulate(&w, spec.build().as_mut(), SimOptions::default()).expect("simulation");
    let w = realized(&w, &o).into_owned();
    let f = fairness(&w, &o, Decay::default());
    eprintln!(
        "{name}: {} jobs on {} processors under {spec}; {} measured ran, {:.1}% late, \
         average miss {:.0} s",
        w.jobs.len(),
        w.procs,
        f.jobs,
        f.pct_late,
        f.avg_miss
    );
    let mut g = c.benchmark_group("fairness");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    g.bench_function(format!("{name}/fst"), |b| {
        b.iter(|| fairness(black_box(&w), black_box(&o), Decay::default()))
    });
    g.finish();
}

criterion_group!(benches, fair_start);
criterion_main!(benches);
