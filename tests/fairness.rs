//! FAIR's hybrid fair start time (section IV): a scenario computed by hand,
//! a brute-force reference on simulated runs, and provable properties.

mod common;
use common::tiny;
use goalc::measures::fairness::{fair_start_times, fairness, Fairness};
use goalc::policy::fairshare::Decay;
use goalc::policy::PolicySpec;
use goalc::sim::{realized, simulate, Outcome, Run, SimOptions};
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::transform::{limit_runtime, window, Window};
use goalc::workload::{Time, Workload};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

fn outcome(runs: Vec<Option<Run>>) -> Outcome {
    Outcome {
        policy: "by hand".into(),
        runs,
        releases: vec![],
        widths: vec![],
        epochs: 0,
        audit: None,
    }
}

fn r(start: Time, end: Time) -> Option<Run> {
    Some(Run { start, end })
}

const A: i64 = 1;
const B: i64 = 2;

/// The hand-computed scenario: a 4-processor machine, users A and B; all
/// times are within the first day, so the default decay (halve every 24 h)
/// never applies.
///
/// | idx | user | submit | procs | run         |
/// |-----|------|--------|-------|-------------|
/// | 0   | A    | 0      | 4     | [0, 100)    |
/// | 1   | B    | 100    | 2     | [100, 300)  |
/// | 2   | A    | 110    | 4     | [630, 730)  |
/// | 3   | B    | 115    | 4     | rejected    |
/// | 4   | B    | 120    | 1     | [120, 220)  |
/// | 5   | A    | 130    | 1     | [130, 630)  |  backfilled
/// | 6   | B    | 630    | 1     | [730, 740)  |
/// | 7   | A    | 630    | 1     | [730, 740)  |
///
/// FSTs (usage U_A, U_B at the arrival; `free` lists processors as
/// count@time):
///
/// * 0 at 0: empty machine, FST 0.
/// * 1 at 100: job 0 ends at 100, so it is not running; FST 100.
/// * 2 at 110: job 1 runs until 300; free 2@110, 2@300; 4 processors at
///   300: FST 300. It starts at 630: late by 330 (job 5, backfilled at
///   130, holds a processor until 630).
/// * 3 was rejected and takes no part (were it queued, it would go ahead
///   of job 4, whose FST would be 300).
/// * 4 at 120: U_A = 400 (job 0: 4 x 100), U_B = 2 x 20 = 40. Queue {2, 4};
///   fairshare puts 4 (B) before 2 (A), so nothing is ahead of it: FST 120
///   (FCFS order would put job 2 first and give 400).
/// * 5 at 130: running 1 (till 300), 4 (till 220); free 1@130, 1@220,
///   2@300. U_A = 400, U_B = 2 x 30 + 1 x 10 = 70. Queue {2, 5}, both A:
///   job 2 (submitted earlier) is ahead, starts at 300 on all 4 and frees
///   them at 400; job 5: FST 400. It started at 130: not late.
/// * 6 at 630: job 5 ends at 630 (not running), job 2 starts at 630 (still
///   queued). Queue {2, 6} (job 7, also at 630, comes after 6). U_A =
///   400 + 500 (job 5) = 900, U_B = 400 (job 1) + 100 (job 4) = 500: job 6
///   goes first on the empty machine: FST 630. It starts at 730: late by
///   100.
/// * 7 at 630: queue {2, 6, 7}, order 6, 2, 7: job 6 takes 1@630 and
///   frees it at 640; job 2 needs 4: 640, ends 740; job 7: FST 740. It
///   starts at 730: not late.
///
/// Late: jobs 2 and 6, misses 330 + 100 = 430 over 7 jobs. Turnarounds:
/// 100, 200, 620, 100, 500, 110, 110 (sum 1740).
fn scenario() -> (Workload, Outcome) {
    let mut w = tiny(
        4,
        &[
            (0, 100, 100, 4),
            (100, 200, 200, 2),
            (110, 100, 100, 4),
            (115, 100, 100, 4),
            (120, 100, 100, 1),
            (130, 500, 500, 1),
            (630, 10, 10, 1),
            (630, 10, 10, 1),
        ],
    );
    for (job, user) in w.jobs.iter_mut().zip([A, B, A, B, B, A, B, A]) {
        job.user = user;
    }
    let o = outcome(vec![
        r(0, 100),
        r(100, 300),
        r(630, 730),
        None,
        r(120, 220),
        r(130, 630),
        r(730, 740),
        r(730, 740),
    ]);
    (w, o)
}

