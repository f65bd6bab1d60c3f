//! Every workload of a checked suite, made with the run's own plan before
//! anything runs: an axis value only a trace can refuse (a month it does
//! not have, a load it cannot reach, a load factor that makes too many
//! jobs) is then an error at its place in the suite file, in the suite's
//! words, rather than a run stopping on a message about a flag never given.
//! So is a value that names, on a trace, the month or window an earlier
//! value names (month `1` and its `YYYY-MM`): twin cells.

use super::execute::{source, workload_plan};
use super::spec::{Place, Suite, TraceSource};
use crate::lang::diag::{Diagnostic, Span};
use crate::run::RunError;
use crate::units::format_duration;
use crate::workload::transform::TransformError;
use crate::workload::{Time, Workload, MAX_TIME};
use rayon::prelude::*;
use std::collections::BTreeSet;

/// Where the suite file gives each trace and each value of the axes that
/// shape workloads, index for index with the suite's traces and values.
pub(super) struct Written<'t> {
    /// The suite file's text, for values as written.
    pub text: &'t str,
    pub traces: Vec<Span>,
    /// `None`: the whole trace, which has no place of its own.
    pub places: Vec<Option<Span>>,
    pub loads: Vec<Option<Span>>,
    pub load_factors: Vec<Option<Span>>,
}

/// A value no workload can be made of, or that makes one another value
/// makes.
struct Failure {
    at: Span,
    /// The axis key, or "trace" when the trace itself failed.
    key: &'static str,
    trace: usize,
    /// The workload's source: the trace, or the model with its seed.
    source: String,
    why: Why,
}

enum Why {
    Run(RunError),
    /// The place names the window (or month) an earlier one names, in
    /// another spelling: twin cells, which reports cannot tell apart.
    Twin {
        first: Span,
        /// The month both name, `None` for a window.
        month: Option<String>,
        start: Time,
        end: Time,
    },
}

/// Makes every workload of `suite`, each once; an error for each value
/// (and trace) none can be made of, at its first failure.
pub(super) fn check(suite: &Suite, written: &Written) -> Vec<Diagnostic> {
    let sources: Vec<(usize, Option<u64>)> = suite
        .traces
        .iter()
        .enumerate()
        .flat_map(|(t, trace)| match trace.source {
            TraceSource::Model { .. } => suite.axes.seeds.iter().map(|&s| (t, Some(s))).collect(),
            TraceSource::File { .. } => vec![(t, None)],
        })
        .collect();
    let failures: Vec<Failure> = sources
        .par_iter()
        .flat_map_iter(|&(t, seed)| of_source(suite, written, t, seed))
        .collect();
    // One error per value and trace: the others (other seeds, months,
    // estimates) say the same again.
    let mut said = BTreeSet::new();
    failures
        .into_iter()
        .filter(|f| said.insert((f.at, f.trace)))
        .map(|f| diagnostic(&f, written.text))
        .collect()
}

/// The failures of the workloads of one trace, or of the model for one seed.
fn of_source(suite: &Suite, written: &Written, trace: usize, seed: Option<u64>) -> Vec<Failure> {
    let fail = |at, key, source: &str, error| Failure {
        at,
        key,
        trace,
        source: source.to_string(),
        why: Why::Run(error),
    };
    let whole = match source(suite, trace, seed) {
        Ok(w) => w,
        Err(e) => {
            let name = suite.traces[trace].name.clone();
            let error = match e {
                super::SuiteError::Run(e) => e,
                e => RunError::Invalid(e.to_string()),
            };
            return vec![fail(written.traces[trace], "trace", &name, error)];
        }
    };
    let twins = twins(suite, written, trace, seed, &whole);
    let a = &suite.axes;
    let combos: Vec<(bool, usize)> = a
        .exact_estimates
        .iter()
        .flat_map(|&e| (0..a.places.len()).map(move |p| (e, p)))
        .collect();
    combos
        .par_iter()
        .flat_map_iter(|&(exact, p)| {
            let made = |load, factor| {
                workload_plan(suite, trace, seed, exact, &a.places[p], load, factor)
                    .from_source(whole.clone())
                    .err()
            };
            let mut out = Vec::new();
            // The place alone, then with each load, then with each load
            // factor: the value added last is the one the trace refuses.
            if let Some(e) = made(None, None) {
                let (at, key) = match (written.places[p], &a.places[p]) {
                    (Some(at), Place::Month(_)) => (at, "months"),
                    (Some(at), _) => (at, "windows"),
                    (None, _) => (written.traces[trace], "trace"),
                };
                out.push(fail(at, key, &whole.name, e));
                return out;
            }
            for (&load, &load_at) in a.loads.iter().zip(&written.loads) {
                if let (Some(at), Some(e)) = (load_at, load.and_then(|l| made(Some(l), None))) {
                    out.push(fail(at, "loads", &whole.name, e));
                    continue;
                }
                for (&factor, &factor_at) in a.load_factors.iter().zip(&written.load_factors) {
                    let error = factor.and_then(|f| made(load, Some(f)));
                    if let (Some(at), Some(e)) = (factor_at, error) {
                        out.push(fail(at, "load_factors", &whole.name, e));
                    }
                }
            }
            out
        })
        .chain(twins)
        .collect()
}

