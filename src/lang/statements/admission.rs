//! Checking the statements of deadline guarantees (the QOPS paper):
//! `deadline stringency S [share F%] [relaxation R]` and
//! `admission qops [k K] | msb | mrt [backtracks B]`, and the admission
//! orders `order edf|llf`.

use super::order::{self, OrderWords};
use super::{Cx, Kind, Mechanism};
use crate::lang::args::{number, whole_number, Args, Check};
use crate::lang::diag::{Diagnostic, Span};
use crate::lang::draft::Draft;
use crate::lang::mode::{Claim, Fit, Mode, Modes, Role, Wording};
use crate::lang::syntax::{Item, Statement, Token};
use crate::policy::admission::policy::{DEFAULT_BACKTRACKS, DEFAULT_K};
use crate::policy::admission::{AdmissionSpec, Algorithm, Heuristic};
use crate::run::DeadlineSpec;

/// The statements of admission control, checked.
#[derive(Debug, Default)]
pub struct Admission {
    deadline: Option<(Span, DeadlineSpec)>,
    admission: Option<(Span, Algorithm)>,
    /// `order edf|llf`: the admission heuristic.
    heuristic: Option<(Span, Heuristic)>,
    /// A `deadline` statement was given, checked or not: a wrong one was
    /// reported, and admission control does not lack one.
    deadline_stated: bool,
}

impl Mechanism for Admission {
    fn statements(&self) -> &'static [Kind] {
        &[
            Kind {
                keywords: &["deadline"],
                once: "the deadline is",
            },
            Kind {
                keywords: &["admission"],
                once: "the admission policy is",
            },
        ]
    }

    fn order_words(&self) -> Option<OrderWords> {
        Some(OrderWords {
            words: &["edf", "llf"],
            fits: &[Mode::Admission],
            note: Some("with deadlines"),
        })
    }

    fn check(&mut self, st: &Statement, _: &mut Cx) -> Check {
        match st.keyword.as_str() {
            "deadline" => {
                self.deadline_stated = true;
                self.deadline = Some((st.span, deadline(st)?));
            }
            "admission" => self.admission = Some((st.span, admission(st)?)),
            _ => {
                let (word, args) = order::rest(st);
                args.end()?;
                let h = match word {
                    "llf" => Heuristic::Llf,
                    _ => Heuristic::Edf,
                };
                self.heuristic = Some((st.span, h));
            }
        }
        Ok(())
    }

    /// Deadlines make the goal admission control, and so does `admission`
    /// (which alone is judged in [`Self::lower`]); the deadlines name the
    /// mode in messages when both are given.
    fn modes(&self, modes: &mut Modes) {
        let claims = [
            self.deadline.map(|d| (d.0, "deadlines")),
            self.admission.map(|a| (a.0, "admission control")),
        ];
        for (span, name) in claims.into_iter().flatten() {
            let related = format!("{name}: jobs are admitted and run at their reserved starts");
            modes.claim(Claim {
                mode: Mode::Admission,
                span,
                name,
                to_setting: Wording {
                    label: "not used under admission control",
                    related: related.clone(),
                    help: "a goal with deadlines schedules by admission control; remove this line",
                },
                to_feature: Wording {
                    label: "not used under admission control",
                    related,
                    help: "a goal with deadlines schedules by admission control (in edf or llf \
                           order); remove this line, or the deadlines",
                },
            });
            modes.fit(Fit::new(span, name, Role::Setting, &[Mode::Admission]));
        }
    }

    /// Admission control (QoPS by default, EDF order by default) needs
    /// deadlines.
    fn lower(&self, mode: Mode, cx: &Cx, goal: &mut Draft, diags: &mut Vec<Diagnostic>) {
        let Some((_, deadlines)) = self.deadline else {
            if self.deadline_stated {
                // Its mistake was reported; none follows from it.
            } else if let Some((span, _)) = self.admission {
                diags.push(Diagnostic::error(span, "admission control needs deadlines")
                    .with_label("no `deadline` statement in this goal")
                    .with_help("state how deadlines are set, e.g. deadline stringency 0.2 share 80% relaxation 5"));
            } else if let Some((span, h)) = self.heuristic {
                diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "`order {}` orders admission control, which needs deadlines",
                            h.name()
                        ),
                    )
                    .with_label("no `deadline` statement in this goal")
                    .with_help(format!(
                        "add a `deadline` statement, or use a queue order: {}",
                        cx.order_words.queue_orders()
                    )),
                );
            }
            return;
        };
        if mode == Mode::Admission {
            goal.admission = Some(AdmissionSpec {
                algorithm: self
                    .admission
                    .map_or(Algorithm::Qops { k: DEFAULT_K }, |a| a.1),
                heuristic: self.heuristic.map_or(Heuristic::Edf, |h| h.1),
            });
            goal.deadlines = Some(deadlines);
        }
    }
}

