//! MOLD's statements (Sabin, Lang and Sadayappan, "Moldable Parallel Job
//! Scheduling Using Job Efficiency: An Iterative Approach"): `speedup`,
//! how the workload's jobs scale, and `moldable`, the scheme that picks
//! each job's width.
//!
//! ```text
//! speedup downey A system sigma 0 to 2 [seed 1]            # Figs. 2, 3, 7, 8
//! speedup downey A 1 to 2 times width sigma 0 to 2         # Figs. 4, 5, 9, 10
//! moldable fair-share overbooking 4 efficiency 1           # section 5, Fig. 1
//! moldable iterative                                       # section 6, Fig. 6
//! ```
//!
//! `speedup` gives every job Downey's speedup model, its recorded width
//! and run time one point of the curve: `A` (average parallelism) is the
//! machine's size, or drawn uniformly between two factors of the job's
//! recorded width; `sigma` is fixed or drawn uniformly between two values;
//! the draws are seeded (default 1). The settings come in any order.
//!
//! `moldable` makes the goal moldable scheduling: the scheme picks each
//! job's width and dispatches jobs its own way, so it replaces dispatch
//! rules, queue orders, objectives and criteria, and conflicts with what
//! only they use (fairshare, a starvation queue, a runtime limit);
//! deadlines outrank it. `fair-share` takes the overbooking factor ObF
//! (default 1, no overbooking; 1 to 64) and the efficiency factor EF
//! (default 0, plain fair share; 0 to 1). It needs a `speedup` statement.
//!
//! `speedup` alone fits any goal: a rigid policy runs every job on its
//! recorded width, which is the paper's rigid baseline. It cannot go with
//! `limit runtime`: a moldable job split into chunks is not defined.

use super::{Cx, Kind, Mechanism, NearMiss};
use crate::lang::args::{
    did_you_mean, number, setting_once, suggestion, whole_number, Args, Check,
};
use crate::lang::diag::{Diagnostic, Span};
use crate::lang::draft::Draft;
use crate::lang::mode::{Claim, Fit, Mode, Modes, Role, Wording};
use crate::lang::syntax::{Item, Statement, Token};
use crate::policy::moldable::MoldableScheme;
use crate::workload::transform::{MoldableSpec, Parallelism, Sigma};

/// Largest overbooking factor: beyond it every limit is the machine.
pub const MAX_OVERBOOKING: f64 = 64.0;
/// Largest factor of the recorded width for `A`.
pub const MAX_A_FACTOR: f64 = 1000.0;
/// Largest sigma: Downey's model takes any, but workloads show 0 to 2, and
/// a larger value is more likely a slip than a study.
pub const MAX_SIGMA: f64 = 10.0;
/// The seed of the draws when the goal gives none.
pub const DEFAULT_SEED: u64 = 1;
/// The defaults of `moldable fair-share`: no overbooking, plain fair share.
pub const DEFAULT_OVERBOOKING: f64 = 1.0;
pub const DEFAULT_EFFICIENCY: f64 = 0.0;

/// An example of each statement, for help texts.
const SPEEDUP_EXAMPLE: &str = "speedup downey A system sigma 0 to 2";
const FAIR_SHARE_EXAMPLE: &str = "moldable fair-share overbooking 4 efficiency 1";

/// MOLD's statements, checked.
#[derive(Debug, Default)]
pub struct Moldable {
    scheme: Option<(Span, MoldableScheme)>,
    speedup: Option<(Span, MoldableSpec)>,
    /// A `speedup` statement was given, checked or not: a wrong one was
    /// reported, and the scheme does not lack one.
    speedup_stated: bool,
}

