//! Scheduling policies: one module per mechanism, each an object the
//! simulation core calls through [`crate::sim::Policy`].
//!
//! [`PolicySpec`] is the plain-data description of a baseline policy (what a
//! goal file or a `--policy` name compiles to); [`PolicySpec::build`] turns it
//! into the object.

pub mod admission;
pub mod backfill;
pub(crate) mod fair_queue;
pub mod fairshare;
pub mod greedy;
pub(crate) mod head;
pub mod list;
pub(crate) mod long_queue;
pub mod moldable;
pub mod no_backfill;
pub mod objective;
pub mod order;
pub mod search;
pub mod starvation;
#[cfg(test)]
pub(crate) mod testing;

pub use order::{Order, Ranker};

use crate::sim::Policy;
use crate::units::format_duration;
use crate::workload::Time;
use std::fmt;
use std::str::FromStr;

/// Largest reservation depth of EASY (goal files and `--policy` names
/// alike): beyond it EASY is conservative in all but name, and the epoch
/// cost grows with it.
pub const MAX_DEPTH: u32 = 1000;

/// Shortest fairshare decay period or half-life, starvation wait and
/// runtime limit (goal files and `--policy` names alike): anything shorter
/// is a slip of the unit.
pub const MIN_FAIR_DURATION: Time = 60;

/// How waiting jobs are dispatched, given a queue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Dispatch {
    /// Strictly in order: the first job that does not fit blocks the rest.
    NoBackfill,
    /// FAIR's list scheduler: no holes.
    List,
    /// EASY backfilling with `depth` reservations (1 = EASY).
    Easy { depth: u32 },
    /// Conservative backfilling: every waiting job holds a reservation.
    Conservative,
    /// Backfilling without reservations.
    NoGuarantee,
    /// FAIR's CPlant scheduler: no-guarantee backfilling, plus a starvation
    /// queue (FCFS, its head holding a reservation) that jobs enter after
    /// waiting `after` seconds; with `exclude_heavy`, not while their user
    /// is heavy.
    Starvation { after: Time, exclude_heavy: bool },
    /// FAIR's conservative backfilling with dynamic reservations: at every
    /// event all reservations are dropped and rebuilt in queue order.
    ConservativeDynamic,
}

/// A baseline policy: a dispatch rule and a queue order.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PolicySpec {
    pub dispatch: Dispatch,
    pub order: Order,
}

impl PolicySpec {
    pub const fn new(dispatch: Dispatch, order: Order) -> Self {
        PolicySpec { dispatch, order }
    }

    /// The policy object the simulator runs.
    pub fn build(&self) -> Box<dyn Policy> {
        let order = self.order;
        match self.dispatch {
            Dispatch::NoBackfill => Box::new(no_backfill::NoBackfill::new(order)),
            Dispatch::List => Box::new(list::ListScheduler::new(order)),
            Dispatch::Easy { depth } => Box::new(backfill::Easy::new(order, depth)),
            Dispatch::Conservative => Box::new(backfill::Conservative::new(order)),
            Dispatch::NoGuarantee => Box::new(backfill::NoGuarantee::new(order)),
            Dispatch::Starvation {
                after,
                exclude_heavy,
            } => Box::new(starvation::StarvationQueue::new(
                order,
                after,
                exclude_heavy,
            )),
            Dispatch::ConservativeDynamic => Box::new(backfill::Easy::dynamic(order)),
        }
    }
}

