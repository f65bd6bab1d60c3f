//! Checking the statements of goal-oriented search (the GOAL paper):
//! objectives (`lexical(...)`, `tradeoff(...)`, or `objective ...`) and
//! `search`.

use super::{Cx, Kind, Mechanism};
use crate::lang::args::{did_you_mean, duration, whole_number, Args, Check};
use crate::lang::diag::{Diagnostic, Span};
use crate::lang::draft::Draft;
use crate::lang::mode::{Claim, Fit, Mode, Modes, Role, Wording};
use crate::lang::syntax::{Item, Statement, Token};
use crate::policy::objective::{Difference, Measure, Model, Objective, Reference, MAX_MEASURES};
use crate::policy::search::traverse::Traversal;
use crate::policy::search::SearchSpec;
use crate::policy::Order;

/// The statements of a search, checked.
#[derive(Debug, Default)]
pub struct Search {
    objective: Option<(Span, Objective)>,
    search: Option<(Span, SearchStmt)>,
    /// An objective was given, checked or not: a wrong one was reported,
    /// and `search` does not lack one.
    objective_stated: bool,
}

impl Mechanism for Search {
    fn statements(&self) -> &'static [Kind] {
        &[
            Kind {
                keywords: &["objective", "lexical", "tradeoff"],
                once: "the objective is",
            },
            Kind {
                keywords: &["search"],
                once: "the search is",
            },
        ]
    }

    fn check(&mut self, st: &Statement, cx: &mut Cx) -> Check {
        if st.keyword == "search" {
            self.search = Some((st.span, search(st)?));
        } else {
            self.objective_stated = true;
            let checked = objective(st)?;
            cx.warnings.extend(checked.warnings);
            self.objective = Some((st.span, checked.objective));
        }
        Ok(())
    }

    /// An objective makes the goal a search. The `search` statement only
    /// tunes it, and without an objective is judged in [`Self::lower`].
    fn modes(&self, modes: &mut Modes) {
        let Some((span, _)) = self.objective else {
            return;
        };
        modes.claim(Claim {
            mode: Mode::Search,
            span,
            name: "objective",
            to_setting: Wording {
                label: "not used by a search",
                related: "the objective: jobs are ordered by search".to_string(),
                help: "a goal with an objective places jobs by search (like conservative \
                       backfilling, in the best order found); remove this line, or set the \
                       branching with `search ... branch fcfs|lxf`",
            },
            to_feature: Wording {
                label: "not used by a search",
                related: "the objective: jobs are ordered and placed by search".to_string(),
                help: "a goal with an objective schedules by search, which has its own order \
                       and reservations; remove this line, or the objective",
            },
        });
        modes.fit(Fit::new(
            span,
            "an objective",
            Role::Setting,
            &[Mode::Search],
        ));
    }

    fn lower(&self, mode: Mode, _: &Cx, goal: &mut Draft, diags: &mut Vec<Diagnostic>) {
        let Some((_, objective)) = &self.objective else {
            if self.objective_stated {
                // Its mistake was reported; none follows from it.
            } else if let Some((span, _)) = self.search {
                diags.push(Diagnostic::error(span, "`search` needs an objective to search for")
                    .with_label("no objective in this goal")
                    .with_help("state one, e.g. tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%"));
            }
            return;
        };
        if mode == Mode::Search {
            goal.search = Some(search_spec(
                objective.clone(),
                self.search.map(|s| s.1),
                goal.tau,
            ));
        }
    }
}

/// Measure names of the language.
pub const MEASURES: [&str; 4] = [
    "total_excessive_wait",
    "max_wait",
    "avg_wait",
    "avg_slowdown",
];

/// A checked objective statement, with the paper's warnings.
pub struct ObjectiveStmt {
    pub objective: Objective,
    pub warnings: Vec<Diagnostic>,
}

/// A checked `search` statement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchStmt {
    pub traversal: Traversal,
    pub branch: Order,
    pub budget: u64,
}

