//! A workload moved to a machine of another size, after C. Ernemann, B. Song
//! and R. Yahyapour, "Scaling of workload traces", JSSPP 2003, LNCS 2862,
//! pp. 166-183 (doi:10.1007/10968987_9): the procedure by which the GREEDY
//! paper brings six traces to a standard machine of 1,024 processors
//! (Section IV-A and Table I).
//!
//! # What is known of the method, and from where
//!
//! Only the paper's abstract could be read from here (Springer's page of the
//! chapter and transcriptions of it); its body was not. The abstract says that
//! jobs of the trace are *enlarged and/or duplicated*, so that the workload
//! fits a machine with a different number of processors; that strategies
//! scaling the number of job copies, the job size, or both, were judged by
//! the schedules common algorithms make of the scaled workload, which proved
//! very sensitive to how it is scaled; and that the best results came from
//! scaling factors *higher* than the precise ratio of the new machine size to
//! the original one. Krakov and Feitelson (JSSPP 2012, LNCS 7698, p. 180)
//! restate it as scaling job sizes combined with replication, so that larger
//! jobs appear without losing the small ones. GREEDY adds that the trace's
//! recorded schedule is not valid for the scaled workload, which is therefore
//! scheduled anew by simulation (EASY).
//!
//! Two details that description leaves open are settled here, and said so:
//!
//! * **Which jobs are enlarged and which duplicated.** Each job independently,
//!   enlarged with probability `enlarge`, otherwise duplicated; 0.5 by
//!   default ([`DEFAULT_ENLARGE`]). The 0.5 is read off GREEDY's Table I, not
//!   the paper's text: if a share `p` of jobs is enlarged and the others
//!   become `f` copies, `n` jobs become `n (p + (1 - p) f)`. With the
//!   original logs' job counts (CTC 79,302 on 430 processors, KTH 28,490 on
//!   100, SDSC SP2 73,496 on 128, SDSC Paragon 1996 38,719 on 416) and `f`
//!   the machine ratio, Table I's counts give `1 - p` = 0.52, 0.53, 0.46 and
//!   0.49: about half the jobs duplicated, whatever the ratio (2.4 to 10.2).
//! * **The factor.** [`scale_machine`] takes it as given. The run layer
//!   (`crate::run::scale`) calibrates it by simulation as the abstract
//!   suggests, or uses the exact ratio.
//!
//! # The transform
//!
//! For a workload on `m` processors, a new machine of `m' >= m` processors
//! and a work factor `f` with `1 <= f <= m'`, each job in submit order is
//! either
//!
//! * **enlarged** (probability `enlarge`): its width becomes `round(w f)`
//!   (half away from zero), at most `m'` (a factor above `m' / m` could
//!   otherwise make the widest jobs wider than the machine); run time,
//!   estimate and submit time are unchanged. The SWF record's requested and
//!   allocated processors, where known, are scaled the same way, so reading
//!   the record back gives the same width; or
//! * **duplicated**: submitted as `floor(f + u)` identical jobs at its own
//!   submit time, `u` uniform on `[0, 1)`: `floor(f)` or `ceil(f)` copies,
//!   `f` on average. The first keeps the job's number; the others get new
//!   numbers after the largest one, in job order (SWF field 1 too); a
//!   trace without room for them there is refused.
//!
//! Either way a job brings `f` times its work on average, so the total work
//! grows by about `f` and the offered load on `m'` is about `f / (m' / m)`
//! times the original: with `f = m' / m` the load stays, and a larger `f`
//! raises it. The header's `MaxProcs` becomes `m'` (the old `MaxNodes` line
//! is kept; readers take `MaxProcs` first) and a `Note` line records how the
//! workload was made.
//!
//! # Determinism
//!
//! One `ChaCha8Rng::seed_from_u64(seed)`, two draws per job in submit order
//! (enlarge or not, then `u`), drawn whether used or not: one seed makes the
//! same choices for every factor and share, so a larger factor never makes
//! fewer jobs or narrower ones, which the calibration relies on.

use super::{NewNumbers, TransformError, MAX_BUILT_JOBS};
use crate::workload::{SwfHeader, Workload};
use rand::{Rng, SeedableRng};

/// The share of jobs enlarged rather than duplicated, read off GREEDY's
/// Table I (see the module documentation).
pub const DEFAULT_ENLARGE: f64 = 0.5;

