//! The statements of a goal file, one file per mechanism.
//!
//! A mechanism checks its own statements, declares what they claim and
//! which modes they fit (see [`super::mode`]), keeps the rules among its
//! own statements, and lowers itself into the [`Draft`]. It sees other
//! mechanisms only through [`Cx`] and the draft lowered so far, never their
//! statements. Adding one is a new file here, a line in [`mechanisms`],
//! and its mode in [`super::mode::Mode`] if it brings one.

pub mod admission;
pub mod baseline;
pub mod fairshare;
pub mod greedy;
pub mod moldable;
pub mod order;
pub mod search;

use super::args::Check;
use super::diag::{Diagnostic, Span};
use super::draft::Draft;
use super::mode::{Mode, Modes};
use super::syntax::Statement;

/// Every mechanism. The order is the order of the keyword list in help
/// texts, and of lowering: a mechanism may build on what an earlier one
/// lowered (fairshare orders the baseline's queue).
pub fn mechanisms() -> Vec<Box<dyn Mechanism>> {
    vec![
        Box::<baseline::Baseline>::default(),
        Box::<search::Search>::default(),
        Box::<admission::Admission>::default(),
        Box::<fairshare::Fairshare>::default(),
        Box::<greedy::Greedy>::default(),
        Box::<moldable::Moldable>::default(),
    ]
}

/// The statements of one scheduling mechanism.
pub trait Mechanism {
    /// Its statements.
    fn statements(&self) -> &'static [Kind];

    /// The words it gives the shared `order` statement, if any.
    fn order_words(&self) -> Option<order::OrderWords> {
        None
    }

    /// Whether a statement of this keyword may be given more than once
    /// (the mechanism then checks repeats itself).
    fn repeatable(&self, _keyword: &str) -> bool {
        false
    }

    /// Misspellings of its statements worth a tailored did-you-mean.
    fn near_misses(&self) -> &'static [NearMiss] {
        &[]
    }

    /// Checks one of its statements, or an `order` with one of its words.
    fn check(&mut self, st: &Statement, cx: &mut Cx) -> Check;

    /// Declares what its statements claim and which modes they fit.
    fn modes(&self, modes: &mut Modes);

    /// Applies the rules among its statements and writes its part of the
    /// goal, once the mode is known; statements that do not fit `mode`
    /// were reported by the resolver already.
    fn lower(&self, mode: Mode, cx: &Cx, goal: &mut Draft, diags: &mut Vec<Diagnostic>);
}

/// A statement: its keywords, and how "given twice" names it (each is
/// single-valued).
pub struct Kind {
    pub keywords: &'static [&'static str],
    /// The setting and its verb: "the queue order is".
    pub once: &'static str,
}

/// A word that is not a keyword but near one, with the statement meant.
pub struct NearMiss {
    pub word: &'static str,
    /// The statement to suggest, built from the one written.
    pub suggest: fn(&Statement) -> String,
}

/// What the checker knows across mechanisms.
pub struct Cx<'t> {
    pub text: &'t str,
    /// Warnings found while checking statements.
    pub warnings: Vec<Diagnostic>,
    /// Where each statement was given, by its first keyword.
    pub given: Vec<(&'static str, Span)>,
    /// The `order` statement, once checked.
    pub order: Option<order::Given>,
    /// The words of `order`.
    pub order_words: order::Words,
    /// Checking a template for `goalc train`: criteria may come without
    /// parameters.
    pub training: bool,
}

impl Cx<'_> {
    /// Where the statement with first keyword `keyword` was given.
    pub fn given(&self, keyword: &str) -> Option<Span> {
        self.given
            .iter()
            .find(|(k, _)| *k == keyword)
            .map(|(_, span)| *span)
    }

    /// The `order` statement when it sets a queue order (one a baseline
    /// uses), not another mode's order.
    pub fn queue_order(&self) -> Option<&order::Given> {
        self.order
            .as_ref()
            .filter(|o| o.fits.contains(&Mode::Baseline))
    }
}
