//! The checker: from statements to a typed [`Goal`], or diagnostics.
//!
//! Each keyword has its own checking function; statements of features not
//! built yet are recognised and rejected with a clear error, never ignored.
//! A goal file is read whole: every statement is checked, so one run of
//! `goalc check` reports every mistake (up to [`MAX_DIAGNOSTICS`]).

// Diagnostics are the error path of a checker that runs once per file:
// moving them by value costs nothing that matters, boxing would cost clarity.
#![allow(clippy::result_large_err)]

use super::diag::{line_col, Diagnostic, Span};
use super::syntax::{Item, Statement, Token};
use crate::policy::fairshare::Decay;
use crate::policy::{Dispatch, Order};
use crate::units::parse_duration;
use crate::workload::Time;

/// More than this many diagnostics are summarised in one last line.
pub const MAX_DIAGNOSTICS: usize = 50;
/// Largest reservation depth accepted: beyond it EASY is conservative in all
/// but name, and the epoch cost grows with it.
pub const MAX_DEPTH: u32 = 1000;
/// Shortest fairshare decay period or half-life, starvation wait and
/// runtime limit: anything shorter is a slip of the unit.
pub const MIN_FAIR_DURATION: Time = 60;
/// Longest fairshare decay period or half-life.
pub const MAX_DECAY: Time = 365 * 86_400;

/// What a goal file asks for, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
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
}

impl Default for Goal {
    /// EASY backfilling in FCFS order, the most common production policy,
    /// with the usual 60 s slowdown bound.
    fn default() -> Self {
        Goal {
            name: None,
            dispatch: Dispatch::Easy { depth: 1 },
            order: Order::Fcfs,
            tau: 60,
            search: None,
            admission: None,
            deadlines: None,
            runtime_limit: None,
        }
    }
}

/// Keywords goalc implements.
const SUPPORTED: [&str; 14] = [
    "name",
    "dispatch",
    "backfill",
    "order",
    "slowdown",
    "objective",
    "lexical",
    "tradeoff",
    "search",
    "deadline",
    "admission",
    "fairshare",
    "starvation",
    "limit",
];

/// Keywords of features still to come, with the feature that will bring them.
const NOT_YET: [(&str, &str); 7] = [
    (
        "groups",
        "user groups and owner objectives (the GREEDY paper)",
    ),
    (
        "owner",
        "user groups and owner objectives (the GREEDY paper)",
    ),
    ("criterion", "trained sort criteria (the GREEDY paper)"),
    ("train", "trained sort criteria (the GREEDY paper)"),
    ("moldable", "moldable job allocation (the MOLD paper)"),
    ("speedup", "moldable job allocation (the MOLD paper)"),
    ("allocation", "moldable job allocation (the MOLD paper)"),
];

/// The closest candidate to `word`, if close enough to be a likely typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, c), c))
        .filter(|&(d, c)| d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|&(d, c)| (d, c))
        .map(|(_, c)| c)
}

fn suggestion(word: &str, candidates: &[&str]) -> String {
    match did_you_mean(word, candidates.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!("expected one of: {}", candidates.join(", ")),
    }
}

/// Checks parsed statements. Returns the goal when there is no error, and
/// every diagnostic found (warnings may come with a goal).
pub fn check(text: &str, statements: &[Statement]) -> (Option<Goal>, Vec<Diagnostic>) {
    let mut cx = Checker {
        text,
        goal: Goal::default(),
        diags: Vec::new(),
        seen_name: None,
        seen_dispatch: None,
        seen_order: None,
        seen_slowdown: None,
        objective: None,
        search: None,
        deadline: None,
        admission: None,
        admission_order: None,
        fairshare: None,
        starvation: None,
        runtime_limit: None,
    };
    if statements.is_empty() {
        cx.diags.push(
            Diagnostic::error(
                Span::new(0, text.len().min(1)),
                "the goal file states nothing",
            )
            .with_label("no statement in this file")
            .with_help("state at least a dispatch rule, e.g. `backfill easy`"),
        );
    }
    for st in statements {
        if let Err(d) = cx.statement(st) {
            cx.diags.push(d);
        }
    }
    if let Err(d) = cx.combine_search() {
        cx.diags.push(d);
    }
    if let Err(d) = cx.combine_admission() {
        cx.diags.push(d);
    }
    if let Err(d) = cx.combine_fairshare() {
        cx.diags.push(d);
    }
    if let Err(d) = cx.combine_starvation() {
        cx.diags.push(d);
    }
    if let Err(d) = cx.combine_runtime_limit() {
        cx.diags.push(d);
    }
    let mut diags = cx.diags;
    if diags.len() > MAX_DIAGNOSTICS {
        let rest = diags.len() - MAX_DIAGNOSTICS;
        let span = diags[MAX_DIAGNOSTICS].span;
        diags.truncate(MAX_DIAGNOSTICS);
        diags.push(Diagnostic::error(
            span,
            format!("{rest} more problems not shown"),
        ));
    }
    let ok = !diags.iter().any(Diagnostic::is_error);
    (ok.then_some(cx.goal), diags)
}

struct Checker<'t> {
    text: &'t str,
    goal: Goal,
    diags: Vec<Diagnostic>,
    // Where each single-valued setting was first given.
    seen_name: Option<Span>,
    seen_dispatch: Option<Span>,
    seen_order: Option<Span>,
    seen_slowdown: Option<Span>,
    /// The objective and where it was stated.
    objective: Option<(Span, crate::policy::objective::Objective)>,
    search: Option<(Span, super::objective::SearchStmt)>,
    deadline: Option<(Span, crate::run::DeadlineSpec)>,
    admission: Option<(Span, crate::policy::admission::Algorithm)>,
    /// `order edf|llf`: the admission heuristic.
    admission_order: Option<(Span, crate::policy::admission::Heuristic)>,
    /// The `fairshare` statement's decay rule.
    fairshare: Option<(Span, Decay)>,
    starvation: Option<(Span, Starvation)>,
    runtime_limit: Option<(Span, Time)>,
}

/// A checked `starvation after T [exclude heavy]`.
#[derive(Debug, Clone, Copy)]
struct Starvation {
    after: Time,
    /// Where `exclude heavy` stands, when given.
    exclude_heavy: Option<Span>,
}

pub(super) type Check<T = ()> = Result<T, Diagnostic>;

