//! GREEDY's statements: `groups` (user groups by share of consumption),
//! `owner` (the owner objective) and `criterion` (a sort criterion per
//! time-of-week situation, with its parameters, or without them in a
//! template that `goalc train` fills in).
//!
//! ```text
//! groups 8% 2% 1% 0.1%
//! owner 10*awrt(group 1) + 4*awrt(group 2)
//! criterion weekend       f2 a 0.3 b 0.01 w 1 0.9 0.2 0.1 0.1 k 5 4 1 0 0
//! criterion weekday-day   f2 a 0.3 b 0.01 w 1 0.9 0.2 0.1 0.1 k 5 4 1 0 0
//! criterion weekday-night f2 a 0.3 b 0.01 w 1 0.9 0.2 0.1 0.1 k 5 4 1 0 0
//! ```
//!
//! `criterion all f2 ...` states one criterion for the three situations.
//! Groups and an owner objective fit any goal (they measure); criteria
//! make the goal greedy, which has no backfilling and no queue order of
//! its own.

use super::{Cx, Kind, Mechanism};
use crate::lang::args::{line_of, number, suggestion, whole_number, Args, Check};
use crate::lang::diag::{Diagnostic, Span};
use crate::lang::draft::{Draft, GreedyDraft};
use crate::lang::mode::{Claim, Fit, Mode, Modes, Role, Wording};
use crate::lang::syntax::{Item, Statement, Token};
use crate::measures::owner::{OwnerMeasure, OwnerObjective, Term};
use crate::policy::greedy::criterion::{A_RANGE, B_RANGE, K_RANGE, W_RANGE};
use crate::policy::greedy::{Criterion, Family, Situation};
use crate::workload::groups::{Bands, MAX_GROUPS, PPM};

/// GREEDY's statements, checked.
#[derive(Debug, Default)]
pub struct Greedy {
    groups: Option<(Span, Bands)>,
    owner: Option<(Span, OwnerObjective)>,
    criteria: Vec<Stated>,
    /// Situations named by criterion statements with an error (already
    /// said): not said again as situations without a criterion.
    unreadable: Vec<Situation>,
    /// A `groups` statement was given, checked or not: when a wrong one
    /// was reported, the number of groups is unknown, and counts of
    /// groups elsewhere are not judged against the paper's five.
    groups_stated: bool,
}

/// A checked `criterion` statement.
#[derive(Debug, Clone)]
struct Stated {
    span: Span,
    situations: Vec<Situation>,
    family: Family,
    /// None in a template for training.
    params: Option<Params>,
}

#[derive(Debug, Clone)]
struct Params {
    a: f64,
    b: f64,
    w: (Span, Vec<f64>),
    k: (Span, Vec<f64>),
}

const SITUATION_WORDS: [&str; 4] = ["weekend", "weekday-day", "weekday-night", "all"];

