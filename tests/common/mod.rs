//! Helpers shared by the integration tests.
#![allow(dead_code)]

use goalc::policy::PolicySpec;
use goalc::sim::{simulate, Outcome, SimOptions};
use goalc::workload::{swf, Job, SwfHeader, SwfRecord, Time, Workload};
use std::path::PathBuf;

/// A tiny workload from (submit, runtime, estimate, procs) tuples; job
/// numbers are 1, 2, ... in the order given.
pub fn tiny(procs: u32, jobs: &[(Time, Time, Time, u32)]) -> Workload {
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, &(submit, runtime, estimate, p))| {
            let mut r = SwfRecord::unknown();
            r.job_number = i as i64 + 1;
            r.submit = submit;
            r.run_time = runtime;
            r.requested_time = estimate;
            r.requested_procs = p as i64;
            r.allocated_procs = p as i64;
            swf::job_from_record(&r, procs).expect("valid tiny job")
        })
        .collect::<Vec<Job>>();
    Workload::new("tiny", procs, SwfHeader::default(), jobs)
}

/// Runs a named policy with auditing on.
pub fn run(w: &Workload, policy: &str) -> Outcome {
    let spec: PolicySpec = policy.parse().expect("policy name");
    let mut p = spec.build();
    simulate(w, p.as_mut(), SimOptions { audit: true }).expect("simulation")
}

/// Start times of jobs in workload order (None for rejected jobs).
pub fn starts(o: &Outcome) -> Vec<Time> {
    o.runs
        .iter()
        .map(|r| r.map(|r| r.start).unwrap_or(-1))
        .collect()
}

/// The reference traces: every .swf / .swf.gz in $GOALC_TRACES, sorted.
/// Empty when the variable is unset.
pub fn reference_traces() -> Vec<PathBuf> {
    let Some(dir) = std::env::var_os("GOALC_TRACES") else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("GOALC_TRACES={}: {e}", PathBuf::from(&dir).display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".swf") || n.ends_with(".swf.gz")
        })
        .collect();
    v.sort();
    v
}
