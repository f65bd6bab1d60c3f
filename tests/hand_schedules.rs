//! Schedules of tiny traces computed by hand, asserted job by job.
//! Each trace's comment walks through the reasoning for the policies that
//! differ; machine sizes and times are small enough to check on paper.

mod common;
use common::{run, starts, tiny};
use goalc::sim::invariants::{
    check_first_reservation_kept, check_reservations_kept, check_schedule,
};
use goalc::workload::Workload;

/// Trace A (10 processors, exact estimates). J1 (6 procs) runs [0,100).
/// J2 (6) must wait for J1. J3 (4 procs, 30 s) fits beside J1 and ends at
/// 50, before J2's reservation at 100, so backfilling starts it at 20.
/// J4 (2 procs, 200 s) fits at 50 beside J1 and, from 100, beside J2.
/// J5 (4) finds room only when J2 ends at 150.
fn trace_a() -> Workload {
    tiny(
        10,
        &[
            (0, 100, 100, 6),
            (10, 50, 50, 6),
            (20, 30, 30, 4),
            (30, 200, 200, 2),
            (40, 20, 20, 4),
        ],
    )
}

/// Trace B (10 processors, exact estimates): where EASY and conservative
/// differ. J1 (6) runs [0,100); J2 (8) is reserved at 100; J3 (9) can only
/// run after J2, at 200. J4 (2 procs, 250 s) at t=3: EASY protects only
/// J2, which leaves 2 spare processors, so J4 backfills [3,253) and J3 is
/// pushed to 253. Conservative also protects J3's reservation [200,300),
/// where only 1 processor is spare, so J4 waits until 300.
fn trace_b() -> Workload {
    tiny(
        10,
        &[
            (0, 100, 100, 6),
            (1, 100, 100, 8),
            (2, 100, 100, 9),
            (3, 250, 250, 2),
        ],
    )
}

/// Trace C (10 processors, user estimates; jobs end early). J1 (6) is
/// estimated 100 s but ends at 50; J3 (4, est 40) ends at 22. J2 (8)
/// starts when J1 really ends. Under conservative J4 first gets a
/// reservation at 42 and moves up to 22 when J3 ends early.
fn trace_c() -> Workload {
    tiny(
        10,
        &[
            (0, 50, 100, 6),
            (1, 100, 100, 8),
            (2, 20, 40, 4),
            (3, 10, 10, 1),
        ],
    )
}

/// Trace D (4 processors): queue order. When J1 ends at 100, J2 (1000 s)
/// and J3 (10 s) wait; J3's expansion factor (80 + 10) / 10 = 9 beats
/// J2's (90 + 1000) / 1000 = 1.09, so LXF and SJF run J3 first.
fn trace_d() -> Workload {
    tiny(4, &[(0, 100, 100, 4), (10, 1000, 1000, 4), (20, 10, 10, 4)])
}

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
    assert!(j2.iter().all(|&at| at == 100), "{j2:?}");
}