impl PolicySpec {
    /// The dispatch rule and queue order in words, as (field, sentence)
    /// lines: how a reviewer reads what a goal compiled to.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let dispatch = match self.dispatch {
            Dispatch::NoBackfill => "no backfilling: jobs start in queue order; the first that does not fit blocks the rest".to_string(),
            Dispatch::List => "list scheduling (no holes): each job starts when enough processors are free after those planned before it".to_string(),
            Dispatch::Easy { depth: 1 } => "EASY backfilling: the first blocked job holds a reservation; later jobs may start if they do not delay it".to_string(),
            Dispatch::Easy { depth } => format!("EASY backfilling with reservation depth {depth}: the first {depth} blocked jobs hold reservations; later jobs may start if they delay none"),
            Dispatch::Conservative => "conservative backfilling: every waiting job holds a reservation, which only ever moves earlier".to_string(),
            Dispatch::NoGuarantee => "no-guarantee backfilling: no reservations; every job that fits starts, in queue order".to_string(),
            Dispatch::Starvation { after, exclude_heavy } => format!(
                "no-guarantee backfilling with a starvation queue (FAIR's CPlant scheduler): a job that has waited {}{} enters an FCFS starvation queue served first, whose head holds the only reservation; every other job starts if it fits without delaying it",
                format_duration(after),
                if exclude_heavy { ", unless its user is heavy (decayed usage above the mean of the users with jobs in the system)," } else { "" }
            ),
            Dispatch::ConservativeDynamic => "conservative backfilling with dynamic reservations: at every event all reservations are dropped and rebuilt in queue order, each job at its earliest start; jobs planned for now start".to_string(),
        };
        let order = match self.order {
            Order::Fcfs => "FCFS: earliest submit first; ties by trace order".to_string(),
            Order::Lxf => "LXF: largest expansion factor (wait + estimate) / estimate first; ties by earlier submit, then trace order".to_string(),
            Order::Sjf => "SJF: shortest estimate first; ties by earlier submit, then trace order".to_string(),
            Order::Fairshare(decay) => format!("fairshare: least decayed usage of the job's user first ({}); usage is processor-seconds, charged while jobs run; ties by earlier submit, then trace order", decay.describe()),
        };
        vec![("dispatch", dispatch), ("order", order)]
    }
}

/// What a goal compiles to: a baseline, or a search over schedules.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum GoalPolicy {
    Baseline(PolicySpec),
    Search(search::SearchSpec),
    Admission(admission::AdmissionSpec),
    Greedy(greedy::GreedySpec),
    /// The scheduler picks each moldable job's width (the MOLD paper).
    Moldable(moldable::MoldableScheme),
}

impl GoalPolicy {
    /// The policy object the simulator runs, on a trace whose wall clock
    /// is `calendar` (the greedy criteria depend on the time of week).
    pub fn build(&self, calendar: greedy::Calendar) -> Box<dyn Policy> {
        match self {
            GoalPolicy::Baseline(spec) => spec.build(),
            GoalPolicy::Search(spec) => Box::new(search::SearchPolicy::new(spec.clone())),
            GoalPolicy::Admission(spec) => Box::new(spec.build()),
            GoalPolicy::Greedy(spec) => Box::new(spec.build(calendar)),
            GoalPolicy::Moldable(scheme) => scheme.build(),
        }
    }

    /// Whether the policy reads the wall clock.
    pub fn needs_calendar(&self) -> bool {
        matches!(self, GoalPolicy::Greedy(_))
    }

    /// The same policy with node budget `budget`, for searches.
    pub fn with_budget(&self, budget: u64) -> Self {
        match self {
            GoalPolicy::Search(spec) => GoalPolicy::Search(search::SearchSpec {
                budget,
                ..spec.clone()
            }),
            other => other.clone(),
        }
    }

    pub fn is_search(&self) -> bool {
        matches!(self, GoalPolicy::Search(_))
    }

    /// The policy in words, as (field, sentence) lines.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        match self {
            GoalPolicy::Baseline(spec) => spec.describe(),
            GoalPolicy::Search(spec) => spec.describe(),
            GoalPolicy::Admission(spec) => spec.describe(),
            GoalPolicy::Greedy(spec) => spec.describe(),
            GoalPolicy::Moldable(scheme) => scheme.describe(),
        }
    }
}

impl fmt::Display for GoalPolicy {
    /// Compact name in the paper's notation, e.g. `A-Tradeoff(T_w:avgX)
    /// dds-lxf L=4000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GoalPolicy::Baseline(spec) => write!(f, "{spec}"),
            GoalPolicy::Search(s) => write!(f, "{}", s),
            GoalPolicy::Admission(a) => write!(f, "{a}"),
            GoalPolicy::Greedy(g) => write!(f, "{g}"),
            GoalPolicy::Moldable(m) => write!(f, "{m}"),
        }
    }
}