impl Default for SearchStmt {
    /// The paper's conclusion: DDS with LXF branching, L = 4000.
    fn default() -> Self {
        SearchStmt {
            traversal: SearchSpec::DEFAULT_TRAVERSAL,
            branch: SearchSpec::DEFAULT_BRANCH,
            budget: SearchSpec::DEFAULT_BUDGET,
        }
    }
}

/// `objective lexical(...) ...`, or the bare `lexical(...)` / `tradeoff(...)`.
fn objective(st: &Statement) -> Check<ObjectiveStmt> {
    let mut args = Args::new(st);
    let (model_word, model_span) = if st.keyword == "objective" {
        let item = args.next("an objective, e.g. lexical(total_excessive_wait -> avg_slowdown)")?;
        let (word, span) = args.word_from(item, "an objective model", &["lexical", "tradeoff"])?;
        (word, span)
    } else {
        let word = if st.keyword == "lexical" {
            "lexical"
        } else {
            "tradeoff"
        };
        (word, st.keyword_span)
    };
    let group = args.next(&format!(
        "its measures in parentheses, e.g. {model_word}(total_excessive_wait, avg_slowdown)"
    ))?;
    let Token::Group(inner) = &group.token else {
        return Err(Diagnostic::error(
            group.span,
            format!("`{model_word}` needs its measures in parentheses"),
        )
        .with_label("expected `(`")
        .with_help(format!(
            "write {model_word}(total_excessive_wait, avg_slowdown)"
        )));
    };
    let lexical = model_word == "lexical";
    let measures = measure_list(inner, group.span, lexical)?;
    if !lexical && measures.len() < 2 {
        return Err(
            Diagnostic::error(group.span, "a trade-off needs at least two measures")
                .with_label("one measure")
                .with_help("with one measure, write lexical(...) instead"),
        );
    }

    // Options after the measures: strict | relaxed P%, reference A|B|C.
    let mut difference: Option<(Difference, Span)> = None;
    let mut reference: Option<(Reference, Span)> = None;
    while let Some(item) = args.peek() {
        let (word, span) = args.word("an objective option", &["strict", "relaxed", "reference"])?;
        match word {
            "strict" | "relaxed" => {
                if let Some((_, first)) = difference {
                    return Err(Diagnostic::error(span, "the difference is given twice")
                        .with_label("second")
                        .with_related(first, "first here")
                        .with_help("say either `strict` or `relaxed P%`"));
                }
                let d = if word == "strict" {
                    Difference::Strict
                } else {
                    let p = args.next("a slack in percent, e.g. relaxed 1%")?;
                    Difference::Relaxed {
                        percent: percent(p)?,
                    }
                };
                difference = Some((d, item.span.to(args.last_span())));
            }
            _ => {
                if lexical {
                    return Err(
                        Diagnostic::error(span, "`reference` applies to trade-offs only")
                            .with_label("lexical objectives have no reference values")
                            .with_related(model_span, "this objective is lexical"),
                    );
                }
                if let Some((_, first)) = reference {
                    return Err(
                        Diagnostic::error(span, "the reference version is given twice")
                            .with_label("second")
                            .with_related(first, "first here"),
                    );
                }
                let (v, vspan) = args.word("a reference version", &["A", "B", "C"])?;
                let r = match v {
                    "B" => Reference::B,
                    "C" => Reference::C,
                    _ => Reference::A,
                };
                reference = Some((r, span.to(vspan)));
            }
        }
    }
    let model = if lexical {
        Model::Lexical
    } else {
        Model::Tradeoff(reference.map_or(Reference::A, |r| r.0))
    };
    let objective = Objective {
        model,
        measures: measures.iter().map(|m| m.0).collect(),
        difference: difference.map_or(Difference::Relaxed { percent: 1.0 }, |d| d.0),
    };
    Ok(ObjectiveStmt {
        warnings: harmful_combinations(&objective, &measures),
        objective,
    })
}

