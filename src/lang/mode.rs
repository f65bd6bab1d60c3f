//! How a goal schedules (its mode), decided in one place from what its
//! statements declare.
//!
//! A mechanism does not check its statements against the others': it
//! declares *claims* (an objective makes the goal a search; deadlines make
//! it admission control) and *fits* (which modes each of its statements
//! makes sense in). [`resolve`] picks the mode and reports every statement
//! that does not fit it against the statement that claimed it.

use super::args::line_of;
use super::diag::{Diagnostic, Span};

/// How a goal schedules its jobs.
///
/// When statements claim two modes, the later variant wins and the
/// statements of the other are reported against it: deadlines change the
/// workload itself (every job carries one), so they outrank the others; a
/// moldable scheme changes how every job runs (its width), so it outranks
/// an objective and criteria.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// A dispatch rule and a queue order: what a goal is unless a
    /// statement claims otherwise.
    Baseline,
    /// GREEDY's scheduler: the queue sorted by trained criteria, no
    /// backfilling.
    Greedy,
    /// A search over schedules for an objective (the GOAL paper).
    Search,
    /// Moldable scheduling: a scheme picks each job's width and dispatches
    /// jobs its own way (the MOLD paper).
    Moldable,
    /// Admission control with deadline guarantees (the QOPS paper).
    Admission,
}

impl Mode {
    /// Every mode, for statements that fit any goal.
    pub const ALL: &'static [Mode] = &[
        Mode::Baseline,
        Mode::Greedy,
        Mode::Search,
        Mode::Moldable,
        Mode::Admission,
    ];
}

/// What a conflict tells the statement that does not fit, and says of the
/// claim beside it.
#[derive(Debug, Clone)]
pub struct Wording {
    /// Under the conflicting statement.
    pub label: &'static str,
    /// Under the claiming statement.
    pub related: String,
    pub help: &'static str,
}

/// A statement that makes the goal schedule in `mode`.
#[derive(Debug, Clone)]
pub struct Claim {
    pub mode: Mode,
    pub span: Span,
    /// How conflicts name it: "conflicts with the {name} on line N".
    pub name: &'static str,
    /// Said to a setting the mode replaces with its own ([`Role::Setting`]).
    pub to_setting: Wording,
    /// Said to any other statement that does not fit ([`Role::Feature`]).
    pub to_feature: Wording,
}

/// What a statement is to a mode it does not fit, which picks the wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A choice every mode makes its own way (dispatch rule, queue order,
    /// objective): the other mode replaces it.
    Setting,
    /// Something added to a mode (fairshare, starvation queue, runtime
    /// limit): the other mode has no use for it.
    Feature,
}

/// A conflict about to be reported, which a statement may reword.
#[derive(Debug, Clone)]
pub struct Conflict {
    /// The statement as the message names it: "a dispatch rule".
    pub what: String,
    pub wording: Wording,
}

/// Rewords a conflict of one statement with a claim.
pub type Reword = Box<dyn Fn(&Claim, &mut Conflict)>;

/// A statement and the modes it makes sense in.
pub struct Fit {
    pub span: Span,
    /// How a conflict names it, e.g. "a dispatch rule".
    pub what: String,
    pub role: Role,
    pub fits: &'static [Mode],
    /// Its own wording against some claims, when the claim's is not apt.
    pub reword: Option<Reword>,
}

impl Fit {
    pub fn new(span: Span, what: impl Into<String>, role: Role, fits: &'static [Mode]) -> Self {
        Fit {
            span,
            what: what.into(),
            role,
            fits,
            reword: None,
        }
    }

    pub fn reword(mut self, f: impl Fn(&Claim, &mut Conflict) + 'static) -> Self {
        self.reword = Some(Box::new(f));
        self
    }
}

/// The claims and fits of every statement of a goal.
#[derive(Default)]
pub struct Modes {
    claims: Vec<Claim>,
    fits: Vec<Fit>,
}

impl Modes {
    /// Declares a claim; of two claims of one mode, the first declared
    /// speaks for it in messages.
    pub fn claim(&mut self, claim: Claim) {
        self.claims.push(claim);
    }

    pub fn fit(&mut self, fit: Fit) {
        self.fits.push(fit);
    }
}

/// The goal's mode, and one conflict for every statement that does not fit
/// it, in file order. A goal nothing claims is a baseline; statements that
/// do not fit a baseline then are their own mechanism's to judge (e.g.
/// `order edf` without deadlines), as there is no claim to name.
pub fn resolve(text: &str, modes: Modes) -> (Mode, Vec<Diagnostic>) {
    let mode = modes
        .claims
        .iter()
        .map(|c| c.mode)
        .max()
        .unwrap_or(Mode::Baseline);
    let Some(claim) = modes.claims.iter().find(|c| c.mode == mode) else {
        return (mode, Vec::new());
    };
    let (line, _) = line_of(text, claim.span);
    let mut fits = modes.fits;
    fits.sort_by_key(|f| f.span.start);
    let conflicts = fits
        .into_iter()
        .filter(|f| !f.fits.contains(&mode))
        .map(|f| {
            let wording = match f.role {
                Role::Setting => claim.to_setting.clone(),
                Role::Feature => claim.to_feature.clone(),
            };
            let mut c = Conflict {
                what: f.what,
                wording,
            };
            if let Some(reword) = &f.reword {
                reword(claim, &mut c);
            }
            Diagnostic::error(
                f.span,
                format!(
                    "{} conflicts with the {} on line {line}",
                    c.what, claim.name
                ),
            )
            .with_label(c.wording.label)
            .with_related(claim.span, c.wording.related)
            .with_help(c.wording.help)
        })
        .collect();
    (mode, conflicts)
}
