//! FAIR's policies on tiny traces computed by hand: fairshare order against
//! FCFS, usage charged while jobs run, jobs split by a run-time limit, the
//! starvation queue with and without heavy users, and conservative
//! backfilling with fixed and with dynamic reservations.

mod common;

use goalc::lang::check_file;
use goalc::policy::fairshare::Decay;
use goalc::policy::{Dispatch, Order, PolicySpec};
use goalc::run::run_one;
use goalc::run::Goal;
use goalc::sim::invariants::check_schedule;
use goalc::sim::{realized, simulate, Outcome, SimOptions};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{
    date_offsets, limit_runtime, scale_load_by_arrivals, window, Window,
};
use goalc::workload::{Time, Workload};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

// trace(procs, &[(submit, runtime, estimate, procs, user)]): jobs 1, 2, ...
use common::tiny_users as trace;

fn run(w: &Workload, policy: &str) -> Outcome {
    let spec: PolicySpec = policy.parse().expect("policy name");
    let o = simulate(
        w,
        spec.build().as_mut(),
        SimOptions {
            audit: true,
            ..SimOptions::default()
        },
    )
    .expect("simulation");
    check_schedule(&realized(w, &o), &o).unwrap_or_else(|e| panic!("{policy}: {e:?}"));
    o
}

fn starts(o: &Outcome) -> Vec<Time> {
    o.runs.iter().map(|r| r.map_or(-1, |r| r.start)).collect()
}

#[test]
fn fairshare_order_differs_from_fcfs() {
    // 4 processors. User 1's J1 runs [0,100) on all of them; J2 (user 1,
    // t=10) and J3 (user 2, t=20) wait. At 100 user 1 has used 400
    // processor-seconds and user 2 none, so fairshare runs J3 first; FCFS
    // runs J2 first.
    let w = trace(
        4,
        &[(0, 100, 100, 4, 1), (10, 50, 50, 4, 1), (20, 50, 50, 4, 2)],
    );
    assert_eq!(starts(&run(&w, "fcfs")), [0, 100, 150]);
    assert_eq!(starts(&run(&w, "fairshare")), [0, 150, 100]);
    assert_eq!(starts(&run(&w, "fairshare-noguarantee")), [0, 150, 100]);
    assert_eq!(starts(&run(&w, "fairshare-easy")), [0, 150, 100]);
}

#[test]
fn usage_is_charged_while_jobs_run() {
    // 4 processors. J1 (user 1, 2 procs) runs [0,1000); J2 (user 2, 1 proc)
    // runs [0,100). J3 (user 1, 2 procs, t=50) and J4 (user 2, 2 procs,
    // t=60) cannot fit until J2 ends at 100. Then user 1 has been charged
    // 2 x 100 = 200 for the still-running J1, user 2 has 1 x 100 = 100: J4
    // goes first, J3 follows at 110. Charging at completion would have seen
    // user 1 at 0 and started J3 first.
    let w = trace(
        4,
        &[
            (0, 1000, 1000, 2, 1),
            (0, 100, 100, 1, 2),
            (50, 10, 10, 2, 1),
            (60, 10, 10, 2, 2),
        ],
    );
    assert_eq!(starts(&run(&w, "fairshare")), [0, 0, 110, 100]);
    assert_eq!(starts(&run(&w, "fcfs")), [0, 0, 100, 110]);
}

#[test]
fn old_usage_is_forgotten() {
    // 2 processors. User 1 ran J1 [0,20h) on both: 144000 proc-s. User 2
    // runs J2 [72h,82h) on both: 72000 proc-s. J3 (user 1) and J4 (user
    // 2) wait for J2. At 82h, halving at 24h, 48h and 72h has left user 1
    // with 144000 / 8 = 18000 against user 2's 72000 (no boundary since
    // 72h): J3 first. The half-life rule agrees (about 18500 against
    // 62000). Without decay (factor 1) user 1's old use still counts
    // double: J4 first.
    let h = 3600;
    let w = trace(
        2,
        &[
            (0, 20 * h, 20 * h, 2, 1),
            (72 * h, 10 * h, 10 * h, 2, 2),
            (72 * h + 1, h, h, 2, 1),
            (72 * h + 2, h, h, 2, 2),
        ],
    );
    let with = |decay: Decay| {
        let spec = PolicySpec::new(Dispatch::NoBackfill, Order::Fairshare(decay));
        let o = simulate(&w, spec.build().as_mut(), SimOptions::default()).expect("sim");
        starts(&o)
    };
    assert_eq!(with(Decay::CPLANT), [0, 72 * h, 82 * h, 83 * h]);
    assert_eq!(
        with(Decay::HalfLife { half_life: 24 * h }),
        [0, 72 * h, 82 * h, 83 * h]
    );
    let never = Decay::Periodic {
        period: 24 * h,
        factor: 1.0,
    };
    assert_eq!(with(never), [0, 72 * h, 83 * h, 82 * h]);
}