impl Checker<'_> {
    fn statement(&mut self, st: &Statement) -> Check {
        let kw = st.keyword.as_str();
        match kw {
            "name" => self.name(st),
            "dispatch" | "backfill" => self.dispatch(st),
            "order" => self.order(st),
            "slowdown" => self.slowdown(st),
            "objective" | "lexical" | "tradeoff" => self.objective(st),
            "search" => self.search(st),
            "deadline" => {
                self.once(self.deadline.map(|d| d.0), st, "the deadline is")?;
                self.deadline = Some((st.span, super::admission::deadline(st)?));
                Ok(())
            }
            "admission" => {
                self.once(self.admission.map(|a| a.0), st, "the admission policy is")?;
                self.admission = Some((st.span, super::admission::admission(st)?));
                Ok(())
            }
            "fairshare" => {
                self.once(self.fairshare.map(|f| f.0), st, "the fairshare decay is")?;
                self.fairshare = Some((st.span, fairshare(st)?));
                Ok(())
            }
            "starvation" => {
                self.once(self.starvation.map(|s| s.0), st, "the starvation queue is")?;
                self.starvation = Some((st.span, starvation(st)?));
                Ok(())
            }
            "limit" => {
                self.once(self.runtime_limit.map(|l| l.0), st, "the runtime limit is")?;
                self.runtime_limit = Some((st.span, runtime_limit(st)?));
                Ok(())
            }
            // FAIR says "runtime limit"; the statement is `limit runtime`.
            "runtime" => Err(
                Diagnostic::error(st.keyword_span, "unknown statement `runtime`")
                    .with_label("not a keyword")
                    .with_help(format!("did you mean `{}`?", limit_runtime_example(st))),
            ),
            _ => {
                if let Some((_, feature)) = NOT_YET.iter().find(|(k, _)| *k == kw) {
                    return Err(Diagnostic::error(
                        st.keyword_span,
                        format!("`{kw}` is recognised but not yet supported"),
                    )
                    .with_label("not implemented yet")
                    .with_help(format!(
                        "this version of goalc does not have {feature}; remove the statement \
                         (goalc rejects what it cannot do rather than ignore it)"
                    )));
                }
                let all = SUPPORTED
                    .iter()
                    .copied()
                    .chain(NOT_YET.iter().map(|(k, _)| *k))
                    .chain(["runtime"]);
                let help = match did_you_mean(kw, all) {
                    Some("runtime") => {
                        format!("did you mean `{}`?", limit_runtime_example(st))
                    }
                    Some(c) => format!("did you mean `{c}`?"),
                    None => format!("statements start with one of: {}", SUPPORTED.join(", ")),
                };
                Err(
                    Diagnostic::error(st.keyword_span, format!("unknown statement `{kw}`"))
                        .with_label("not a keyword")
                        .with_help(help),
                )
            }
        }
    }

    fn objective(&mut self, st: &Statement) -> Check {
        self.once(self.objective.as_ref().map(|o| o.0), st, "the objective is")?;
        let checked = super::objective::objective(st)?;
        self.diags.extend(checked.warnings);
        self.objective = Some((st.span, checked.objective));
        Ok(())
    }

    fn search(&mut self, st: &Statement) -> Check {
        self.once(self.search.as_ref().map(|s| s.0), st, "the search is")?;
        self.search = Some((st.span, super::objective::search(st)?));
        Ok(())
    }

    /// An objective makes the goal a search; settings of the baselines
    /// (dispatch, order) then contradict it, and a search needs an objective.
    fn combine_search(&mut self) -> Check {
        let Some((obj_span, objective)) = self.objective.clone() else {
            if let Some((span, _)) = self.search {
                return Err(Diagnostic::error(span, "`search` needs an objective to search for")
                    .with_label("no objective in this goal")
                    .with_help("state one, e.g. tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%"));
            }
            return Ok(());
        };
        for (other, what) in [
            (self.seen_dispatch, "dispatch rule"),
            (self.seen_order, "queue order"),
        ] {
            if let Some(span) = other {
                let (line, _) = line_col(self.text, obj_span.start);
                return Err(Diagnostic::error(
                    span,
                    format!("a {what} conflicts with the objective on line {line}"),
                )
                .with_label("not used by a search")
                .with_related(obj_span, "the objective: jobs are ordered by search")
                .with_help(
                    "a goal with an objective places jobs by search (like conservative backfilling, \
                     in the best order found); remove this line, or set the branching with \
                     `search ... branch fcfs|lxf`",
                ));
            }
        }
        self.goal.search = Some(super::objective::search_spec(
            objective,
            self.search.map(|s| s.1),
            self.goal.tau,
        ));
        Ok(())
    }

    /// Deadlines make the goal an admission-control policy (QoPS by default,
    /// EDF order by default); admission needs deadlines and rules out the
    /// other ways of scheduling.
    fn combine_admission(&mut self) -> Check {
        use crate::policy::admission::{AdmissionSpec, Algorithm, Heuristic};
        let (Some(deadline), admission) = (self.deadline, self.admission) else {
            if let Some((span, _)) = self.admission {
                return Err(Diagnostic::error(span, "admission control needs deadlines")
                    .with_label("no `deadline` statement in this goal")
                    .with_help("state how deadlines are set, e.g. deadline stringency 0.2 share 80% relaxation 5"));
            }
            if let Some((span, h)) = self.admission_order {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`order {}` orders admission control, which needs deadlines",
                        h.name()
                    ),
                )
                .with_label("no `deadline` statement in this goal")
                .with_help(
                    "add a `deadline` statement, or use a queue order: fcfs, lxf, sjf or fairshare",
                ));
            }
            return Ok(());
        };
        let (line, _) = line_col(self.text, deadline.0.start);
        let conflict = |span: Span, what: &str| {
            Diagnostic::error(
                span,
                format!("{what} conflicts with the deadlines on line {line}"),
            )
            .with_label("not used under admission control")
            .with_related(
                deadline.0,
                "deadlines: jobs are admitted and run at their reserved starts",
            )
            .with_help("a goal with deadlines schedules by admission control; remove this line")
        };
        if let Some((span, _)) = &self.objective {
            return Err(conflict(*span, "an objective"));
        }
        if let Some(span) = self.seen_dispatch {
            return Err(conflict(span, "a dispatch rule"));
        }
        if let (Some(span), None) = (self.seen_order, self.admission_order) {
            return Err(conflict(span, "a queue order other than edf or llf"));
        }
        self.goal.admission = Some(AdmissionSpec {
            algorithm: admission.map_or(
                Algorithm::Qops {
                    k: crate::policy::admission::policy::DEFAULT_K,
                },
                |a| a.1,
            ),
            heuristic: self.admission_order.map_or(Heuristic::Edf, |h| h.1),
        });
        self.goal.deadlines = Some(deadline.1);
        Ok(())
    }

    /// The line of `span`, and its statement as written (on one line).
    fn line_of(&self, span: Span) -> (usize, String) {
        let (line, _) = line_col(self.text, span.start);
        let text = self.text[span.start..span.end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        (line, text)
    }

    /// Where the goal schedules by admission control: its deadlines, or
    /// its admission policy when it states no deadline.
    fn admission_line(&self) -> Option<(Span, &'static str)> {
        self.deadline
            .map(|d| (d.0, "deadlines"))
            .or(self.admission.map(|a| (a.0, "admission control")))
    }

    /// A statement of a baseline policy (`what`, at `span`) beside an
    /// objective or deadlines, which schedule jobs their own way.
    fn conflicts_with_other_scheduling(&self, span: Span, what: &str) -> Check {
        if let Some((obj, _)) = &self.objective {
            let (line, _) = self.line_of(*obj);
            return Err(Diagnostic::error(
                span,
                format!("{what} conflicts with the objective on line {line}"),
            )
            .with_label("not used by a search")
            .with_related(*obj, "the objective: jobs are ordered and placed by search")
            .with_help(
                "a goal with an objective schedules by search, which has its own order and \
                 reservations; remove this line, or the objective",
            ));
        }
        if let Some((other, which)) = self.admission_line() {
            let (line, _) = self.line_of(other);
            return Err(Diagnostic::error(
                span,
                format!("{what} conflicts with the {which} on line {line}"),
            )
            .with_label("not used under admission control")
            .with_related(
                other,
                format!("{which}: jobs are admitted and run at their reserved starts"),
            )
            .with_help(
                "a goal with deadlines schedules by admission control (in edf or llf order); \
                 remove this line, or the deadlines",
            ));
        }
        Ok(())
    }

    /// A `fairshare` statement makes the queue order fairshare with its
    /// decay; another queue order, a search or admission control contradict it.
    fn combine_fairshare(&mut self) -> Check {
        let Some((span, decay)) = self.fairshare else {
            return Ok(());
        };
        // `order edf|llf` is admission control's, judged with the deadlines.
        if let (Some(order_span), None) = (self.seen_order, self.admission_order) {
            if !matches!(self.goal.order, Order::Fairshare(_)) {
                let (line, _) = self.line_of(span);
                let (_, order) = self.line_of(order_span);
                return Err(Diagnostic::error(
                    order_span,
                    format!("`{order}` conflicts with the fairshare statement on line {line}"),
                )
                .with_label("a second queue order")
                .with_related(span, "this orders the queue by fairshare")
                .with_help(format!(
                    "a `fairshare` statement sets the queue order: remove `{order}`, \
                     or remove the `fairshare` line to keep {} order",
                    self.goal.order.name().to_uppercase()
                )));
            }
        }
        self.conflicts_with_other_scheduling(span, "the fairshare order")?;
        self.goal.order = Order::Fairshare(decay);
        Ok(())
    }

    /// FAIR's CPlant scheduler: a starvation queue on no-guarantee
    /// backfilling, which it implies; other dispatch rules contradict it,
    /// and `exclude heavy` needs the fairshare order.
    fn combine_starvation(&mut self) -> Check {
        let Some((span, starvation)) = self.starvation else {
            return Ok(());
        };
        self.conflicts_with_other_scheduling(span, "the starvation queue")?;
        if let Some(dispatch_span) = self.seen_dispatch {
            if self.goal.dispatch != Dispatch::NoGuarantee {
                let (line, _) = self.line_of(span);
                let (_, stated) = self.line_of(dispatch_span);
                let help = match self.goal.dispatch {
                    Dispatch::Conservative | Dispatch::ConservativeDynamic => {
                        "conservative backfilling gives every job a reservation, so no job starves \
                         and no starvation queue is needed (the FAIR paper, sections V.C and V.D); \
                         remove one of the two lines (`starvation` alone means CPlant's \
                         no-guarantee backfilling)"
                    }
                    Dispatch::Easy { .. } => {
                        "EASY backfilling already holds a reservation for the first blocked job; \
                         the starvation queue belongs to no-guarantee backfilling (FAIR's CPlant \
                         scheduler): remove this line (`starvation` implies `backfill none`), or \
                         the `starvation` line"
                    }
                    _ => {
                        "the starvation queue belongs to no-guarantee backfilling (FAIR's CPlant \
                         scheduler): remove this line (`starvation` implies `backfill none`), or \
                         the `starvation` line"
                    }
                };
                return Err(Diagnostic::error(
                    dispatch_span,
                    format!("`{stated}` conflicts with the starvation queue on line {line}"),
                )
                .with_label("a second dispatch rule")
                .with_related(
                    span,
                    "the starvation queue: no-guarantee backfilling, with a reservation for the longest-starving job",
                )
                .with_help(help));
            }
        }
        let fairshare = self.fairshare.is_some() || matches!(self.goal.order, Order::Fairshare(_));
        if let (Some(exclude), false) = (starvation.exclude_heavy, fairshare) {
            let d = Diagnostic::error(exclude, "`exclude heavy` needs the fairshare order")
                .with_label("heavy means decayed fairshare usage above the mean");
            return Err(match self.seen_order {
                Some(order_span) if self.admission_order.is_none() => {
                    let (_, order) = self.line_of(order_span);
                    d.with_related(order_span, "the queue order is not fairshare")
                        .with_help(format!(
                            "replace `{order}` with `order fairshare` or `fairshare decay 24h`, \
                             or remove `exclude heavy`"
                        ))
                }
                _ => d.with_help(
                    "add `fairshare decay 24h` or `order fairshare`, or remove `exclude heavy`",
                ),
            });
        }
        self.goal.dispatch = Dispatch::Starvation {
            after: starvation.after,
            exclude_heavy: starvation.exclude_heavy.is_some(),
        };
        Ok(())
    }

    /// A runtime limit splits the workload's long jobs into chunks, which
    /// deadlines (made per job) cannot follow.
    fn combine_runtime_limit(&mut self) -> Check {
        let Some((span, limit)) = self.runtime_limit else {
            return Ok(());
        };
        if let Some((other, which)) = self.admission_line() {
            let (line, _) = self.line_of(other);
            return Err(Diagnostic::error(
                span,
                format!("a runtime limit conflicts with the {which} on line {line}"),
            )
            .with_label("not supported with deadlines")
            .with_related(
                other,
                if which == "deadlines" {
                    "deadlines are made for whole jobs"
                } else {
                    "admission control works on whole jobs"
                },
            )
            .with_help(
                "the chunks of a split job would need deadlines of their own, which goalc does \
                 not make; remove one of the two lines",
            ));
        }
        self.goal.runtime_limit = Some(limit);
        Ok(())
    }

    /// Errors when a single-valued setting is given a second time, naming
    /// both lines.
    fn once(&self, first: Option<Span>, st: &Statement, what: &str) -> Check {
        if let Some(first) = first {
            let (line, _) = line_col(self.text, first.start);
            let first_text = &self.text[first.start..first.end];
            return Err(Diagnostic::error(
                st.span,
                format!("{what} given twice: this conflicts with line {line}"),
            )
            .with_label("second one")
            .with_related(first, format!("first given here: `{first_text}`"))
            .with_help("keep one of the two statements"));
        }
        Ok(())
    }

    fn name(&mut self, st: &Statement) -> Check {
        self.once(self.seen_name, st, "the name is")?;
        let mut args = Args::new(st);
        let item = args.next("a quoted name, e.g. name \"EASY\"")?;
        let Token::Str(name) = &item.token else {
            return Err(
                Diagnostic::error(item.span, "the name must be in double quotes")
                    .with_label("not quoted")
                    .with_help(format!(
                        "write name \"{}\"",
                        self.text[item.span.start..item.span.end].trim()
                    )),
            );
        };
        if name.trim().is_empty() {
            return Err(Diagnostic::error(item.span, "the name is empty")
                .with_label("empty")
                .with_help(
                    "write a display name, as in name \"EASY\", or remove the line \
                     to name the goal after its file",
                ));
        }
        args.end()?;
        self.seen_name = Some(st.span);
        self.goal.name = Some(name.trim().to_string());
        Ok(())
    }

    fn dispatch(&mut self, st: &Statement) -> Check {
        self.once(
            self.seen_dispatch,
            st,
            "the dispatch rule (`dispatch` or `backfill`) is",
        )?;
        let mut args = Args::new(st);
        let dispatch = if st.keyword == "dispatch" {
            let (word, span) = args.word("a dispatch rule", &["fcfs", "list", "backfill"])?;
            match word {
                "fcfs" => Dispatch::NoBackfill,
                "list" => Dispatch::List,
                _ => {
                    return Err(Diagnostic::error(span, "backfilling is its own statement")
                        .with_label("not a `dispatch` rule")
                        .with_help(
                            "write `backfill easy`, `backfill conservative` or `backfill none`",
                        ))
                }
            }
        } else {
            if let Some(item) = args.peek().filter(|i| i.ident() == Some("dynamic")) {
                return Err(Diagnostic::error(item.span, "`dynamic` is not a backfill mode")
                    .with_label("expected easy, conservative, none")
                    .with_help("dynamic reservations are a variant of conservative backfilling: write `backfill conservative dynamic`"));
            }
            let (word, span) = args.word("a backfill mode", &["easy", "conservative", "none"])?;
            match word {
                "easy" => {
                    let depth = match args.peek() {
                        Some(_) => {
                            args.keyword("depth", "backfill easy depth 4")?;
                            let item = args.next("a reservation depth, e.g. depth 4")?;
                            whole_number(item, "reservation depth", 1, MAX_DEPTH)? as u32
                        }
                        None => 1,
                    };
                    Dispatch::Easy { depth }
                }
                "conservative" => match args.peek() {
                    // `depth` is judged below, with the other dispatches.
                    Some(item) if item.ident().is_some_and(|w| w != "depth") => {
                        args.next("")?;
                        args.word_from(
                            item,
                            "a variant of conservative backfilling",
                            &["dynamic"],
                        )?;
                        Dispatch::ConservativeDynamic
                    }
                    _ => Dispatch::Conservative,
                },
                _ => {
                    let _ = span;
                    Dispatch::NoGuarantee
                }
            }
        };
        if let Some(item) = args.peek() {
            if item.ident() == Some("depth") && !matches!(dispatch, Dispatch::Easy { .. }) {
                let last = st.items.last().map_or(item.span, |l| l.span);
                return Err(Diagnostic::error(
                    item.span.to(last),
                    "`depth` applies only to `backfill easy`",
                )
                .with_label("no reservation depth here")
                .with_help(
                    if matches!(
                        dispatch,
                        Dispatch::Conservative | Dispatch::ConservativeDynamic
                    ) {
                        "conservative backfilling gives every waiting job a reservation: remove \
                     `depth`, or write `backfill easy depth 4` for a fixed number"
                    } else {
                        "only EASY backfilling has a reservation depth: remove it, or write \
                     `backfill easy depth 4`"
                    },
                ));
            }
        }
        args.end()?;
        self.seen_dispatch = Some(st.span);
        self.goal.dispatch = dispatch;
        Ok(())
    }

    fn order(&mut self, st: &Statement) -> Check {
        self.once(self.seen_order, st, "the queue order is")?;
        let mut args = Args::new(st);
        let item =
            args.next("a queue order: fcfs, lxf, sjf or fairshare (edf or llf with deadlines)")?;
        let (word, _) = args.word_from(
            item,
            "a queue order",
            &["fcfs", "lxf", "sjf", "fairshare", "edf", "llf"],
        )?;
        let order = match word {
            "lxf" => Order::Lxf,
            "sjf" => Order::Sjf,
            "fairshare" => {
                if let Some(rule) = args
                    .peek()
                    .filter(|i| matches!(i.ident(), Some("decay" | "half-life")))
                {
                    let last = st.items.last().map_or(rule.span, |l| l.span);
                    let rest = &self.text[rule.span.start..last.end];
                    return Err(Diagnostic::error(
                        rule.span.to(last),
                        "the fairshare decay is its own statement",
                    )
                    .with_label("not part of `order`")
                    .with_help(format!(
                        "write `fairshare {rest}` on a line of its own: it sets the fairshare order with this decay"
                    )));
                }
                Order::Fairshare(Decay::CPLANT)
            }
            "edf" | "llf" => {
                use crate::policy::admission::Heuristic;
                args.end()?;
                let h = if word == "edf" {
                    Heuristic::Edf
                } else {
                    Heuristic::Llf
                };
                self.seen_order = Some(st.span);
                self.admission_order = Some((st.span, h));
                return Ok(());
            }
            _ => Order::Fcfs,
        };
        args.end()?;
        self.seen_order = Some(st.span);
        self.goal.order = order;
        Ok(())
    }

    fn slowdown(&mut self, st: &Statement) -> Check {
        self.once(self.seen_slowdown, st, "the slowdown bound is")?;
        let mut args = Args::new(st);
        args.keyword("bound", "slowdown bound 60s")?;
        let item = args.next("a duration, e.g. slowdown bound 60s")?;
        let tau = duration(item)?;
        if tau < 1 {
            return Err(
                Diagnostic::error(item.span, "the slowdown bound must be at least 1s")
                    .with_label("too small")
                    .with_help("GOAL uses 1m; 10s is also common"),
            );
        }
        args.end()?;
        self.seen_slowdown = Some(st.span);
        self.goal.tau = tau;
        Ok(())
    }
}