impl Mechanism for Moldable {
    fn statements(&self) -> &'static [Kind] {
        &[
            Kind {
                keywords: &["speedup"],
                once: "the speedup model is",
            },
            Kind {
                keywords: &["moldable"],
                once: "the moldable scheme is",
            },
        ]
    }

    /// The SPEC's and the paper's words for these statements.
    fn near_misses(&self) -> &'static [NearMiss] {
        &[
            NearMiss {
                word: "allocation",
                suggest: moldable_example,
            },
            NearMiss {
                word: "downey",
                suggest: speedup_example,
            },
        ]
    }

    fn check(&mut self, st: &Statement, _: &mut Cx) -> Check {
        match st.keyword.as_str() {
            "speedup" => {
                self.speedup_stated = true;
                self.speedup = Some((st.span, speedup(st)?));
            }
            _ => self.scheme = Some((st.span, moldable(st)?)),
        }
        Ok(())
    }

    /// `moldable` makes the goal moldable scheduling; `speedup` fits any
    /// goal (a rigid policy runs jobs on their recorded widths).
    fn modes(&self, modes: &mut Modes) {
        let Some((span, _)) = self.scheme else {
            return;
        };
        let related =
            "the moldable scheme: it picks each job's width and dispatches jobs its own way";
        modes.claim(Claim {
            mode: Mode::Moldable,
            span,
            name: "moldable scheme",
            to_setting: Wording {
                label: "not used by the moldable scheme",
                related: related.to_string(),
                help: "a goal with a `moldable` statement chooses each job's width and when it \
                       starts by its moldable scheme, which has its own order and reservations; \
                       remove this line, or the `moldable` line to run the jobs rigid",
            },
            to_feature: Wording {
                label: "not used by the moldable scheme",
                related: related.to_string(),
                help: "the moldable scheme picks widths and dispatches jobs its own way, and has \
                       no use for this; remove this line, or the `moldable` line",
            },
        });
        modes.fit(Fit::new(
            span,
            "the moldable scheme",
            Role::Setting,
            &[Mode::Moldable],
        ));
    }

    fn lower(&self, mode: Mode, cx: &Cx, goal: &mut Draft, diags: &mut Vec<Diagnostic>) {
        if let Some((span, scheme)) = self.scheme {
            if !self.speedup_stated {
                diags.push(
                    Diagnostic::error(span, "moldable scheduling needs a speedup model")
                        .with_label("no `speedup` statement in this goal")
                        .with_help(format!(
                            "say how the jobs scale, e.g. `{SPEEDUP_EXAMPLE}` (every job scales \
                             to the machine, as in the MOLD paper's Fig. 2) or `speedup downey A \
                             1 to 2 times width sigma 0 to 2` (Fig. 4)"
                        )),
                );
            }
            if mode == Mode::Moldable {
                goal.moldable = Some(scheme);
            }
        }
        let Some((span, spec)) = self.speedup else {
            return;
        };
        if let Some(limit) = cx.given("limit") {
            // Where the runtime limit does not fit the goal's mode, the
            // resolver said so already.
            if !diags.iter().any(|d| d.span == limit && d.is_error()) {
                diags.push(
                    Diagnostic::error(limit, "a runtime limit cannot split moldable jobs")
                        .with_label("not supported with a speedup model")
                        .with_related(span, "this makes every job moldable")
                        .with_help(
                            "a job's speedup model is of the whole job: chunks of it, each \
                             perhaps on another width, are not defined; remove the `limit` line, \
                             or the `speedup` line",
                        ),
                );
            }
        }
        goal.speedup = Some(spec);
    }
}

/// `speedup downey A (system | LOW [to HIGH] times width) sigma LOW [to
/// HIGH] [seed N]`, the settings in any order.
fn speedup(st: &Statement) -> Check<MoldableSpec> {
    let mut args = Args::new(st);
    let Some(first) = args.peek() else {
        return Err(
            Diagnostic::error(st.keyword_span, "`speedup` needs a speedup model")
                .with_label("incomplete statement")
                .with_help(format!(
                    "e.g. `{SPEEDUP_EXAMPLE}`: Downey's model, every job scaling to the machine \
                     (A = system size), sigma uniform between 0 and 2 (the MOLD paper)"
                )),
        );
    };
    if first
        .ident()
        .is_some_and(|w| setting_of_downey(w).is_some())
    {
        return Err(Diagnostic::error(
            first.span,
            format!("expected a model before {}", first.describe()),
        )
        .with_label("which model?")
        .with_help(format!(
            "name the model first, as in `{SPEEDUP_EXAMPLE}`: goalc knows Downey's"
        )));
    }
    args.word("a speedup model", &["downey"])?;
    let mut seen: Vec<(&str, Span)> = Vec::new();
    let mut parallelism = None;
    let mut sigma = None;
    let mut seed = DEFAULT_SEED;
    while let Some(item) = args.peek() {
        let word = setting(item)?;
        args.next("")?;
        let twice = format!("{word} is given twice");
        setting_once(
            &mut seen,
            word,
            item.span,
            twice,
            "give each setting of the model once",
        )?;
        match word {
            "A" => parallelism = Some(average_parallelism(&mut args)?),
            "sigma" => sigma = Some(sigma_of(&mut args)?),
            _ => {
                let item = args.next("a seed, as in seed 1")?;
                seed = whole_number(item, "seed", 0, u32::MAX)?;
            }
        }
    }
    let missing = |what: &str, help: &str| {
        let end = st.span.end;
        Diagnostic::error(
            st.keyword_span.to(Span::new(end, end)),
            format!("`speedup downey` needs {what}"),
        )
        .with_label("incomplete statement")
        .with_help(help.to_string())
    };
    let Some(parallelism) = parallelism else {
        return Err(missing(
            "A, the average parallelism",
            "e.g. `speedup downey A system sigma 0 to 2` (every job scales to the machine) or \
             `speedup downey A 1 to 2 times width sigma 0 to 2` (A drawn between 1 and 2 times \
             the job's recorded width)",
        ));
    };
    let Some(sigma) = sigma else {
        return Err(missing(
            "sigma, how far from linear the speedup is",
            "e.g. `speedup downey A system sigma 0 to 2` (drawn uniformly, as in the MOLD paper) \
             or `speedup downey A system sigma 1` (fixed)",
        ));
    };
    let spec = MoldableSpec {
        parallelism,
        sigma,
        seed,
    };
    // The ranges were checked item by item; this is the transform's own
    // word, which must agree.
    spec.validate().map_err(|e| {
        Diagnostic::error(st.span, format!("invalid speedup model: {e}")).with_label("here")
    })?;
    Ok(spec)
}

