//! The per-event semantics (`--events submissions-first|completions-first`)
//! against the default one epoch per instant: schedules of tiny traces
//! computed by hand, and the invariants of every baseline run per event.

mod common;
use common::{file_name, starts, tiny};
use goalc::policy::admission::{AdmissionSpec, Algorithm, Heuristic};
use goalc::policy::{all_baselines, Dispatch, Order, PolicySpec};
use goalc::run::deadlines::{synthesize, DeadlineSpec};
use goalc::sim::invariants::{
    check_first_reservation_kept, check_reservations_kept, check_schedule,
};
use goalc::sim::{realized, simulate, EventMode, Outcome, SimOptions};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{exact_estimates, first_jobs, limit_runtime};
use goalc::workload::Workload;
use rayon::prelude::*;
use std::path::PathBuf;

const MODES: [EventMode; 3] = [
    EventMode::PerInstant,
    EventMode::SubmissionsFirst,
    EventMode::CompletionsFirst,
];
const PER_EVENT: [EventMode; 2] = [EventMode::SubmissionsFirst, EventMode::CompletionsFirst];

/// Runs a named policy under `events`, audited, and checks the schedule.
fn run(w: &Workload, policy: &str, events: EventMode) -> Outcome {
    let spec: PolicySpec = policy.parse().expect("policy name");
    let opts = SimOptions {
        audit: true,
        events,
    };
    let o = simulate(w, spec.build().as_mut(), opts)
        .unwrap_or_else(|e| panic!("{policy} {events}: {e}"));
    check_schedule(&realized(w, &o), &o).unwrap_or_else(|e| panic!("{policy} {events}: {e:?}"));
    o
}

/// 4 processors, EASY with FCFS order; (submit, run, estimate, procs).
///
/// Second 10: J1 (2 procs, estimated 100) ends early as J4 (1 proc, 50 s)
/// is submitted; J2 holds 1 processor until 200 and J3 (3 procs) waits,
/// reserved at 100 (J1's estimated end).
/// - Per instant, J1's end and J4 are seen together: 3 free, J3 starts at
///   10 and J4 waits for it, starting at 20.
/// - Submissions first: J4's epoch still sees J1 running, 1 free; J3's
///   shadow is 100 and J4 ends by 60, so J4 backfills at 10. J1's epoch then
///   has 2 free, J3 is reserved at J4's end and starts at 60.
/// - Completions first: J1's epoch starts J3 at 10 alone, as per instant;
///   J4 starts at 20.
///
/// Second 1100: J5 and J6 (2 procs each, estimated 1000 and 500) both end
/// early; J7 (4 procs) and J8 (2 procs, 50 s) wait, J7 reserved at 2000.
/// - Per instant, 4 free: J7 starts at 1100, J8 at 1110 after it.
/// - Per event (both orders, no submission at 1100): J5 ends first (started
///   first); with J6 still expected until 1500, J7's shadow is 1500 and J8
///   (ends 1150) backfills at 1100. J6's epoch has 2 free: J7 waits for J8
///   and starts at 1150.
fn trace_events() -> Workload {
    tiny(
        4,
        &[
            (0, 10, 100, 2),
            (0, 200, 200, 1),
            (1, 10, 10, 3),
            (10, 50, 50, 1),
            (1000, 100, 1000, 2),
            (1000, 100, 500, 2),
            (1001, 10, 10, 4),
            (1002, 50, 50, 2),
        ],
    )
}

#[test]
fn the_three_semantics_give_three_easy_schedules() {
    let w = trace_events();
    let expected: [(EventMode, [i64; 8]); 3] = [
        (
            EventMode::PerInstant,
            [0, 0, 10, 20, 1000, 1000, 1100, 1110],
        ),
        (
            EventMode::SubmissionsFirst,
            [0, 0, 60, 10, 1000, 1000, 1150, 1100],
        ),
        (
            EventMode::CompletionsFirst,
            [0, 0, 10, 20, 1000, 1000, 1150, 1100],
        ),
    ];
    for (events, starts_by_hand) in expected {
        let o = run(&w, "easy", events);
        assert_eq!(starts(&o), starts_by_hand, "{events}");
        check_reservations_kept(&o).unwrap_or_else(|e| panic!("{events}: {e:?}"));
    }
}

#[test]
fn per_event_counts_one_epoch_per_event() {
    let w = trace_events();
    // Per instant, one epoch per second with events: submissions at 0, 1,
    // 10, 1000, 1001, 1002 and ends at 10, 20, 70, 200, 1100, 1110, 1160.
    let o = run(&w, "easy", EventMode::PerInstant);
    assert_eq!(o.epochs, 12);
    // Per event, one per submission and one per completion.
    for events in PER_EVENT {
        let o = run(&w, "easy", events);
        assert_eq!(o.epochs, 16, "{events}");
        let audit = o.audit.unwrap();
        assert_eq!(audit.epochs.len(), 16);
        // Two submissions at 0, then J1's end and J4 at 10.
        assert_eq!(&audit.epochs[..5], &[0, 0, 1, 10, 10], "{events}");
    }
}