/// Walks the items of one statement.
pub(super) struct Args<'a> {
    st: &'a Statement,
    pos: usize,
}

impl<'a> Args<'a> {
    pub(super) fn new(st: &'a Statement) -> Self {
        Args { st, pos: 0 }
    }

    pub(super) fn peek(&self) -> Option<&'a Item> {
        self.st.items.get(self.pos)
    }

    /// The next item, or an error at the end of the statement saying what
    /// was expected.
    pub(super) fn next(&mut self, expected: &str) -> Check<&'a Item> {
        match self.st.items.get(self.pos) {
            Some(item) => {
                self.pos += 1;
                Ok(item)
            }
            None => {
                let end = self.st.span.end;
                Err(Diagnostic::error(
                    self.st.keyword_span.to(Span::new(end, end)),
                    format!("`{}` needs {expected}", self.st.keyword),
                )
                .with_label("incomplete statement"))
            }
        }
    }

    /// The next item as one of `choices`.
    pub(super) fn word(
        &mut self,
        expected: &str,
        choices: &[&'static str],
    ) -> Check<(&'static str, Span)> {
        let item = self.next(&format!("{expected}: {}", choices.join(", ")))?;
        self.word_from(item, expected, choices)
    }

    pub(super) fn word_from(
        &self,
        item: &Item,
        expected: &str,
        choices: &[&'static str],
    ) -> Check<(&'static str, Span)> {
        let found = item.ident().and_then(|w| choices.iter().find(|c| **c == w));
        match found {
            Some(c) => Ok((c, item.span)),
            None => {
                let raw = item.ident().unwrap_or_default();
                Err(
                    Diagnostic::error(item.span, format!("{} is not {expected}", item.describe()))
                        .with_label(format!("expected {}", choices.join(", ")))
                        .with_help(suggestion(raw, choices)),
                )
            }
        }
    }

    /// The next item must be the word `kw`; `example` shows the statement.
    fn keyword(&mut self, kw: &'static str, example: &str) -> Check {
        let item = self.next(&format!("`{kw}`, as in {example}"))?;
        if item.ident() == Some(kw) {
            return Ok(());
        }
        let found = item.describe();
        let help = match item.ident() {
            Some(w) if did_you_mean(w, [kw]).is_some() => format!("did you mean `{kw}`?"),
            Some(_) => format!("write it as in {example}"),
            None => format!("write `{kw}` before {found}, as in {example}"),
        };
        Err(
            Diagnostic::error(item.span, format!("expected `{kw}`, found {found}"))
                .with_label(format!("expected `{kw}`"))
                .with_help(help),
        )
    }

    /// Span of the item read last.
    pub(super) fn last_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.st.items.get(i))
            .map_or(self.st.keyword_span, |i| i.span)
    }

    /// No items may be left.
    pub(super) fn end(&self) -> Check {
        match self.peek() {
            None => Ok(()),
            Some(item) => {
                let last = self.st.items.last().map_or(item.span, |l| l.span);
                Err(Diagnostic::error(
                    item.span.to(last),
                    format!(
                        "unexpected {} at the end of `{}`",
                        item.describe(),
                        self.st.keyword
                    ),
                )
                .with_label("not expected here")
                .with_help("one statement per line; remove what follows or start a new line"))
            }
        }
    }
}

