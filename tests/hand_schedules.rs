//! Schedules of tiny traces computed by hand, asserted job by job.
//! Each trace's comment walks through the reasoning for the policies that
//! differ; machine sizes and times are small enough to check on paper.

mod common;
use common::{run, starts, trace_a, trace_b, trace_c, trace_d};
use goalc::sim::invariants::{
    check_first_reservation_kept, check_reservations_kept, check_schedule,
};
use goalc::workload::Workload;

fn check(w: &Workload, policy: &str, expected: &[i64]) {
    let o = run(w, policy);
    assert_eq!(
        starts(&o),
        expected,
        "{policy} on {:?}",
        w.jobs.iter().map(|j| j.submit).collect::<Vec<_>>()
    );
    check_schedule(w, &o).unwrap_or_else(|e| panic!("{policy}: {e:?}"));
}

#[test]
fn trace_a_by_hand() {
    let w = trace_a();
    // FCFS: J2 blocks everything until J1 ends; J3 joins J2 at 100; J4 at
    // 130 when J3 ends; J5 at 150 when J2 ends.
    check(&w, "fcfs", &[0, 100, 100, 130, 150]);
    check(&w, "easy", &[0, 100, 20, 50, 150]);
    check(&w, "conservative", &[0, 100, 20, 50, 150]);
    // No reservations: J5 (4 procs) cannot fit before 150 either.
    check(&w, "no-guarantee", &[0, 100, 20, 50, 150]);
}

#[test]
fn trace_b_by_hand() {
    let w = trace_b();
    check(&w, "fcfs", &[0, 100, 200, 300]);
    check(&w, "easy", &[0, 100, 253, 3]);
    check(&w, "conservative", &[0, 100, 200, 300]);
    // Two reservations protect J3 as conservative does.
    check(&w, "easy:2", &[0, 100, 200, 300]);
    // No reservations: J4 starts at 3, J2 still fits at 100, J3 waits for J4.
    check(&w, "no-guarantee", &[0, 100, 253, 3]);
    check(&w, "list", &[0, 100, 200, 300]);
}

#[test]
fn trace_c_by_hand() {
    let w = trace_c();
    // FCFS: J2 waits for J1 (ends 50); J3 and J4 wait for J2 (ends 150).
    check(&w, "fcfs", &[0, 50, 150, 150]);
    // EASY: J2 reserved at 100 (J1's estimate); J3 backfills at 2 (ends by
    // 42); J4 backfills at 22 when J3 ends; J2 starts at 50 when J1 ends.
    check(&w, "easy", &[0, 50, 2, 22]);
    check(&w, "conservative", &[0, 50, 2, 22]);
    // List: J2 plans 100 on 6 processors freed at 100 and 2 free now; J3
    // plans 200; J4 (1 proc) takes the 2 processors left free now, at 3.
    check(&w, "list", &[0, 50, 150, 3]);
    check(&w, "no-guarantee", &[0, 50, 2, 22]);
}

#[test]
fn trace_d_by_hand() {
    let w = trace_d();
    check(&w, "fcfs-backfill", &[0, 100, 1100]);
    check(&w, "lxf-backfill", &[0, 110, 100]);
    check(&w, "sjf-backfill", &[0, 110, 100]);
    check(&w, "lxf", &[0, 110, 100]);
    check(&w, "lxf-conservative", &[0, 100, 1100]);
}

#[test]
fn conservative_reservations_only_move_earlier() {
    // Trace C: J4's first reservation is 42; it starts at 22.
    let o = run(&trace_c(), "conservative");
    let audit = o.audit.as_ref().unwrap();
    let j4: Vec<(i64, i64)> = audit
        .reservations
        .iter()
        .filter(|r| r.job == 3)
        .map(|r| (r.now, r.at))
        .collect();
    assert_eq!(j4, vec![(3, 42), (22, 22)]);
    check_first_reservation_kept(&o).unwrap();
}

#[test]
fn easy_reservations_are_kept() {
    for w in [trace_a(), trace_b(), trace_c()] {
        let o = run(&w, "easy");
        check_reservations_kept(&o).unwrap();
        assert!(!o.audit.as_ref().unwrap().reservations.is_empty());
    }
    // Trace C: J2's reservation at 100 is kept (it starts at 50).
    let o = run(&trace_c(), "easy");
    let j2: Vec<i64> = o
        .audit
        .unwrap()
        .reservations
        .iter()
        .filter(|r| r.job == 1)
        .map(|r| r.at)
        .collect();
    assert!(!j2.is_empty() && j2.iter().all(|&at| at == 100), "{j2:?}");
}