/// The paper's warnings (GOAL, section 6): an equal trade-off between a
/// single-job measure and an average measure starves jobs, and so does an
/// average measure as the first lexical objective.
fn harmful_combinations(o: &Objective, measures: &[(Measure, Span)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    match o.model {
        Model::Tradeoff(_) => {
            let average = measures.iter().find(|m| m.0.is_average());
            for (m, span) in measures.iter().filter(|m| m.0.is_single_job()) {
                if let Some((avg, _)) = average {
                    out.push(
                        Diagnostic::warning(
                            *span,
                            format!("an equal trade-off of `{m}` against `{avg}` starves jobs"),
                        )
                        .with_label("a single-job measure")
                        .with_help(
                            "GOAL (section 6.2) found 400-1500 hours of maximum wait with \
                             Tradeoff(maxW:avgX); trade total_excessive_wait instead",
                        ),
                    );
                }
            }
        }
        Model::Lexical => {
            if let Some((m, span)) = measures.first().filter(|m| m.0.is_average()) {
                out.push(
                    Diagnostic::warning(*span, format!("`{m}` as the first lexical objective starves jobs"))
                        .with_label("an average measure first")
                        .with_help(
                            "GOAL (section 6.1) saw maximum waits over 1,000 hours; put \
                             total_excessive_wait first, as in lexical(total_excessive_wait -> avg_slowdown)",
                        ),
                );
            }
        }
    }
    out
}

/// Measures separated by `->` (lexical) or `,` (tradeoff).
fn measure_list(inner: &[Item], group_span: Span, lexical: bool) -> Check<Vec<(Measure, Span)>> {
    let sep = if lexical { "->" } else { "," };
    let mut out: Vec<(Measure, Span)> = Vec::new();
    let mut i = 0;
    loop {
        let Some(item) = inner.get(i) else {
            let at = inner
                .last()
                .map_or(group_span, |l| Span::new(l.span.end, group_span.end));
            return Err(Diagnostic::error(at, "expected a measure")
                .with_label("missing")
                .with_help(format!("measures: {}", MEASURES.join(", "))));
        };
        let (m, span, used) = measure(item, inner.get(i + 1))?;
        if let Some((_, first)) = out.iter().find(|(x, _)| *x == m) {
            return Err(Diagnostic::error(span, format!("`{m}` appears twice"))
                .with_label("again")
                .with_related(*first, "first here"));
        }
        out.push((m, span));
        if out.len() > MAX_MEASURES {
            return Err(
                Diagnostic::error(span, format!("more than {MAX_MEASURES} measures"))
                    .with_label("too many"),
            );
        }
        i += used;
        match inner.get(i) {
            None => return Ok(out),
            Some(next) => {
                let ok = matches!(
                    (&next.token, lexical),
                    (Token::Arrow, true) | (Token::Comma, false)
                );
                if !ok {
                    let wrong = match next.token {
                        Token::Arrow => {
                            " (`->` separates lexical measures; use `,` in a trade-off)"
                        }
                        Token::Comma => " (`,` separates trade-off measures; use `->` in lexical)",
                        _ => "",
                    };
                    return Err(Diagnostic::error(
                        next.span,
                        format!("expected `{sep}` between measures{wrong}"),
                    )
                    .with_label(format!("expected `{sep}`")));
                }
                i += 1;
            }
        }
    }
}

/// One measure, maybe followed by its `(duration)` argument; returns how
/// many items it used.
fn measure(item: &Item, next: Option<&Item>) -> Check<(Measure, Span, usize)> {
    let Some(word) = item.ident() else {
        return Err(
            Diagnostic::error(item.span, format!("{} is not a measure", item.describe()))
                .with_label("expected a measure")
                .with_help(format!("measures: {}", MEASURES.join(", "))),
        );
    };
    let arg = next.and_then(|n| match &n.token {
        Token::Group(g) => Some((n, g)),
        _ => None,
    });
    let m = match word {
        "total_excessive_wait" => match arg {
            Some((group, inner)) => {
                let [value] = &inner[..] else {
                    return Err(Diagnostic::error(
                        group.span,
                        "`total_excessive_wait(...)` takes one duration",
                    )
                    .with_label("expected a fixed threshold")
                    .with_help(
                        "e.g. total_excessive_wait(50h); without it the threshold is dynamic",
                    ));
                };
                let w = duration(value)?;
                return Ok((
                    Measure::TotalExcessiveWaitFixed(w),
                    item.span.to(group.span),
                    2,
                ));
            }
            None => Measure::TotalExcessiveWait,
        },
        "max_wait" => Measure::MaxWait,
        "avg_wait" => Measure::AvgWait,
        "avg_slowdown" => Measure::AvgSlowdown,
        _ => {
            let help = match did_you_mean(word, MEASURES) {
                Some(c) => format!("did you mean `{c}`?"),
                None => format!("measures: {}", MEASURES.join(", ")),
            };
            return Err(
                Diagnostic::error(item.span, format!("unknown measure `{word}`"))
                    .with_label("not a measure")
                    .with_help(help),
            );
        }
    };
    if let Some((group, _)) = arg {
        return Err(Diagnostic::error(group.span, format!("`{word}` takes no argument"))
            .with_label("unexpected")
            .with_help("only total_excessive_wait takes a fixed threshold, as in total_excessive_wait(50h)"));
    }
    Ok((m, item.span, 1))
}

/// A percentage strictly between 0 and 100.
fn percent(item: &Item) -> Check<f64> {
    let bad = |msg: String| {
        Diagnostic::error(item.span, msg)
            .with_label("expected a percentage")
            .with_help("the paper's slack is relaxed 1%; write strict for none")
    };
    let Token::Quantity(raw) = &item.token else {
        return Err(bad(format!("{} is not a percentage", item.describe())));
    };
    let Some(number) = raw.strip_suffix('%') else {
        return Err(bad(format!(
            "`{raw}` is not a percentage: write it with `%`, as in 1%"
        )));
    };
    match number.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p),
        // Said as written: 1e400 reads as infinity, 1e-400 as 0.
        Ok(_) => Err(
            Diagnostic::error(item.span, format!("relaxed {raw} is out of range"))
                .with_label("must be above 0% and below 100%")
                .with_help("the paper's slack is 1%; write strict for none"),
        ),
        Err(_) => Err(bad(format!("`{raw}` is not a percentage"))),
    }
}