/// How [`scale_machine`] scales.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MachineScale {
    /// Processors of the new machine, at least the workload's.
    pub procs: u32,
    /// Work factor `f`, from 1 to `procs`: the width multiplier of an
    /// enlarged job and the mean number of copies of a duplicated one.
    pub factor: f64,
    /// Share of jobs enlarged (the others are duplicated), from 0 to 1.
    pub enlarge: f64,
    /// Seed of the random choices.
    pub seed: u64,
}

impl MachineScale {
    /// Scaling to `procs` processors by the exact machine ratio, with the
    /// default share.
    pub fn exact(w: &Workload, procs: u32, seed: u64) -> Self {
        MachineScale {
            procs,
            factor: f64::from(procs) / f64::from(w.procs.max(1)),
            enlarge: DEFAULT_ENLARGE,
            seed,
        }
    }

    /// Refuses settings that make no sense for `w`, before any work.
    pub fn check(&self, w: &Workload) -> Result<(), TransformError> {
        if self.procs == 0 {
            return Err(TransformError::NoMachine);
        }
        if self.procs < w.procs {
            return Err(TransformError::SmallerMachine {
                name: w.name.clone(),
                from: w.procs,
                to: self.procs,
            });
        }
        // Below 1 jobs would be dropped, not scaled; above the machine even
        // a serial job enlarged would not fit.
        if !(self.factor >= 1.0 && self.factor <= f64::from(self.procs)) {
            return Err(TransformError::BadScaleFactor {
                factor: self.factor,
                max: self.procs,
            });
        }
        super::enlarge_share_in_range(self.enlarge)?;
        if w.jobs.iter().any(|j| j.follows.is_some()) {
            return Err(TransformError::SplitJobs(w.name.clone()));
        }
        // The most copies every job could get, before allocating them.
        let most = if self.enlarge >= 1.0 {
            w.jobs.len() as u128
        } else {
            w.jobs.len() as u128 * self.factor.ceil() as u128
        };
        if most > MAX_BUILT_JOBS as u128 {
            return Err(TransformError::TooManyJobs {
                what: format!("scaling to {} processors", self.procs),
                name: w.name.clone(),
                jobs: most,
                limit: MAX_BUILT_JOBS,
            });
        }
        Ok(())
    }
}

/// `w` on a machine of `s.procs` processors: each job enlarged by the factor
/// or duplicated, as the module documentation says.
pub fn scale_machine(w: &Workload, s: &MachineScale) -> Result<Workload, TransformError> {
    s.check(w)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s.seed);
    let widen = |p: i64| -> i64 { ((p as f64 * s.factor).round() as i64).clamp(1, s.procs.into()) };
    let mut numbers = NewNumbers::after(w);
    let mut jobs = Vec::with_capacity(w.jobs.len());
    for j in &w.jobs {
        let enlarge = rng.gen::<f64>() < s.enlarge;
        let u = rng.gen::<f64>();
        if enlarge {
            let mut e = j.clone();
            e.procs = widen(j.procs.into()) as u32;
            if let Some(r) = e.record_mut() {
                for field in [&mut r.requested_procs, &mut r.allocated_procs] {
                    if *field > 0 {
                        *field = widen(*field);
                    }
                }
            }
            jobs.push(e);
            continue;
        }
        jobs.push(j.clone());
        // f >= 1, so at least the job itself.
        let copies = (s.factor + u).floor() as u64;
        for _ in 1..copies {
            let mut c = j.clone();
            c.number =
                numbers.take(w, || format!("copies of scaling to {} processors", s.procs))?;
            if let Some(r) = c.swf.as_deref_mut() {
                r.job_number = c.number;
            }
            jobs.push(c);
        }
    }
    let name = format!("{}@{}p(f={:.3})", w.name, s.procs, s.factor);
    let mut out = Workload::new(name, s.procs, scaled_header(&w.header, w.procs, s), jobs);
    out.dropped = w.dropped.clone();
    Ok(out)
}

