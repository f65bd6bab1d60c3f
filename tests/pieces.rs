//! Runs cut into pieces simulated at once (`goalc::sim::simulate_cut_at`)
//! give the whole run's outcome, bit for bit, for every baseline: on model
//! workloads of different loads and machine shapes, and on the reference
//! traces when `$GOALC_TRACES` names them. The pieces must also really
//! meet, or the test would only check that a whole run equals itself.

mod common;
use common::{model_at_load as model, reference_traces};
use goalc::policy::fairshare::Decay;
use goalc::policy::{all_baselines, Dispatch, Order, PolicySpec};
use goalc::sim::{simulate, simulate_cut_at, simulate_in_pieces, Policy, SimOptions};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::Workload;
use rayon::prelude::*;

/// Cuts at the given fractions of the jobs, each moved to a new submit time.
fn cuts(w: &Workload, fractions: &[f64]) -> Vec<usize> {
    let n = w.jobs.len();
    let mut v: Vec<usize> = fractions
        .iter()
        .map(|f| {
            let mut at = (f * n as f64) as usize;
            while at < n && w.jobs[at].submit == w.jobs[at - 1].submit {
                at += 1;
            }
            at
        })
        .filter(|&at| at < n)
        .collect();
    v.dedup();
    v
}

/// The whole run and the cut one of `spec` on `w`: equal outcomes; returns
/// how many pieces the cut one used.
fn compare(w: &Workload, spec: PolicySpec, fractions: &[f64]) -> usize {
    let opts = SimOptions::default();
    let whole = simulate(w, spec.build().as_mut(), opts).expect("whole run");
    let at = cuts(w, fractions);
    let mut policies: Vec<Box<dyn Policy>> = (0..=at.len()).map(|_| spec.build()).collect();
    let cut = simulate_cut_at(w, &mut policies, opts, &at).expect("cut run");
    assert_eq!(cut.outcome, whole, "{spec} on {} cut at {at:?}", w.name);
    cut.pieces
}

fn every_baseline() -> Vec<PolicySpec> {
    let mut v = all_baselines();
    v.push(PolicySpec::new(Dispatch::Conservative, Order::Sjf));
    v
}

#[test]
fn cut_model_runs_are_whole_runs_for_every_baseline() {
    let workloads = [
        model(6_000, 128, None, 0.5, 5),
        model(6_000, 128, None, 0.7, 1),
        model(6_000, 128, None, 0.95, 2),
        model(6_000, 1024, Some(64), 1.1, 3),
        model(4_000, 64, None, 0.85, 4),
    ];
    let cases: Vec<_> = workloads
        .iter()
        .flat_map(|w| every_baseline().into_iter().map(move |s| (w, s)))
        .flat_map(|(w, s)| [vec![0.5], vec![0.3, 0.6, 0.8]].map(|f| (w, s, f)))
        .collect();
    let met: Vec<(String, usize)> = cases
        .par_iter()
        .map(|(w, s, f)| (s.to_string(), compare(w, *s, f)))
        .collect();
    // Every policy that forgets with an empty queue meets somewhere: at
    // load 0.7 the queue empties often.
    for spec in every_baseline() {
        let forgets = spec.build().forgets_with_empty_queue();
        let best = met
            .iter()
            .filter(|(name, _)| *name == spec.to_string())
            .map(|(_, p)| *p)
            .max();
        if forgets {
            assert!(best > Some(1), "{spec}: the pieces never met");
        } else {
            assert_eq!(best, Some(1), "{spec} keeps state: it must run whole");
        }
    }
}

#[test]
fn a_policy_with_memory_runs_whole() {
    let w = model(5_000, 128, None, 0.7, 1);
    let spec = PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fairshare(Decay::CPLANT));
    assert!(!spec.build().forgets_with_empty_queue());
    assert_eq!(compare(&w, spec, &[0.5]), 1);
}

/// The reference traces under EASY and conservative backfilling, cut in
/// two and in three: the same outcome, and on at least half of the traces
/// the pieces meet.
#[test]
fn cut_reference_runs_are_whole_runs() {
    let traces = reference_traces();
    if traces.is_empty() {
        eprintln!("GOALC_TRACES is not set: no reference trace cut");
        return;
    }
    let specs = [
        PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fcfs),
        PolicySpec::new(Dispatch::Conservative, Order::Fcfs),
    ];
    for path in &traces {
        let w = read_path(path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let met: Vec<usize> = specs
            .par_iter()
            .flat_map(|s| [vec![0.5], vec![0.33, 0.66]].map(|f| (*s, f)))
            .map(|(s, f)| compare(&w, s, &f))
            .collect();
        assert!(
            met.iter().any(|&p| p > 1),
            "{}: no piece met ({met:?})",
            path.display()
        );
    }
}

/// `simulate_in_pieces` as `goalc simulate` calls it: whether it cuts
/// depends on how fast the start ran, but the outcome may not.
#[test]
fn the_run_on_all_cores_is_the_whole_run() {
    let w = model(30_000, 128, None, 0.9, 6);
    for spec in [
        PolicySpec::new(Dispatch::Conservative, Order::Fcfs),
        PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Lxf),
    ] {
        let opts = SimOptions::default();
        let whole = simulate(&w, spec.build().as_mut(), opts).expect("whole run");
        let mut policies: Vec<Box<dyn Policy>> = (0..8).map(|_| spec.build()).collect();
        let cut = simulate_in_pieces(&w, &mut policies, 2, opts).expect("cut run");
        assert_eq!(cut, whole, "{spec}");
    }
}