/// The setting a word of `speedup downey` names, if any.
fn setting_of_downey(word: &str) -> Option<&'static str> {
    match word {
        "A" => Some("A"),
        "sigma" => Some("sigma"),
        "seed" => Some("seed"),
        _ => None,
    }
}

/// The name of a setting of Downey's model, with a did-you-mean for the
/// paper's other words for them.
fn setting(item: &Item) -> Check<&'static str> {
    const CHOICES: [&str; 3] = ["A", "sigma", "seed"];
    if let Some(s) = item.ident().and_then(setting_of_downey) {
        return Ok(s);
    }
    let meant = match item.ident().map(str::to_ascii_lowercase).as_deref() {
        Some("parallelism" | "average-parallelism" | "avg-parallelism") => Some("A"),
        Some("variance") => Some("sigma"),
        Some(w) => did_you_mean(w, CHOICES),
        None => None,
    };
    let help = match (meant, &item.token) {
        (Some(m), _) => format!("did you mean `{m}`?"),
        (None, Token::Quantity(raw)) => format!(
            "say which setting `{raw}` is for: A (average parallelism), sigma or seed, as in \
             `{SPEEDUP_EXAMPLE}`"
        ),
        (None, _) => format!(
            "Downey's model takes A (average parallelism), sigma and an optional seed, as in \
             `{SPEEDUP_EXAMPLE}`"
        ),
    };
    Err(Diagnostic::error(
        item.span,
        format!("{} is not a setting of Downey's model", item.describe()),
    )
    .with_label("expected A, sigma, seed")
    .with_help(help))
}

/// After `A`: `system`, or `LOW [to HIGH] times width`.
fn average_parallelism(args: &mut Args) -> Check<Parallelism> {
    const HELP: &str = "A is `system` (every job scales to the machine's size) or a range of \
                        factors of the job's recorded width, as in `A 1 to 2 times width`";
    let item = args.next("its value: `system`, or factors as in `A 1 to 2 times width`")?;
    if let Some(word) = item.ident() {
        if word == "system" {
            // `A system size` reads as the paper writes it.
            if args.peek().and_then(Item::ident) == Some("size") {
                args.next("")?;
            }
            return Ok(Parallelism::System);
        }
        let help = match word {
            "machine" | "system-size" | "machine-size" | "all" => {
                "write `A system`: every job scales to the machine's size".to_string()
            }
            _ => match did_you_mean(word, ["system"]) {
                Some(_) => "did you mean `system`?".to_string(),
                None => HELP.to_string(),
            },
        };
        return Err(
            Diagnostic::error(item.span, format!("`{word}` is not a value of A"))
                .with_label("expected `system` or a factor of the width")
                .with_help(help),
        );
    }
    if let Token::Op('=') = item.token {
        return Err(Diagnostic::error(item.span, "no `=` after `A`")
            .with_label("not expected here")
            .with_help("write the value right after A: `A system` or `A 1 to 2 times width`"));
    }
    let factor = |item: &Item| {
        number(
            item,
            "factor of the width",
            &format!("at least 1 and at most {MAX_A_FACTOR}"),
            |v| (1.0..=MAX_A_FACTOR).contains(&v),
        )
        .map_err(|d| d.with_help(HELP))
    };
    let (low, high) = range(args, item, "factor", factor)?;
    let example = "A 1 to 2 times width";
    args.keyword("times", example)?;
    args.keyword("width", example)?;
    Ok(Parallelism::TimesWidth { low, high })
}

/// After `sigma`: `LOW [to HIGH]`.
fn sigma_of(args: &mut Args) -> Check<Sigma> {
    let item = args.next("its value, as in sigma 0 to 2 or sigma 1")?;
    let value = |item: &Item| {
        number(
            item,
            "sigma",
            &format!("at least 0 and at most {MAX_SIGMA}"),
            |v| (0.0..=MAX_SIGMA).contains(&v),
        )
        .map_err(|d| {
            d.with_help(
                "sigma says how far from linear a job's speedup is: 0 is linear up to A, \
                 larger is further; workloads show 0 to 2 (the MOLD paper draws it uniformly \
                 between 0 and 2)",
            )
        })
    };
    let ranged = args.peek().and_then(Item::ident) == Some("to");
    let (low, high) = range(args, item, "sigma", value)?;
    Ok(if ranged {
        Sigma::Uniform { low, high }
    } else {
        Sigma::Fixed { value: low }
    })
}