/// The header of the scaled workload: `MaxProcs` the new machine's, and a
/// note of how it was made.
fn scaled_header(h: &SwfHeader, from: u32, s: &MachineScale) -> SwfHeader {
    let mut h = h.clone();
    let line = format!(" MaxProcs: {}", s.procs);
    let is_max_procs = |l: &String| {
        l.split_once(':')
            .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("MaxProcs"))
    };
    // In place of the first, any other dropped: they gave the old machine.
    let first = h.lines.iter().position(is_max_procs);
    h.lines.retain(|l| !is_max_procs(l));
    h.lines.insert(first.unwrap_or(h.lines.len()), line);
    h.lines.push(format!(
        " Note: scaled by goalc from {from} to {} processors after Ernemann, Song and \
         Yahyapour (JSSPP 2003): work factor {}, share of jobs enlarged {} (the others \
         duplicated), seed {}",
        s.procs, s.factor, s.enlarge, s.seed
    ));
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::swf::{self, ReadOptions};
    use crate::workload::{Job, SwfRecord, Time};
    use proptest::prelude::*;

    fn job(number: i64, submit: Time, runtime: Time, procs: u32) -> Job {
        let mut swf = SwfRecord::unknown();
        swf.job_number = number;
        swf.submit = submit;
        swf.run_time = runtime;
        swf.requested_time = runtime * 2;
        swf.requested_procs = procs.into();
        swf.allocated_procs = procs.into();
        Job {
            estimate: runtime * 2,
            user: 1,
            group: 1,
            no_requested_time: false,
            swf: Some(Box::new(swf)),
            ..Job::plain(number, submit, runtime, procs)
        }
    }

    /// 4 processors: widths 1, 2, 4, 3; jobs 1 and 2 submitted together.
    fn workload() -> Workload {
        let header = SwfHeader {
            lines: vec![" Version: 2.2".into(), " MaxProcs: 4".into()],
            ..SwfHeader::default()
        };
        Workload::new(
            "w",
            4,
            header,
            vec![
                job(1, 0, 100, 1),
                job(2, 0, 50, 2),
                job(5, 10, 10, 4),
                job(6, 30, 20, 3),
            ],
        )
    }

    fn scale(procs: u32, factor: f64, enlarge: f64, seed: u64) -> MachineScale {
        MachineScale {
            procs,
            factor,
            enlarge,
            seed,
        }
    }

    /// (number, submit, procs) of every job.
    fn summary(w: &Workload) -> Vec<(i64, Time, u32)> {
        w.jobs
            .iter()
            .map(|j| (j.number, j.submit, j.procs))
            .collect()
    }

    fn work(w: &Workload) -> i64 {
        w.jobs.iter().map(|j| i64::from(j.procs) * j.runtime).sum()
    }

    #[test]
    fn all_duplicated_by_two_doubles_every_job_at_its_submit_time() {
        let out = scale_machine(&workload(), &scale(8, 2.0, 0.0, 1)).unwrap();
        // Copies numbered after the largest (6), in job order; each right
        // after its original in (submit, number) order only by submit time.
        assert_eq!(
            summary(&out),
            vec![
                (1, 0, 1),
                (2, 0, 2),
                (7, 0, 1),
                (8, 0, 2),
                (5, 10, 4),
                (9, 10, 4),
                (6, 30, 3),
                (10, 30, 3),
            ]
        );
        assert_eq!(out.procs, 8);
        assert_eq!(work(&out), 2 * work(&workload()));
        assert!(out
            .jobs
            .iter()
            .all(|j| j.swf.as_ref().unwrap().job_number == j.number));
        assert_eq!(out.name, "w@8p(f=2.000)");
    }

    #[test]
    fn copies_are_not_numbered_past_the_largest_number() {
        // Doubling four jobs needs four new numbers: three fit after
        // i64::MAX - 3, none after i64::MAX (they wrapped to i64::MIN).
        let renumbered = |largest: i64| {
            let mut w = workload();
            let last = w.jobs.last_mut().unwrap();
            (last.number, last.swf.as_mut().unwrap().job_number) = (largest, largest);
            w
        };
        let out = scale_machine(&renumbered(i64::MAX - 4), &scale(8, 2.0, 0.0, 1)).unwrap();
        assert_eq!(out.jobs.iter().map(|j| j.number).max(), Some(i64::MAX));
        for largest in [i64::MAX - 3, i64::MAX] {
            assert_eq!(
                scale_machine(&renumbered(largest), &scale(8, 2.0, 0.0, 1))
                    .unwrap_err()
                    .to_string(),
                format!(
                    "workload `w`: job numbers up to {largest} leave no room after them to \
                     number the copies of scaling to 8 processors (renumber its jobs)"
                )
            );
        }
    }

    #[test]
    fn all_enlarged_multiplies_widths_rounding_half_away_from_zero() {
        // 10 processors, factor 2.5: 1 -> 2.5 -> 3, 2 -> 5, 4 -> 10, 3 -> 7.5 -> 8.
        let out = scale_machine(&workload(), &scale(10, 2.5, 1.0, 1)).unwrap();
        assert_eq!(
            summary(&out),
            vec![(1, 0, 3), (2, 0, 5), (5, 10, 10), (6, 30, 8)]
        );
        for j in &out.jobs {
            assert_eq!(j.swf.as_ref().unwrap().requested_procs, i64::from(j.procs));
            assert_eq!(j.swf.as_ref().unwrap().allocated_procs, i64::from(j.procs));
        }
        // Run times, estimates and submits untouched.
        let times = |w: &Workload| -> Vec<(Time, Time, Time)> {
            w.jobs
                .iter()
                .map(|j| (j.submit, j.runtime, j.estimate))
                .collect()
        };
        assert_eq!(times(&out), times(&workload()));
    }

    #[test]
    fn enlarged_jobs_never_outgrow_the_machine() {
        // Factor 3 on 10 processors: the 4-wide job would need 12.
        let out = scale_machine(&workload(), &scale(10, 3.0, 1.0, 1)).unwrap();
        assert_eq!(
            summary(&out),
            vec![(1, 0, 3), (2, 0, 6), (5, 10, 10), (6, 30, 9)]
        );
    }

    #[test]
    fn a_fractional_factor_gives_floor_or_ceil_copies() {
        // All duplicated, factor 2.5: each job 2 or 3 times.
        let out = scale_machine(&workload(), &scale(10, 2.5, 0.0, 3)).unwrap();
        for j in &workload().jobs {
            let n = out
                .jobs
                .iter()
                .filter(|k| k.submit == j.submit && k.procs == j.procs && k.runtime == j.runtime)
                .count();
            assert!(n == 2 || n == 3, "job {}: {n} copies", j.number);
        }
    }

    #[test]
    fn one_seed_pins_the_choices() {
        // Seed 1, share 0.5, factor 2.5 on 10 processors; pinned so that a
        // change of the random stream shows.
        let out = scale_machine(&workload(), &scale(10, 2.5, 0.5, 1)).unwrap();
        let got = summary(&out);
        assert_eq!(got, pinned_seed_1());
        // Every original job is there once, either enlarged or as itself.
        for j in &workload().jobs {
            let own = out.jobs.iter().find(|k| k.number == j.number).unwrap();
            assert_eq!(own.submit, j.submit);
            let wide = ((f64::from(j.procs) * 2.5).round() as u32).min(10);
            assert!(own.procs == j.procs || own.procs == wide);
        }
    }

    /// Seed 1's first draws, (enlarge?, u) per job, are (0.402, 0.080),
    /// (0.597, 0.219), (0.284, 0.711), (0.461, 0.153): jobs 1, 5 and 6 are
    /// enlarged (below 0.5) to 3, 10 and round(7.5) = 8; job 2 is duplicated,
    /// floor(2.5 + 0.219) = 2 times, its copy numbered 7.
    fn pinned_seed_1() -> Vec<(i64, Time, u32)> {
        vec![(1, 0, 3), (2, 0, 2), (7, 0, 2), (5, 10, 10), (6, 30, 8)]
    }

    #[test]
    fn the_same_machine_at_factor_one_changes_nothing_but_the_name() {
        let w = workload();
        for enlarge in [0.0, 0.5, 1.0] {
            let out = scale_machine(&w, &scale(4, 1.0, enlarge, 9)).unwrap();
            assert_eq!(out.jobs, w.jobs);
            assert_eq!(out.procs, 4);
        }
    }

    #[test]
    fn the_header_names_the_new_machine_and_reads_back() {
        let out = scale_machine(&workload(), &scale(10, 2.5, 0.5, 1)).unwrap();
        assert_eq!(out.header.machine_size(), Ok(Some(10)));
        // A second line of the old size would disagree with the new one.
        let mut twice = workload();
        twice.header.lines.push(" MaxProcs: 4".into());
        let out = scale_machine(&twice, &scale(10, 2.5, 0.5, 1)).unwrap();
        assert_eq!(out.header.machine_size(), Ok(Some(10)));
        assert_eq!(out.header.lines[1], " MaxProcs: 10");
        assert_eq!(out.header.get("MaxProcs"), Some("10"));
        assert!(out.header.lines.last().unwrap().contains("work factor 2.5"));
        let mut text = Vec::new();
        swf::write_workload(&mut text, &out).unwrap();
        let back = swf::parse(
            &text,
            std::path::Path::new("s.swf"),
            "s",
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(back.procs, 10);
        assert_eq!(back.dropped.total(), 0);
        assert_eq!(summary(&back), summary(&out));
        // A header without MaxProcs gets one.
        let mut w = workload();
        w.header = SwfHeader::default();
        let out = scale_machine(&w, &scale(8, 2.0, 0.0, 1)).unwrap();
        assert_eq!(out.header.get("MaxProcs"), Some("8"));
    }

    #[test]
    fn bad_settings_are_errors_that_say_what() {
        let w = workload();
        let msg = |s: MachineScale| scale_machine(&w, &s).unwrap_err().to_string();
        assert_eq!(
            msg(scale(0, 1.0, 0.5, 1)),
            "the machine to scale to must have at least 1 processor, got 0"
        );
        assert_eq!(
            msg(scale(2, 1.0, 0.5, 1)),
            "workload `w` runs on 4 processors; scaling it to 2 would shrink it, and the \
             method only enlarges (give at least 4)"
        );
        for f in [0.5, 0.0, -1.0, f64::NAN, f64::INFINITY, 8.5] {
            assert!(
                matches!(
                    scale_machine(&w, &scale(8, f, 0.5, 1)),
                    Err(TransformError::BadScaleFactor { max: 8, .. })
                ),
                "{f}"
            );
        }
        assert_eq!(
            msg(scale(8, 0.5, 0.5, 1)),
            "scale factor must be a number from 1 to 8 (the new machine's processors), got 0.5"
        );
        for p in [-0.1, 1.5, f64::NAN] {
            assert!(
                matches!(
                    scale_machine(&w, &scale(8, 2.0, p, 1)),
                    Err(TransformError::BadShare(_))
                ),
                "{p}"
            );
        }
        assert_eq!(
            msg(scale(8, 2.0, 1.5, 1)),
            "share of enlarged jobs must be a number from 0 to 1, got 1.5"
        );
        let mut split = w.clone();
        split.jobs[1].follows = Some(1);
        assert_eq!(
            scale_machine(&split, &scale(8, 2.0, 0.5, 1)),
            Err(TransformError::SplitJobs("w".into()))
        );
        // Four jobs at up to 2^24 copies each: refused before allocating.
        let huge = scale(u32::MAX, (1u64 << 24) as f64, 0.0, 1);
        assert!(matches!(
            scale_machine(&w, &huge),
            Err(TransformError::TooManyJobs {
                jobs: 67_108_864,
                ..
            })
        ));
        // All enlarged makes no copies, whatever the factor.
        let wide = scale_machine(&w, &scale(u32::MAX, (1u64 << 24) as f64, 1.0, 1)).unwrap();
        assert_eq!(wide.jobs.len(), 4);
    }

    #[test]
    fn an_empty_workload_scales_to_an_empty_one() {
        let w = Workload::new("e", 4, SwfHeader::default(), Vec::new());
        let out = scale_machine(&w, &scale(8, 2.0, 0.5, 1)).unwrap();
        assert!(out.jobs.is_empty());
        assert_eq!(out.procs, 8);
    }

    #[test]
    fn many_jobs_average_the_factor() {
        // 20,000 serial jobs of 100 s on 100 processors, to 1,024 at the
        // exact ratio 10.24: about n (0.5 + 0.5 f) = 112,400 jobs and f times
        // the work (enlarged serial jobs get width 10, not 10.24: 1.2% less
        // on their half).
        let jobs: Vec<Job> = (0..20_000).map(|i| job(i + 1, i * 10, 100, 1)).collect();
        let w = Workload::new("serial", 100, SwfHeader::default(), jobs);
        let s = MachineScale::exact(&w, 1024, 5);
        assert!((s.factor - 10.24).abs() < 1e-12);
        let out = scale_machine(&w, &s).unwrap();
        let n = out.jobs.len() as f64;
        assert!((n / 112_400.0 - 1.0).abs() < 0.02, "{n}");
        let expected = 20_000.0 * 100.0 * (0.5 * 10.0 + 0.5 * 10.24);
        let got = work(&out) as f64;
        assert!((got / expected - 1.0).abs() < 0.02, "{got} vs {expected}");
        // The offered load on the new machine is the original's.
        assert!((out.offered_load() / w.offered_load() - 1.0).abs() < 0.03);
    }

    /// Up to 40 jobs on up to 63 processors; each job's user is its index,
    /// so its copies can be told from other jobs alike in every field.
    fn arb_workload() -> impl Strategy<Value = Workload> {
        (1u32..64).prop_flat_map(|procs| {
            proptest::collection::vec((0i64..500, 1i64..1000, 1u32..=procs), 0..40).prop_map(
                move |specs| {
                    let jobs = specs
                        .into_iter()
                        .enumerate()
                        .map(|(i, (submit, run, p))| {
                            let mut j = job(3 * i as i64 + 1, submit, run, p);
                            j.user = i as i64;
                            j.swf.as_mut().unwrap().user = i as i64;
                            j
                        })
                        .collect();
                    Workload::new("p", procs, SwfHeader::default(), jobs)
                },
            )
        })
    }

    proptest! {
        #[test]
        fn scaling_keeps_its_promises(
            w in arb_workload(),
            grow in 1u32..5,
            stretch in 0.0f64..1.5,
            enlarge in 0.0f64..=1.0,
            seed in any::<u64>(),
        ) {
            let procs = w.procs * grow;
            let ratio = f64::from(procs) / f64::from(w.procs);
            let factor = (ratio * (1.0 + stretch)).min(f64::from(procs));
            let s = scale(procs, factor, enlarge, seed);
            let out = scale_machine(&w, &s).unwrap();
            // Deterministic for a seed.
            prop_assert_eq!(&scale_machine(&w, &s).unwrap(), &out);
            // No job wider than the new machine; in (submit, number) order,
            // so numbers are unique.
            prop_assert!(out.jobs.iter().all(|j| (1..=procs).contains(&j.procs)));
            prop_assert!(out
                .jobs
                .windows(2)
                .all(|p| (p[0].submit, p[0].number) < (p[1].submit, p[1].number)));
            // Each job is there under its own number and submit time, either
            // enlarged alone or as floor(f) or ceil(f) identical jobs.
            let mut work_lo = 0.0;
            let mut work_hi = 0.0;
            for j in &w.jobs {
                let own = out.jobs.iter().find(|k| k.number == j.number).unwrap();
                prop_assert_eq!(
                    (own.submit, own.runtime, own.estimate),
                    (j.submit, j.runtime, j.estimate)
                );
                let wide = ((f64::from(j.procs) * factor).round() as u32).clamp(1, procs);
                let copies: Vec<&Job> = out
                    .jobs
                    .iter()
                    .filter(|k| k.user == j.user && k.number != j.number)
                    .collect();
                for c in &copies {
                    let mut same = c.swf.clone();
                    if let Some(r) = same.as_deref_mut() {
                        r.job_number = own.number;
                    }
                    prop_assert_eq!(same, own.swf.clone());
                    prop_assert_eq!(c.procs, own.procs);
                }
                let k = copies.len() + 1;
                let enlarged = own.procs == wide && k == 1;
                let duplicated = own.procs == j.procs
                    && (k == factor.floor() as usize || k == factor.ceil() as usize);
                prop_assert!(enlarged || duplicated, "job {}: width {} x {}", j.number, own.procs, k);
                let area = f64::from(j.procs) * j.runtime as f64;
                let by_width = f64::from(wide) * j.runtime as f64;
                work_lo += by_width.min(area * factor.floor());
                work_hi += by_width.max(area * factor.ceil());
            }
            let got = work(&out) as f64;
            prop_assert!(got >= work_lo - 1e-6 && got <= work_hi + 1e-6);
            // Nothing else: every job is an original or a copy of one.
            let users: std::collections::BTreeSet<i64> = w.jobs.iter().map(|j| j.user).collect();
            prop_assert!(out.jobs.iter().all(|j| users.contains(&j.user)));
            // A larger factor never makes fewer jobs or less work.
            let more = scale(procs, (factor * 1.1).min(f64::from(procs)), enlarge, seed);
            let bigger = scale_machine(&w, &more).unwrap();
            prop_assert!(bigger.jobs.len() >= out.jobs.len());
            prop_assert!(work(&bigger) >= work(&out));
        }
    }
}
