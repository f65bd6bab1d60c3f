//! FAIR's statements: `fairshare` (the fairshare queue order and its
//! decay), `order fairshare`, `starvation` (CPlant's starvation queue) and
//! `limit runtime`.

use super::order::{self, OrderWords};
use super::{Cx, Kind, Mechanism, NearMiss};
use crate::lang::args::{did_you_mean, duration, line_of, Args, Check};
use crate::lang::diag::{Diagnostic, Span};
use crate::lang::draft::Draft;
use crate::lang::mode::{Fit, Mode, Modes, Role};
use crate::lang::syntax::{Item, Statement, Token};
use crate::policy::fairshare::Decay;
use crate::policy::{Dispatch, Order, MIN_FAIR_DURATION};
use crate::workload::Time;

/// Longest fairshare decay period or half-life.
pub const MAX_DECAY: Time = 365 * 86_400;

/// FAIR's statements, checked.
#[derive(Debug, Default)]
pub struct Fairshare {
    /// The `fairshare` statement's decay rule.
    fairshare: Option<(Span, Decay)>,
    /// Where `order fairshare` stands.
    order: Option<Span>,
    starvation: Option<(Span, Starvation)>,
    runtime_limit: Option<(Span, Time)>,
    /// A `fairshare` statement was given, checked or not: a wrong one was
    /// reported, and `exclude heavy` does not lack the fairshare order.
    fairshare_stated: bool,
}

impl Mechanism for Fairshare {
    fn statements(&self) -> &'static [Kind] {
        &[
            Kind {
                keywords: &["fairshare"],
                once: "the fairshare decay is",
            },
            Kind {
                keywords: &["starvation"],
                once: "the starvation queue is",
            },
            Kind {
                keywords: &["limit"],
                once: "the runtime limit is",
            },
        ]
    }

    fn order_words(&self) -> Option<OrderWords> {
        Some(OrderWords {
            words: &["fairshare"],
            fits: &[Mode::Baseline],
            note: None,
        })
    }

    /// FAIR says "runtime limit"; the statement is `limit runtime`.
    fn near_misses(&self) -> &'static [NearMiss] {
        &[NearMiss {
            word: "runtime",
            suggest: limit_runtime_example,
        }]
    }

    fn check(&mut self, st: &Statement, cx: &mut Cx) -> Check {
        match st.keyword.as_str() {
            "fairshare" => {
                self.fairshare_stated = true;
                self.fairshare = Some((st.span, fairshare(st)?));
            }
            "starvation" => self.starvation = Some((st.span, starvation(st)?)),
            "limit" => self.runtime_limit = Some((st.span, runtime_limit(st)?)),
            _ => {
                order_fairshare(st, cx.text)?;
                self.order = Some(st.span);
            }
        }
        Ok(())
    }

    fn modes(&self, modes: &mut Modes) {
        // Both change how a baseline orders and dispatches its queue;
        // a search and admission control have their own.
        if let Some((span, _)) = self.fairshare {
            modes.fit(Fit::new(
                span,
                "the fairshare order",
                Role::Feature,
                &[Mode::Baseline],
            ));
        }
        if let Some((span, _)) = self.starvation {
            modes.fit(Fit::new(
                span,
                "the starvation queue",
                Role::Feature,
                &[Mode::Baseline],
            ));
        }
        // Chunks of a split job would need deadlines of their own.
        if let Some((span, _)) = self.runtime_limit {
            let fit = Fit::new(
                span,
                "a runtime limit",
                Role::Feature,
                &[Mode::Baseline, Mode::Search],
            );
            modes.fit(fit.reword(|claim, c| {
                if claim.mode == Mode::Admission {
                    c.wording.label = "not supported with deadlines";
                    c.wording.related = if claim.name == "deadlines" {
                        "deadlines are made for whole jobs"
                    } else {
                        "admission control works on whole jobs"
                    }
                    .to_string();
                    c.wording.help = "the chunks of a split job would need deadlines of their \
                                      own, which goalc does not make; remove one of the two lines";
                }
            }));
        }
    }

    fn lower(&self, mode: Mode, cx: &Cx, goal: &mut Draft, diags: &mut Vec<Diagnostic>) {
        if let (Some((_, limit)), Mode::Baseline | Mode::Search) = (self.runtime_limit, mode) {
            goal.runtime_limit = Some(limit);
        }
        if mode != Mode::Baseline {
            return;
        }
        if let Err(d) = self.order_queue(cx, goal) {
            diags.push(d);
        }
        if let Err(d) = self.starvation_queue(cx, goal) {
            diags.push(d);
        }
    }
}

