//! Moldable jobs in the core: a policy may start a moldable job on a width
//! it chooses (see [`super::Epoch::start_moldable`]); the core then runs it
//! for its run time at that width, by the job's speedup model, and records
//! the width in the outcome. Until it starts, a job's [`super::JobInfo`]
//! shows its recorded width and estimate; from its start on, the width it
//! runs on and the estimate at that width, so everything that reads
//! running jobs (profiles, free counts) sees what really runs.

use super::{JobIdx, Outcome};
use crate::workload::speedup::Downey;
use crate::workload::{Job, Time, Workload};

/// Why a width cannot be given to a job.
pub(super) fn width_error(
    model: Option<&Downey>,
    procs: u32,
    machine: u32,
    width: u32,
) -> Option<String> {
    let Some(model) = model else {
        return (width != procs).then(|| format!("is rigid ({procs} processors), not moldable"));
    };
    let widest = model.widest().min(machine);
    (width == 0 || width > widest).then(|| {
        format!(
            "may run on 1 to {widest} processors (average parallelism {}), not {width}",
            model.a
        )
    })
}

/// The job's run time and estimate on `width` processors.
pub(super) fn at_width(job: &Job, model: &Downey, width: u32) -> (Time, Time) {
    (
        model.scale(job.sim_runtime(), job.procs, width),
        model.scale(job.estimate, job.procs, width),
    )
}

/// The longest a job can take, on any width it may get (one processor for
/// a moldable job), for the core's horizon check.
pub(super) fn longest_run(job: &Job) -> (Time, Time) {
    match &job.speedup {
        Some(m) => at_width(job, m, 1),
        None => (job.sim_runtime(), job.estimate),
    }
}

/// The speedup models of `w`'s jobs by index; the core asks only when some
/// job is moldable, and keeps an empty list otherwise (the common case
/// costs no memory).
pub(super) fn models(w: &Workload) -> Vec<Option<Downey>> {
    w.jobs.iter().map(|j| j.speedup).collect()
}

/// Gives each moldable job of `w` the width it ran on in `outcome`, with
/// its run time and estimate at that width: the workload as it really ran,
/// which measures and schedule files read.
pub(super) fn apply_widths(w: &mut Workload, outcome: &Outcome) {
    for &(job, width) in &outcome.widths {
        let j = &mut w.jobs[job as usize];
        let Some(model) = j.speedup else { continue };
        let (runtime, estimate) = at_width(j, &model, width);
        // `runtime` is already the killed one; the estimate bounds it.
        j.runtime = runtime;
        j.estimate = estimate;
        j.procs = width;
        let Some(r) = j.record_mut() else { continue };
        r.run_time = runtime;
        r.allocated_procs = i64::from(width);
        // Read back, the schedule must give the same jobs.
        if r.requested_procs > 0 {
            r.requested_procs = i64::from(width);
        }
        if r.requested_time > 0 {
            r.requested_time = estimate;
        }
    }
}

/// The widths given to moldable jobs, one entry per start.
pub(super) type Widths = Vec<(JobIdx, u32)>;

#[cfg(test)]
mod tests {
    use super::super::{realized, simulate, Epoch, Policy, SimError, SimOptions};
    use super::*;
    use crate::sim::invariants::check_schedule;
    use crate::workload::SwfHeader;

    /// Starts waiting jobs in arrival order on as many processors as are
    /// free, up to `cap` (and, when `fit`, the job's widest), while any are.
    struct Greedy {
        cap: u32,
        fit: bool,
    }

    impl Policy for Greedy {
        fn name(&self) -> String {
            "greedy-width".into()
        }
        fn schedule(&mut self, epoch: &mut Epoch<'_>) {
            for &job in epoch.state.waiting {
                let free = epoch.free();
                if free == 0 {
                    break;
                }
                let widest = epoch.state.speedup(job).map_or(u32::MAX, Downey::widest);
                let width = if self.fit {
                    free.min(self.cap).min(widest)
                } else {
                    free.min(self.cap)
                };
                epoch.start_moldable(job, width);
            }
        }
    }

    fn workload() -> Workload {
        // 8 processors. Job 1: 800 s on 2 processors, linear to 8 (work
        // 1600). Job 2 at 10: 100 s on 1, sigma 2 with A 4.
        let mut a = Job::plain(1, 0, 800, 2);
        a.speedup = Some(Downey::new(8.0, 0.0).unwrap());
        let mut b = Job::plain(2, 10, 100, 1);
        b.speedup = Some(Downey::new(4.0, 2.0).unwrap());
        Workload::new("m", 8, SwfHeader::default(), vec![a, b])
    }

    #[test]
    fn a_moldable_job_runs_for_its_time_at_the_width_it_got() {
        let w = workload();
        let mut policy = Greedy { cap: 8, fit: true };
        let o = simulate(&w, &mut policy, SimOptions::default()).unwrap();
        // Job 1 gets all 8 at 0: 1600 / 8 = 200 s. Job 2 waits until 200
        // and gets 4 (its A): S(4) = 4*4*3 / (2*7 + 4) = 48/18, so
        // 100 / (48/18) = 37.5, rounded up to 38 s.
        assert_eq!(o.widths, vec![(0, 8), (1, 4)]);
        let runs: Vec<_> = o.runs.iter().map(|r| r.map(|r| (r.start, r.end))).collect();
        assert_eq!(runs, vec![Some((0, 200)), Some((200, 238))]);
        let real = realized(&w, &o);
        assert_eq!((real.jobs[0].procs, real.jobs[0].runtime), (8, 200));
        assert_eq!(
            (
                real.jobs[1].procs,
                real.jobs[1].runtime,
                real.jobs[1].estimate
            ),
            (4, 38, 38)
        );
        check_schedule(&real, &o).unwrap();
    }

    #[test]
    fn widths_a_job_cannot_take_are_refused() {
        let w = workload();
        // Job 2 on 8, wider than its A (4).
        let mut policy = Greedy { cap: 8, fit: false };
        let err = simulate(&w, &mut policy, SimOptions::default()).unwrap_err();
        let SimError::PolicyViolation { message, .. } = err else {
            panic!("{err:?}")
        };
        assert!(
            message.contains("may run on 1 to 4 processors"),
            "{message}"
        );
        // A rigid job only on its own width.
        let mut rigid = w.clone();
        rigid.jobs[0].speedup = None;
        let err = simulate(&rigid, &mut policy, SimOptions::default()).unwrap_err();
        assert!(err.to_string().contains("is rigid (2 processors)"), "{err}");
    }
}