/// `fairshare decay P [factor F]` (usage multiplied by F at every multiple
/// of P; F defaults to 0.5) or `fairshare half-life H`.
fn fairshare(st: &Statement) -> Check<Decay> {
    let mut args = Args::new(st);
    let Some(first) = args.peek() else {
        return Err(
            Diagnostic::error(st.keyword_span, "`fairshare` needs a decay rule")
                .with_label("incomplete statement")
                .with_help(
                    "e.g. fairshare decay 24h (usage halved every 24 hours, as on CPlant), \
                     fairshare decay 7d factor 0.8, or fairshare half-life 7d; \
                     `order fairshare` alone means decay 24h",
                ),
        );
    };
    if let Token::Quantity(raw) = &first.token {
        return Err(
            Diagnostic::error(first.span, format!("expected a decay rule before `{raw}`"))
                .with_label("decay or half-life?")
                .with_help(format!(
                    "write `fairshare decay {raw}` (usage halved at every {raw} boundary) or \
             `fairshare half-life {raw}` (usage decays continuously, halving every {raw})"
                )),
        );
    }
    let (rule, _) = args.word("a fairshare decay rule", &["decay", "half-life"])?;
    let item = args.next(&format!("a duration, as in fairshare {rule} 24h"))?;
    if rule == "half-life" {
        let half_life = fair_duration(
            item,
            "half-life",
            Some(MAX_DECAY),
            "usage halves every half-life; Slurm's default is 7d",
        )?;
        if let Some(factor) = args.peek().filter(|i| i.ident() == Some("factor")) {
            let last = st.items.last().map_or(factor.span, |l| l.span);
            return Err(Diagnostic::error(
                factor.span.to(last),
                "`factor` applies only to `fairshare decay`",
            )
            .with_label("no factor with a half-life")
            .with_help(
                "a half-life halves usage by definition; write `fairshare decay 24h factor 0.8` \
                 to keep another share at every step",
            ));
        }
        args.end()?;
        return Ok(Decay::HalfLife { half_life });
    }
    let period = fair_duration(
        item,
        "decay period",
        Some(MAX_DECAY),
        "usage is multiplied by the factor at every multiple of the period; CPlant decays every 24h",
    )?;
    let factor = match args.peek() {
        None => 0.5,
        Some(_) => {
            args.keyword("factor", "fairshare decay 24h factor 0.5")?;
            let item = args.next("a decay factor, as in factor 0.5")?;
            decay_factor(item)?
        }
    };
    args.end()?;
    Ok(Decay::Periodic { period, factor })
}