#[test]
fn runtime_limit_splits_a_job_into_chunks_resubmitted_as_each_ends() {
    // 4 processors, limit 100 s. J1 (user 1, 250 s on all processors)
    // becomes chunks of 100, 100 and 50 s. J2 (user 2, 30 s) arrives at 10.
    // Chunk 1 runs [0,100). At 100 chunk 2 is submitted; user 1 has used
    // 400 proc-s, user 2 nothing, so J2 runs [100,130), chunk 2 [130,230),
    // chunk 3 (submitted at 230) [230,280). Unsplit, J2 waits until 250.
    let w = trace(4, &[(0, 250, 300, 4, 1), (10, 30, 30, 4, 2)]);
    assert_eq!(starts(&run(&w, "fairshare-noguarantee")), [0, 250]);

    let split = limit_runtime(&w, 100).expect("limit");
    let numbers: Vec<i64> = split.jobs.iter().map(|j| j.number).collect();
    assert_eq!(numbers, [1, 3, 4, 2]);
    let o = run(&split, "fairshare-noguarantee");
    assert_eq!(starts(&o), [0, 130, 230, 100]);
    assert_eq!(o.releases, [(1, 100), (2, 230)]);
    let real = realized(&split, &o);
    let submits: Vec<Time> = real.jobs.iter().map(|j| j.submit).collect();
    assert_eq!(submits, [0, 100, 230, 10]);
    let ends: Vec<Time> = o.runs.iter().map(|r| r.unwrap().end).collect();
    assert_eq!(ends, [100, 230, 280, 130]);
}

/// A wide job W (4 procs) behind a stream of 2-processor jobs, on 5
/// processors where a 1-processor job L of user 3 runs throughout.
/// Stream (user 1): A1 t=0 [0,100), A2 t=50, A3 t=100, A4 t=150, A5 t=200,
/// each 100 s; W (t=10, 50 s) of user `w_user`.
fn starving_trace(w_user: i64) -> Workload {
    trace(
        5,
        &[
            (0, 1000, 1000, 1, 3),
            (0, 100, 100, 2, 1),
            (10, 50, 50, 4, w_user),
            (50, 100, 100, 2, 1),
            (100, 100, 100, 2, 1),
            (150, 100, 100, 2, 1),
            (200, 100, 100, 2, 1),
        ],
    )
}

#[test]
fn starvation_queue_reserves_for_its_head() {
    // Without a starvation queue W never finds 4 free processors while the
    // stream lasts: every time 2 free up, a stream job takes them. It runs
    // at 300, when A4 and A5 have ended.
    let w = starving_trace(2);
    let plain = starts(&run(&w, "fairshare-noguarantee"));
    assert_eq!(plain, [0, 0, 300, 50, 100, 150, 200]);
    // With a 2-minute starvation wait, W enters the starvation queue at
    // 130 (a wake-up, no job event then). At 150 it is the head: its
    // reservation is at 200 when A3 ends, so A4 (which would hold 2
    // processors until 250) may not start. W runs [200,250); A4 and A5
    // follow at 250.
    let starving = starts(&run(&w, "fairshare-starvation:2m:all"));
    assert_eq!(starving, [0, 0, 200, 50, 100, 150 + 100, 250]);
}

#[test]
fn heavy_users_are_kept_out_of_the_starvation_queue() {
    // Now W belongs to user 1, who runs the stream. At 150 user 1 has used
    // 2x100 + 2x100 + 2x50 = 500 proc-s, user 3 (L) 150: the mean of the
    // users with jobs in the system is 325, so user 1 is heavy and W stays
    // out of the starvation queue: it runs at 300 as with none. With `all`
    // it runs at 200.
    let w = starving_trace(1);
    let all = starts(&run(&w, "fairshare-starvation:2m:all"));
    assert_eq!(all, [0, 0, 200, 50, 100, 250, 250]);
    let fair = starts(&run(&w, "fairshare-starvation:2m:fair"));
    assert_eq!(fair, [0, 0, 300, 50, 100, 150, 200]);
}

