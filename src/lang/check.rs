//! The checker: from statements to a checked [`Draft`], or diagnostics.
//!
//! It routes each statement by keyword to the mechanism that owns it (see
//! [`super::statements`]), has [`super::mode`] decide how the goal
//! schedules, then lets each mechanism lower itself. A statement no
//! mechanism owns is rejected with a did-you-mean, never ignored. A goal
//! file is read whole: every statement is checked, so one run of `goalc
//! check` reports every mistake (up to [`MAX_DIAGNOSTICS`]).

use super::args::{did_you_mean, once, Check};
use super::diag::{Diagnostic, Span};
use super::draft::Draft;
use super::mode::{self, Modes};
use super::statements::{self, order, Cx, Mechanism};
use super::syntax::Statement;

/// More than this many diagnostics are summarised in one last line.
pub const MAX_DIAGNOSTICS: usize = 50;

/// Checks parsed statements. Returns the goal when there is no error, and
/// every diagnostic found (warnings may come with a goal).
pub fn check(text: &str, statements: &[Statement]) -> (Option<Draft>, Vec<Diagnostic>) {
    check_as(text, statements, false)
}

/// [`check`], for a goal to run or (`training`) a template for `goalc
/// train`, whose criteria may lack parameters.
pub fn check_as(
    text: &str,
    statements: &[Statement],
    training: bool,
) -> (Option<Draft>, Vec<Diagnostic>) {
    let mut mechanisms = statements::mechanisms();
    let mut cx = Cx {
        text,
        warnings: Vec::new(),
        given: Vec::new(),
        order: None,
        order_words: order::Words::new(
            mechanisms
                .iter()
                .enumerate()
                .filter_map(|(i, m)| Some((i, m.order_words()?))),
        ),
        training,
    };
    let mut diags = Vec::new();
    if statements.is_empty() {
        diags.push(
            Diagnostic::error(
                Span::new(0, text.len().min(1)),
                "the goal file states nothing",
            )
            .with_label("no statement in this file")
            .with_help("state at least a dispatch rule, e.g. `backfill easy`"),
        );
    }
    for st in statements {
        if let Err(d) = statement(&mut mechanisms, &mut cx, st) {
            diags.push(d);
        }
        // Warnings stay in file order among the errors.
        diags.append(&mut cx.warnings);
    }
    let mut modes = Modes::default();
    for m in &mechanisms {
        m.modes(&mut modes);
    }
    if let Some(given) = &cx.order {
        modes.fit(cx.order_words.fit(given));
    }
    let (mode, conflicts) = mode::resolve(text, modes);
    diags.extend(conflicts);
    let mut goal = Draft::default();
    for m in &mechanisms {
        m.lower(mode, &cx, &mut goal, &mut diags);
    }
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
    (ok.then_some(goal), diags)
}

/// Routes one statement to its mechanism: by keyword, and for `order` by
/// its word. Each statement may be given once.
fn statement(mechanisms: &mut [Box<dyn Mechanism>], cx: &mut Cx, st: &Statement) -> Check {
    let kw = st.keyword.as_str();
    let found = mechanisms.iter().enumerate().find_map(|(i, m)| {
        let kind = m.statements().iter().find(|k| k.keywords.contains(&kw))?;
        Some((i, kind.keywords[0], kind.once))
    });
    let Some((owner, first_keyword, what)) = found else {
        return Err(unknown(mechanisms, st));
    };
    if !mechanisms[owner].repeatable(first_keyword) {
        once(cx.text, cx.given(first_keyword), st, what)?;
    }
    if kw == "order" {
        let (owner, given) = cx.order_words.read(st)?;
        mechanisms[owner].check(st, cx)?;
        cx.order = Some(given);
    } else {
        mechanisms[owner].check(st, cx)?;
    }
    cx.given.push((first_keyword, st.span));
    Ok(())
}

