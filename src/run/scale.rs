//! A workload moved to a standard machine, as GREEDY moves its traces to
//! 1,024 processors, with the work factor calibrated by simulation. The
//! transform itself, its sources and what in it is inferred rather than read
//! are in [`crate::workload::transform::scale_machine`].
//!
//! # Calibration
//!
//! Ernemann, Song and Yahyapour judged a scaled workload by the schedules
//! common algorithms make of it, and report the best results with factors
//! higher than the machine ratio `m' / m`. Which attributes of the schedules
//! they compared is not in the part of the paper that could be read (its
//! abstract). Here the factor makes the scaled workload's EASY schedule
//! (FCFS-backfill, goalc's reference run, per-instant events) on `m'` have the
//! AWRT of the original workload's EASY schedule on `m`. AWRT (GREEDY eq. 6)
//! is the measure GREEDY's objectives are made of, and EASY the schedule it
//! compares against. Utilization is no criterion: the total work grows with
//! the factor, so at `f = m' / m` the load, and with it the utilization, is
//! the original's by construction.
//!
//! 1. `m' = m`: factor 1, nothing simulated; the workload is the original.
//! 2. If at `f = m' / m` the scaled AWRT already reaches the original's, the
//!    factor is `m' / m`: the method raises the factor from the ratio, never
//!    lowers it below.
//! 3. Otherwise the factor is raised from the ratio in steps of 1/8, 1/4,
//!    1/2, 1, 2 and 4 times the ratio (never past `m'`) until the AWRT
//!    reaches the original's, an error if it does not; then the bracket is
//!    halved until it is narrower than 1/1000 of the ratio. Of all factors
//!    tried, the one whose AWRT is nearest the original's is taken (the
//!    lower on a tie).
//!
//! Every candidate uses the same seed, so a larger factor never makes fewer
//! jobs or narrower ones. The AWRT grows with the load, but not strictly
//! (one more copy can let a backfill happen that did not), which is why the
//! nearest of all tries is taken rather than an end of the last bracket.
//! Each candidate costs one EASY simulation of the scaled workload, about
//! ten in all: seconds for a trace of 100,000 jobs.

use super::reference::fcfs_backfill;
use super::RunError;
use crate::measures::{measure, MeasureOptions};
use crate::sim::EventMode;
use crate::workload::transform::{scale_machine, MachineScale, DEFAULT_ENLARGE};
use crate::workload::Workload;
use std::str::FromStr;

/// How the work factor is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ScaleFactor {
    /// Calibrated so that EASY's AWRT matches the original's.
    #[default]
    MatchAwrt,
    /// The machine ratio `m' / m`: the offered load stays.
    Exact,
    /// This factor.
    Fixed(f64),
}

impl FromStr for ScaleFactor {
    type Err = String;

    /// `awrt`, `exact`, or a number.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "awrt" => Ok(ScaleFactor::MatchAwrt),
            "exact" => Ok(ScaleFactor::Exact),
            _ => s
                .parse::<f64>()
                .map(ScaleFactor::Fixed)
                .map_err(|_| format!("`{s}` is not awrt, exact or a number")),
        }
    }
}

/// Where and how to scale a workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleSpec {
    /// Processors of the standard machine.
    pub procs: u32,
    pub factor: ScaleFactor,
    /// Share of jobs enlarged, the others duplicated.
    pub enlarge: f64,
    pub seed: u64,
}

impl ScaleSpec {
    /// To `procs` processors, the factor calibrated, the default share, seed 1.
    pub fn new(procs: u32) -> Self {
        ScaleSpec {
            procs,
            factor: ScaleFactor::MatchAwrt,
            enlarge: DEFAULT_ENLARGE,
            seed: 1,
        }
    }
}

/// A scaled workload and how it was made.
#[derive(Debug, Clone)]
pub struct Scaled {
    pub workload: Workload,
    /// `m' / m`.
    pub ratio: f64,
    /// The work factor used.
    pub factor: f64,
    /// What the calibration found, when the factor was calibrated.
    pub calibration: Option<Calibration>,
}

/// The simulations behind a calibrated factor.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// AWRT of the original's EASY schedule on its own machine.
    pub target_awrt: f64,
    /// Utilization of that schedule.
    pub target_utilization: f64,
    /// The factor taken, as simulated.
    pub chosen: Try,
    /// Every factor simulated, in the order tried.
    pub tries: Vec<Try>,
}

/// One factor simulated: the scaled workload's EASY schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Try {
    pub factor: f64,
    pub awrt: f64,
    pub utilization: f64,
}