impl Mechanism for Greedy {
    fn statements(&self) -> &'static [Kind] {
        &[
            Kind {
                keywords: &["groups"],
                once: "the user groups are",
            },
            Kind {
                keywords: &["owner"],
                once: "the owner objective is",
            },
            Kind {
                keywords: &["criterion"],
                once: "the criterion is",
            },
        ]
    }

    /// One `criterion` per situation; this mechanism checks that no
    /// situation gets two.
    fn repeatable(&self, keyword: &str) -> bool {
        keyword == "criterion"
    }

    fn check(&mut self, st: &Statement, _: &mut Cx) -> Check {
        match st.keyword.as_str() {
            "groups" => {
                self.groups_stated = true;
                self.groups = Some((st.span, groups(st)?));
            }
            "owner" => self.owner = Some((st.span, owner(st)?)),
            _ => {
                let stated = criterion(st).inspect_err(|_| {
                    let mut args = Args::new(st);
                    if let Ok(named) = situations(&mut args) {
                        self.unreadable.extend(named);
                    }
                })?;
                for earlier in &self.criteria {
                    if let Some(s) = stated
                        .situations
                        .iter()
                        .find(|s| earlier.situations.contains(s))
                    {
                        return Err(Diagnostic::error(
                            st.span,
                            format!("the {s} criterion is given twice"),
                        )
                        .with_label("second one")
                        .with_related(earlier.span, "first given here")
                        .with_help(
                            "one criterion per situation: weekend, weekday-day and weekday-night \
                             (or one `criterion all` for the three)",
                        ));
                    }
                }
                self.criteria.push(stated);
            }
        }
        Ok(())
    }

    fn modes(&self, modes: &mut Modes) {
        if let Some(first) = self.criteria.first() {
            let related = "the greedy scheduler: it sorts the queue by its criteria and never \
                           backfills"
                .to_string();
            modes.claim(Claim {
                mode: Mode::Greedy,
                span: first.span,
                name: "greedy criterion",
                to_setting: Wording {
                    label: "not used by the greedy scheduler",
                    related: related.clone(),
                    help: "a goal with criteria is GREEDY's scheduler, which orders its queue by \
                           them and starts jobs from the head without backfilling; remove this \
                           line",
                },
                to_feature: Wording {
                    label: "not used by the greedy scheduler",
                    related,
                    help: "the greedy scheduler has no use for this; remove this line, or the \
                           criteria",
                },
            });
        }
        for c in &self.criteria {
            modes.fit(Fit::new(
                c.span,
                "a greedy criterion",
                Role::Setting,
                &[Mode::Greedy],
            ));
        }
    }

    fn lower(&self, mode: Mode, cx: &Cx, goal: &mut Draft, diags: &mut Vec<Diagnostic>) {
        let stated = self.groups.is_some() || self.owner.is_some() || !self.criteria.is_empty();
        if !stated {
            return;
        }
        let bands = self
            .groups
            .as_ref()
            .map_or_else(Bands::paper, |g| g.1.clone());
        let n = bands.groups();
        // A wrong `groups` statement was said; how many it meant is unknown.
        let known = !self.groups_stated || self.groups.is_some();
        if let (Some((span, owner)), true) = (&self.owner, known) {
            let highest = owner.highest_group();
            if usize::from(highest) > n {
                let why = match &self.groups {
                    Some((g, _)) => {
                        let (line, _) = line_of(cx.text, *g);
                        format!("the groups on line {line} make {n}")
                    }
                    None => format!("the paper's groups (8% 2% 1% 0.1%) make {n}"),
                };
                diags.push(
                    Diagnostic::error(*span, format!("there is no user group {highest}: {why}"))
                        .with_label("group out of range")
                        .with_help(format!("name groups 1 to {n}, or state more groups")),
                );
            }
        }
        goal.groups = Some(bands);
        goal.owner = self.owner.as_ref().map(|o| o.1.clone());
        if mode != Mode::Greedy {
            return;
        }
        match self.greedy(cx, known.then_some(n)) {
            Ok(g) => goal.greedy = Some(g),
            Err(d) => diags.extend(d),
        }
    }
}

impl Greedy {
    /// The criteria of the three situations, each checked against `n`
    /// groups (when known); in a template, without parameters.
    fn greedy(&self, cx: &Cx, n: Option<usize>) -> Result<GreedyDraft, Vec<Diagnostic>> {
        let mut diags = Vec::new();
        let by_situation: Vec<Option<&Stated>> = Situation::ALL
            .iter()
            .map(|s| self.criteria.iter().find(|c| c.situations.contains(s)))
            .collect();
        let missing: Vec<&str> = Situation::ALL
            .iter()
            .zip(&by_situation)
            .filter(|(s, c)| c.is_none() && !self.unreadable.contains(s))
            .map(|(s, _)| s.name())
            .collect();
        if !missing.is_empty() {
            let first = &self.criteria[0];
            diags.push(
                Diagnostic::error(
                    first.span,
                    format!("no criterion for {}", missing.join(" and ")),
                )
                .with_label("the greedy scheduler needs a criterion for every situation")
                .with_help(format!(
                    "add `criterion {} ...`, or state one criterion for all: `criterion all ...`",
                    missing[0]
                )),
            );
        }
        for c in &self.criteria {
            match &c.params {
                None if !cx.training => diags.push(
                    Diagnostic::error(c.span, format!("criterion {} has no parameters", c.family))
                        .with_label("not trained")
                        .with_help(format!(
                        "state them (`{} a 0.5{} w ... k ...`, one w and one K per user group), \
                         or train them: `goalc train FILE TRACE` writes this goal with them",
                        c.family,
                        if c.family.has_b() { " b 0.1" } else { "" }
                    )),
                ),
                Some(p) => {
                    for (what, (span, values)) in [("w", &p.w), ("K", &p.k)] {
                        let Some(n) = n.filter(|&n| values.len() != n) else {
                            continue;
                        };
                        diags.push(
                            Diagnostic::error(
                                *span,
                                format!("{} values of {what} for {n} user groups", values.len()),
                            )
                            .with_label(format!("expected {n}"))
                            .with_help(format!(
                                "one {what} per user group, group 1 first; the groups are \
                                 stated by `groups` (default: the paper's five)"
                            )),
                        );
                    }
                }
                None => {}
            }
        }
        // A situation whose criterion statement had an error (said when it
        // was checked) has none here either.
        if !diags.is_empty() || by_situation.iter().any(Option::is_none) {
            return Err(diags);
        }
        let stated: Vec<&Stated> = by_situation.into_iter().flatten().collect();
        let families = [stated[0].family, stated[1].family, stated[2].family];
        let criteria = if stated.iter().all(|c| c.params.is_some()) {
            let make = |c: &Stated| {
                let p = c.params.as_ref().expect("all have parameters");
                Criterion {
                    family: c.family,
                    a: p.a,
                    b: p.b,
                    w: p.w.1.clone(),
                    k: p.k.1.clone(),
                }
            };
            Some([make(stated[0]), make(stated[1]), make(stated[2])])
        } else {
            None
        };
        Ok(GreedyDraft { families, criteria })
    }
}

