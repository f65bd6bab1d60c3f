//! Every goal in `goals/` checks cleanly; its compiled form and its outcome
//! on a small generated trace are pinned as snapshots, so a pull request that
//! changes what a goal means or what it achieves shows it as a diff:
//! `snapshots/goals/{compiled,outcome}@<file>.goal.snap` for each goal file,
//! `snapshots/traces/goals-on@<trace file>.snap` for each reference trace.

mod common;
use goalc::lang::check_file;
use goalc::measures::{measure, MeasureOptions};
use goalc::run::Goal;
use goalc::run::{run_goal, run_one};
use goalc::sim::invariants::check_schedule;
use goalc::sim::{realized, simulate, EventMode, Outcome, SimOptions};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{
    exact_estimates, limit_runtime, make_moldable, scale_load_by_arrivals, window, Window,
};
use goalc::workload::Workload;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn every_goal_compiles_and_is_pinned() {
    let files = common::goal_files();
    assert!(files.len() >= 7, "goals/ should hold every baseline");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/lublin-2000-128-s1.swf");
    let w = read_path(&trace, &ReadOptions::default()).unwrap();
    // One glob over goals/, so one run reports every snapshot that moved.
    insta::with_settings!({snapshot_path => "../snapshots/goals", prepend_module_to_snapshot => false}, {
    insta::glob!("../goals", "*.goal", |path| {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        // Named relative to the repository, so snapshots do not depend on
        // where the checkout lives.
        let name = format!("goals/{}", path.file_name().unwrap().to_string_lossy());
        let checked = goalc::lang::check_bytes(&name, &std::fs::read(path).unwrap());
        assert!(!checked.has_errors(), "{}", checked.render(false));
        let goal = checked.goal.clone().expect("compiled goal");
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            text.starts_with('#'),
            "{stem}: say in a comment what the goal is and which paper uses it"
        );
        // Moldable goals keep their schedule, to show the widths picked.
        let (r, molded) = if goal.speedup.is_some() {
            assert!(goal.fairshare.is_none(), "{stem}: fairness is not measured here");
            let (r, o) = run_goal(&goal, &w, EventMode::PerInstant).unwrap();
            (r, Some(o))
        } else {
            (run_one(&goal, &w, None, goal.fairshare).unwrap(), None)
        };
        let m = &r.measures;
        let mut outcome = format!(
            "trace {} ({} processors, {} jobs), policy {}\n\
             jobs {} epochs {}\n\
             wait avg {:.3} p98 {} max {}\n\
             bsld(tau {}) avg {:.4} max {:.3}\n\
             response avg {:.3} awrt {:.3}\n\
             utilization {:.6} loss_of_capacity {:.6}\n",
            r.trace,
            r.procs,
            r.simulated_jobs,
            r.policy,
            m.jobs,
            r.epochs,
            m.avg_wait,
            m.p98_wait,
            m.max_wait,
            m.tau,
            m.avg_slowdown,
            m.max_slowdown,
            m.avg_response,
            m.awrt,
            m.utilization,
            m.loss_of_capacity
        );
        if let (Some(effective), Some(o)) = (r.effective_load, &molded) {
            outcome += &format!(
                "effective load {effective:.3} (offered {:.3})\n{}",
                r.offered_load,
                widths(&w, o)
            );
        }
        if let Some(f) = &r.fairness {
            outcome += &format!(
                "fair start missed {} of {} ({:.3}%), miss avg {:.3} s, turnaround avg {:.3} s\n",
                f.late, f.jobs, f.pct_late, f.avg_miss, f.avg_turnaround
            );
        }
        // Warnings (the paper's harmful combinations) are part of the form.
        let compiled = format!("{}{}", goal.describe(), checked.render(false));
        insta::assert_snapshot!("compiled", compiled);
        insta::assert_snapshot!("outcome", outcome);
    });
    });
}

/// The widths a moldable run picked against the widths the trace records.
fn widths(w: &Workload, o: &Outcome) -> String {
    let n = o.widths.len().max(1) as f64;
    let (mut narrower, mut same, mut wider) = (0, 0, 0);
    let (mut picked, mut recorded) = (0.0, 0.0);
    for &(job, width) in &o.widths {
        let was = w.jobs[job as usize].procs;
        picked += f64::from(width);
        recorded += f64::from(was);
        match width.cmp(&was) {
            std::cmp::Ordering::Less => narrower += 1,
            std::cmp::Ordering::Equal => same += 1,
            std::cmp::Ordering::Greater => wider += 1,
        }
    }
    format!(
        "widths picked for {} jobs: avg {:.2} (recorded {:.2}); narrower {narrower}, same {same}, wider {wider}\n",
        o.widths.len(),
        picked / n,
        recorded / n
    )
}

fn compiled_goals() -> Vec<Goal> {
    common::goal_files()
        .iter()
        .map(|p| check_file(p).unwrap().goal.expect("compiled goal"))
        .collect()
}

/// Every goal on a short window of every reference trace (three days after
/// a two-day warm-up, one day of cool-down, load 0.9, exact run times as
/// GOAL assumes): the core's invariants hold under every policy, search
/// included, and the outcomes are pinned per trace.
#[test]
fn every_goal_on_reference_trace_windows() {
    let traces = common::reference_traces();
    if traces.is_empty() {
        eprintln!("GOALC_TRACES is not set: goals are not run on the reference traces");
        return;
    }
    let goals = compiled_goals();
    let pinned: BTreeMap<String, String> = traces
        .par_iter()
        .map(|path| {
            let w = read_path(path, &ReadOptions::default()).unwrap();
            let win = Window {
                start: 30 * 86_400,
                end: 33 * 86_400,
                warmup: 2 * 86_400,
                cooldown: 86_400,
            };
            let w =
                scale_load_by_arrivals(&window(&exact_estimates(&w), win).unwrap(), 0.9).unwrap();
            let lines: Vec<String> = goals
                .par_iter()
                .map(|g| {
                    // Speedup models make jobs moldable and run-time limits
                    // split them (never both); deadlines are left out here so
                    // every job runs (admission is tested on its own).
                    let mut gw = match (&g.speedup, g.runtime_limit) {
                        (Some(spec), _) => make_moldable(&w, spec).unwrap(),
                        (None, Some(limit)) => limit_runtime(&w, limit).unwrap(),
                        (None, None) => w.clone(),
                    };
                    // User groups are the workload's, as the run layer makes them.
                    if let Some(bands) = &g.groups {
                        gw = goalc::workload::groups::assign(&gw, bands);
                    }
                    let o = simulate(&gw, g.build(&gw).unwrap().as_mut(), SimOptions::default())
                        .unwrap();
                    let gw = realized(&gw, &o);
                    check_schedule(&gw, &o)
                        .unwrap_or_else(|e| panic!("{} {}: {e:?}", w.name, g.name));
                    assert!(
                        o.runs.iter().all(Option::is_some),
                        "{} {}: a job never ran",
                        w.name,
                        g.name
                    );
                    let m = measure(&gw, &o, MeasureOptions { tau: g.tau });
                    format!(
                        "{:<36} wait avg {:>10.1} max {:>8}  bsld avg {:>8.3} max {:>9.2}\n",
                        g.name, m.avg_wait, m.max_wait, m.avg_slowdown, m.max_slowdown
                    )
                })
                .collect();
            let header = format!(
                "{}: {} jobs ({} measured), days 30-33 at load 0.9\n",
                w.name,
                w.jobs.len(),
                w.measured_count()
            );
            (common::file_name(path), header + &lines.concat())
        })
        .collect();
    common::pin_per_trace("goals-on", &pinned, false);
}
