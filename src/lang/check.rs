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
use crate::policy::{Dispatch, Order};
use crate::units::parse_duration;
use crate::workload::Time;

/// More than this many diagnostics are summarised in one last line.
pub const MAX_DIAGNOSTICS: usize = 50;
/// Largest reservation depth accepted: beyond it EASY is conservative in all
/// but name, and the epoch cost grows with it.
pub const MAX_DEPTH: u32 = 1000;

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
    pub deadlines: Option<crate::policy::admission::DeadlineSpec>,
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
        }
    }
}

/// Keywords goalc implements.
const SUPPORTED: [&str; 11] = [
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
];

/// Keywords of features still to come, with the feature that will bring them.
const NOT_YET: [(&str, &str); 10] = [
    ("fairshare", "fairshare priority (the FAIR paper)"),
    ("starvation", "the starvation queue (the FAIR paper)"),
    ("runtime", "runtime limits (the FAIR paper)"),
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
    deadline: Option<(Span, crate::policy::admission::DeadlineSpec)>,
    admission: Option<(Span, crate::policy::admission::Algorithm)>,
    /// `order edf|llf`: the admission heuristic.
    admission_order: Option<(Span, crate::policy::admission::Heuristic)>,
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
                    .chain(NOT_YET.iter().map(|(k, _)| *k));
                let help = match did_you_mean(kw, all) {
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
                .with_help("add a `deadline` statement, or use a queue order: fcfs, lxf or sjf"));
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
                "conservative" => {
                    if let Some(item) = args.peek() {
                        if item.ident() == Some("dynamic") {
                            return Err(Diagnostic::error(
                                item.span,
                                "`conservative dynamic` is recognised but not yet supported",
                            )
                            .with_label("not implemented yet")
                            .with_help("this version of goalc does not have dynamic-reservation backfilling (the FAIR paper); remove `dynamic` for conservative backfilling"));
                        }
                    }
                    Dispatch::Conservative
                }
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
                .with_help(if dispatch == Dispatch::Conservative {
                    "conservative backfilling gives every waiting job a reservation: remove \
                     `depth`, or write `backfill easy depth 4` for a fixed number"
                } else {
                    "only EASY backfilling has a reservation depth: remove it, or write \
                     `backfill easy depth 4`"
                }));
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
        let item = args.next("a queue order: fcfs, lxf or sjf (edf or llf with deadlines)")?;
        if item.ident() == Some("fairshare") {
            return Err(Diagnostic::error(
                item.span,
                "`order fairshare` is recognised but not yet supported",
            )
            .with_label("not implemented yet")
            .with_help("this version of goalc does not have fairshare priority (the FAIR paper); use fcfs, lxf or sjf"));
        }
        let (word, _) =
            args.word_from(item, "a queue order", &["fcfs", "lxf", "sjf", "edf", "llf"])?;
        let order = match word {
            "lxf" => Order::Lxf,
            "sjf" => Order::Sjf,
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
        // Together they also conflict: a goal schedules either by search or
        // by admission control.
        assert_eq!(
            e,
            vec![
                "`fairshare` is recognised but not yet supported",
                "an objective conflicts with the deadlines on line 2"
            ]
        );
        let g = goal("tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%\n");
        let s = g.search.expect("a search goal");
        assert_eq!(s.to_string(), "A-Tradeoff(T_w:avgX) dds-lxf L=4000");
        let g = goal("deadline stringency 0.2\n");
        assert_eq!(g.admission.unwrap().to_string(), "QoPS(K=5)-edf");
        assert_eq!(g.deadlines.unwrap().stringency, 0.2);
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