/// `groups B1 B2 ...`: bounds of the consumption shares, group 1's first.
fn groups(st: &Statement) -> Check<Bands> {
    let mut args = Args::new(st);
    let mut bounds: Vec<(u64, Span)> = Vec::new();
    while let Some(item) = args.peek() {
        args.next("")?;
        let ppm = share_ppm(item)?;
        if let Some(&(before, before_span)) = bounds.last() {
            if ppm >= before {
                return Err(Diagnostic::error(
                    item.span,
                    "bounds must decrease from group 1 on",
                )
                .with_label("not below the bound before")
                .with_related(before_span, "the bound before")
                .with_help("list the bounds from the heaviest users down, as in groups 8% 2% 1% 0.1%"));
            }
        }
        bounds.push((ppm, item.span));
    }
    if bounds.is_empty() {
        return Err(Diagnostic::error(st.keyword_span, "`groups` needs bounds")
            .with_label("no bounds")
            .with_help(
                "list the shares of consumption that bound the groups, heaviest first: the \
                 paper's are groups 8% 2% 1% 0.1%",
            ));
    }
    if bounds.len() > MAX_GROUPS - 1 {
        return Err(Diagnostic::error(
            bounds[MAX_GROUPS - 1].1.to(bounds[bounds.len() - 1].1),
            format!("{} groups: at most {MAX_GROUPS}", bounds.len() + 1),
        )
        .with_label("too many bounds")
        .with_help(format!("state at most {} bounds", MAX_GROUPS - 1)));
    }
    Bands::new(bounds.iter().map(|b| b.0).collect())
        .map_err(|e| Diagnostic::error(st.span, e.to_string()))
}

/// A percentage strictly between 0% and 100%, in parts per million.
fn share_ppm(item: &Item) -> Check<u64> {
    let bad = |msg: String| {
        Diagnostic::error(item.span, msg)
            .with_label("expected a share of consumption")
            .with_help("write a percentage, as in groups 8% 2% 1% 0.1%")
    };
    let Token::Quantity(raw) = &item.token else {
        return Err(bad(format!("{} is not a percentage", item.describe())));
    };
    let Some(number) = raw.strip_suffix('%') else {
        return Err(bad(format!("`{raw}` is not a percentage")));
    };
    let Ok(p) = number.parse::<f64>() else {
        return Err(bad(format!("`{raw}` is not a percentage")));
    };
    let ppm = p * (PPM as f64) / 100.0;
    if !(p > 0.0 && p < 100.0) {
        return Err(
            Diagnostic::error(item.span, format!("bound {raw} is out of range"))
                .with_label("must be above 0% and below 100%"),
        );
    }
    if (ppm - ppm.round()).abs() > 1e-6 || ppm.round() < 1.0 {
        return Err(
            Diagnostic::error(item.span, format!("bound {raw} is finer than 0.0001%"))
                .with_label("too many decimals")
                .with_help("bounds are read to the millionth of the consumption (0.0001%)"),
        );
    }
    Ok(ppm.round() as u64)
}

/// The largest weight of an owner objective's term, in size.
const MAX_WEIGHT: f64 = 1e9;