/// Names accepted by `--policy`, with what they mean; the first column is
/// also how reports name each policy.
pub const POLICY_NAMES: &[(&str, &str)] = &[
    ("fcfs", "FCFS order, no backfilling"),
    ("lxf", "largest expansion factor first, no backfilling"),
    ("sjf", "shortest job first, no backfilling"),
    ("list", "FAIR's list scheduler (no holes), FCFS order"),
    ("easy", "EASY backfilling, FCFS order (= fcfs-backfill)"),
    (
        "easy:N",
        "EASY backfilling with N reservations (1 to 1000), FCFS order",
    ),
    (
        "fcfs-backfill",
        "EASY backfilling, FCFS order (GOAL's baseline)",
    ),
    (
        "lxf-backfill",
        "EASY backfilling, LXF order (GOAL's baseline)",
    ),
    ("sjf-backfill", "EASY backfilling, SJF order"),
    ("conservative", "conservative backfilling, FCFS order"),
    (
        "no-guarantee",
        "backfilling without reservations, FCFS order",
    ),
    (
        "<order>-<dispatch>",
        "any order (fcfs, lxf, sjf, fairshare) with any dispatch (nobackfill, list, easy, \
         easy:N, conservative, noguarantee), e.g. lxf-conservative, fairshare-easy \
         (FAIR's fairshare order, decay 24h)",
    ),
    (
        "fairshare-dynamic",
        "conservative backfilling with dynamic reservations, fairshare order (FAIR)",
    ),
    (
        "fairshare-starvation:24h:all",
        "FAIR's CPlant scheduler: a starvation queue after 24h (any duration of 1m or more), every \
         user (`:fair` leaves heavy users out)",
    ),
];

impl fmt::Display for PolicySpec {
    /// Canonical `<order>-<dispatch>` name; parses back to the same spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = self.order;
        match self.dispatch {
            Dispatch::NoBackfill => write!(f, "{order}-nobackfill"),
            Dispatch::List => write!(f, "{order}-list"),
            Dispatch::Easy { depth: 1 } => write!(f, "{order}-easy"),
            Dispatch::Easy { depth } => write!(f, "{order}-easy:{depth}"),
            Dispatch::Conservative => write!(f, "{order}-conservative"),
            Dispatch::NoGuarantee => write!(f, "{order}-noguarantee"),
            Dispatch::Starvation {
                after,
                exclude_heavy,
            } => write!(
                f,
                "{order}-starvation:{}:{}",
                hours(after),
                if exclude_heavy { "fair" } else { "all" }
            ),
            Dispatch::ConservativeDynamic => write!(f, "{order}-dynamic"),
        }
    }
}

/// A duration in whole hours when it is one (`72h`, as FAIR names its
/// policies), else in the usual units.
pub(crate) fn hours(secs: Time) -> String {
    if secs > 0 && secs % 3600 == 0 {
        format!("{}h", secs / 3600)
    } else {
        format_duration(secs)
    }
}

/// An unknown or malformed policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy `{name}`: {reason}{}", hint.as_ref().map_or(String::new(), |h| format!(" ({h})")))]
pub struct PolicyNameError {
    pub name: String,
    pub reason: String,
    /// A near name or the known ones, when the name is not one.
    pub hint: Option<String>,
}

