//! Measures on a schedule computed by hand.
//!
//! Trace B under EASY (see hand_schedules.rs) runs J1 [0,100) on 6
//! processors, J2 [100,200) on 8, J3 [253,353) on 9 and J4 [3,253) on 2, on
//! a 10-processor machine; submits are 0, 1, 2, 3.

mod common;
use common::{run, tiny, trace_b};
use goalc::measures::{bounded_slowdown, measure, percentile, MeasureOptions};
use goalc::sim::Run;
use goalc::workload::transform::{window, Window};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn measures_of_trace_b_under_easy() {
    let w = trace_b();
    let o = run(&w, "easy");
    let m = measure(&w, &o, MeasureOptions::default());
    assert_eq!(m.jobs, 4);
    // Waits 0, 99, 251, 0.
    assert!(close(m.avg_wait, 87.5));
    assert_eq!(
        (m.max_wait, m.p50_wait, m.p90_wait, m.p98_wait),
        (251, 0, 251, 251)
    );
    // Bounded slowdowns 1, 1.99, 3.51, 1.
    assert!(close(m.avg_slowdown, 1.875), "{}", m.avg_slowdown);
    assert!(close(m.max_slowdown, 3.51));
    // Responses 100, 199, 351, 250.
    assert!(close(m.avg_response, 225.0));
    // 2800 processor-seconds over 10 processors * 353 s.
    assert!(close(m.utilization, 2800.0 / 3530.0));
    assert_eq!(m.makespan, 353);
    // Idle processors while jobs waited: 4 in [1,3), 2 in [3,100), 8 in
    // [200,253): 4 + 4 + 194 + 424 = 626 processor-seconds.
    assert!(
        close(m.loss_of_capacity, 626.0 / 3530.0),
        "{}",
        m.loss_of_capacity
    );
    // AWRT: (600*100 + 800*199 + 900*351 + 500*250) / 2800.
    assert!(close(m.awrt, 660_100.0 / 2800.0));
    // Width classes of a 10-processor machine: 1, 2, 3-4, 5-8, 9-16.
    assert_eq!(m.classes.widths, vec!["1", "2", "3-4", "5-8", "9-16"]);
    let c = &m.classes.cells[3][0];
    assert_eq!(c.jobs, 2);
    assert!(close(c.avg_wait, 49.5));
    assert!(close(c.avg_slowdown, 1.495));
    assert_eq!(m.classes.cells[1][0].jobs, 1);
    assert_eq!(m.classes.cells[4][0].jobs, 1);
}

#[test]
fn work_conserving_schedule_has_no_loss_of_capacity() {
    // Two jobs that each fill the machine, back to back.
    let w = tiny(4, &[(0, 10, 10, 4), (0, 10, 10, 4)]);
    let m = measure(&w, &run(&w, "fcfs"), MeasureOptions::default());
    assert_eq!(m.loss_of_capacity, 0.0);
    assert!(close(m.utilization, 1.0));
}

#[test]
fn bounded_slowdown_uses_tau() {
    // 10 s job that waited 50 s: (50 + 10) / max(10, 60) = 1.
    let r = Run { start: 50, end: 60 };
    assert!(close(bounded_slowdown(0, r, 60), 1.0));
    // With tau 10 s: 60 / 10 = 6.
    assert!(close(bounded_slowdown(0, r, 10), 6.0));
    // Never below 1.
    assert!(close(bounded_slowdown(50, r, 1), 1.0));
}

#[test]
fn percentile_is_nearest_rank() {
    let v: Vec<i64> = (1..=100).collect();
    assert_eq!(percentile(&v, 0.98), Some(98));
    assert_eq!(percentile(&v, 0.5), Some(50));
    assert_eq!(percentile(&[7], 0.98), Some(7));
    assert_eq!(percentile(&[], 0.5), None);
}

#[test]
fn windowed_measures_skip_warmup_jobs() {
    // J1 is a warm-up job; only J2..J4 are measured.
    let w = window(
        &trace_b(),
        Window {
            start: 1,
            end: 10,
            warmup: 1,
            cooldown: 0,
        },
    )
    .unwrap();
    let o = run(&w, "easy");
    let m = measure(&w, &o, MeasureOptions::default());
    assert_eq!(m.jobs, 3);
    // Waits 99, 251, 0 as before.
    assert!(close(m.avg_wait, 350.0 / 3.0));
    // Utilization counts every job's use from the first measured start (J4
    // at 3) to the last measured end (353), warm-up job J1 included:
    // J1 6 * 97 = 582, J2 800, J3 900, J4 500.
    assert!(close(m.utilization, 2782.0 / 3500.0), "{}", m.utilization);
}