/// `deadline stringency S [share F%] [relaxation R]`.
fn deadline(st: &Statement) -> Check<DeadlineSpec> {
    let mut args = Args::new(st);
    let mut spec = DeadlineSpec::default();
    let mut seen: Vec<(&str, Span)> = Vec::new();
    if args.peek().is_none() {
        return Err(
            Diagnostic::error(st.keyword_span, "`deadline` needs a stringency")
                .with_label("incomplete statement")
                .with_help("e.g. deadline stringency 0.2 share 80% relaxation 5"),
        );
    }
    while args.peek().is_some() {
        let (word, span) =
            args.word("a deadline setting", &["stringency", "share", "relaxation"])?;
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == word) {
            return Err(
                Diagnostic::error(span, format!("the {word} is given twice"))
                    .with_label("second")
                    .with_related(*first, "first here"),
            );
        }
        seen.push((word, span));
        let item = args.next(&format!("a value for {word}"))?;
        match word {
            "stringency" => {
                spec.stringency = number(
                    item,
                    "stringency",
                    "a fraction from 0 up to (not including) 1, e.g. 0.2",
                    |v| (0.0..1.0).contains(&v),
                )?
            }
            "share" => {
                spec.share = share(item)?;
            }
            _ => {
                spec.relaxation = number(
                    item,
                    "relaxation factor",
                    "from 1 to 1000, e.g. 2, 5 or 10",
                    |v| (1.0..=1000.0).contains(&v),
                )?
            }
        }
    }
    if !seen.iter().any(|(k, _)| *k == "stringency") {
        return Err(
            Diagnostic::error(st.keyword_span, "`deadline` needs a stringency")
                .with_label("no stringency given")
                .with_help("e.g. deadline stringency 0.2"),
        );
    }
    Ok(spec)
}

/// `admission qops [k K] | msb | mrt [backtracks B]`.
fn admission(st: &Statement) -> Check<Algorithm> {
    let mut args = Args::new(st);
    let (word, _) = args.word("an admission algorithm", &["qops", "msb", "mrt"])?;
    let algorithm = match word {
        "qops" => {
            if let Some(item) = args.peek().filter(|i| i.ident() == Some("backtracks")) {
                return Err(Diagnostic::error(item.span, "`backtracks` is an MRT setting")
                    .with_label("not a QoPS setting")
                    .with_help("QoPS takes `k K` (deadline violations repaired); write `admission mrt backtracks B` for MRT"));
            }
            let k = match args.peek() {
                Some(_) => {
                    args.word("a QoPS setting", &["k"])?;
                    let item = args.next("the K factor, e.g. k 5")?;
                    whole_number(item, "K factor", 0, 1000)? as u32
                }
                None => DEFAULT_K,
            };
            Algorithm::Qops { k }
        }
        "mrt" => {
            if let Some(item) = args.peek().filter(|i| i.ident() == Some("k")) {
                return Err(Diagnostic::error(item.span, "`k` is a QoPS setting")
                    .with_label("not an MRT setting")
                    .with_help("MRT takes `backtracks B`; write `admission qops k K` for QoPS"));
            }
            let b = match args.peek() {
                Some(_) => {
                    args.word("an MRT setting", &["backtracks"])?;
                    let item = args.next("the backtrack limit, e.g. backtracks 10")?;
                    whole_number(item, "backtrack limit", 0, 1_000_000)? as u32
                }
                None => DEFAULT_BACKTRACKS,
            };
            Algorithm::Mrt { backtracks: b }
        }
        _ => Algorithm::Msb,
    };
    args.end()?;
    Ok(algorithm)
}

/// A share as a percentage in (0%, 100%].
fn share(item: &Item) -> Check<f64> {
    let raw = match &item.token {
        Token::Quantity(raw) => raw.as_str(),
        _ => "",
    };
    let Some(number) = raw.strip_suffix('%') else {
        return Err(Diagnostic::error(
            item.span,
            format!("{} is not a percentage", item.describe()),
        )
        .with_label("expected a share of jobs")
        .with_help("write it with `%`, as in share 80%"));
    };
    match number.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p / 100.0),
        // Said as written: 1e400 reads as infinity, 1e-400 as 0.
        Ok(_) => Err(
            Diagnostic::error(item.span, format!("share {raw} is out of range"))
                .with_label("must be above 0% and at most 100%"),
        ),
        Err(_) => Err(
            Diagnostic::error(item.span, format!("`{raw}` is not a percentage"))
                .with_label("expected a share of jobs"),
        ),
    }
}