/// `owner TERM [+|- TERM ...]`, a term `[WEIGHT *] MEASURE`.
fn owner(st: &Statement) -> Check<OwnerObjective> {
    const EXAMPLE: &str = "owner 10*awrt(group 1) + 4*awrt(group 2)";
    let items = &st.items;
    if items.is_empty() {
        return Err(
            Diagnostic::error(st.keyword_span, "`owner` needs an objective")
                .with_label("no objective")
                .with_help(format!(
                    "a weighted sum of measures, lower is better, e.g. {EXAMPLE}"
                )),
        );
    }
    let mut terms = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let mut sign = 1.0;
        match (&items[i].token, i) {
            (Token::Op('-'), _) => {
                sign = -1.0;
                i += 1;
            }
            (Token::Op('+'), 1..) => i += 1,
            (Token::Op(_), 0) => return Err(unexpected(&items[i], EXAMPLE)),
            (_, 1..) => {
                return Err(Diagnostic::error(
                    items[i].span,
                    format!("expected `+` or `-` before {}", items[i].describe()),
                )
                .with_label("terms are added or subtracted")
                .with_help(format!("write it as in {EXAMPLE}")));
            }
            _ => {}
        }
        let Some(item) = items.get(i) else {
            return Err(Diagnostic::error(
                items[i - 1].span,
                "the objective ends with an operator",
            )
            .with_label("a measure must follow")
            .with_help(format!("write it as in {EXAMPLE}")));
        };
        let mut weight = 1.0;
        if let Token::Quantity(_) = item.token {
            // Measures stay below 2^55 (seconds, or a fraction): weights
            // this size keep every sum finite, so no objective is inf or NaN.
            let range = format!("from -{MAX_WEIGHT:e} to {MAX_WEIGHT:e}");
            weight = number(item, "weight", &range, |w| w.abs() <= MAX_WEIGHT)?;
            i += 1;
            match items.get(i) {
                Some(Item {
                    token: Token::Op('*'),
                    ..
                }) => i += 1,
                other => {
                    let span = other.map_or(item.span, |o| o.span);
                    return Err(Diagnostic::error(span, "expected `*` after the weight")
                        .with_label("weight and measure are multiplied")
                        .with_help(format!("write it as in {EXAMPLE}")));
                }
            }
        }
        let Some(item) = items.get(i) else {
            return Err(
                Diagnostic::error(items[i - 1].span, "a weight without a measure")
                    .with_label("a measure must follow")
                    .with_help(format!("write it as in {EXAMPLE}")),
            );
        };
        let (measure, used) = owner_measure(item, items.get(i + 1))?;
        i += used;
        terms.push(Term {
            weight: sign * weight,
            measure,
        });
    }
    Ok(OwnerObjective { terms })
}

fn unexpected(item: &Item, example: &str) -> Diagnostic {
    Diagnostic::error(item.span, format!("unexpected {}", item.describe()))
        .with_label("not expected here")
        .with_help(format!("write it as in {example}"))
}

/// A measure of an owner objective, and how many items it took:
/// `awrt(group N)` takes two.
fn owner_measure(item: &Item, next: Option<&Item>) -> Check<(OwnerMeasure, usize)> {
    let Some(word) = item.ident() else {
        return Err(
            Diagnostic::error(item.span, format!("{} is not a measure", item.describe()))
                .with_label("expected a measure")
                .with_help(format!(
                    "owner measures: {}, awrt(group N)",
                    OwnerMeasure::NAMES.join(", ")
                )),
        );
    };
    let measure = match word {
        "awrt" => OwnerMeasure::Awrt,
        "util" => OwnerMeasure::Util,
        "avg_wait" => OwnerMeasure::AvgWait,
        "avg_slowdown" => OwnerMeasure::AvgSlowdown,
        "avg_response" => OwnerMeasure::AvgResponse,
        _ => {
            return Err(
                Diagnostic::error(item.span, format!("`{word}` is not an owner measure"))
                    .with_label("unknown measure")
                    .with_help(suggestion(word, &OwnerMeasure::NAMES)),
            );
        }
    };
    let Some(Item {
        token: Token::Group(inner),
        span,
    }) = next
    else {
        return Ok((measure, 1));
    };
    if measure != OwnerMeasure::Awrt {
        return Err(
            Diagnostic::error(*span, format!("`{word}` is not taken per user group"))
                .with_label("only awrt is")
                .with_help("write awrt(group N) for one group's AWRT"),
        );
    }
    let group = match inner.as_slice() {
        [kw, n] if kw.ident() == Some("group") => {
            whole_number(n, "user group", 1, MAX_GROUPS as u32)? as u8
        }
        _ => {
            return Err(Diagnostic::error(*span, "expected `(group N)`")
                .with_label("which user group?")
                .with_help("write awrt(group 1) for the AWRT of the heaviest users' group"));
        }
    };
    Ok((OwnerMeasure::AwrtGroup(group), 2))
}