/// The places that measure, on the source, the window an earlier place
/// measures: a month as a number and as `YYYY-MM`, or a window as dates
/// and as offsets. Which do depends on the trace (its first month, its
/// first submit), so this is asked of each; a place that cannot be
/// resolved is left to the workloads' own errors.
fn twins(
    suite: &Suite,
    written: &Written,
    trace: usize,
    seed: Option<u64>,
    whole: &Workload,
) -> Vec<Failure> {
    let places = &suite.axes.places;
    if places.len() < 2 {
        // Nothing to be the twin of: no copy of the trace to resolve on.
        return Vec::new();
    }
    let plan = |place| workload_plan(suite, trace, seed, false, place, None, None);
    let Ok(base) = plan(&Place::Whole).unwindowed(whole.clone()) else {
        return Vec::new();
    };
    let measured: Vec<_> = places
        .iter()
        .map(|p| plan(p).measured(&base).ok()?.into_iter().next())
        .collect();
    let mut out = Vec::new();
    for (i, m) in measured.iter().enumerate() {
        let Some((month, start, end)) = m else {
            continue;
        };
        let first = measured[..i]
            .iter()
            .position(|f| f.as_ref().is_some_and(|f| (f.1, f.2) == (*start, *end)));
        let (Some(first), Some(at)) = (first, written.places[i]) else {
            continue;
        };
        let Some(first) = written.places[first] else {
            continue;
        };
        out.push(Failure {
            at,
            key: match places[i] {
                Place::Month(_) => "months",
                _ => "windows",
            },
            trace,
            source: whole.name.clone(),
            why: Why::Twin {
                first,
                month: month.clone(),
                start: *start,
                end: *end,
            },
        });
    }
    out
}

fn diagnostic(f: &Failure, text: &str) -> Diagnostic {
    let written = |at: Span| text.get(at.start..at.end).unwrap_or("").trim();
    let value = written(f.at);
    let error = match &f.why {
        Why::Run(error) => error,
        Why::Twin {
            first,
            month,
            start,
            end,
        } => {
            let (what, which) = match month {
                Some(m) => ("month", format!("month {m}")),
                None => (
                    "window",
                    format!(
                        "{} to {} after its first submit",
                        format_duration(*start),
                        format_duration(*end)
                    ),
                ),
            };
            return Diagnostic::error(
                f.at,
                format!(
                    "`{value}` names the same {what} of {} as `{}`: {which}",
                    f.source,
                    written(*first)
                ),
            )
            .with_label(format!("the same {what} again"))
            .with_related(*first, "first here")
            .with_help(format!(
                "give each {what} once: two spellings of one {what} make twin cells"
            ));
        }
    };
    let (message, label, help) = words(error, f.key, value, &f.source);
    let d = Diagnostic::error(f.at, message).with_label(label);
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

/// The run's reason in the suite's words: the axis key where the run
/// names a command-line flag, and a number as written where Rust would
/// print hundreds of digits. Returns the message, label and help.
fn words(e: &RunError, key: &str, value: &str, source: &str) -> (String, String, Option<String>) {
    let on = match key {
        "trace" => "this trace".to_string(),
        _ => format!("on `{source}`"),
    };
    match e {
        RunError::NoSuchMonth {
            workload,
            count,
            first,
            last,
            ..
        } => (
            format!("`{value}` is not a month of {workload}"),
            format!("not a month of {workload}"),
            Some(format!(
                "{workload} has {count} month(s), {first} to {last}; months are 1-based \
                 numbers (1 is its first calendar month) or \"YYYY-MM\""
            )),
        ),
        RunError::Transform(TransformError::TooManyJobs { name, limit, .. }) => (
            format!(
                "`{key}` value {value} would make workload `{name}` more jobs than the {limit} \
                 goalc builds at once"
            ),
            "too large".into(),
            None,
        ),
        RunError::Transform(TransformError::TooLong { name, .. }) => (
            format!(
                "`{key}` value {value} would take times of workload `{name}` beyond {MAX_TIME}s, \
                 the largest time goalc accepts"
            ),
            on,
            None,
        ),
        RunError::Transform(TransformError::BadFactor(_)) => (
            format!("`{key}` values must be at least 1, got {value}"),
            "less than 1".into(),
            Some("a load factor adds load: 1 is the trace as it is".into()),
        ),
        RunError::Transform(TransformError::LoadNotReached {
            name,
            target,
            reached,
            how,
            why,
            hint,
        }) => {
            // Its hint names `--load-by`; the suite's key is `load_by`.
            let plain = TransformError::LoadNotReached {
                name: name.clone(),
                target: *target,
                reached: *reached,
                how,
                why: why.clone(),
                hint: "",
            };
            let other = match *how {
                "arrivals" => "`load_by = \"runtimes\"` in [workload] stretches run times instead",
                _ => "`load_by = \"arrivals\"` in [workload] moves submit times instead",
            };
            (
                plain.to_string(),
                on,
                (!hint.is_empty()).then(|| other.into()),
            )
        }
        e => (e.to_string(), on, None),
    }
}