#[test]
fn fair_start_times_of_the_hand_scenario() {
    let (w, o) = scenario();
    let fst = fair_start_times(&w, &o, Decay::default());
    assert_eq!(
        fst,
        vec![
            Some(0),
            Some(100),
            Some(300),
            None,
            Some(120),
            Some(400),
            Some(630),
            Some(740)
        ]
    );
    let f = fairness(&w, &o, Decay::default());
    assert_eq!((f.jobs, f.late), (7, 2));
    assert!(close(f.pct_late, 200.0 / 7.0), "{}", f.pct_late);
    assert!(close(f.avg_miss, 430.0 / 7.0), "{}", f.avg_miss);
    assert!(
        close(f.avg_turnaround, 1740.0 / 7.0),
        "{}",
        f.avg_turnaround
    );
    let rows: Vec<(&str, usize, usize)> = f
        .by_width
        .iter()
        .map(|c| (c.width.as_str(), c.jobs, c.late))
        .collect();
    assert_eq!(rows, vec![("1", 4, 1), ("2", 1, 0), ("3-4", 2, 1)]);
    // Width 1: jobs 4, 5, 6, 7; job 6 late by 100; turnarounds 100, 500,
    // 110, 110.
    let one = &f.by_width[0];
    assert!(close(one.pct_late, 25.0) && close(one.avg_miss, 25.0));
    assert!(close(one.avg_turnaround, 205.0));
    let two = &f.by_width[1];
    assert!(close(two.pct_late, 0.0) && close(two.avg_miss, 0.0));
    assert!(close(two.avg_turnaround, 200.0));
    // 3-4: jobs 0 and 2, job 2 late by 330.
    let wide = &f.by_width[2];
    assert!(close(wide.pct_late, 50.0) && close(wide.avg_miss, 165.0));
    assert!(close(wide.avg_turnaround, 360.0));
}

#[test]
fn warm_up_jobs_shape_the_state_but_are_not_measured() {
    let (mut w, o) = scenario();
    // Job 0 as warm-up: its usage still ranks user A behind B.
    w.jobs[0].measured = false;
    assert_eq!(
        fair_start_times(&w, &o, Decay::default())[4],
        Some(120),
        "job 0's usage must still count"
    );
    let f = fairness(&w, &o, Decay::default());
    assert_eq!((f.jobs, f.late), (6, 2));
    assert!(close(f.avg_miss, 430.0 / 6.0));
    assert!(close(f.avg_turnaround, 1640.0 / 6.0));
    assert_eq!((f.by_width[2].jobs, f.by_width[2].late), (1, 1));
    assert!(close(f.by_width[2].avg_miss, 330.0));
}

#[test]
fn usage_decays_between_arrivals() {
    // One processor. A used it for 1000 s on day 0; on day 1 (after the
    // halving at 24 h) A has 500, B has 800 from a job still running.
    // B's job 2 and A's job 3 queue behind B's running job 1; at job 3's
    // arrival A (500) goes before B (800 + 10 more): FST of 3 = end of job 1.
    const DAY: Time = 24 * 3600;
    let mut w = tiny(
        1,
        &[
            (0, 1000, 1000, 1),
            (DAY, 1000, 1000, 1),
            (DAY + 800, 10, 10, 1),
            (DAY + 810, 10, 10, 1),
        ],
    );
    for (job, user) in w.jobs.iter_mut().zip([A, B, B, A]) {
        job.user = user;
    }
    let o = outcome(vec![
        r(0, 1000),
        r(DAY, DAY + 1000),
        r(DAY + 1000, DAY + 1010),
        r(DAY + 1010, DAY + 1020),
    ]);
    let fst = fair_start_times(&w, &o, Decay::default());
    assert_eq!(fst[2], Some(DAY + 1000));
    assert_eq!(fst[3], Some(DAY + 1000), "A ranks before B after the decay");
    let f = fairness(&w, &o, Decay::default());
    assert_eq!(f.late, 1);
    assert!(close(f.avg_miss, 10.0 / 4.0));
    // Without decay A's 1000 ranks behind B's 810: job 3 follows job 2.
    let none = Decay::Periodic {
        period: 1000 * DAY,
        factor: 0.5,
    };
    assert_eq!(fair_start_times(&w, &o, none)[3], Some(DAY + 1010));
    assert_eq!(fairness(&w, &o, none).late, 0);
}