/// Relative width of the bracket at which the halving stops.
const TOLERANCE: f64 = 1e-3;

/// `w` moved to a machine of `spec.procs` processors.
pub fn scale_to_machine(w: &Workload, spec: &ScaleSpec) -> Result<Scaled, RunError> {
    let ratio = f64::from(spec.procs) / f64::from(w.procs.max(1));
    let with = |factor: f64| MachineScale {
        procs: spec.procs,
        factor,
        enlarge: spec.enlarge,
        seed: spec.seed,
    };
    // Bad settings are refused before anything is simulated.
    with(ratio).check(w)?;
    let fixed = match spec.factor {
        ScaleFactor::Fixed(f) => Some(f),
        ScaleFactor::Exact => Some(ratio),
        // Nothing to match: the same machine, or no jobs to schedule.
        ScaleFactor::MatchAwrt if spec.procs == w.procs || w.jobs.is_empty() => Some(ratio),
        ScaleFactor::MatchAwrt => None,
    };
    if let Some(factor) = fixed {
        return Ok(Scaled {
            workload: scale_machine(w, &with(factor))?,
            ratio,
            factor,
            calibration: None,
        });
    }
    let easy = |w: &Workload| -> Result<(f64, f64), RunError> {
        let m = measure(
            w,
            &fcfs_backfill(w, EventMode::PerInstant)?,
            MeasureOptions::default(),
        );
        Ok((m.awrt, m.utilization))
    };
    let (target_awrt, target_utilization) = easy(w)?;
    let mut tries = Vec::new();
    // Simulates the workload scaled by `factor`; true if its AWRT reaches
    // the original's.
    let mut reaches = |factor: f64| -> Result<bool, RunError> {
        let (awrt, utilization) = easy(&scale_machine(w, &with(factor))?)?;
        tries.push(Try {
            factor,
            awrt,
            utilization,
        });
        Ok(awrt >= target_awrt)
    };
    if !reaches(ratio)? {
        let most = f64::from(spec.procs);
        let mut lo = ratio;
        let mut step = 0.125;
        let mut hi = loop {
            let factor = (ratio * (1.0 + step)).min(most);
            if reaches(factor)? {
                break factor;
            }
            if step >= 4.0 || factor >= most {
                return Err(RunError::Invalid(format!(
                    "could not calibrate the scale factor of `{}`: EASY's AWRT on {} \
                     processors stays below the original's ({:.0}s on {}) up to factor \
                     {factor}; give --scale-factor",
                    w.name, spec.procs, target_awrt, w.procs
                )));
            }
            lo = factor;
            step *= 2.0;
        };
        while hi - lo > TOLERANCE * ratio {
            let mid = (lo + hi) / 2.0;
            if reaches(mid)? {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }
    let distance = |t: &Try| (t.awrt - target_awrt).abs();
    let chosen = tries
        .iter()
        .copied()
        .min_by(|a, b| {
            distance(a)
                .total_cmp(&distance(b))
                .then(a.factor.total_cmp(&b.factor))
        })
        .unwrap_or(Try {
            factor: ratio,
            awrt: 0.0,
            utilization: 0.0,
        });
    // The same seed makes the same workload again.
    let mut workload = scale_machine(w, &with(chosen.factor))?;
    workload.header.lines.push(format!(
        " Note: work factor {} ({:.4} x {}/{}) calibrated by goalc in {} EASY simulations: \
         AWRT {:.0}s on {} processors, the original's {target_awrt:.0}s on {}",
        chosen.factor,
        chosen.factor / ratio,
        spec.procs,
        w.procs,
        tries.len() + 1,
        chosen.awrt,
        spec.procs,
        w.procs,
    ));
    Ok(Scaled {
        workload,
        ratio,
        factor: chosen.factor,
        calibration: Some(Calibration {
            target_awrt,
            target_utilization,
            chosen,
            tries,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::model::{self, ModelParams};

    fn model(jobs: usize, procs: u32, seed: u64) -> Workload {
        model::generate(&ModelParams {
            jobs,
            procs,
            seed,
            widest: None,
            users: None,
        })
        .unwrap()
    }

    #[test]
    fn factors_parse_as_awrt_exact_or_a_number() {
        assert_eq!("awrt".parse(), Ok(ScaleFactor::MatchAwrt));
        assert_eq!("exact".parse(), Ok(ScaleFactor::Exact));
        assert_eq!("2.5".parse(), Ok(ScaleFactor::Fixed(2.5)));
        assert!("twice"
            .parse::<ScaleFactor>()
            .unwrap_err()
            .contains("not awrt, exact or a number"));
    }

    #[test]
    fn the_same_machine_is_not_simulated_and_not_changed() {
        let w = model(300, 64, 1);
        let s = scale_to_machine(&w, &ScaleSpec::new(64)).unwrap();
        assert_eq!((s.ratio, s.factor), (1.0, 1.0));
        assert!(s.calibration.is_none());
        assert_eq!(s.workload.jobs, w.jobs);
    }

    #[test]
    fn exact_and_fixed_factors_are_used_as_given() {
        let w = model(300, 64, 1);
        let spec = ScaleSpec {
            factor: ScaleFactor::Exact,
            ..ScaleSpec::new(256)
        };
        let s = scale_to_machine(&w, &spec).unwrap();
        assert_eq!((s.ratio, s.factor), (4.0, 4.0));
        assert_eq!(s.workload.procs, 256);
        let spec = ScaleSpec {
            factor: ScaleFactor::Fixed(5.0),
            ..spec
        };
        assert_eq!(scale_to_machine(&w, &spec).unwrap().factor, 5.0);
        let spec = ScaleSpec {
            factor: ScaleFactor::Fixed(0.5),
            ..spec
        };
        assert!(matches!(
            scale_to_machine(&w, &spec),
            Err(RunError::Transform(_))
        ));
    }

    #[test]
    fn bad_settings_are_refused_before_simulating() {
        let w = model(300, 64, 1);
        let e = scale_to_machine(&w, &ScaleSpec::new(0))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "the machine to scale to must have at least 1 processor, got 0"
        );
        let e = scale_to_machine(&w, &ScaleSpec::new(32))
            .unwrap_err()
            .to_string();
        assert!(e.contains("would shrink it"), "{e}");
        let spec = ScaleSpec {
            enlarge: 2.0,
            ..ScaleSpec::new(128)
        };
        assert!(scale_to_machine(&w, &spec)
            .unwrap_err()
            .to_string()
            .contains("share of enlarged jobs"));
    }

    #[test]
    fn the_calibrated_factor_matches_the_awrt_from_above_the_ratio() {
        // 2,000 model jobs on 32 processors, to 128.
        let w = model(2000, 32, 3);
        let s = scale_to_machine(&w, &ScaleSpec::new(128)).unwrap();
        let c = s.calibration.clone().unwrap();
        assert_eq!(s.ratio, 4.0);
        assert_eq!(c.tries[0].factor, 4.0);
        assert!(s.factor >= s.ratio);
        assert_eq!(s.factor, c.chosen.factor);
        // This workload needs more than the ratio: the search ran.
        assert!(c.tries.len() > 5, "{:?}", c.tries);
        // What was reported is what EASY does with the workload returned,
        // and the original's is what it does on the original.
        let easy = |w: &Workload| {
            let m = measure(
                w,
                &fcfs_backfill(w, EventMode::PerInstant).unwrap(),
                MeasureOptions::default(),
            );
            (m.awrt, m.utilization)
        };
        assert_eq!(easy(&s.workload), (c.chosen.awrt, c.chosen.utilization));
        assert_eq!(easy(&w), (c.target_awrt, c.target_utilization));
        // No try came nearer; the search went on until the bracket (the
        // largest factor below the AWRT, the smallest above it) was narrow.
        let off = |t: &Try| (t.awrt - c.target_awrt).abs();
        assert!(c.tries.iter().all(|t| off(t) >= off(&c.chosen)));
        if c.tries.len() > 1 {
            let below = c
                .tries
                .iter()
                .filter(|t| t.awrt < c.target_awrt)
                .map(|t| t.factor)
                .fold(f64::MIN, f64::max);
            let above = c
                .tries
                .iter()
                .filter(|t| t.awrt >= c.target_awrt)
                .map(|t| t.factor)
                .fold(f64::MAX, f64::min);
            assert!(above > below && above - below <= TOLERANCE * s.ratio + 1e-12);
        } else {
            assert!(c.tries[0].awrt >= c.target_awrt);
        }
        assert!(s
            .workload
            .header
            .lines
            .last()
            .unwrap()
            .contains("calibrated"));
        // Deterministic.
        let again = scale_to_machine(&w, &ScaleSpec::new(128)).unwrap();
        assert_eq!(again.workload, s.workload);
        assert_eq!(again.calibration, s.calibration);
    }
}