/// `LOW [to HIGH]` from `first` on, each read by `value`; one value is a
/// range of one. The low end must not be above the high end.
fn range(
    args: &mut Args,
    first: &Item,
    what: &str,
    value: impl Fn(&Item) -> Check<f64>,
) -> Check<(f64, f64)> {
    let low = value(first)?;
    if args.peek().and_then(Item::ident) != Some("to") {
        return Ok((low, low));
    }
    args.next("")?;
    let last = args.next("the upper end of the range after `to`")?;
    let high = value(last)?;
    if low > high {
        return Err(Diagnostic::error(
            first.span.to(last.span),
            format!("the {what} range {low} to {high} is reversed"),
        )
        .with_label("the lower end is above the upper end")
        .with_help(format!("write {high} to {low}")));
    }
    Ok((low, high))
}

/// `moldable fair-share [overbooking F] [efficiency E]` or `moldable
/// iterative`.
fn moldable(st: &Statement) -> Check<MoldableScheme> {
    let mut args = Args::new(st);
    let Some(first) = args.peek() else {
        return Err(
            Diagnostic::error(st.keyword_span, "`moldable` needs a scheme")
                .with_label("incomplete statement")
                .with_help(format!(
                    "e.g. `{FAIR_SHARE_EXAMPLE}` (the MOLD paper's fair-share limits, section 5) \
                     or `moldable iterative` (section 6)"
                )),
        );
    };
    if let Some(word) = first.ident() {
        let squashed: String = word
            .chars()
            .filter(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_lowercase();
        if word != "fair-share" && matches!(squashed.as_str(), "fairshare" | "fair") {
            return Err(Diagnostic::error(
                first.span,
                format!("`{word}` is not a moldable scheme"),
            )
            .with_label("expected fair-share, iterative")
            .with_help(
                "did you mean `moldable fair-share`? (the MOLD paper's fair-share limits; \
                 `fairshare` on a line of its own is FAIR's fairshare queue order, another \
                 statement)",
            ));
        }
    }
    let (scheme, span) = args.word("a moldable scheme", &["fair-share", "iterative"])?;
    if scheme == "iterative" {
        if let Some(extra) = args.peek() {
            let last = st.items.last().map_or(extra.span, |l| l.span);
            return Err(Diagnostic::error(
                extra.span.to(last),
                "`moldable iterative` takes no settings",
            )
            .with_label("not expected here")
            .with_related(span, "the iterative scheme tunes itself")
            .with_help(
                "the iterative scheme searches for widths itself, with nothing to tune (the \
                 MOLD paper, section 6); remove what follows, or write `moldable fair-share \
                 overbooking F efficiency E` for the fair-share scheme",
            ));
        }
        return Ok(MoldableScheme::Iterative);
    }
    let mut overbooking = DEFAULT_OVERBOOKING;
    let mut efficiency = DEFAULT_EFFICIENCY;
    let mut seen: Vec<(&str, Span)> = Vec::new();
    while let Some(item) = args.peek() {
        let word = fair_share_setting(item)?;
        args.next("")?;
        let twice = format!("the {word} factor is given twice");
        setting_once(&mut seen, word, item.span, twice, "give each factor once")?;
        let value = args.next(&format!("the {word} factor, as in {FAIR_SHARE_EXAMPLE}"))?;
        if word == "overbooking" {
            overbooking = factor(
                value,
                "overbooking factor",
                &format!("at least 1 and at most {MAX_OVERBOOKING}"),
                |v| (1.0..=MAX_OVERBOOKING).contains(&v),
                "the overbooking factor (the paper's ObF) multiplies every job's fair-share \
                 limit: 1 is none, and the limits then add up to the machine; the paper uses 1 \
                 and 4",
            )?;
        } else {
            efficiency = factor(
                value,
                "efficiency factor",
                "from 0 to 1",
                |v| (0.0..=1.0).contains(&v),
                "the efficiency factor (the paper's EF) says how far a job's limit may move \
                 from its fair share towards efficient use: 0 is plain fair share, 1 lets it \
                 move all the way; the paper uses 0, 0.5 and 1",
            )?;
        }
    }
    Ok(MoldableScheme::FairShare {
        overbooking,
        efficiency,
    })
}

/// A setting of `moldable fair-share`, with the paper's abbreviations
/// suggested.
fn fair_share_setting(item: &Item) -> Check<&'static str> {
    const CHOICES: [&str; 2] = ["overbooking", "efficiency"];
    if let Some(c) = item.ident().and_then(|w| CHOICES.iter().find(|c| **c == w)) {
        return Ok(c);
    }
    let help = match (&item.token, item.ident().map(str::to_ascii_lowercase)) {
        (_, Some(w)) if w == "obf" || w.starts_with("overbook") => {
            "did you mean `overbooking`? (the paper's ObF)".to_string()
        }
        (_, Some(w)) if w == "ef" || w.starts_with("efficien") => {
            "did you mean `efficiency`? (the paper's EF)".to_string()
        }
        (Token::Quantity(raw), _) => format!(
            "say which factor `{raw}` is, as in `{FAIR_SHARE_EXAMPLE}` (defaults: overbooking 1, \
             efficiency 0)"
        ),
        (_, Some(w)) => suggestion(&w, &CHOICES),
        _ => format!("write it as in `{FAIR_SHARE_EXAMPLE}`"),
    };
    Err(Diagnostic::error(
        item.span,
        format!(
            "{} is not a setting of the fair-share scheme",
            item.describe()
        ),
    )
    .with_label("expected overbooking, efficiency")
    .with_help(help))
}