#[test]
fn dynamic_reservations_follow_fairshare_order() {
    // 4 processors. J1 (user 1) runs [0,100). J2 (user 1, t=10) and J3
    // (user 2, t=20) need the whole machine. Conservative backfilling
    // reserves J2 at 100 when it arrives and J3 at 200, and keeps those
    // reservations. Dynamic reservations are rebuilt at 100 in fairshare
    // order: user 2 has no usage, so J3 runs at 100 and J2 at 200.
    let w = trace(
        4,
        &[
            (0, 100, 100, 4, 1),
            (10, 100, 100, 4, 1),
            (20, 100, 100, 4, 2),
        ],
    );
    assert_eq!(starts(&run(&w, "fairshare-conservative")), [0, 100, 200]);
    assert_eq!(starts(&run(&w, "fairshare-dynamic")), [0, 200, 100]);
}

/// FAIR's nine policies, then EASY and conservative backfilling for
/// comparison.
fn fair_goals() -> Vec<Goal> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("goals");
    [
        "cplant24.nomax.all",
        "cplant72.nomax.all",
        "cplant24.nomax.fair",
        "cplant24.72max.all",
        "cplant72.72max.fair",
        "cons.nomax",
        "cons.72max",
        "consdyn.nomax",
        "consdyn.72max",
        "easy",
        "conservative",
    ]
    .iter()
    .map(|name| {
        let checked = check_file(&dir.join(format!("{name}.goal"))).expect("goal file");
        checked.goal.expect("goal compiles")
    })
    .collect()
}

/// One line per goal: FAIR's measures (fair start misses, turnaround, loss
/// of capacity), every run measured against the goal's decay or the
/// default one.
fn fairness_lines(w: &Workload, goals: &[Goal]) -> String {
    goals
        .par_iter()
        .map(|g| {
            let decay = g.fairshare.unwrap_or(Decay::CPLANT);
            let r = run_one(g, w, None, Some(decay)).expect("run");
            let f = r.fairness.expect("fairness measured");
            format!(
                "{:<20} jobs {:>6}  missed FST {:>6.2}%  miss avg {:>8.3} h  turnaround avg {:>8.3} h  loc {:.4}\n",
                g.name,
                f.jobs,
                f.pct_late,
                f.avg_miss / 3600.0,
                f.avg_turnaround / 3600.0,
                r.measures.loss_of_capacity
            )
        })
        .collect::<Vec<_>>()
        .concat()
}

/// Every FAIR policy on two weeks of every reference trace at load 0.9
/// with the users' estimates, pinned.
#[test]
fn fair_policies_on_reference_traces() {
    let traces = common::reference_traces();
    if traces.is_empty() {
        eprintln!("GOALC_TRACES is not set: FAIR policies are not run on the reference traces");
        return;
    }
    let goals = fair_goals();
    let pinned: BTreeMap<String, String> = traces
        .par_iter()
        .map(|path| {
            let w = read_path(path, &ReadOptions::default()).unwrap();
            let win = Window {
                start: 60 * 86_400,
                end: 74 * 86_400,
                warmup: 3 * 86_400,
                cooldown: 3 * 86_400,
            };
            let w = scale_load_by_arrivals(&window(&w, win).unwrap(), 0.9).unwrap();
            let header = format!(
                "{}: {} jobs ({} measured), days 60-74 at load 0.9, user estimates\n",
                w.name,
                w.jobs.len(),
                w.measured_count()
            );
            (
                common::file_name(path),
                header + &fairness_lines(&w, &goals),
            )
        })
        .collect();
    common::pin_per_trace("fair-on", &pinned, false);
}

/// The FAIR paper's own period of the Sandia Ross trace (2002-12-01 to
/// 2003-07-14), as it was: the closing table of the FAIR issue, pinned.
#[test]
fn fair_policies_on_the_papers_ross_period() {
    let Some(path) = common::reference_traces()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("Sandia-Ross"))
    else {
        eprintln!("GOALC_TRACES is not set or has no Sandia Ross trace: skipped");
        return;
    };
    let w = read_path(&path, &ReadOptions::default()).unwrap();
    let day = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
    let (start, end) = date_offsets(&w, day(2002, 12, 1), day(2003, 7, 15)).unwrap();
    let w = window(
        &w,
        Window {
            start,
            end,
            warmup: 0,
            cooldown: 0,
        },
    )
    .unwrap();
    let text = format!(
        "{}: {} jobs, 2002-12-01 to 2003-07-14, offered load {:.3}\n{}",
        w.name,
        w.jobs.len(),
        w.offered_load(),
        fairness_lines(&w, &fair_goals())
    );
    insta::with_settings!({snapshot_path => "../snapshots/traces", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("fair-on-Sandia-Ross-2002-12-to-2003-07", text);
    });
}