/// A near policy name, else the names `--help` lists.
fn policy_hint(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let dispatches = [
        "nobackfill",
        "list",
        "easy",
        "conservative",
        "noguarantee",
        "dynamic",
        "starvation:24h:all",
        "starvation:24h:fair",
    ];
    let mut names: Vec<String> = POLICY_NAMES
        .iter()
        .map(|(n, _)| n.to_string())
        .filter(|n| !n.starts_with('<'))
        .collect();
    for order in Order::ALL {
        names.extend(dispatches.iter().map(|d| format!("{}-{d}", order.name())));
    }
    match crate::suggest::did_you_mean(&lower, names.iter().map(String::as_str)) {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!(
            "known: {}, or `all`; `goalc simulate --help` says what each is",
            POLICY_NAMES
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl FromStr for PolicySpec {
    type Err = PolicyNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| PolicyNameError {
            name: s.to_string(),
            reason: reason.to_string(),
            hint: None,
        };
        let unknown = |reason: &str| PolicyNameError {
            hint: Some(policy_hint(s)),
            ..err(reason)
        };
        let lower = s.trim().to_ascii_lowercase();
        let parse_order = |o: &str| Order::ALL.into_iter().find(|x| x.name() == o);
        if let Some((o, rest)) = lower.split_once('-') {
            if let Some(spec) = parse_fair_dispatch(rest) {
                let order = parse_order(o).ok_or_else(|| unknown("unknown queue order"))?;
                if let Ok(Dispatch::Starvation {
                    exclude_heavy: true,
                    ..
                }) = spec
                {
                    if !matches!(order, Order::Fairshare(_)) {
                        return Err(err(
                            "`fair` (heavy users excluded) needs the fairshare order",
                        ));
                    }
                }
                return spec
                    .map(|dispatch| PolicySpec::new(dispatch, order))
                    .map_err(|reason| err(&reason));
            }
        }
        // Bare order names mean that order without backfilling.
        if let Some(order) = parse_order(&lower) {
            return Ok(PolicySpec::new(Dispatch::NoBackfill, order));
        }
        let (order, rest) = match lower.split_once('-') {
            Some((o, rest)) if parse_order(o).is_some() => {
                (parse_order(o).unwrap_or(Order::Fcfs), rest)
            }
            _ => (Order::Fcfs, lower.as_str()),
        };
        let (word, depth) = match rest.split_once(':') {
            Some((w, d)) => {
                if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err(&format!(
                        "reservation depth `{d}` is not a whole number"
                    )));
                }
                // As in goal files; digits past any integer are out of range too.
                let depth = d
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=MAX_DEPTH).contains(n))
                    .ok_or_else(|| {
                        err(&format!(
                            "reservation depth {d} is out of range: 1 to {MAX_DEPTH}"
                        ))
                    })?;
                (w, Some(depth))
            }
            None => (rest, None),
        };
        let dispatch = match word {
            "nobackfill" | "no-backfill" if depth.is_none() => Dispatch::NoBackfill,
            "list" if depth.is_none() => Dispatch::List,
            "easy" | "backfill" => Dispatch::Easy {
                depth: depth.unwrap_or(1),
            },
            "conservative" if depth.is_none() => Dispatch::Conservative,
            "noguarantee" | "no-guarantee" if depth.is_none() => Dispatch::NoGuarantee,
            _ if depth.is_some() => return Err(err("only easy takes a reservation depth")),
            _ => return Err(unknown("not a policy name")),
        };
        Ok(PolicySpec::new(dispatch, order))
    }
}

/// The baselines `--policy all` runs.
pub fn all_baselines() -> Vec<PolicySpec> {
    use Dispatch::*;
    let mut v = vec![
        PolicySpec::new(NoBackfill, Order::Fcfs),
        PolicySpec::new(List, Order::Fcfs),
    ];
    for order in [Order::Fcfs, Order::Lxf, Order::Sjf] {
        v.push(PolicySpec::new(Easy { depth: 1 }, order));
    }
    v.push(PolicySpec::new(Easy { depth: 4 }, Order::Fcfs));
    v.push(PolicySpec::new(Conservative, Order::Fcfs));
    v.push(PolicySpec::new(Conservative, Order::Lxf));
    v.push(PolicySpec::new(NoGuarantee, Order::Fcfs));
    v
}

/// Policy names as a user lists them, `all` standing for [`all_baselines`].
pub fn parse_policy_names(names: &[String]) -> Result<Vec<PolicySpec>, PolicyNameError> {
    let mut specs = Vec::new();
    for name in names {
        if name.trim().eq_ignore_ascii_case("all") {
            specs.extend(all_baselines());
        } else {
            specs.push(name.parse::<PolicySpec>()?);
        }
    }
    Ok(specs)
}

