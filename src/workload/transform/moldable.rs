//! Moldable workloads from rigid traces, as the MOLD paper makes them
//! (Sabin, Lang and Sadayappan, sections 3.1-3.2): no trace records how a
//! job scales, so each job gets Downey's speedup parameters, fixed or drawn
//! at random from a seeded sequence, with its recorded width and run time
//! as one point of its speedup curve.

use crate::workload::speedup::Downey;
use crate::workload::Workload;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::fmt;

/// How a job's average parallelism `A` is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Parallelism {
    /// Every job scales to the whole machine (`A` = system size).
    System,
    /// `A` uniform between `low` and `high` times the job's recorded width
    /// (the paper: 1 and 2).
    TimesWidth { low: f64, high: f64 },
}

impl Parallelism {
    /// The MOLD paper's "A random": uniform between 1 and 2 times the
    /// recorded width.
    pub const PAPER_RANDOM: Parallelism = Parallelism::TimesWidth {
        low: 1.0,
        high: 2.0,
    };
}

/// How a job's `sigma` is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Sigma {
    Fixed {
        value: f64,
    },
    /// Uniform in `[low, high]` (the paper: 0 and 2).
    Uniform {
        low: f64,
        high: f64,
    },
}

impl Sigma {
    /// The MOLD paper's sigma: uniform between 0 and 2.
    pub const PAPER: Sigma = Sigma::Uniform {
        low: 0.0,
        high: 2.0,
    };
}

/// How to make a rigid workload moldable.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MoldableSpec {
    pub parallelism: Parallelism,
    pub sigma: Sigma,
    pub seed: u64,
}