/// `search [dds|lds] [branch fcfs|lxf] [budget L]`.
fn search(st: &Statement) -> Check<SearchStmt> {
    let mut args = Args::new(st);
    let mut out = SearchStmt::default();
    let mut seen: Vec<(&str, Span)> = Vec::new();
    if args.peek().is_none() {
        return Err(Diagnostic::error(st.keyword_span, "`search` needs settings")
            .with_label("nothing to set")
            .with_help("e.g. search dds branch lxf budget 4000 (the defaults), or leave the statement out"));
    }
    while args.peek().is_some() {
        let (word, span) = args.word("a search setting", &["dds", "lds", "branch", "budget"])?;
        let key = if matches!(word, "dds" | "lds") {
            "traversal"
        } else {
            word
        };
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(Diagnostic::error(span, format!("the {key} is given twice"))
                .with_label("second")
                .with_related(*first, "first here"));
        }
        seen.push((key, span));
        match word {
            "dds" => out.traversal = Traversal::Dds,
            "lds" => out.traversal = Traversal::Lds,
            "branch" => {
                let (b, _) = args.word("a branching heuristic", &["fcfs", "lxf"])?;
                out.branch = if b == "fcfs" { Order::Fcfs } else { Order::Lxf };
            }
            _ => {
                let item = args.next("a node budget, e.g. budget 4000")?;
                out.budget = whole_number(item, "node budget", 1, SearchSpec::MAX_BUDGET as u32)?;
            }
        }
    }
    Ok(out)
}

/// Combines a checked objective and search into the search policy.
fn search_spec(
    objective: Objective,
    search: Option<SearchStmt>,
    tau: crate::workload::Time,
) -> SearchSpec {
    let s = search.unwrap_or_default();
    SearchSpec {
        objective,
        traversal: s.traversal,
        branch: s.branch,
        budget: s.budget,
        tau,
    }
}