/// A factor in `ok`; a percentage gets its fraction suggested.
fn factor(
    item: &Item,
    what: &str,
    expected: &str,
    ok: impl Fn(f64) -> bool,
    meaning: &str,
) -> Check<f64> {
    if let Token::Quantity(raw) = &item.token {
        if let Some(percent) = raw.strip_suffix('%') {
            let help = match percent.parse::<f64>() {
                Ok(p) => format!("write the factor as a number: {}", p / 100.0),
                Err(_) => "write the factor as a number".to_string(),
            };
            return Err(Diagnostic::error(
                item.span,
                format!("`{raw}` is a percentage, not a factor"),
            )
            .with_label("expected a number")
            .with_help(help));
        }
    }
    number(item, what, expected, ok).map_err(|d| d.with_help(meaning))
}

/// `moldable ...` for a statement that used another word for it (`allocation
/// fairshare`, `allocation iterative`).
fn moldable_example(st: &Statement) -> String {
    let words = words(st);
    match words.split_first() {
        Some((first, _)) if first == "iterative" => "moldable iterative".to_string(),
        Some((first, rest)) if first.to_ascii_lowercase().starts_with("fair") => {
            let rest = rest.join(" ");
            format!("moldable fair-share {rest}").trim_end().to_string()
        }
        _ => FAIR_SHARE_EXAMPLE.to_string(),
    }
}

/// `speedup downey ...` for a statement that began with `downey`.
fn speedup_example(st: &Statement) -> String {
    let words = words(st);
    if words.is_empty() {
        SPEEDUP_EXAMPLE.to_string()
    } else {
        format!("speedup downey {}", words.join(" "))
    }
}

