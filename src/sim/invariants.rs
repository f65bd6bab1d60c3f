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

#[cfg(test)]
mod tests {
    //! The checkers are the oracle of every policy test: each must accept a
    //! good schedule and name each kind of bad one.

    use super::*;
    use crate::sim::{Audit, Reservation};
    use crate::workload::{Job, SwfHeader};

    /// Jobs `(submit, runtime, procs)` on 4 processors, estimates exact.
    fn workload(jobs: &[(Time, Time, u32)]) -> Workload {
        let jobs = jobs
            .iter()
            .enumerate()
            .map(|(i, &(submit, runtime, procs))| Job::plain(i as i64 + 1, submit, runtime, procs))
            .collect();
        Workload::new("inv", 4, SwfHeader::default(), jobs)
    }

    fn outcome(runs: &[Option<(Time, Time)>], reservations: &[(u32, Time)]) -> Outcome {
        Outcome {
            policy: "by hand".into(),
            runs: runs
                .iter()
                .map(|r| r.map(|(start, end)| Run { start, end }))
                .collect(),
            releases: Vec::new(),
            widths: Vec::new(),
            epochs: 0,
            audit: Some(Audit {
                reservations: reservations
                    .iter()
                    .enumerate()
                    .map(|(i, &(job, at))| Reservation {
                        epoch: i as u64,
                        now: i as Time,
                        job,
                        at,
                    })
                    .collect(),
                epochs: Vec::new(),
            }),
        }
    }

    fn schedule_errors(w: &Workload, runs: &[Option<(Time, Time)>]) -> Vec<String> {
        check_schedule(w, &outcome(runs, &[]))
            .err()
            .unwrap_or_default()
    }

    #[test]
    fn a_good_schedule_passes_even_when_a_job_starts_as_another_ends() {
        let w = workload(&[(0, 10, 4), (0, 5, 4), (3, 2, 1)]);
        let runs = [Some((0, 10)), Some((10, 15)), None];
        assert_eq!(check_schedule(&w, &outcome(&runs, &[])), Ok(()));
    }

    #[test]
    fn each_broken_rule_of_a_schedule_is_named() {
        let w = workload(&[(0, 10, 3), (5, 10, 2)]);
        assert_eq!(
            schedule_errors(&w, &[Some((0, 10))]),
            ["1 outcomes for 2 jobs"]
        );
        assert_eq!(
            schedule_errors(&w, &[Some((0, 10)), Some((4, 14))]),
            [
                "job 2 starts at 4 before its submit 5",
                "5 processors in use at 4 on a 4-processor machine"
            ]
        );
        assert_eq!(
            schedule_errors(&w, &[Some((0, 9)), Some((10, 20))]),
            ["job 1 ran 9 s, expected 10"]
        );
    }

    #[test]
    fn chunks_must_follow_the_end_of_the_one_before() {
        let mut w = workload(&[(0, 10, 1), (10, 10, 1), (20, 10, 1)]);
        w.jobs[1].follows = Some(1);
        w.jobs[2].follows = Some(2);
        let good = [Some((0, 10)), Some((10, 20)), Some((20, 30))];
        assert_eq!(check_schedule(&w, &outcome(&good, &[])), Ok(()));
        // Submitted as the chunk before ends, a chunk may still wait.
        let waited = [Some((0, 10)), Some((10, 20)), Some((21, 31))];
        assert_eq!(schedule_errors(&w, &waited), Vec::<String>::new());
        w.jobs[2].submit = 25;
        assert_eq!(
            schedule_errors(&w, &[Some((0, 10)), Some((10, 20)), Some((25, 35))]),
            ["chunk 3 submitted at 25 but job 2 ended at 20"]
        );
        assert_eq!(
            schedule_errors(&w, &[Some((0, 10)), None, Some((25, 35))]),
            ["chunk 3 ran although job 2 before it did not"]
        );
    }

    #[test]
    fn reservations_may_only_move_earlier_and_must_be_kept() {
        let runs = [Some((0, 10)), Some((20, 30)), None];
        let kept = |res: &[(u32, Time)]| check_reservations_kept(&outcome(&runs, res));
        assert_eq!(kept(&[(1, 30), (1, 20)]), Ok(()));
        assert_eq!(
            kept(&[(1, 20), (1, 25)]),
            Err(vec![
                "job index 1 reservation moved later, from 20 to 25 at 1".to_string()
            ])
        );
        assert_eq!(
            kept(&[(1, 15)]),
            Err(vec![
                "job index 1 started at 20 after its reservation at 15".to_string()
            ])
        );
        assert_eq!(
            kept(&[(2, 40)]),
            Err(vec![
                "job index 2 held a reservation but never ran".to_string()
            ])
        );
        let mut unaudited = outcome(&runs, &[]);
        unaudited.audit = None;
        assert_eq!(
            check_reservations_kept(&unaudited),
            Err(vec!["run was not audited".to_string()])
        );
    }

    #[test]
    fn a_start_after_the_first_reservation_is_named() {
        let runs = [Some((0, 10)), Some((20, 30)), None];
        let first = |res: &[(u32, Time)]| check_first_reservation_kept(&outcome(&runs, res));
        // Later reservations do not matter: only the first promise.
        assert_eq!(first(&[(1, 20), (1, 10)]), Ok(()));
        assert_eq!(
            first(&[(1, 15), (1, 30)]),
            Err(vec![
                "job index 1 started at 20 after its first reservation at 15".to_string()
            ])
        );
        assert_eq!(
            first(&[(2, 5)]),
            Err(vec![
                "job index 2 held a reservation but never ran".to_string()
            ])
        );
    }
}