/// The share of usage kept at each decay step, in (0, 1].
fn decay_factor(item: &Item) -> Check<f64> {
    const RANGE: &str = "the share of usage kept at every step, above 0 and at most 1: \
                         0.5 halves it (CPlant, and PBS's default), 1 never forgets";
    let Token::Quantity(raw) = &item.token else {
        return Err(
            Diagnostic::error(item.span, format!("{} is not a number", item.describe()))
                .with_label("expected the decay factor")
                .with_help(RANGE),
        );
    };
    if let Some(percent) = raw.strip_suffix('%') {
        let help = match percent.parse::<f64>() {
            Ok(p) => format!("write the factor as a fraction: factor {}", p / 100.0),
            Err(_) => "write the factor as a fraction, e.g. factor 0.5".to_string(),
        };
        return Err(
            Diagnostic::error(item.span, format!("`{raw}` is a percentage, not a factor"))
                .with_label("expected a fraction")
                .with_help(help),
        );
    }
    match raw.parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        Ok(_) => Err(
            Diagnostic::error(item.span, format!("decay factor {raw} is out of range"))
                .with_label("must be above 0 and at most 1")
                .with_help(RANGE),
        ),
        Err(_) => Err(
            Diagnostic::error(item.span, format!("`{raw}` is not a number"))
                .with_label("expected the decay factor")
                .with_help(RANGE),
        ),
    }
}

/// `starvation after T [exclude heavy]`.
fn starvation(st: &Statement) -> Check<Starvation> {
    let mut args = Args::new(st);
    if args.peek().is_none() {
        return Err(
            Diagnostic::error(st.keyword_span, "`starvation` needs a waiting time")
                .with_label("incomplete statement")
                .with_help(
                    "e.g. starvation after 24h (CPlant's), or starvation after 72h exclude heavy",
                ),
        );
    }
    args.keyword("after", "starvation after 24h")?;
    let item = args.next("a waiting time, as in starvation after 24h")?;
    let after = fair_duration(
        item,
        "starvation wait",
        None,
        "jobs enter the starvation queue after waiting this long; CPlant uses 24h",
    )?;
    let exclude_heavy = match args.peek() {
        None => None,
        Some(exclude) => {
            args.keyword("exclude", "starvation after 24h exclude heavy")?;
            let who = args.next("who is kept out, as in exclude heavy")?;
            if who.ident() != Some("heavy") {
                let help = "`exclude heavy` keeps the jobs of heavy users (decayed usage above \
                            the mean of the users with jobs in the system) out of the starvation queue";
                let help = match who.ident() {
                    Some(w)
                        if w.to_ascii_lowercase().starts_with("heav")
                            || did_you_mean(w, ["heavy"]).is_some() =>
                    {
                        format!("did you mean `heavy`? {help}")
                    }
                    _ => help.to_string(),
                };
                return Err(Diagnostic::error(
                    who.span,
                    format!("expected `heavy`, found {}", who.describe()),
                )
                .with_label("expected `heavy`")
                .with_help(help));
            }
            Some(exclude.span.to(who.span))
        }
    };
    args.end()?;
    Ok(Starvation {
        after,
        exclude_heavy,
    })
}