/// `criterion SITUATION FAMILY [a A] [b B] [w W1 W2 ...] [k K1 K2 ...]`.
/// The situations a criterion statement names, its first word.
fn situations(args: &mut Args<'_>) -> Check<Vec<Situation>> {
    let (situation, _) = args.word("a situation", &SITUATION_WORDS)?;
    Ok(match situation {
        "all" => Situation::ALL.to_vec(),
        s => Situation::ALL
            .into_iter()
            .filter(|x| x.name() == s)
            .collect(),
    })
}

fn criterion(st: &Statement) -> Check<Stated> {
    let mut args = Args::new(st);
    let situations = situations(&mut args)?;
    let (family, _) = args.word("a criterion", &Family::NAMES)?;
    let family = Family::from_name(family).expect("one of the names");
    let mut a = None;
    let mut b = None;
    let mut w: Option<(Span, Vec<f64>)> = None;
    let mut k: Option<(Span, Vec<f64>)> = None;
    let param_words: &[&'static str] = if family.has_b() {
        &["a", "b", "w", "k"]
    } else {
        &["a", "w", "k"]
    };
    while let Some(item) = args.peek() {
        args.next("")?;
        let word = item.ident().unwrap_or_default();
        if word == "b" && !family.has_b() {
            return Err(Diagnostic::error(item.span, "f3 has no parameter b")
                .with_label("not a parameter of f3")
                .with_help(
                    "f3 = w_i (K_i + a wait / (estimate width)): remove `b` and its value",
                ));
        }
        let (word, _) = args.word_from(item, "a parameter", param_words)?;
        let given_twice = match word {
            "a" => a.is_some(),
            "b" => b.is_some(),
            "w" => w.is_some(),
            _ => k.is_some(),
        };
        if given_twice {
            return Err(
                Diagnostic::error(item.span, format!("parameter {word} given twice"))
                    .with_label("second one")
                    .with_help("give each parameter once"),
            );
        }
        match word {
            "a" => a = Some(param(&mut args, "a", A_RANGE)?),
            "b" => b = Some(param(&mut args, "b", B_RANGE)?),
            "w" => w = Some(per_group(&mut args, "w", W_RANGE)?),
            _ => k = Some(per_group(&mut args, "K", K_RANGE)?),
        }
    }
    let given = [
        a.is_some(),
        b.is_some() || !family.has_b(),
        w.is_some(),
        k.is_some(),
    ];
    let params = match (a, w, k) {
        (Some(a), Some(w), Some(k)) if given[1] => Some(Params {
            a,
            b: b.unwrap_or(0.0),
            w,
            k,
        }),
        _ if given == [false, !family.has_b(), false, false] => None,
        _ => {
            let names = ["a", "b", "w", "k"];
            let missing: Vec<&str> = names
                .iter()
                .zip(given)
                .filter(|(_, g)| !g)
                .map(|(n, _)| *n)
                .collect();
            return Err(Diagnostic::error(
                st.span,
                format!("criterion {family} lacks {}", missing.join(", ")),
            )
            .with_label("some parameters missing")
            .with_help(format!(
                "give all of {} (or none, in a template for `goalc train`)",
                param_words.join(", ")
            )));
        }
    };
    Ok(Stated {
        span: st.span,
        situations,
        family,
        params,
    })
}

/// One number in `range` after its parameter word.
fn param(args: &mut Args, what: &str, (lo, hi): (f64, f64)) -> Check<f64> {
    let item = args.next(&format!("a value of {what}"))?;
    number(
        item,
        what,
        &format!("from {lo} to {hi}, the paper's range"),
        |v| (lo..=hi).contains(&v),
    )
}

/// The numbers after a per-group parameter word, up to the next word.
fn per_group(args: &mut Args, what: &str, (lo, hi): (f64, f64)) -> Check<(Span, Vec<f64>)> {
    let mut values = Vec::new();
    let mut span: Option<Span> = None;
    while let Some(item) = args.peek() {
        if !matches!(item.token, Token::Quantity(_)) {
            break;
        }
        args.next("")?;
        values.push(number(
            item,
            what,
            &format!("from {lo} to {hi}, the paper's range"),
            |v| (lo..=hi).contains(&v),
        )?);
        span = Some(span.map_or(item.span, |s| s.to(item.span)));
    }
    match span {
        Some(span) => Ok((span, values)),
        None => {
            let at = args.last_span();
            let found = args.peek().map(Item::describe);
            Err(Diagnostic::error(
                at,
                format!(
                    "{what} needs one value per user group{}",
                    found.map_or(String::new(), |f| format!(", found {f}"))
                ),
            )
            .with_label("no values")
            .with_help(format!(
                "e.g. {} 1 0.8 0.5 0.2 0.1 for five groups",
                what.to_lowercase()
            )))
        }
    }
}