/// 4 processors. P (2 procs) runs [0,10); Cb (3 procs, job 2) waits for it
/// and runs [10,100), estimated 150; Ca (1 proc, job 3) backfills at 1 on
/// the processor Cb's reservation leaves spare and runs [1,100), estimated
/// 300. Both end at 100, Ca started first. H (4 procs) and S (1 proc, 50 s,
/// estimated 100) wait.
/// - Ca's end first (start order): 1 free, H's shadow is Cb's estimated end
///   160 with none spare, and S would end at 200: nothing starts. Cb's end
///   frees 4: H starts at 100, S at 110 when H ends.
/// - Cb's end first (job order) would give H a shadow at 301 (Ca's
///   estimate), S would backfill at 100 and H wait until 150.
#[test]
fn completions_of_one_second_go_in_start_order() {
    let w = tiny(
        4,
        &[
            (0, 10, 10, 2),
            (0, 90, 150, 3),
            (1, 99, 300, 1),
            (20, 10, 10, 4),
            (21, 50, 100, 1),
        ],
    );
    for events in MODES {
        let o = run(&w, "easy", events);
        assert_eq!(starts(&o), [0, 10, 1, 100, 110], "{events}");
    }
}

/// 4 processors, exact estimates. X (4 procs) runs [0,10); Y (4 procs) is
/// submitted at 10, when X reaches its estimate. Submissions first, Y's
/// epoch comes before X's completion event, but X's end is known (its
/// estimate runs out), so Y starts at 10 on X's processors rather than
/// being refused.
#[test]
fn a_job_at_its_estimate_frees_its_processors_from_the_first_epoch_of_the_second() {
    let w = tiny(4, &[(0, 10, 10, 4), (10, 5, 5, 4)]);
    for policy in ["easy", "conservative", "fcfs", "list", "no-guarantee"] {
        for events in MODES {
            let o = run(&w, policy, events);
            assert_eq!(starts(&o), [0, 10], "{policy} {events}");
        }
    }
    // The first epoch at 10 is Y's submission (submissions first), which
    // already starts it: X's completion epoch then has nothing to do.
    let o = run(&w, "easy", EventMode::SubmissionsFirst);
    assert_eq!(o.audit.unwrap().epochs, [0, 10, 10, 15]);
}

/// 4 processors, runtime limit 100. A (2 procs, 110 s) runs as A1 [0,100)
/// at its estimate and A2 (10 s), released at 100. B (2 procs, estimated
/// 100) starts at 10 and ends early at 100. W (4 procs) waits from 50,
/// reserved at 110 (B's estimated end).
/// - Per instant: A2 arrives with both ends seen; W starts at 100, A2 at 110.
/// - Submissions first: A1 ends first (started first) and releases A2, whose
///   submission comes before B's end: with B expected until 110, A2 (ends
///   110) backfills at 100; at B's end W is reserved at 110 and starts then.
/// - Completions first: both ends first, W starts at 100 at B's end; A2,
///   submitted after them, starts at 110.
#[test]
fn a_released_chunk_is_a_submission_at_its_release() {
    let w = limit_runtime(
        &tiny(4, &[(0, 110, 110, 2), (10, 90, 100, 2), (50, 10, 10, 4)]),
        100,
    )
    .unwrap();
    // Jobs in order: A1, A2, B, W.
    let expected = [
        (EventMode::PerInstant, [0, 110, 10, 100]),
        (EventMode::SubmissionsFirst, [0, 100, 10, 110]),
        (EventMode::CompletionsFirst, [0, 110, 10, 100]),
    ];
    for (events, starts_by_hand) in expected {
        let o = run(&w, "easy", events);
        assert_eq!(starts(&o), starts_by_hand, "{events}");
        assert_eq!(o.releases, [(1, 100)], "{events}");
    }
}

/// A generated trace in `traces/` and, with `$GOALC_TRACES`, KTH-SP2.
fn invariant_traces() -> Vec<Workload> {
    let generated = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/traces/lublin-2000-128-s1.swf"
    ));
    let mut paths = vec![generated];
    if let Some(dir) = std::env::var_os("GOALC_TRACES") {
        paths.push(PathBuf::from(dir).join("KTH-SP2-1996-2.1-cln.swf.gz"));
    }
    paths
        .iter()
        .map(|p| {
            read_path(p, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", file_name(p)))
        })
        .collect()
}