/// `limit runtime T`.
fn runtime_limit(st: &Statement) -> Check<Time> {
    let mut args = Args::new(st);
    let Some(first) = args.peek() else {
        return Err(
            Diagnostic::error(st.keyword_span, "`limit` needs what it limits")
                .with_label("incomplete statement")
                .with_help(
                    "e.g. limit runtime 72h: longer jobs are split into chunks of at most 72 \
                     hours (the FAIR paper)",
                ),
        );
    };
    if let Token::Quantity(raw) = &first.token {
        return Err(Diagnostic::error(
            first.span,
            format!("expected what to limit before `{raw}`"),
        )
        .with_label("limit what?")
        .with_help(format!("did you mean `limit runtime {raw}`?")));
    }
    let what = args.next("")?;
    if what.ident() != Some("runtime") {
        let help = match what.ident() {
            Some(w) if did_you_mean(w, ["runtime"]).is_some() => {
                "did you mean `runtime`?".to_string()
            }
            _ => "goalc limits the run time of jobs: write `limit runtime 72h`".to_string(),
        };
        return Err(Diagnostic::error(
            what.span,
            format!("{} is not a limit goalc knows", what.describe()),
        )
        .with_label("expected `runtime`")
        .with_help(help));
    }
    let item = args.next("a duration, as in limit runtime 72h")?;
    let limit = fair_duration(
        item,
        "runtime limit",
        None,
        "longer jobs are split into chunks of at most this length; FAIR uses 72h",
    )?;
    args.end()?;
    Ok(limit)
}

/// `limit runtime T` with the duration of a misspelt runtime limit (such
/// as `runtime limit 72h`), for a did-you-mean.
fn limit_runtime_example(st: &Statement) -> String {
    let raw = st.items.iter().find_map(|i| match &i.token {
        Token::Quantity(raw) => Some(raw.as_str()),
        _ => None,
    });
    format!("limit runtime {}", raw.unwrap_or("72h"))
}

/// A duration of the FAIR statements: at least [`MIN_FAIR_DURATION`] and
/// at most `max`; `what` names it and `meaning` says what it does. A bare
/// number gets hours suggested, the usual unit of these settings.
fn fair_duration(item: &Item, what: &str, max: Option<Time>, meaning: &str) -> Check<Time> {
    let t = duration(item).map_err(|d| match &item.token {
        Token::Quantity(raw) if raw.bytes().all(|b| b.is_ascii_digit()) => {
            d.with_label("hours? days?").with_help(format!(
                "write {raw}h for hours, or give another unit: {raw}m, {raw}d"
            ))
        }
        _ => d,
    })?;
    if t < MIN_FAIR_DURATION {
        return Err(
            Diagnostic::error(item.span, format!("the {what} must be at least 1m"))
                .with_label("too short")
                .with_help(meaning.to_string()),
        );
    }
    if let Some(max) = max.filter(|&max| t > max) {
        return Err(Diagnostic::error(
            item.span,
            format!(
                "the {what} must be at most {}",
                crate::units::format_duration(max)
            ),
        )
        .with_label("too long")
        .with_help(format!(
            "{meaning}; usage older than a year hardly counts (to never forget usage, \
             write `fairshare decay 24h factor 1`)"
        )));
    }
    Ok(t)
}

/// A quantity as a duration with a unit (`90s`, `30m`, `24h`, `7d`, `1d12h`).
pub(super) fn duration(item: &Item) -> Check<Time> {
    let Token::Quantity(raw) = &item.token else {
        return Err(
            Diagnostic::error(item.span, format!("{} is not a duration", item.describe()))
                .with_label("expected a duration")
                .with_help("durations are a number and a unit: 90s, 30m, 24h, 7d, 1d12h"),
        );
    };
    if raw.starts_with('-') {
        return Err(
            Diagnostic::error(item.span, format!("negative duration `{raw}`"))
                .with_label("must not be negative")
                .with_help("durations count forward: 90s, 30m, 24h"),
        );
    }
    if raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Diagnostic::error(item.span, format!("`{raw}` has no unit"))
            .with_label("seconds? minutes?")
            .with_help(format!("write {raw}s for seconds or {raw}m for minutes")));
    }
    if raw.ends_with('%') {
        return Err(Diagnostic::error(
            item.span,
            format!("`{raw}` is a percentage, not a duration"),
        )
        .with_label("expected a duration")
        .with_help("durations are a number and a unit: 90s, 30m, 24h, 7d, 1d12h"));
    }
    if raw.contains('.') {
        return Err(
            Diagnostic::error(item.span, format!("`{raw}` is not a duration"))
                .with_label("expected whole numbers with units")
                .with_help("write whole numbers of each unit, as in 1h30m"),
        );
    }
    parse_duration(raw).map_err(|e| {
        let reason = e.reason;
        Diagnostic::error(item.span, format!("bad duration `{raw}`: {reason}"))
            .with_label("not a duration")
            .with_help("units are s, m, h, d and w, largest first: 90s, 30m, 24h, 7d, 1d12h")
    })
}