impl Fairshare {
    /// A `fairshare` statement makes the queue order fairshare with its
    /// decay, which another queue order contradicts; `order fairshare`
    /// alone decays as CPlant does.
    fn order_queue(&self, cx: &Cx, goal: &mut Draft) -> Check {
        let Some((span, decay)) = self.fairshare else {
            if self.order.is_some() {
                goal.order = Order::Fairshare(Decay::CPLANT);
            }
            return Ok(());
        };
        if let Some(given) = cx.queue_order().filter(|_| self.order.is_none()) {
            let (line, _) = line_of(cx.text, span);
            let (_, order) = line_of(cx.text, given.span);
            return Err(Diagnostic::error(
                given.span,
                format!("`{order}` conflicts with the fairshare statement on line {line}"),
            )
            .with_label("a second queue order")
            .with_related(span, "this orders the queue by fairshare")
            .with_help(format!(
                "a `fairshare` statement sets the queue order: remove `{order}`, \
                 or remove the `fairshare` line to keep {} order",
                goal.order.name().to_uppercase()
            )));
        }
        goal.order = Order::Fairshare(decay);
        Ok(())
    }

    /// FAIR's CPlant scheduler: a starvation queue on no-guarantee
    /// backfilling, which it implies; other dispatch rules contradict it,
    /// and `exclude heavy` needs the fairshare order.
    fn starvation_queue(&self, cx: &Cx, goal: &mut Draft) -> Check {
        let Some((span, starvation)) = self.starvation else {
            return Ok(());
        };
        if let Some(dispatch_span) = cx.given("dispatch") {
            if goal.dispatch != Dispatch::NoGuarantee {
                let (line, _) = line_of(cx.text, span);
                let (_, stated) = line_of(cx.text, dispatch_span);
                let help = match goal.dispatch {
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
        let fairshare = self.fairshare_stated || self.order.is_some();
        if let (Some(exclude), false) = (starvation.exclude_heavy, fairshare) {
            let d = Diagnostic::error(exclude, "`exclude heavy` needs the fairshare order")
                .with_label("heavy means decayed fairshare usage above the mean");
            return Err(match cx.queue_order() {
                Some(given) => {
                    let (_, order) = line_of(cx.text, given.span);
                    d.with_related(given.span, "the queue order is not fairshare")
                        .with_help(format!(
                            "replace `{order}` with `order fairshare` or `fairshare decay 24h`, \
                             or remove `exclude heavy`"
                        ))
                }
                None => d.with_help(
                    "add `fairshare decay 24h` or `order fairshare`, or remove `exclude heavy`",
                ),
            });
        }
        goal.dispatch = Dispatch::Starvation {
            after: starvation.after,
            exclude_heavy: starvation.exclude_heavy.is_some(),
        };
        Ok(())
    }
}

/// `order fairshare`: the decay is a statement of its own.
fn order_fairshare(st: &Statement, text: &str) -> Check {
    let (_, args) = order::rest(st);
    if let Some(rule) = args
        .peek()
        .filter(|i| matches!(i.ident(), Some("decay" | "half-life")))
    {
        let last = st.items.last().map_or(rule.span, |l| l.span);
        let rest = &text[rule.span.start..last.end];
        return Err(Diagnostic::error(
            rule.span.to(last),
            "the fairshare decay is its own statement",
        )
        .with_label("not part of `order`")
        .with_help(format!(
            "write `fairshare {rest}` on a line of its own: it sets the fairshare order with this decay"
        )));
    }
    args.end()
}

/// A checked `starvation after T [exclude heavy]`.
#[derive(Debug, Clone, Copy)]
struct Starvation {
    after: Time,
    /// Where `exclude heavy` stands, when given.
    exclude_heavy: Option<Span>,
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
        return Err(Diagnostic::error(
            item.span,
            format!(
                "the {what} must be at least {}",
                crate::units::format_duration(MIN_FAIR_DURATION)
            ),
        )
        .with_label("too short")
        .with_help(meaning.to_string()));
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
