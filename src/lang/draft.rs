//! What a goal file asks for, once checked: the checker's draft, which
//! the statement files fill in and [`super::compile`] lowers to specs.

use crate::measures::owner::OwnerObjective;
use crate::policy::greedy::{Criterion, Family};
use crate::policy::{Dispatch, Order};
use crate::workload::groups::Bands;
use crate::workload::Time;

/// What a goal file asks for, checked; [`super::compile`] lowers it to the
/// run layer's [`crate::run::Goal`].
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub name: Option<String>,
    pub dispatch: Dispatch,
    pub order: Order,
    /// Lower bound on run time in the bounded slowdown, seconds.
    pub tau: Time,
    /// A search over schedules, when the goal states an objective.
    pub search: Option<crate::policy::search::SearchSpec>,
    /// Admission control, when the goal states deadlines.
    pub admission: Option<crate::policy::admission::AdmissionSpec>,
    /// How the workload's deadlines are made, for admission control.
    pub deadlines: Option<crate::run::DeadlineSpec>,
    /// FAIR's maximum run time, seconds: longer jobs are split into chunks.
    pub runtime_limit: Option<Time>,
    /// GREEDY's user groups, when the goal states groups, an owner
    /// objective or criteria.
    pub groups: Option<Bands>,
    /// GREEDY's owner objective.
    pub owner: Option<OwnerObjective>,
    /// GREEDY's scheduler, when the goal states criteria.
    pub greedy: Option<GreedyDraft>,
    /// MOLD's scheme, when the goal states one (and it is the goal's mode).
    pub moldable: Option<crate::policy::moldable::MoldableScheme>,
    /// How the workload's jobs scale, when the goal states a speedup model.
    pub speedup: Option<crate::workload::transform::MoldableSpec>,
}

/// The criteria of a greedy goal: their families per situation, and their
/// parameters unless the goal is a template for training.
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyDraft {
    /// In [`crate::policy::greedy::Situation::ALL`] order.
    pub families: [Family; 3],
    pub criteria: Option<[Criterion; 3]>,
}

impl Default for Draft {
    /// EASY backfilling in FCFS order, the most common production policy,
    /// with the usual 60 s slowdown bound.
    fn default() -> Self {
        Draft {
            name: None,
            dispatch: Dispatch::Easy { depth: 1 },
            order: Order::Fcfs,
            tau: 60,
            search: None,
            admission: None,
            deadlines: None,
            runtime_limit: None,
            groups: None,
            owner: None,
            greedy: None,
            moldable: None,
            speedup: None,
        }
    }
}