impl MoldableSpec {
    /// Checks the ranges: factors at least 1 and ordered, sigma at least 0
    /// and ordered, all finite.
    pub fn validate(&self) -> Result<(), String> {
        let finite = |x: f64| x.is_finite();
        if let Parallelism::TimesWidth { low, high } = self.parallelism {
            if !(finite(low) && finite(high) && low >= 1.0 && high >= low) {
                return Err(format!(
                    "A between {low} and {high} times the width: need 1 <= low <= high"
                ));
            }
        }
        match self.sigma {
            Sigma::Fixed { value } if !(finite(value) && value >= 0.0) => {
                Err(format!("sigma {value}: need at least 0"))
            }
            Sigma::Uniform { low, high }
                if !(finite(low) && finite(high) && low >= 0.0 && high >= low) =>
            {
                Err(format!(
                    "sigma between {low} and {high}: need 0 <= low <= high"
                ))
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for MoldableSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.parallelism {
            Parallelism::System => write!(f, "A = system size")?,
            Parallelism::TimesWidth { low, high } => {
                write!(f, "A uniform in [{low}, {high}] x width")?
            }
        }
        match self.sigma {
            Sigma::Fixed { value } => write!(f, ", sigma {value}")?,
            Sigma::Uniform { low, high } => write!(f, ", sigma uniform in [{low}, {high}]")?,
        }
        write!(f, ", seed {}", self.seed)
    }
}

/// `w` with every job moldable by `spec`: the same jobs, each with a
/// Downey model through its recorded width and run time. Deterministic in
/// the seed; a job's draws do not depend on the ones after it.
pub fn make_moldable(w: &Workload, spec: &MoldableSpec) -> Result<Workload, String> {
    spec.validate()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed);
    let mut out = w.clone();
    let machine = f64::from(w.procs.max(1));
    for j in &mut out.jobs {
        // Two draws per job whatever the spec, so that changing one
        // parameter's distribution leaves the other's values alone.
        let (for_a, for_sigma): (f64, f64) = (rng.gen(), rng.gen());
        let a = match spec.parallelism {
            Parallelism::System => machine,
            Parallelism::TimesWidth { low, high } => {
                (low + for_a * (high - low)) * f64::from(j.procs)
            }
        };
        let sigma = match spec.sigma {
            Sigma::Fixed { value } => value,
            Sigma::Uniform { low, high } => low + for_sigma * (high - low),
        };
        // Width and factors are at least 1, so is A.
        j.speedup = Some(Downey::new(a.max(1.0), sigma)?);
    }
    out.name = format!("{}@moldable", w.name);
    Ok(out)
}

/// The MOLD paper's effective load: the work of every job at perfect
/// efficiency (its time on one processor, `T * S(w)`) per processor-second
/// of the submit span. For rigid jobs the work is `T * w`, so a rigid
/// workload's effective load is its offered load.
pub fn effective_load(w: &Workload) -> f64 {
    w.load_of(|j| {
        let t = j.sim_runtime();
        match &j.speedup {
            Some(m) => m.work(t, j.procs),
            None => t as f64 * f64::from(j.procs),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Job, SwfHeader};

    fn rigid() -> Workload {
        let jobs = (0..200)
            .map(|i| Job::plain(i, i * 100, 1000 + i, (i % 16 + 1) as u32))
            .collect();
        Workload::new("t", 64, SwfHeader::default(), jobs)
    }

    #[test]
    fn parameters_follow_the_spec() {
        let w = rigid();
        let spec = MoldableSpec {
            parallelism: Parallelism::TimesWidth {
                low: 1.0,
                high: 2.0,
            },
            sigma: Sigma::Uniform {
                low: 0.0,
                high: 2.0,
            },
            seed: 7,
        };
        let m = make_moldable(&w, &spec).unwrap();
        for (j, r) in m.jobs.iter().zip(&w.jobs) {
            let s = j.speedup.unwrap();
            let width = f64::from(r.procs);
            assert!(s.a >= width && s.a <= 2.0 * width, "{s:?} width {width}");
            assert!((0.0..=2.0).contains(&s.sigma));
            // Nothing else changed.
            assert_eq!(
                (j.procs, j.runtime, j.estimate, j.submit),
                (r.procs, r.runtime, r.estimate, r.submit)
            );
        }
        // Same seed, same draws; another seed, others.
        assert_eq!(make_moldable(&w, &spec).unwrap().jobs, m.jobs);
        let other = make_moldable(&w, &MoldableSpec { seed: 8, ..spec }).unwrap();
        assert_ne!(other.jobs, m.jobs);
        // Fixing sigma leaves the draws of A alone.
        let fixed = MoldableSpec {
            sigma: Sigma::Fixed { value: 1.0 },
            ..spec
        };
        let f = make_moldable(&w, &fixed).unwrap();
        for (a, b) in f.jobs.iter().zip(&m.jobs) {
            assert_eq!(a.speedup.unwrap().a, b.speedup.unwrap().a);
            assert_eq!(a.speedup.unwrap().sigma, 1.0);
        }
        let system = MoldableSpec {
            parallelism: Parallelism::System,
            ..spec
        };
        let s = make_moldable(&w, &system).unwrap();
        assert!(s.jobs.iter().all(|j| j.speedup.unwrap().a == 64.0));
        for (a, b) in s.jobs.iter().zip(&m.jobs) {
            assert_eq!(a.speedup.unwrap().sigma, b.speedup.unwrap().sigma);
        }
    }

    #[test]
    fn effective_load_counts_work_at_perfect_efficiency() {
        // Two jobs over a span of 100 s on 10 processors: 100 s on 4
        // processors (linear: 400 processor-seconds) and 100 s on 2 with
        // sigma 2, A 2 (S(2) = 2*2*3 / (2*3 + 2) = 1.5: 150).
        let mut w = Workload::new(
            "t",
            10,
            SwfHeader::default(),
            vec![Job::plain(1, 0, 100, 4), Job::plain(2, 100, 100, 2)],
        );
        assert!((effective_load(&w) - 600.0 / 1000.0).abs() < 1e-12);
        w.jobs[0].speedup = Some(Downey::new(8.0, 0.0).unwrap());
        w.jobs[1].speedup = Some(Downey::new(2.0, 2.0).unwrap());
        assert!((effective_load(&w) - 550.0 / 1000.0).abs() < 1e-12);
    }

    #[test]
    fn bad_specs_are_refused() {
        let bad = [
            MoldableSpec {
                parallelism: Parallelism::TimesWidth {
                    low: 0.5,
                    high: 2.0,
                },
                sigma: Sigma::Fixed { value: 1.0 },
                seed: 1,
            },
            MoldableSpec {
                parallelism: Parallelism::TimesWidth {
                    low: 2.0,
                    high: 1.0,
                },
                sigma: Sigma::Fixed { value: 1.0 },
                seed: 1,
            },
            MoldableSpec {
                parallelism: Parallelism::System,
                sigma: Sigma::Uniform {
                    low: 1.0,
                    high: 0.0,
                },
                seed: 1,
            },
            MoldableSpec {
                parallelism: Parallelism::System,
                sigma: Sigma::Fixed { value: -1.0 },
                seed: 1,
            },
        ];
        for spec in bad {
            assert!(make_moldable(&rigid(), &spec).is_err(), "{spec:?}");
        }
    }
}