/// A quantity as a whole number in `min..=max`.
pub(super) fn whole_number(item: &Item, what: &str, min: u32, max: u32) -> Check<u64> {
    let raw = match &item.token {
        Token::Quantity(raw) => raw,
        _ => {
            return Err(Diagnostic::error(
                item.span,
                format!("{} is not a number", item.describe()),
            )
            .with_label(format!("expected the {what}"))
            .with_help(format!("the {what} is a whole number from {min} to {max}")))
        }
    };
    let value: Option<i64> = raw.parse().ok();
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    let too_long = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    match value {
        Some(v) if v >= min as i64 && v <= max as i64 => Ok(v as u64),
        Some(v) => Err(
            Diagnostic::error(item.span, format!("{what} {v} is out of range"))
                .with_label(format!("must be {min} to {max}"))
                .with_help(format!("the {what} is a whole number from {min} to {max}")),
        ),
        // Digits only, but too many for any integer type.
        None if too_long => Err(Diagnostic::error(
            item.span,
            format!("{what} {raw} is out of range"),
        )
        .with_label(format!("must be {min} to {max}"))
        .with_help(format!("the {what} is a whole number from {min} to {max}"))),
        None => Err(
            Diagnostic::error(item.span, format!("{what} `{raw}` is not a whole number"))
                .with_label("expected a whole number")
                .with_help(format!("the {what} is a whole number from {min} to {max}")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::syntax::parse;

    fn goal(text: &str) -> Goal {
        let (g, d) = check(text, &parse(text).unwrap());
        assert!(d.is_empty(), "{d:?}");
        g.unwrap()
    }

    fn errors(text: &str) -> Vec<String> {
        let (g, d) = check(text, &parse(text).unwrap());
        assert!(g.is_none());
        d.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn baseline_statements() {
        let g = goal("name \"LXF-backfill\"\nbackfill easy\norder lxf\nslowdown bound 10s\n");
        assert_eq!(g.name.as_deref(), Some("LXF-backfill"));
        assert_eq!(
            (g.dispatch, g.order, g.tau),
            (Dispatch::Easy { depth: 1 }, Order::Lxf, 10)
        );
        assert_eq!(
            goal("backfill easy depth 4").dispatch,
            Dispatch::Easy { depth: 4 }
        );
        assert_eq!(
            goal("backfill conservative").dispatch,
            Dispatch::Conservative
        );
        assert_eq!(goal("backfill none").dispatch, Dispatch::NoGuarantee);
        assert_eq!(goal("dispatch fcfs").dispatch, Dispatch::NoBackfill);
        assert_eq!(goal("dispatch list\norder sjf").dispatch, Dispatch::List);
    }

    #[test]
    fn design_lines_parse_and_the_unbuilt_ones_are_rejected() {
        let e = errors(
            "tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%\ndeadline stringency 0.2\nfairshare decay 24h\n",
        );
        // Each is valid alone; together they conflict: a goal schedules by
        // search, by admission control or as a baseline.
        assert_eq!(
            e,
            vec![
                "an objective conflicts with the deadlines on line 2",
                "the fairshare order conflicts with the objective on line 1"
            ]
        );
        let g = goal("tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%\n");
        let s = g.search.expect("a search goal");
        assert_eq!(s.to_string(), "A-Tradeoff(T_w:avgX) dds-lxf L=4000");
        let g = goal("deadline stringency 0.2\n");
        assert_eq!(g.admission.unwrap().to_string(), "QoPS(K=5)-edf");
        assert_eq!(g.deadlines.unwrap().stringency, 0.2);
        let g = goal("fairshare decay 24h\n");
        assert_eq!(
            (g.dispatch, g.order),
            (Dispatch::Easy { depth: 1 }, Order::Fairshare(Decay::CPLANT))
        );
        assert_eq!(
            errors("owner 10*awrt(group 1) + 4*awrt(group 2)\nmoldable iterative\n"),
            vec![
                "`owner` is recognised but not yet supported",
                "`moldable` is recognised but not yet supported"
            ]
        );
    }

    #[test]
    fn fairshare_orders() {
        let periodic = |hours: Time, factor| Decay::Periodic {
            period: hours * 3600,
            factor,
        };
        assert_eq!(
            goal("order fairshare").order,
            Order::Fairshare(Decay::CPLANT)
        );
        assert_eq!(
            goal("fairshare decay 7d factor 0.8\nbackfill none").order,
            Order::Fairshare(periodic(168, 0.8))
        );
        assert_eq!(
            goal("fairshare decay 12h factor 1").order,
            Order::Fairshare(periodic(12, 1.0))
        );
        assert_eq!(
            goal("fairshare half-life 7d\norder fairshare").order,
            Order::Fairshare(Decay::HalfLife {
                half_life: 7 * 86_400
            })
        );
        assert_eq!(
            goal("order fairshare\nfairshare decay 48h").order,
            Order::Fairshare(periodic(48, 0.5))
        );
        assert_eq!(
            errors("fairshare decay 24h\norder lxf"),
            vec!["`order lxf` conflicts with the fairshare statement on line 1"]
        );
        assert_eq!(
            errors("order fcfs\nfairshare decay 24h"),
            vec!["`order fcfs` conflicts with the fairshare statement on line 2"]
        );
        assert_eq!(
            errors("fairshare decay 24h\nlexical(max_wait -> avg_wait)"),
            vec!["the fairshare order conflicts with the objective on line 2"]
        );
        assert_eq!(
            errors("fairshare decay 24h\ndeadline stringency 0.2\norder edf"),
            vec!["the fairshare order conflicts with the deadlines on line 2"]
        );
        assert_eq!(
            errors("fairshare decay 24h\nfairshare half-life 1d"),
            vec!["the fairshare decay is given twice: this conflicts with line 1"]
        );
        assert_eq!(
            errors("fairshare decai 24h"),
            vec!["`decai` is not a fairshare decay rule"]
        );
        assert_eq!(errors("fairshare decay 24"), vec!["`24` has no unit"]);
        assert_eq!(
            errors("fairshare decay 30s"),
            vec!["the decay period must be at least 1m"]
        );
        assert_eq!(
            errors("fairshare half-life 400d"),
            vec!["the half-life must be at most 365d"]
        );
        assert_eq!(
            errors("fairshare decay 24h factor 1.5"),
            vec!["decay factor 1.5 is out of range"]
        );
        assert_eq!(
            errors("fairshare decay 24h factor 0"),
            vec!["decay factor 0 is out of range"]
        );
        assert_eq!(
            errors("fairshare decay 24h factor 50%"),
            vec!["`50%` is a percentage, not a factor"]
        );
        assert_eq!(
            errors("fairshare half-life 24h factor 0.5"),
            vec!["`factor` applies only to `fairshare decay`"]
        );
        assert_eq!(
            errors("fairshare 24h"),
            vec!["expected a decay rule before `24h`"]
        );
        assert_eq!(errors("fairshare"), vec!["`fairshare` needs a decay rule"]);
        assert_eq!(
            errors("order fairshare decay 24h"),
            vec!["the fairshare decay is its own statement"]
        );
        let text = "fairshare half_life 24h\n";
        let (_, d) = check(text, &parse(text).unwrap());
        assert_eq!(d[0].help.as_deref(), Some("did you mean `half-life`?"));
    }

    #[test]
    fn starvation_queue() {
        assert_eq!(
            goal("starvation after 24h").dispatch,
            Dispatch::Starvation {
                after: 86_400,
                exclude_heavy: false
            }
        );
        let g = goal("backfill none\nstarvation after 72h exclude heavy\nfairshare decay 24h");
        assert_eq!(
            (g.dispatch, g.order),
            (
                Dispatch::Starvation {
                    after: 72 * 3600,
                    exclude_heavy: true
                },
                Order::Fairshare(Decay::CPLANT)
            )
        );
        assert_eq!(
            goal("order fairshare\nstarvation after 1d exclude heavy").dispatch,
            Dispatch::Starvation {
                after: 86_400,
                exclude_heavy: true
            }
        );
        for (dispatch, line) in [
            ("backfill conservative", 1),
            ("backfill conservative dynamic", 1),
            ("backfill easy depth 2", 1),
            ("dispatch fcfs", 1),
            ("dispatch list", 1),
        ] {
            assert_eq!(
                errors(&format!("{dispatch}\nstarvation after 24h")),
                vec![format!(
                    "`{dispatch}` conflicts with the starvation queue on line {}",
                    line + 1
                )]
            );
        }
        assert_eq!(
            errors("starvation after 24h exclude heavy"),
            vec!["`exclude heavy` needs the fairshare order"]
        );
        let text = "order fcfs\nstarvation after 24h exclude heavy\n";
        let (_, d) = check(text, &parse(text).unwrap());
        assert_eq!(d[0].span, Span::new(32, 45));
        assert_eq!(d[0].related.as_ref().unwrap().0, Span::new(0, 10));
        assert_eq!(
            errors("starvation after 24h exclude heavies"),
            vec!["expected `heavy`, found `heavies`"]
        );
        assert_eq!(
            errors("starvation 24h"),
            vec!["expected `after`, found `24h`"]
        );
        assert_eq!(
            errors("starvation after 0s"),
            vec!["the starvation wait must be at least 1m"]
        );
        assert_eq!(
            errors("starvation after 24h\ntradeoff(total_excessive_wait, avg_wait)"),
            vec!["the starvation queue conflicts with the objective on line 2"]
        );
        assert_eq!(
            errors("starvation after 24h\nstarvation after 72h"),
            vec!["the starvation queue is given twice: this conflicts with line 1"]
        );
    }

    #[test]
    fn runtime_limits_and_dynamic_reservations() {
        let g = goal("limit runtime 72h\nbackfill conservative dynamic\norder fairshare");
        assert_eq!(g.runtime_limit, Some(72 * 3600));
        assert_eq!(g.dispatch, Dispatch::ConservativeDynamic);
        assert_eq!(goal("backfill easy").runtime_limit, None);
        assert_eq!(
            goal("limit runtime 3d\ntradeoff(total_excessive_wait, avg_slowdown)").runtime_limit,
            Some(3 * 86_400)
        );
        assert_eq!(
            errors("limit runtime 0s"),
            vec!["the runtime limit must be at least 1m"]
        );
        assert_eq!(
            errors("limit runtime 72h\ndeadline stringency 0.2"),
            vec!["a runtime limit conflicts with the deadlines on line 2"]
        );
        assert_eq!(
            errors("limit runtime 72h\nlimit runtime 24h"),
            vec!["the runtime limit is given twice: this conflicts with line 1"]
        );
        assert_eq!(
            errors("limit 72h"),
            vec!["expected what to limit before `72h`"]
        );
        assert_eq!(
            errors("limit walltime 72h"),
            vec!["`walltime` is not a limit goalc knows"]
        );
        for text in ["runtime limit 72h", "runtime 72h", "runtim limit 72h"] {
            let (_, d) = check(text, &parse(text).unwrap());
            assert_eq!(
                d[0].help.as_deref(),
                Some("did you mean `limit runtime 72h`?"),
                "{text}"
            );
        }
        assert_eq!(
            errors("backfill conservative dynamik"),
            vec!["`dynamik` is not a variant of conservative backfilling"]
        );
        assert_eq!(
            errors("backfill conservative dynamic depth 2"),
            vec!["`depth` applies only to `backfill easy`"]
        );
        assert_eq!(
            errors("backfill dynamic"),
            vec!["`dynamic` is not a backfill mode"]
        );
    }

    #[test]
    fn deadlines_and_admission() {
        let g = goal("deadline stringency 0.5 share 20% relaxation 10\nadmission mrt backtracks 3\norder llf\n");
        let d = g.deadlines.unwrap();
        assert_eq!((d.stringency, d.share, d.relaxation), (0.5, 0.2, 10.0));
        assert_eq!(g.admission.unwrap().to_string(), "MRT(B=3)-llf");
        assert_eq!(
            goal("deadline stringency 0\nadmission msb")
                .admission
                .unwrap()
                .to_string(),
            "MSB-edf"
        );
        assert_eq!(
            errors("admission msb"),
            vec!["admission control needs deadlines"]
        );
        assert_eq!(
            errors("deadline stringency 1"),
            vec!["stringency 1 is out of range"]
        );
        assert_eq!(
            errors("deadline stringency 0.2 share 0%"),
            vec!["share 0% is out of range"]
        );
        assert_eq!(
            errors("deadline stringency 0.2\norder lxf"),
            vec!["a queue order other than edf or llf conflicts with the deadlines on line 1"]
        );
        assert_eq!(
            errors("order edf"),
            vec!["`order edf` orders admission control, which needs deadlines"]
        );
    }

    #[test]
    fn objectives_and_search() {
        use crate::policy::objective::{Difference, Measure, Model, Reference};
        let g = goal("objective lexical(total_excessive_wait(50h) -> avg_wait) strict\nsearch lds branch fcfs budget 1000\nslowdown bound 10s\n");
        let s = g.search.unwrap();
        assert_eq!(s.objective.model, Model::Lexical);
        assert_eq!(
            s.objective.measures,
            vec![Measure::TotalExcessiveWaitFixed(180_000), Measure::AvgWait]
        );
        assert_eq!(s.objective.difference, Difference::Strict);
        assert_eq!((s.budget, s.tau), (1000, 10));
        assert_eq!(
            s.to_string(),
            "Strict Lexical(T_w(2d2h)->avgW) lds-fcfs L=1000"
        );
        let g =
            goal("tradeoff(avg_wait, avg_slowdown, total_excessive_wait) reference C relaxed 2%\n");
        let s = g.search.unwrap();
        assert_eq!(s.objective.model, Model::Tradeoff(Reference::C));
        assert_eq!(s.objective.difference, Difference::Relaxed { percent: 2.0 });
        assert_eq!(s.objective.measures.len(), 3);
    }

    #[test]
    fn objective_mistakes() {
        assert_eq!(
            errors("tradeoff(total_excessive_wait, avg_slowdown) relaxed 150%"),
            vec!["relaxed 150% is out of range"]
        );
        assert_eq!(
            errors("tradeoff(avg_slowdown)"),
            vec!["a trade-off needs at least two measures"]
        );
        assert_eq!(errors("lexical(max_wait, avg_wait)"), vec!["expected `->` between measures (`,` separates trade-off measures; use `->` in lexical)"]);
        assert_eq!(
            errors("lexical(max_wait -> avg_wait) reference B"),
            vec!["`reference` applies to trade-offs only"]
        );
        assert_eq!(
            errors("tradeoff(max_wait, max_wait)"),
            vec!["`max_wait` appears twice"]
        );
        assert_eq!(
            errors("search dds"),
            vec!["`search` needs an objective to search for"]
        );
        assert_eq!(
            errors("lexical(max_wait)\norder lxf"),
            vec!["a queue order conflicts with the objective on line 1"]
        );
        assert_eq!(
            errors("lexical(max_wait)\nsearch budget 0"),
            vec!["node budget 0 is out of range"]
        );
    }

    #[test]
    fn harmful_combinations_warn_at_the_measure() {
        let text = "tradeoff(max_wait, avg_slowdown)\n";
        let (g, d) = check(text, &parse(text).unwrap());
        assert!(g.is_some());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, crate::lang::Severity::Warning);
        assert_eq!(d[0].span, Span::new(9, 17));
        let text = "lexical(avg_wait -> max_wait)\n";
        let (g, d) = check(text, &parse(text).unwrap());
        assert!(g.is_some());
        assert_eq!(d[0].span, Span::new(8, 16));
        let text = "lexical(total_excessive_wait -> avg_slowdown)\n";
        assert!(check(text, &parse(text).unwrap()).1.is_empty());
    }

    #[test]
    fn typos_get_suggestions() {
        let text = "backfil easy\n";
        let (_, d) = check(text, &parse(text).unwrap());
        assert_eq!(d[0].help.as_deref(), Some("did you mean `backfill`?"));
        let text = "backfill conservatve\n";
        let (_, d) = check(text, &parse(text).unwrap());
        assert_eq!(d[0].help.as_deref(), Some("did you mean `conservative`?"));
        assert_eq!(d[0].span, Span::new(9, 20));
    }

    #[test]
    fn ranges_and_units() {
        assert_eq!(
            errors("backfill easy depth 0"),
            vec!["reservation depth 0 is out of range"]
        );
        assert_eq!(
            errors("slowdown bound -5m"),
            vec!["negative duration `-5m`"]
        );
        assert_eq!(errors("slowdown bound 60"), vec!["`60` has no unit"]);
        assert_eq!(
            errors("slowdown bound 5x"),
            vec!["bad duration `5x`: unknown unit `x` (use s, m, h, d or w)"]
        );
    }

    #[test]
    fn conflicts_name_both_lines() {
        let text = "backfill easy\norder lxf\ndispatch fcfs\n";
        let (_, d) = check(text, &parse(text).unwrap());
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].message,
            "the dispatch rule (`dispatch` or `backfill`) is given twice: this conflicts with line 1"
        );
        assert_eq!(d[0].related.as_ref().unwrap().0, Span::new(0, 13));
    }

    #[test]
    fn empty_file_is_an_error() {
        assert_eq!(
            errors("# only a comment\n"),
            vec!["the goal file states nothing"]
        );
    }
}