/// Every baseline, per event in both orders, keeps the invariants; FCFS
/// EASY keeps its reservation and conservative with exact estimates its
/// first reservations. FAIR's policies, whose usage ledgers follow the
/// start and end notices, do too on the workload split by a 12 h limit.
#[test]
fn baselines_keep_invariants_per_event() {
    let runs: Vec<(String, Workload, PolicySpec, EventMode)> = invariant_traces()
        .into_iter()
        .flat_map(|w| {
            let exact = exact_estimates(&w);
            let split = limit_runtime(&w, 12 * 3600).unwrap();
            let mut v = Vec::new();
            for events in PER_EVENT {
                for spec in all_baselines() {
                    v.push((w.name.clone(), w.clone(), spec, events));
                }
                for order in [Order::Fcfs, Order::Lxf] {
                    let spec = PolicySpec::new(Dispatch::Conservative, order);
                    v.push((format!("{} exact", w.name), exact.clone(), spec, events));
                }
                for name in [
                    "fairshare-easy",
                    "fairshare-conservative",
                    "fairshare-dynamic",
                    "fairshare-starvation:24h:all",
                ] {
                    let spec = name.parse().unwrap();
                    v.push((format!("{} 12h", w.name), split.clone(), spec, events));
                }
            }
            v
        })
        .collect();
    let failures: Vec<String> = runs
        .par_iter()
        .filter_map(|(label, w, spec, events)| {
            let opts = SimOptions {
                audit: true,
                events: *events,
            };
            let o = match simulate(w, spec.build().as_mut(), opts) {
                Ok(o) => o,
                Err(e) => return Some(format!("{label} {spec} {events}: {e}")),
            };
            let mut errs = check_schedule(&realized(w, &o), &o)
                .err()
                .unwrap_or_default();
            let started = o.runs.iter().filter(|r| r.is_some()).count();
            if started != w.jobs.len() {
                errs.push(format!("{started} of {} jobs started", w.jobs.len()));
            }
            if spec.order == Order::Fcfs && spec.dispatch == (Dispatch::Easy { depth: 1 }) {
                errs.extend(check_reservations_kept(&o).err().unwrap_or_default());
            }
            if label.ends_with("exact") {
                errs.extend(check_first_reservation_kept(&o).err().unwrap_or_default());
            }
            (!errs.is_empty()).then(|| format!("{label} {spec} {events}: {errs:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

/// On KTH-SP2 (with `$GOALC_TRACES`), how many jobs' EASY start times move
/// from per instant to per event: the figures the README quotes. With exact
/// estimates every job ends at its estimate, which frees it from the first
/// epoch of its second, so nothing moves.
#[test]
fn kth_easy_starts_that_move_per_event() {
    let Some(dir) = std::env::var_os("GOALC_TRACES") else {
        eprintln!("GOALC_TRACES is not set: KTH-SP2 not checked");
        return;
    };
    let path = PathBuf::from(dir).join("KTH-SP2-1996-2.1-cln.swf.gz");
    let real = read_path(&path, &ReadOptions::default()).unwrap();
    let exact = exact_estimates(&real);
    let easy = PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fcfs);
    let starts_of = |w: &Workload, events| {
        let opts = SimOptions {
            audit: false,
            events,
        };
        starts(&simulate(w, easy.build().as_mut(), opts).unwrap())
    };
    let moved = |w: &Workload, events| {
        let base = starts_of(w, EventMode::PerInstant);
        let other = starts_of(w, events);
        base.iter().zip(&other).filter(|(a, b)| a != b).count()
    };
    let counts: Vec<usize> = [&real, &exact]
        .into_par_iter()
        .flat_map(|w| PER_EVENT.into_par_iter().map(move |e| moved(w, e)))
        .collect();
    assert_eq!(real.jobs.len(), 28_467);
    // Real estimates: submissions first, completions first; then exact.
    assert_eq!(counts, [456, 456, 0, 0]);
}

#[test]
fn mode_names_read_back() {
    for (name, mode) in EventMode::NAMES.iter().zip(MODES) {
        assert_eq!(name.parse::<EventMode>(), Ok(mode));
        assert_eq!(mode.to_string(), *name);
    }
    assert_eq!(EventMode::default(), EventMode::PerInstant);
    assert!("pyss".parse::<EventMode>().is_err());
}

/// Admission control keeps its promise per event too: with exact run times
/// every admitted job of 2000 jobs of the generated trace ends by its
/// deadline under QoPS, MSB and MRT, and some jobs are admitted and some
/// rejected (a run that admitted all or none would prove nothing).
#[test]
fn admitted_jobs_meet_their_deadlines_per_event() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/lublin-2000-128-s1.swf");
    let w = exact_estimates(&read_path(path.as_ref(), &ReadOptions::default()).unwrap());
    let w = synthesize(&first_jobs(&w, 2000), &DeadlineSpec::default()).unwrap();
    let algorithms = [
        Algorithm::Qops { k: 5 },
        Algorithm::Msb,
        Algorithm::Mrt { backtracks: 10 },
    ];
    for events in PER_EVENT {
        for algorithm in algorithms {
            let spec = AdmissionSpec {
                algorithm,
                heuristic: Heuristic::Edf,
            };
            let opts = SimOptions {
                audit: false,
                events,
            };
            let o = simulate(&w, &mut spec.build(), opts).unwrap();
            check_schedule(&w, &o).unwrap_or_else(|e| panic!("{spec} {events}: {e:?}"));
            let mut admitted = 0;
            for (job, run) in w.jobs.iter().zip(&o.runs) {
                if let Some(r) = run {
                    admitted += 1;
                    let deadline = job.deadline.unwrap();
                    assert!(r.end <= deadline, "{spec} {events}: job {}", job.number);
                }
            }
            assert!(0 < admitted && admitted < w.jobs.len(), "{spec} {events}");
        }
    }
}
