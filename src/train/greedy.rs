//! Training GREEDY's criteria (section IV-C): the parameters of the
//! criterion of each situation, one vector for the three, scored by the
//! owner objective of the greedy schedule of every training workload
//! (their sum when there are several: the paper's multi-workload
//! training).
//!
//! Each training workload gets its own user groups (its users' shares of
//! its consumption) and its own wall clock (its trace's time zone).

use super::Bounds;
use crate::measures::owner::OwnerObjective;
use crate::policy::greedy::week::{Calendar, CalendarError};
use crate::policy::greedy::{Criterion, Family, GreedySpec, Situation};
use crate::sim::{simulate, SimOptions};
use crate::workload::groups::{self, Bands};
use crate::workload::Workload;
use std::fmt::Write as _;

/// What is trained and on what.
pub struct GreedyTraining {
    pub families: [Family; 3],
    pub bands: Bands,
    pub owner: OwnerObjective,
    workloads: Vec<(Workload, Calendar)>,
}

impl GreedyTraining {
    /// Training of criteria `families` (per situation) for `owner` over
    /// `bands`, on `workloads`.
    pub fn new(
        families: [Family; 3],
        bands: Bands,
        owner: OwnerObjective,
        workloads: &[Workload],
    ) -> Result<Self, CalendarError> {
        let workloads = workloads
            .iter()
            .map(|w| Ok((groups::assign(w, &bands), Calendar::of(w)?)))
            .collect::<Result<_, CalendarError>>()?;
        Ok(GreedyTraining {
            families,
            bands,
            owner,
            workloads,
        })
    }

    /// A digest of everything the fitness depends on: the families, the
    /// groups, the owner objective, and each workload's machine, jobs and
    /// wall clock. A checkpoint of other traces, settings or template has
    /// another, so it is not resumed as if it were this training's.
    pub fn problem(&self) -> String {
        use sha2::{Digest, Sha256};
        /// Formats straight into the hash: a trace's jobs are megabytes.
        struct Hashing(Sha256);
        impl std::fmt::Write for Hashing {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0.update(s.as_bytes());
                Ok(())
            }
        }
        let mut h = Hashing(Sha256::new());
        let _ = write!(h, "{:?}|{:?}|{:?}", self.families, self.bands, self.owner);
        for (w, calendar) in &self.workloads {
            let _ = write!(h, "|{}|{:?}|{:?}", w.procs, calendar, w.jobs);
        }
        format!(
            "greedy training {}",
            crate::store::record::hex(&h.0.finalize())
        )
    }

    fn groups(&self) -> usize {
        self.bands.groups()
    }

    /// The box of the parameter vector: each situation's criterion's
    /// parameters in turn (see [`Criterion::to_vector`]).
    pub fn bounds(&self) -> Bounds {
        Bounds(
            self.families
                .iter()
                .flat_map(|&f| Criterion::bounds(f, self.groups()))
                .collect(),
        )
    }

    /// The parameter vector of given criteria (a start point).
    pub fn vector(criteria: &[Criterion; 3]) -> Vec<f64> {
        criteria.iter().flat_map(Criterion::to_vector).collect()
    }

    /// The scheduler of a parameter vector.
    pub fn spec(&self, x: &[f64]) -> GreedySpec {
        let n = self.groups();
        let mut at = 0;
        let criteria = self.families.map(|f| {
            let d = Criterion::dimension(f, n);
            let c = Criterion::from_vector(f, n, &x[at..at + d]);
            at += d;
            c
        });
        GreedySpec { criteria }
    }

    /// The owner objective of each training workload's schedule under `x`.
    pub fn objectives(&self, x: &[f64]) -> Vec<f64> {
        let spec = self.spec(x);
        self.workloads
            .iter()
            .map(|(w, calendar)| {
                let mut policy = spec.build(*calendar);
                match simulate(w, &mut policy, SimOptions::default()) {
                    Ok(o) => self.owner.evaluate(w, &o, self.groups()),
                    // A schedule the core refused is no candidate.
                    Err(_) => f64::INFINITY,
                }
            })
            .collect()
    }

    /// The fitness the strategy minimises: the objectives' sum.
    pub fn fitness(&self, x: &[f64]) -> f64 {
        self.objectives(x).iter().sum()
    }

    /// Whether a fitness can come from [`GreedyTraining::fitness`]: an
    /// owner objective is a finite number of seconds (NaN stands for "not
    /// evaluated"), so an infinite one in a checkpoint was written by hand.
    pub fn possible_fitness(f: f64) -> bool {
        !f.is_infinite()
    }

    /// The trained goal as a goal file: `comments` first (each line
    /// prefixed with `# `), then the statements.
    pub fn goal_text(&self, name: &str, x: &[f64], comments: &[String]) -> String {
        let spec = self.spec(x);
        let mut s = String::new();
        for c in comments {
            let _ = writeln!(s, "# {c}");
        }
        let _ = writeln!(s, "name {name:?}");
        let _ = writeln!(s, "groups {}", self.bands);
        let _ = writeln!(s, "owner {}", self.owner);
        for sit in Situation::ALL {
            let _ = writeln!(s, "criterion {:<13} {}", sit.name(), spec.criterion(sit));
        }
        s
    }
}