/// The words and numbers of a statement after its keyword.
fn words(st: &Statement) -> Vec<String> {
    st.items
        .iter()
        .filter_map(|i| match &i.token {
            Token::Ident(s) | Token::Quantity(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::lang::check::check;
    use crate::lang::check::testing::{errors, goal};
    use crate::lang::check_text;
    use crate::lang::diag::Span;
    use crate::lang::syntax::parse;
    use crate::policy::moldable::MoldableScheme;
    use crate::policy::{Dispatch, GoalPolicy, Order};
    use crate::workload::transform::{MoldableSpec, Parallelism, Sigma};

    fn help(text: &str) -> String {
        let (_, d) = check(text, &parse(text).unwrap());
        d[0].help.clone().unwrap_or_default()
    }

    fn fair(overbooking: f64, efficiency: f64) -> MoldableScheme {
        MoldableScheme::FairShare {
            overbooking,
            efficiency,
        }
    }

    const SYSTEM: &str = "speedup downey A system sigma 0 to 2\n";

    #[test]
    fn speedup_forms() {
        let paper = |parallelism| MoldableSpec {
            parallelism,
            sigma: Sigma::Uniform {
                low: 0.0,
                high: 2.0,
            },
            seed: 1,
        };
        assert_eq!(goal(SYSTEM).speedup, Some(paper(Parallelism::System)));
        assert_eq!(
            goal("speedup downey A system size sigma 0 to 2").speedup,
            Some(paper(Parallelism::System))
        );
        assert_eq!(
            goal("speedup downey A 1 to 2 times width sigma 0 to 2").speedup,
            Some(paper(Parallelism::TimesWidth {
                low: 1.0,
                high: 2.0
            }))
        );
        // Settings in any order, a fixed sigma, a fixed factor, a seed.
        assert_eq!(
            goal("speedup downey seed 7 sigma 1 A 1.5 times width").speedup,
            Some(MoldableSpec {
                parallelism: Parallelism::TimesWidth {
                    low: 1.5,
                    high: 1.5
                },
                sigma: Sigma::Fixed { value: 1.0 },
                seed: 7,
            })
        );
        assert_eq!(
            goal("speedup downey A system sigma 0.5 to 0.5 seed 0").speedup,
            Some(MoldableSpec {
                parallelism: Parallelism::System,
                sigma: Sigma::Uniform {
                    low: 0.5,
                    high: 0.5
                },
                seed: 0,
            })
        );
        assert_eq!(
            goal("speedup downey A system sigma 10")
                .speedup
                .unwrap()
                .sigma,
            Sigma::Fixed { value: 10.0 }
        );
    }

    /// A speedup model alone leaves the policy rigid: the paper's
    /// baseline, with every job on its recorded width.
    #[test]
    fn speedup_fits_every_mode() {
        let g = goal(&format!("{SYSTEM}backfill conservative\norder sjf"));
        assert_eq!(
            (g.dispatch, g.order, g.moldable),
            (Dispatch::Conservative, Order::Sjf, None)
        );
        assert!(g.speedup.is_some());
        let g = goal(&format!(
            "{SYSTEM}tradeoff(total_excessive_wait, avg_slowdown)"
        ));
        assert!(g.search.is_some() && g.speedup.is_some());
        let g = goal(&format!("{SYSTEM}deadline stringency 0.2"));
        assert!(g.admission.is_some() && g.speedup.is_some());
        let g = goal(&format!(
            "{SYSTEM}fairshare decay 24h\nstarvation after 24h"
        ));
        assert!(g.speedup.is_some());
        let g = goal(&format!(
            "{SYSTEM}criterion all f3 a 0.5 w 1 1 1 1 1 k 0 0 0 0 0"
        ));
        assert!(g.greedy.is_some() && g.speedup.is_some());
    }

    #[test]
    fn moldable_forms_and_defaults() {
        let scheme = |line: &str| goal(&format!("{SYSTEM}{line}")).moldable.unwrap();
        assert_eq!(scheme("moldable fair-share"), fair(1.0, 0.0));
        assert_eq!(scheme("moldable fair-share overbooking 4"), fair(4.0, 0.0));
        assert_eq!(scheme("moldable fair-share efficiency 0.5"), fair(1.0, 0.5));
        assert_eq!(
            scheme("moldable fair-share efficiency 1 overbooking 4"),
            fair(4.0, 1.0)
        );
        assert_eq!(
            scheme("moldable fair-share overbooking 64 efficiency 0"),
            fair(64.0, 0.0)
        );
        assert_eq!(scheme("moldable iterative"), MoldableScheme::Iterative);
        // The order of the statements does not matter.
        let g = goal(&format!(
            "moldable iterative\n{SYSTEM}name \"it\"\nslowdown bound 10s"
        ));
        assert_eq!(
            (g.moldable, g.name.as_deref(), g.tau),
            (Some(MoldableScheme::Iterative), Some("it"), 10)
        );
    }

    #[test]
    fn goals_compile_to_the_moldable_policy_with_their_speedup() {
        let g = check_text(
            "mold.goal",
            &format!("{SYSTEM}moldable fair-share overbooking 4 efficiency 1\n"),
        )
        .goal
        .unwrap();
        assert_eq!(g.policy, GoalPolicy::Moldable(fair(4.0, 1.0)));
        assert_eq!(g.policy.to_string(), "moldable-fairshare(obf 4, ef 1)");
        assert_eq!(g.speedup.unwrap().parallelism, Parallelism::System);
        assert_eq!(
            (g.runtime_limit, g.fairshare, g.deadlines),
            (None, None, None)
        );
        let text = g.describe();
        assert!(
            text.contains(
                "  speedup:    Downey's model, A = system size, sigma uniform in [0, 2], seed 1;"
            ),
            "{text}"
        );
        let json = serde_json::to_string(&g).unwrap();
        assert!(
            json.contains(r#""speedup":{"parallelism":{"kind":"system"},"sigma":{"kind":"uniform","low":0.0,"high":2.0},"seed":1}"#),
            "{json}"
        );
        // Only lowered, never run here: the iterative scheme is built elsewhere.
        let g = check_text("it.goal", &format!("{SYSTEM}moldable iterative\n"))
            .goal
            .unwrap();
        assert_eq!(g.policy, GoalPolicy::Moldable(MoldableScheme::Iterative));
        // A rigid policy on a moldable workload says so.
        let g = check_text("rigid.goal", &format!("{SYSTEM}backfill easy\n"))
            .goal
            .unwrap();
        assert!(matches!(g.policy, GoalPolicy::Baseline(_)));
        assert!(g.describe().contains("recorded width"), "{}", g.describe());
        let g = check_text("easy.goal", "backfill easy\n").goal.unwrap();
        assert_eq!(g.speedup, None);
        assert!(!g.describe().contains("speedup"));
        assert!(!serde_json::to_string(&g).unwrap().contains("Downey"));
    }

    #[test]
    fn moldable_needs_a_speedup_model() {
        assert_eq!(
            errors("moldable fair-share overbooking 4 efficiency 1"),
            vec!["moldable scheduling needs a speedup model"]
        );
        assert!(help("moldable iterative").contains("speedup downey A system sigma 0 to 2"));
        // A wrong speedup statement is reported alone.
        assert_eq!(
            errors("speedup downey A system sigma 3 to 1\nmoldable iterative"),
            vec!["the sigma range 3 to 1 is reversed"]
        );
    }

    #[test]
    fn moldable_conflicts() {
        let with = |line: &str| errors(&format!("{SYSTEM}moldable fair-share\n{line}\n"));
        for (line, what) in [
            ("backfill easy", "a dispatch rule"),
            ("dispatch list", "a dispatch rule"),
            ("order lxf", "a queue order"),
            ("order fairshare", "a queue order"),
            ("fairshare decay 24h", "the fairshare order"),
            ("starvation after 24h", "the starvation queue"),
            ("limit runtime 72h", "a runtime limit"),
            ("lexical(max_wait -> avg_wait)", "an objective"),
            (
                "criterion all f3 a 0.5 w 1 1 1 1 1 k 0 0 0 0 0",
                "a greedy criterion",
            ),
        ] {
            assert_eq!(
                with(line),
                vec![format!(
                    "{what} conflicts with the moldable scheme on line 2"
                )],
                "{line}"
            );
        }
        // Deadlines outrank the moldable scheme.
        assert_eq!(
            errors(&format!(
                "{SYSTEM}moldable iterative\ndeadline stringency 0.2"
            )),
            vec!["the moldable scheme conflicts with the deadlines on line 3"]
        );
        assert_eq!(
            errors("moldable iterative\nadmission msb\ndeadline stringency 0.2"),
            vec![
                "the moldable scheme conflicts with the deadlines on line 3",
                "moldable scheduling needs a speedup model"
            ]
        );
        // Measuring and naming fit.
        let g = goal(&format!(
            "{SYSTEM}moldable fair-share\ngroups 8% 2%\nowner awrt(group 1)\nslowdown bound 1m"
        ));
        assert!(g.moldable.is_some() && g.owner.is_some() && g.groups.is_some());
    }

    #[test]
    fn speedup_refuses_a_runtime_limit() {
        let text = format!("{SYSTEM}backfill easy\nlimit runtime 72h\n");
        assert_eq!(
            errors(&text),
            vec!["a runtime limit cannot split moldable jobs"]
        );
        let (_, d) = check(&text, &parse(&text).unwrap());
        assert_eq!(d[0].span, Span::new(51, 68));
        assert_eq!(d[0].related.as_ref().unwrap().0, Span::new(0, 36));
        assert_eq!(
            errors(&format!("limit runtime 72h\n{SYSTEM}")),
            vec!["a runtime limit cannot split moldable jobs"]
        );
        // Where the limit does not fit anyway, it is reported once.
        assert_eq!(
            errors(&format!(
                "{SYSTEM}limit runtime 72h\ndeadline stringency 0.2"
            )),
            vec!["a runtime limit conflicts with the deadlines on line 3"]
        );
        assert_eq!(
            errors(&format!("{SYSTEM}limit runtime 72h\nmoldable iterative")),
            vec!["a runtime limit conflicts with the moldable scheme on line 3"]
        );
    }

    #[test]
    fn speedup_ranges() {
        let e = |rest: &str| errors(&format!("speedup downey {rest}"));
        assert_eq!(
            e("A 0.5 to 2 times width sigma 1"),
            vec!["factor of the width 0.5 is out of range"]
        );
        assert_eq!(
            e("A 1 to 2000 times width sigma 1"),
            vec!["factor of the width 2000 is out of range"]
        );
        assert_eq!(
            e("A 2 to 1 times width sigma 1"),
            vec!["the factor range 2 to 1 is reversed"]
        );
        assert_eq!(e("A system sigma -1"), vec!["sigma -1 is out of range"]);
        assert_eq!(
            e("A system sigma 0 to 20"),
            vec!["sigma 20 is out of range"]
        );
        assert_eq!(
            e("A system sigma 2 to 0"),
            vec!["the sigma range 2 to 0 is reversed"]
        );
        assert_eq!(
            e("A system sigma 1 seed 1.5"),
            vec!["seed `1.5` is not a whole number"]
        );
        assert_eq!(
            e("A system sigma 1 seed -3"),
            vec!["seed -3 is out of range"]
        );
        assert_eq!(
            e("A system sigma 1 seed 99999999999"),
            vec!["seed 99999999999 is out of range"]
        );
        assert_eq!(e("A system sigma 2x"), vec!["`2x` is not a number"]);
        assert_eq!(
            e("A system"),
            vec!["`speedup downey` needs sigma, how far from linear the speedup is"]
        );
        assert_eq!(
            e("sigma 1"),
            vec!["`speedup downey` needs A, the average parallelism"]
        );
        assert_eq!(e("A system sigma 1 A system"), vec!["A is given twice"]);
        assert_eq!(
            e("A 1 to 2 sigma 1"),
            vec!["expected `times`, found `sigma`"]
        );
        assert_eq!(
            e("A 2 times sigma 1"),
            vec!["expected `width`, found `sigma`"]
        );
        assert_eq!(
            e("A system sigma 1 to"),
            vec!["`speedup` needs the upper end of the range after `to`"]
        );
        assert_eq!(errors("speedup"), vec!["`speedup` needs a speedup model"]);
        assert_eq!(
            errors("speedup amdahl A system sigma 1"),
            vec!["`amdahl` is not a speedup model"]
        );
        assert_eq!(
            errors("speedup A system sigma 1"),
            vec!["expected a model before `A`"]
        );
    }

    #[test]
    fn speedup_suggestions() {
        assert_eq!(help("speedup downey a system sigma 1"), "did you mean `A`?");
        assert_eq!(
            help("speedup downey parallelism system sigma 1"),
            "did you mean `A`?"
        );
        assert_eq!(
            help("speedup downey A system sigam 1"),
            "did you mean `sigma`?"
        );
        assert_eq!(
            help("speedup downey A sytem sigma 1"),
            "did you mean `system`?"
        );
        assert!(help("speedup downey A machine sigma 1").contains("write `A system`"));
        assert!(help("speedup downey A = system sigma 1").contains("`A system`"));
        assert_eq!(
            help("downey A system sigma 0 to 2"),
            "did you mean `speedup downey A system sigma 0 to 2`?"
        );
        assert_eq!(
            help("speedpu downey A system sigma 1"),
            "did you mean `speedup`?"
        );
    }

    #[test]
    fn moldable_ranges_and_suggestions() {
        let e = |line: &str| errors(&format!("{SYSTEM}{line}"));
        assert_eq!(
            e("moldable fair-share overbooking 0.5"),
            vec!["overbooking factor 0.5 is out of range"]
        );
        assert_eq!(
            e("moldable fair-share overbooking 65"),
            vec!["overbooking factor 65 is out of range"]
        );
        assert_eq!(
            e("moldable fair-share efficiency 1.5"),
            vec!["efficiency factor 1.5 is out of range"]
        );
        assert_eq!(
            e("moldable fair-share efficiency -0.5"),
            vec!["efficiency factor -0.5 is out of range"]
        );
        assert_eq!(
            e("moldable fair-share efficiency 50%"),
            vec!["`50%` is a percentage, not a factor"]
        );
        assert_eq!(
            e("moldable fair-share overbooking 4 overbooking 2"),
            vec!["the overbooking factor is given twice"]
        );
        assert_eq!(
            e("moldable fair-share overbooking"),
            vec!["`moldable` needs the overbooking factor, as in moldable fair-share overbooking 4 efficiency 1"]
        );
        assert_eq!(
            e("moldable iterative overbooking 4"),
            vec!["`moldable iterative` takes no settings"]
        );
        assert_eq!(e("moldable"), vec!["`moldable` needs a scheme"]);
        assert_eq!(
            e("moldable fairshare overbooking 4"),
            vec!["`fairshare` is not a moldable scheme"]
        );
        assert_eq!(
            e("moldable greedy"),
            vec!["`greedy` is not a moldable scheme"]
        );
        assert_eq!(
            e("moldable fair-share obf 4"),
            vec!["`obf` is not a setting of the fair-share scheme"]
        );
        let h = |line: &str| help(&format!("{SYSTEM}{line}"));
        assert!(h("moldable fairshare").starts_with("did you mean `moldable fair-share`?"));
        assert!(h("moldable fair_share").starts_with("did you mean `moldable fair-share`?"));
        assert!(h("moldable fairshare").contains("FAIR's fairshare queue order"));
        assert_eq!(h("moldable iterativ"), "did you mean `iterative`?");
        assert_eq!(
            h("moldable fair-share obf 4"),
            "did you mean `overbooking`? (the paper's ObF)"
        );
        assert_eq!(
            h("moldable fair-share ef 1"),
            "did you mean `efficiency`? (the paper's EF)"
        );
        assert_eq!(
            h("moldable fair-share efficiency 50%"),
            "write the factor as a number: 0.5"
        );
        assert_eq!(
            h("allocation fairshare overbooking 4"),
            "did you mean `moldable fair-share overbooking 4`?"
        );
        assert_eq!(
            h("allocation iterative"),
            "did you mean `moldable iterative`?"
        );
        assert_eq!(
            h("allocation"),
            "did you mean `moldable fair-share overbooking 4 efficiency 1`?"
        );
        assert_eq!(h("moldabel iterative"), "did you mean `moldable`?");
    }

    #[test]
    fn each_statement_once() {
        assert_eq!(
            errors(&format!("{SYSTEM}{SYSTEM}")),
            vec!["the speedup model is given twice: this conflicts with line 1"]
        );
        assert_eq!(
            errors(&format!("{SYSTEM}moldable iterative\nmoldable fair-share")),
            vec!["the moldable scheme is given twice: this conflicts with line 2"]
        );
    }
}
