//! The baseline's statements: `name`, the dispatch rule (`dispatch` or
//! `backfill`), queue orders fcfs, lxf and sjf, and `slowdown`.

use super::order::{self, OrderWords};
use super::{Cx, Kind, Mechanism};
use crate::lang::args::{duration, whole_number, Args, Check};
use crate::lang::diag::{Diagnostic, Span};
use crate::lang::draft::Draft;
use crate::lang::mode::{Fit, Mode, Modes, Role};
use crate::lang::syntax::{Statement, Token};
use crate::policy::{Dispatch, Order, MAX_DEPTH};
use crate::workload::Time;

/// The baseline's statements, checked.
#[derive(Debug, Default)]
pub struct Baseline {
    name: Option<String>,
    dispatch: Option<(Span, Dispatch)>,
    order: Option<Order>,
    tau: Option<Time>,
}

impl Mechanism for Baseline {
    fn statements(&self) -> &'static [Kind] {
        &[
            Kind {
                keywords: &["name"],
                once: "the name is",
            },
            Kind {
                keywords: &["dispatch", "backfill"],
                once: "the dispatch rule (`dispatch` or `backfill`) is",
            },
            Kind {
                keywords: &["order"],
                once: "the queue order is",
            },
            Kind {
                keywords: &["slowdown"],
                once: "the slowdown bound is",
            },
        ]
    }

    fn order_words(&self) -> Option<OrderWords> {
        Some(OrderWords {
            words: &["fcfs", "lxf", "sjf"],
            fits: &[Mode::Baseline],
            note: None,
        })
    }

    fn check(&mut self, st: &Statement, cx: &mut Cx) -> Check {
        match st.keyword.as_str() {
            "name" => self.name = Some(name(st, cx.text)?),
            "order" => {
                let (word, args) = order::rest(st);
                args.end()?;
                self.order = Some(match word {
                    "lxf" => Order::Lxf,
                    "sjf" => Order::Sjf,
                    _ => Order::Fcfs,
                });
            }
            "slowdown" => self.tau = Some(slowdown(st)?),
            _ => self.dispatch = Some((st.span, dispatch(st)?)),
        }
        Ok(())
    }

    fn modes(&self, modes: &mut Modes) {
        // A search places jobs itself and admission control runs them at
        // their reserved starts: the dispatch rule is a baseline's alone.
        if let Some((span, _)) = self.dispatch {
            modes.fit(Fit::new(
                span,
                "a dispatch rule",
                Role::Setting,
                &[Mode::Baseline],
            ));
        }
    }

    fn lower(&self, _: Mode, _: &Cx, goal: &mut Draft, _: &mut Vec<Diagnostic>) {
        goal.name.clone_from(&self.name);
        if let Some((_, dispatch)) = self.dispatch {
            goal.dispatch = dispatch;
        }
        if let Some(order) = self.order {
            goal.order = order;
        }
        if let Some(tau) = self.tau {
            goal.tau = tau;
        }
    }
}

/// `name "..."`.
fn name(st: &Statement, text: &str) -> Check<String> {
    let mut args = Args::new(st);
    let item = args.next("a quoted name, e.g. name \"EASY\"")?;
    let Token::Str(name) = &item.token else {
        return Err(
            Diagnostic::error(item.span, "the name must be in double quotes")
                .with_label("not quoted")
                .with_help(format!(
                    "write name \"{}\"",
                    text[item.span.start..item.span.end].trim()
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
    Ok(name.trim().to_string())
}

/// `dispatch fcfs|list` or `backfill easy [depth N]|conservative [dynamic]|none`.
fn dispatch(st: &Statement) -> Check<Dispatch> {
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
        let (word, _) = args.word("a backfill mode", &["easy", "conservative", "none"])?;
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
                    args.word_from(item, "a variant of conservative backfilling", &["dynamic"])?;
                    Dispatch::ConservativeDynamic
                }
                _ => Dispatch::Conservative,
            },
            _ => Dispatch::NoGuarantee,
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
    Ok(dispatch)
}

/// `slowdown bound T`: the bounded slowdown's lower bound on run time.
fn slowdown(st: &Statement) -> Check<Time> {
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
    Ok(tau)
}
