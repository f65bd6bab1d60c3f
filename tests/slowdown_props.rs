//! A bounded slowdown is at least 1, wherever it is reported: per job, in
//! every mean and maximum over jobs, per job class, for the jobs without a
//! deadline under admission control, and in every report cell; a mean over
//! no jobs is no value, never 0.

mod common;
use common::tiny;
use goalc::lang::check_text;
use goalc::measures::bounded_slowdown;
use goalc::policy::fairshare::Decay;
use goalc::report::{render, Format, RunReport};
use goalc::run::{run_one, Goal, Reference};
use goalc::sim::{EventMode, Run};
use goalc::workload::transform::exact_estimates;
use goalc::workload::{Time, Workload};
use proptest::prelude::*;

fn goal(text: &str) -> Goal {
    let c = check_text("prop.goal", text);
    let shown = c.render(false);
    c.goal.unwrap_or_else(|| panic!("{text}: {shown}"))
}

/// Goals of every kind that runs every job or rejects some: baselines,
/// fairshare with a starvation queue, a runtime limit (chunks), admission
/// with every job or some jobs carrying deadlines, and a search.
fn goals() -> Vec<Goal> {
    [
        "dispatch fcfs",
        "backfill easy",
        "backfill conservative",
        "fairshare decay 24h\nstarvation after 1h",
        "limit runtime 2m",
        "deadline stringency 0.5\nadmission qops",
        "deadline stringency 0.2 share 50%\nadmission msb",
        "tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%\nsearch dds branch lxf budget 50",
    ]
    .iter()
    .map(|t| goal(t))
    .collect()
}

/// Jobs as (submit, runtime, estimate, procs): run times both below and
/// above tau (60 s), estimates shorter than the run (the job is killed)
/// and longer.
fn workload() -> impl Strategy<Value = Workload> {
    (1u32..=16).prop_flat_map(|procs| {
        prop::collection::vec((0i64..3000, 1i64..400, 1i64..800, 1u32..=procs), 1..25)
            .prop_map(move |jobs| tiny(procs, &jobs))
    })
}

fn check_report(r: &RunReport) -> Result<(), TestCaseError> {
    let m = &r.measures;
    if m.jobs > 0 {
        prop_assert!(m.avg_slowdown >= 1.0, "{}: avg {}", r.label, m.avg_slowdown);
        prop_assert!(m.max_slowdown >= 1.0, "{}: max {}", r.label, m.max_slowdown);
    }
    for cell in m.classes.cells.iter().flatten().filter(|c| c.jobs > 0) {
        prop_assert!(
            cell.avg_slowdown >= 1.0,
            "{}: class {}",
            r.label,
            cell.avg_slowdown
        );
    }
    if let Some(a) = r.admission {
        if let Some(s) = a.non_deadline_avg_slowdown {
            prop_assert!(s >= 1.0, "{}: nd {s}", r.label);
        }
        prop_assert_eq!(
            a.non_deadline_avg_slowdown.is_none(),
            a.non_deadline_avg_response.is_none()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bounded_slowdown_is_at_least_one(
        submit in -1000i64..1000,
        wait in 0i64..10_000,
        run in 0i64..10_000,
        tau in 0i64..1000,
    ) {
        let start: Time = submit + wait;
        let r = Run { start, end: start + run };
        prop_assert!(bounded_slowdown(submit, r, tau) >= 1.0);
    }

    #[test]
    fn every_reported_slowdown_is_at_least_one(w in workload(), exact in any::<bool>()) {
        let w = if exact { exact_estimates(&w) } else { w };
        let reference = Reference::of(&w, EventMode::PerInstant).unwrap();
        let mut reports = Vec::new();
        for g in goals() {
            let r = run_one(&g, &w, Some(&reference), Some(Decay::CPLANT)).unwrap();
            check_report(&r)?;
            reports.push(r);
        }
        // Every slowdown cell of the tables: a number at least 1, or `-`.
        let csv = render(&reports, Format::Csv);
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        for line in csv.lines().skip(1) {
            for (h, v) in header.iter().zip(line.split(',')) {
                if h.contains("slowdown") {
                    prop_assert!(v == "-" || v.parse::<f64>().unwrap() >= 1.0, "{h} = {v}\n{csv}");
                }
            }
        }
    }
}