/// FAIR's FST by the definition, with nothing incremental: for each job,
/// rebuild the state at its arrival from all runs, compute every user's
/// usage run by run, sort the whole queue, and list-schedule it processor
/// by processor.
fn reference_fst(w: &Workload, o: &Outcome, decay: Decay) -> Vec<Option<Time>> {
    let ran: Vec<usize> = (0..w.jobs.len()).filter(|&i| o.runs[i].is_some()).collect();
    let run = |i: usize| o.runs[i].unwrap();
    let usage = |user: i64, a: Time| -> f64 {
        ran.iter()
            .filter(|&&k| w.jobs[k].user == user && run(k).start < a)
            .map(|&k| {
                let until = run(k).end.min(a);
                let v = decay.advance(0.0, w.jobs[k].procs as f64, run(k).start, until);
                decay.advance(v, 0.0, until, a)
            })
            .sum()
    };
    let mut out = vec![None; w.jobs.len()];
    for &j in &ran {
        let a = w.jobs[j].submit;
        let mut free: Vec<Time> = Vec::new();
        for &k in &ran {
            if run(k).start < a && a < run(k).end {
                free.extend(std::iter::repeat_n(run(k).end, w.jobs[k].procs as usize));
            }
        }
        free.resize(w.procs as usize, a);
        let mut queue: Vec<(f64, Time, usize)> = ran
            .iter()
            .copied()
            .filter(|&k| {
                let s = w.jobs[k].submit;
                (s < a || (s == a && k <= j)) && run(k).start >= a
            })
            .map(|k| (usage(w.jobs[k].user, a), w.jobs[k].submit, k))
            .collect();
        queue.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        for &(_, _, k) in &queue {
            let p = w.jobs[k].procs as usize;
            free.sort_unstable();
            let start = free[p - 1];
            if k == j {
                out[j] = Some(start);
                break;
            }
            // Of the processors free by the start, the p freed latest.
            let last = free.partition_point(|&t| t <= start);
            for slot in &mut free[last - p..last] {
                *slot = start + (run(k).end - run(k).start);
            }
        }
    }
    out
}

/// A model workload on 32 processors with users 1..=5 and a warm-up.
fn model_workload(jobs: usize, seed: u64) -> Workload {
    let mut w = generate(&ModelParams {
        jobs,
        procs: 32,
        seed,
        widest: None,
        users: None,
    })
    .expect("model");
    for j in &mut w.jobs {
        j.user = 1 + (j.number * 7919 + (j.procs as i64)) % 5;
    }
    let first = w.jobs[0].submit;
    let span = w.jobs.last().unwrap().submit - first;
    window(
        &w,
        Window {
            start: span / 10,
            end: span + 1,
            warmup: span / 10,
            cooldown: 0,
        },
    )
    .expect("window")
}

fn sim(w: &Workload, policy: &str) -> Outcome {
    let spec: PolicySpec = policy.parse().expect("policy");
    simulate(w, spec.build().as_mut(), SimOptions::default()).expect("simulation")
}

#[test]
fn incremental_sweep_matches_the_definition_on_simulated_runs() {
    let half_life = Decay::HalfLife { half_life: 3600 };
    let mut late_somewhere = 0;
    for (seed, policy, decay) in [
        (1, "fairshare-starvation:24h:all", Decay::default()),
        (2, "fairshare-easy", half_life),
        (3, "fcfs-backfill", Decay::default()),
        (4, "fairshare-list", half_life),
        (5, "conservative", Decay::default()),
    ] {
        let w = model_workload(300, seed);
        assert!(w.jobs.iter().any(|j| !j.measured));
        let o = sim(&w, policy);
        let fst = fair_start_times(&w, &o, decay);
        assert_eq!(fst, reference_fst(&w, &o, decay), "{policy}, seed {seed}");
        late_somewhere += fairness(&w, &o, decay).late;
    }
    assert!(late_somewhere > 0, "the runs should have some unfairness");
}

#[test]
fn runtime_limit_chunks_arrive_when_released() {
    // Chunks of split jobs arrive when their predecessor ends: the
    // realized workload is no longer in submit order.
    let w = limit_runtime(&model_workload(200, 7), 1800).expect("limit");
    let o = sim(&w, "fairshare-starvation:24h:all");
    assert!(!o.releases.is_empty());
    let real = realized(&w, &o);
    let fst = fair_start_times(&real, &o, Decay::default());
    assert_eq!(fst, reference_fst(&real, &o, Decay::default()));
}

#[test]
fn fair_start_is_never_before_arrival() {
    for policy in [
        "fairshare-starvation:24h:all",
        "fairshare-noguarantee",
        "lxf-easy",
    ] {
        let w = model_workload(300, 11);
        let o = sim(&w, policy);
        for ((job, run), fst) in
            w.jobs
                .iter()
                .zip(&o.runs)
                .zip(fair_start_times(&w, &o, Decay::default()))
        {
            assert_eq!(run.is_some(), fst.is_some());
            if let Some(fst) = fst {
                assert!(
                    fst >= job.submit,
                    "{policy}: FST {fst} before {}",
                    job.submit
                );
            }
        }
    }
}