/// A statement no mechanism owns: unknown, with a did-you-mean.
fn unknown(mechanisms: &[Box<dyn Mechanism>], st: &Statement) -> Diagnostic {
    let kw = st.keyword.as_str();
    let supported: Vec<&str> = mechanisms
        .iter()
        .flat_map(|m| {
            m.statements()
                .iter()
                .flat_map(|k| k.keywords.iter().copied())
        })
        .collect();
    let near: Vec<_> = mechanisms.iter().flat_map(|m| m.near_misses()).collect();
    let all = supported.iter().copied().chain(near.iter().map(|n| n.word));
    let help = match did_you_mean(kw, all) {
        Some(c) => match near.iter().find(|n| n.word == c) {
            Some(n) => format!("did you mean `{}`?", (n.suggest)(st)),
            None => format!("did you mean `{c}`?"),
        },
        None => format!("statements start with one of: {}", supported.join(", ")),
    };
    Diagnostic::error(st.keyword_span, format!("unknown statement `{kw}`"))
        .with_label("not a keyword")
        .with_help(help)
}

/// Checking goal text in unit tests, shared by the mechanisms' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::check;
    use crate::lang::draft::Draft;
    use crate::lang::syntax::parse;

    /// The goal `text` checks to, which must have no diagnostic.
    pub fn goal(text: &str) -> Draft {
        let (g, d) = check(text, &parse(text).unwrap());
        assert!(d.is_empty(), "{text}: {d:?}");
        g.unwrap()
    }

    /// The messages of `text`'s diagnostics, which must refuse it.
    pub fn errors(text: &str) -> Vec<String> {
        let (g, d) = check(text, &parse(text).unwrap());
        assert!(g.is_none(), "{text}");
        d.into_iter().map(|d| d.message).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{errors, goal};
    use super::*;
    use crate::lang::diag::Span;
    use crate::lang::syntax::parse;
    use crate::policy::fairshare::Decay;
    use crate::policy::{Dispatch, Order};
    use crate::workload::Time;

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
    fn design_lines_parse_and_conflict_by_mode() {
        let e = errors(
            "tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%\ndeadline stringency 0.2\nfairshare decay 24h\n",
        );
        // Each is valid alone; together they conflict: a goal schedules by
        // search, by admission control or as a baseline, and the deadlines
        // decide, so both others are reported against them.
        assert_eq!(
            e,
            vec![
                "an objective conflicts with the deadlines on line 2",
                "the fairshare order conflicts with the deadlines on line 2"
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
            vec!["moldable scheduling needs a speedup model"]
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
        // Said as written, not as read (it rounds to 1).
        assert_eq!(
            errors("deadline stringency 0.99999999999999999"),
            vec!["stringency 0.99999999999999999 is out of range"]
        );
        // Exponents are numbers.
        let d = goal("deadline stringency 2e-1 relaxation 1E1\nadmission msb")
            .deadlines
            .unwrap();
        assert_eq!((d.stringency, d.relaxation), (0.2, 10.0));
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

    /// A wrong statement is said once: what depends on it does not add
    /// that it is missing, nor judges counts against a default it replaced.
    #[test]
    fn a_wrong_statement_is_not_said_missing_again() {
        for (text, only) in [
            (
                "deadline stringency 5\nadmission msb",
                "stringency 5 is out of range",
            ),
            (
                "deadline stringency 5\norder llf",
                "stringency 5 is out of range",
            ),
            (
                "tradeoff(max_wait, foo)\nsearch dds budget 10",
                "unknown measure `foo`",
            ),
            (
                "fairshare decay 1s\nstarvation after 1h exclude heavy",
                "the decay period must be at least 1m",
            ),
            (
                "groups 8% 8%\nowner awrt(group 3)",
                "bounds must decrease from group 1 on",
            ),
            (
                "groups 9% 8% 8%\ncriterion all f1 a 1 b 1 w 1 1 1 1 k 1 1 1 1",
                "bounds must decrease from group 1 on",
            ),
        ] {
            assert_eq!(errors(text), vec![only], "{text}");
        }
        // Without the statement, its lack is still said.
        assert_eq!(
            errors("admission msb"),
            vec!["admission control needs deadlines"]
        );
        assert_eq!(
            errors("groups 8% 7%\ncriterion all f1 a 1 b 1 w 1 1 k 1 1 1"),
            vec!["2 values of w for 3 user groups"]
        );
    }
}