/// FAIR's dispatch names: `dynamic` and `starvation:<T>:all|fair`; `None`
/// when `rest` is neither.
fn parse_fair_dispatch(rest: &str) -> Option<Result<Dispatch, String>> {
    if rest == "dynamic" {
        return Some(Ok(Dispatch::ConservativeDynamic));
    }
    let args = rest.strip_prefix("starvation:")?;
    let (after, who) = args.split_once(':').unwrap_or((args, "all"));
    let after = match crate::units::parse_duration(after) {
        Ok(t) if t >= MIN_FAIR_DURATION => t,
        Ok(_) => {
            return Some(Err(format!(
                "the starvation wait must be at least {}, as in goal files",
                format_duration(MIN_FAIR_DURATION)
            )))
        }
        Err(e) => return Some(Err(e.to_string())),
    };
    let exclude_heavy = match who {
        "all" => false,
        "fair" => true,
        _ => return Some(Err(format!("`{who}` is neither `all` nor `fair`"))),
    };
    Some(Ok(Dispatch::Starvation {
        after,
        exclude_heavy,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        let p = |s: &str| s.parse::<PolicySpec>().unwrap();
        assert_eq!(
            p("fcfs"),
            PolicySpec::new(Dispatch::NoBackfill, Order::Fcfs)
        );
        assert_eq!(
            p("EASY"),
            PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fcfs)
        );
        assert_eq!(
            p("easy:4"),
            PolicySpec::new(Dispatch::Easy { depth: 4 }, Order::Fcfs)
        );
        assert_eq!(
            p("lxf-backfill"),
            PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Lxf)
        );
        assert_eq!(
            p("sjf-conservative"),
            PolicySpec::new(Dispatch::Conservative, Order::Sjf)
        );
        assert_eq!(
            p("no-guarantee"),
            PolicySpec::new(Dispatch::NoGuarantee, Order::Fcfs)
        );
        assert_eq!(p("list"), PolicySpec::new(Dispatch::List, Order::Fcfs));
    }

    #[test]
    fn canonical_names_round_trip() {
        for order in Order::ALL {
            for dispatch in [
                Dispatch::NoBackfill,
                Dispatch::List,
                Dispatch::Easy { depth: 1 },
                Dispatch::Easy { depth: 3 },
                Dispatch::Conservative,
                Dispatch::NoGuarantee,
                Dispatch::ConservativeDynamic,
                Dispatch::Starvation {
                    after: 24 * 3600,
                    exclude_heavy: false,
                },
                Dispatch::Starvation {
                    after: 72 * 3600,
                    exclude_heavy: true,
                },
            ] {
                let spec = PolicySpec::new(dispatch, order);
                let fair_only = matches!(
                    dispatch,
                    Dispatch::Starvation {
                        exclude_heavy: true,
                        ..
                    }
                );
                if fair_only && !matches!(order, Order::Fairshare(_)) {
                    let e = spec.to_string().parse::<PolicySpec>().unwrap_err();
                    assert!(e.reason.contains("fairshare order"), "{e}");
                    continue;
                }
                assert_eq!(spec.to_string().parse::<PolicySpec>(), Ok(spec));
                assert_eq!(spec.build().name(), spec.to_string());
            }
        }
    }

    #[test]
    fn bad_names_say_why() {
        // Goal files' ranges: depth 1 to 1000, a starvation wait of 1m or more.
        for depth in ["0", "1001", "4294967295", "4294967296"] {
            let e = format!("easy:{depth}").parse::<PolicySpec>().unwrap_err();
            assert!(
                e.to_string()
                    .contains(&format!("depth {depth} is out of range: 1 to 1000")),
                "{e}"
            );
        }
        assert_eq!(
            "easy:1000".parse::<PolicySpec>().map(|p| p.dispatch),
            Ok(Dispatch::Easy { depth: 1000 })
        );
        let e = "fairshare-starvation:59s:all"
            .parse::<PolicySpec>()
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("the starvation wait must be at least 1m"),
            "{e}"
        );
        assert!("fairshare-starvation:1m:all".parse::<PolicySpec>().is_ok());
        let e = "easy:four".parse::<PolicySpec>().unwrap_err();
        assert!(
            e.to_string().contains("`four` is not a whole number"),
            "{e}"
        );
        let e = "conservative:2".parse::<PolicySpec>().unwrap_err();
        assert!(e.to_string().contains("only easy"), "{e}");
        let e = "fifo".parse::<PolicySpec>().unwrap_err();
        assert!(e.to_string().starts_with("unknown policy `fifo`"), "{e}");
        // Every name `--help` lists, fairshare's included, when none is near.
        for listed in [
            "no-guarantee",
            "fairshare-dynamic",
            "fairshare-starvation:24h:all",
        ] {
            assert!(e.to_string().contains(listed), "{e}");
        }
    }

    #[test]
    fn a_near_name_is_suggested_and_a_bad_depth_gets_no_guess() {
        for (typo, near) in [
            ("fairshar-easy", "fairshare-easy"),
            ("lxf-conservativ", "lxf-conservative"),
            ("xyz-starvation:24h:all", "lxf-starvation:24h:all"),
            ("conservatve", "conservative"),
        ] {
            let e = typo.parse::<PolicySpec>().unwrap_err().to_string();
            assert!(e.ends_with(&format!("(did you mean `{near}`?)")), "{e}");
        }
        let e = "easy:0".parse::<PolicySpec>().unwrap_err();
        assert_eq!(e.hint, None);
    }
}
