//! Invariants every simulated schedule must satisfy, checked from the
//! outcome alone so that they hold whatever the policy did.

use super::{Outcome, Run};
use crate::workload::{Time, Workload};
use std::collections::HashMap;

/// Checks the invariants every policy must keep: each admitted job starts
/// exactly once, never before its submit time, and runs for its simulated
/// run time; the machine is never over-committed. Returns every violation
/// found (at most a few per kind), so a failing test says what went wrong.
pub fn check_schedule(w: &Workload, o: &Outcome) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    if o.runs.len() != w.jobs.len() {
        errors.push(format!(
            "{} outcomes for {} jobs",
            o.runs.len(),
            w.jobs.len()
        ));
        return Err(errors);
    }
    // A follow-on chunk is submitted exactly when its predecessor ends (the
    // workload must be the realized one, see `sim::realized`).
    if w.jobs.iter().any(|j| j.follows.is_some()) {
        let ends: HashMap<i64, Option<Time>> = w
            .jobs
            .iter()
            .zip(&o.runs)
            .map(|(j, r)| (j.number, r.map(|r| r.end)))
            .collect();
        for (job, run) in w.jobs.iter().zip(&o.runs) {
            let Some(prev) = job.follows else { continue };
            match (ends.get(&prev).copied().flatten(), run) {
                (Some(end), Some(_)) if end != job.submit => errors.push(format!(
                    "chunk {} submitted at {} but job {prev} ended at {end}",
                    job.number, job.submit
                )),
                (None, Some(_)) => errors.push(format!(
                    "chunk {} ran although job {prev} before it did not",
                    job.number
                )),
                _ => {}
            }
        }
    }
    let mut events: Vec<(Time, i64)> = Vec::with_capacity(2 * w.jobs.len());
    for (job, run) in w.jobs.iter().zip(&o.runs) {
        let Some(Run { start, end }) = *run else {
            continue;
        };
        if start < job.submit {
            errors.push(format!(
                "job {} starts at {start} before its submit {}",
                job.number, job.submit
            ));
        }
        // A run reaching past the largest time ends there.
        if end != start.saturating_add(job.sim_runtime()) {
            errors.push(format!(
                "job {} ran {} s, expected {}",
                job.number,
                end - start,
                job.sim_runtime()
            ));
        }
        // Ends sort before starts at the same instant: a job may start the
        // moment another ends.
        events.push((start, job.procs as i64));
        events.push((end, -(job.procs as i64)));
    }
    events.sort_unstable();
    let mut used = 0i64;
    for (t, delta) in events {
        used += delta;
        if used > w.procs as i64 {
            errors.push(format!(
                "{used} processors in use at {t} on a {}-processor machine",
                w.procs
            ));
            break;
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(20);
        Err(errors)
    }
}

/// Checks that a job's reservation only ever moved earlier and that the job
/// started no later than its last one. Needs an audited run. This is the
/// EASY guarantee (backfilling never delays a reserved job) for policies
/// whose reserved jobs keep their reservation until they start, as under
/// FCFS order; under a dynamic order a job may lose its reservation to
/// another and get a later one back, which this check would report.
pub fn check_reservations_kept(o: &Outcome) -> Result<(), Vec<String>> {
    let audit = o
        .audit
        .as_ref()
        .ok_or_else(|| vec!["run was not audited".to_string()])?;
    let mut errors = Vec::new();
    let mut last: HashMap<u32, Time> = HashMap::new();
    for r in &audit.reservations {
        if let Some(&prev) = last.get(&r.job) {
            if r.at > prev {
                errors.push(format!(
                    "job index {} reservation moved later, from {prev} to {} at {}",
                    r.job, r.at, r.now
                ));
            }
        }
        last.insert(r.job, r.at);
    }
    for (job, at) in last {
        match o.runs[job as usize] {
            Some(run) if run.start > at => errors.push(format!(
                "job index {job} started at {} after its reservation at {at}",
                run.start
            )),
            None => errors.push(format!("job index {job} held a reservation but never ran")),
            _ => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.sort();
        errors.truncate(20);
        Err(errors)
    }
}

/// Checks that no job started later than the first reservation it was
/// given: conservative backfilling's guarantee when estimates are exact.
pub fn check_first_reservation_kept(o: &Outcome) -> Result<(), Vec<String>> {
    let audit = o
        .audit
        .as_ref()
        .ok_or_else(|| vec!["run was not audited".to_string()])?;
    let mut first: HashMap<u32, Time> = HashMap::new();
    for r in &audit.reservations {
        first.entry(r.job).or_insert(r.at);
    }
    let mut errors: Vec<String> = first
        .into_iter()
        .filter_map(|(job, at)| match o.runs[job as usize] {
            Some(run) if run.start <= at => None,
            Some(run) => Some(format!(
                "job index {job} started at {} after its first reservation at {at}",
                run.start
            )),
            None => Some(format!("job index {job} held a reservation but never ran")),
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        errors.sort();
        errors.truncate(20);
        Err(errors)
    }
}