#[test]
fn one_user_fcfs_without_backfilling_never_starts_before_its_fst() {
    // With one user, fairshare order is FCFS order, and under FCFS without
    // backfilling no later job affects an earlier one, so each job starts
    // when FCFS without backfilling, run from the state at its arrival,
    // starts it (F). The list schedule from that state in the same order
    // (L) starts each job no later: by induction over the queue, at every
    // time t >= F_i at least as many processors are free after placing
    // jobs 1..i in the list schedule as in FCFS (both remove p_i processors
    // and give them back at L_i + r_i <= F_i + r_i), so the p_(i+1)
    // processors FCFS finds at F_(i+1) >= F_i are free there in the list
    // schedule too. Hence FST <= start for every job, with equality for a
    // job that arrives to an empty queue (both are then the earliest time
    // its processors are free). The list schedule may start a small job
    // before a wide one ahead of it, which FCFS does not, so jobs are late.
    for seed in [1, 2, 3] {
        let mut w = model_workload(300, seed);
        for j in &mut w.jobs {
            j.user = 1;
        }
        let o = sim(&w, "fcfs");
        let fst = fair_start_times(&w, &o, Decay::default());
        for (i, (job, run)) in w.jobs.iter().zip(&o.runs).enumerate() {
            let (start, fst) = (run.unwrap().start, fst[i].unwrap());
            assert!(
                fst <= start,
                "seed {seed}: job {i} FST {fst} > start {start}"
            );
            let alone = !w
                .jobs
                .iter()
                .zip(&o.runs)
                .enumerate()
                .any(|(k, (other, r))| {
                    k != i && (other.submit, k) < (job.submit, i) && r.unwrap().start >= job.submit
                });
            if alone {
                assert_eq!(fst, start, "seed {seed}: job {i} arrived to an empty queue");
            }
        }
        // Not vacuous: some FSTs are after the arrival, and some jobs late.
        assert!(w
            .jobs
            .iter()
            .zip(&fst)
            .any(|(j, f)| f.is_some_and(|f| f > j.submit)));
        assert!(fairness(&w, &o, Decay::default()).late > 0, "seed {seed}");
    }
}

#[test]
fn empty_machine_at_arrival_means_fair_start_at_arrival() {
    // Jobs far apart: each arrives on an idle machine with an empty queue.
    let w = tiny(8, &[(0, 50, 60, 8), (100, 10, 10, 3), (1000, 5, 5, 1)]);
    let o = sim(&w, "fairshare-easy");
    let fst = fair_start_times(&w, &o, Decay::default());
    assert_eq!(fst, vec![Some(0), Some(100), Some(1000)]);
    let f = fairness(&w, &o, Decay::default());
    assert_eq!((f.late, f.avg_miss), (0, 0.0));
}

fn assert_rows_sum_to_totals(f: &Fairness, what: &str) {
    let jobs: usize = f.by_width.iter().map(|c| c.jobs).sum();
    let late: usize = f.by_width.iter().map(|c| c.late).sum();
    assert_eq!((jobs, late), (f.jobs, f.late), "{what}");
    let weighted = |g: fn(&goalc::measures::fairness::WidthFairness) -> f64| -> f64 {
        f.by_width.iter().map(|c| g(c) * c.jobs as f64).sum::<f64>()
    };
    let n = f.jobs as f64;
    assert!(close(weighted(|c| c.avg_miss), f.avg_miss * n), "{what}");
    assert!(
        close(weighted(|c| c.avg_turnaround), f.avg_turnaround * n),
        "{what}"
    );
    assert!(close(weighted(|c| c.pct_late), f.pct_late * n), "{what}");
    for c in &f.by_width {
        if c.jobs == 0 {
            assert_eq!(
                (c.late, c.pct_late, c.avg_miss, c.avg_turnaround),
                (0, 0.0, 0.0, 0.0)
            );
        }
    }
}

#[test]
fn width_rows_sum_to_the_totals() {
    let (w, o) = scenario();
    assert_rows_sum_to_totals(&fairness(&w, &o, Decay::default()), "scenario");
    for policy in ["fairshare-starvation:24h:all", "fcfs-backfill"] {
        let w = model_workload(400, 5);
        let o = sim(&w, policy);
        let f = fairness(&w, &o, Decay::default());
        assert!(f.late > 0, "{policy}");
        // 32 processors: 1, 2, 3-4, 5-8, 9-16, 17-32.
        let labels: Vec<&str> = f.by_width.iter().map(|c| c.width.as_str()).collect();
        assert_eq!(labels, ["1", "2", "3-4", "5-8", "9-16", "17-32"]);
        assert_eq!(f.jobs, w.jobs.iter().filter(|j| j.measured).count());
        assert_rows_sum_to_totals(&f, policy);
    }
}

#[test]
fn no_jobs_no_measures() {
    let w = tiny(4, &[]);
    let f = fairness(&w, &outcome(vec![]), Decay::default());
    assert_eq!((f.jobs, f.late, f.pct_late, f.avg_miss), (0, 0, 0.0, 0.0));
    assert_eq!(f.by_width.len(), 3);
}
