//! Admission control keeps its promise: with exact run times, every
//! admitted job completes by its deadline, under every algorithm, on many
//! random small workloads and on a slice of every reference trace; and the
//! hand-computed decisions of QoPS, MSB and MRT, as one table run under
//! every algorithm.

mod common;
use goalc::policy::admission::mrt::Mrt;
use goalc::policy::admission::msb::Msb;
use goalc::policy::admission::qops::Qops;
use goalc::policy::admission::{Admission, AdmissionSpec, Algorithm, Heuristic, Pending, Reserved};
use goalc::run::deadlines::{synthesize, DeadlineSpec};
use goalc::sim::invariants::check_schedule;
use goalc::sim::{simulate, Profile, SimOptions};
use goalc::workload::swf::{read_path, ReadOptions};
use goalc::workload::transform::{duplicate_load, exact_estimates, first_jobs};
use goalc::workload::{Job, Time, Workload};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

fn specs() -> Vec<AdmissionSpec> {
    let mut v = Vec::new();
    for heuristic in [Heuristic::Edf, Heuristic::Llf] {
        for algorithm in [
            Algorithm::Qops { k: 5 },
            Algorithm::Msb,
            Algorithm::Mrt { backtracks: 10 },
        ] {
            v.push(AdmissionSpec {
                algorithm,
                heuristic,
            });
        }
    }
    v
}

/// Runs `spec` and checks the promise; returns (admitted, rejected).
fn check(w: &Workload, spec: &AdmissionSpec) -> (usize, usize) {
    let mut p = spec.build();
    let o = simulate(w, &mut p, SimOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
    check_schedule(w, &o).unwrap_or_else(|e| panic!("{} {spec}: {e:?}", w.name));
    let mut admitted = 0;
    for (job, run) in w.jobs.iter().zip(&o.runs) {
        if let Some(r) = run {
            admitted += 1;
            let deadline = job.deadline.expect("every job has a deadline");
            assert!(
                r.end <= deadline,
                "{} {spec}: job {} ends at {} after its deadline {deadline}",
                w.name,
                job.number,
                r.end
            );
        }
    }
    (admitted, w.jobs.len() - admitted)
}

/// A random small workload with exact run times.
fn random_workload(seed: u64) -> Workload {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let procs = rng.gen_range(4..=32u32);
    let n = rng.gen_range(5..=40usize);
    let mut t = 0;
    let jobs: Vec<(i64, i64, i64, u32)> = (0..n)
        .map(|_| {
            t += rng.gen_range(0..600);
            let run = rng.gen_range(1..3000);
            (t, run, run, rng.gen_range(1..=procs))
        })
        .collect();
    common::tiny(procs, &jobs)
}

#[test]
fn admitted_jobs_meet_their_deadlines_on_random_workloads() {
    let mut total = (0, 0);
    for seed in 0..300u64 {
        let w = random_workload(seed);
        let spec = DeadlineSpec {
            stringency: [0.0, 0.2, 0.5, 0.8][(seed % 4) as usize],
            share: [1.0, 0.8, 0.2][(seed % 3) as usize],
            relaxation: 2.0,
            seed,
        };
        let w = synthesize(&w, &spec).unwrap();
        for s in specs() {
            let (a, r) = check(&w, &s);
            total.0 += a;
            total.1 += r;
        }
    }
    // Both outcomes occur, so the test exercises admission and rejection.
    assert!(total.0 > 1000 && total.1 > 100, "{total:?}");
}

#[test]
fn admitted_jobs_meet_their_deadlines_on_every_reference_trace() {
    let traces = common::reference_traces();
    if traces.is_empty() {
        eprintln!("GOALC_TRACES is not set: admission is not checked on the reference traces");
        return;
    }
    traces.par_iter().for_each(|path| {
        let w = read_path(path, &ReadOptions::default()).unwrap();
        let w = duplicate_load(&first_jobs(&exact_estimates(&w), 400), 1.4, 1).unwrap();
        let w = synthesize(
            &w,
            &DeadlineSpec {
                stringency: 0.2,
                share: 0.8,
                relaxation: 5.0,
                seed: 1,
            },
        )
        .unwrap();
        for s in specs() {
            check(&w, &s);
        }
    });
}

#[test]
fn deadline_synthesis_follows_the_paper() {
    // Trace B of hand_schedules.rs under EASY: responses 100, 199, 351, 250.
    let w = common::trace_b();
    let all = synthesize(
        &w,
        &DeadlineSpec {
            stringency: 0.5,
            share: 1.0,
            relaxation: 2.0,
            seed: 1,
        },
    )
    .unwrap();
    // Deadline = submit + max(run, (1 - S) * response), rounded up.
    let deadlines: Vec<i64> = all.jobs.iter().map(|j: &Job| j.deadline.unwrap()).collect();
    assert_eq!(deadlines, vec![100, 1 + 100, 2 + 176, 3 + 250]);
    assert!(all.jobs.iter().all(|j| j.deadline_job));
    // No deadline jobs: max(24h, R * run).
    let none = synthesize(
        &w,
        &DeadlineSpec {
            stringency: 0.5,
            share: 0.000_001,
            relaxation: 2.0,
            seed: 1,
        },
    )
    .unwrap();
    assert!(none
        .jobs
        .iter()
        .all(|j| !j.deadline_job && j.deadline == Some(j.submit + 86_400)));
}

// ---------------------------------------------------------------------------
// Hand-computed admission decisions, every case under every algorithm
// ---------------------------------------------------------------------------

/// Every admission algorithm, with each heuristic and the parameters the
/// hand-computed cases tell apart (QoPS's K, MRT's backtrack budget B).
fn every_admission() -> Vec<Box<dyn Admission>> {
    let mut v: Vec<Box<dyn Admission>> = Vec::new();
    for h in [Heuristic::Edf, Heuristic::Llf] {
        v.push(Box::new(Msb::new(h)));
        for k in [0, 1, 5, 50] {
            v.push(Box::new(Qops::new(h, k)));
        }
        for b in [0, 1, 10] {
            v.push(Box::new(Mrt::new(h, b)));
        }
    }
    v
}

/// A job submitted at 0 (ties in the heuristics go by job index).
fn job(job: u32, procs: u32, estimate: Time, deadline: Time) -> Pending {
    Pending {
        job,
        submit: 0,
        procs,
        estimate,
        deadline,
    }
}

fn at(job: Pending, start: Time) -> Reserved {
    Reserved { job, start }
}

/// `procs` processors, of which a running job holds `held` until `until`.
fn machine(procs: u32, held: u32, until: Time) -> Profile {
    let mut base = Profile::new(procs, 0);
    base.allocate(0, until, held);
    base
}

/// 4 processors and a running job holding all of them until 5: with
/// 4-processor jobs the machine runs one job at a time from 5 on.
fn serial() -> Profile {
    machine(4, 4, 5)
}

/// 4 processors; a running job holds 2 of them until 10.
fn four_with_running() -> Profile {
    machine(4, 2, 10)
}

/// 6 processors, 2 held by a running job until 50: 4 free over the whole
/// example.
fn six_with_running() -> Profile {
    machine(6, 2, 50)
}

/// 3 processors, 1 held by a running job until 100: 2 free over the whole
/// example.
fn three_with_running() -> Profile {
    machine(3, 1, 100)
}

/// The decision expected: rejected, or admitted with these (job, start)
/// pairs in schedule order.
type Decision = Option<&'static [(u32, Time)]>;

struct Case {
    name: &'static str,
    base: fn() -> Profile,
    reserved: Vec<Reserved>,
    new: Pending,
    /// (algorithm names, decision): the first row naming an algorithm (by
    /// its exact `name()`, or `*` for every other) gives its decision.
    expect: Vec<(&'static [&'static str], Decision)>,
}

impl Case {
    fn expected(&self, algorithm: &str) -> Decision {
        self.expect
            .iter()
            .find(|(names, _)| names.iter().any(|n| *n == algorithm || *n == "*"))
            .unwrap_or_else(|| panic!("{}: no expectation for {algorithm}", self.name))
            .1
    }
}

fn hand_cases() -> Vec<Case> {
    const MSB: &[&str] = &["msb-edf", "msb-llf"];
    const EDF: &[&str] = &[
        "qops-k0-edf",
        "qops-k1-edf",
        "qops-k5-edf",
        "qops-k50-edf",
        "mrt-b0-edf",
        "mrt-b1-edf",
        "mrt-b10-edf",
    ];
    const EVERY: &[&str] = &["*"];
    vec![
        // A: 10 s, deadline 50 (laxity 40); B: 30 s, deadline 55 (laxity
        // 25); N: 5 s, deadline 100. All take the whole machine.
        Case {
            name: "heuristics give different orders",
            base: serial,
            reserved: vec![at(job(1, 4, 10, 50), 5), at(job(2, 4, 30, 55), 15)],
            new: job(3, 4, 5, 100),
            expect: vec![
                // MSB keeps A before B whatever the heuristic. Position 0:
                // N 5-10, A 10-20, B 20-50, completions 80; position 1:
                // A 5-15, N 15-20, B 20-50, 85; position 2: 110.
                (MSB, Some(&[(3, 5), (1, 10), (2, 20)])),
                // QoPS at insertion point 0, and MRT step by step, follow
                // the heuristic. EDF: A (50), B (55), N (100): A 5-15, B
                // 15-45, N 45-50, all in time (MRT: A at 5-15 leaves B
                // (15-45) and N (15-20) feasible; B at 15-45 leaves N).
                (EDF, Some(&[(1, 5), (2, 15), (3, 45)])),
                // LLF: B (25), A (40), N (95): B 5-35, A 35-45 (<= 50), N
                // 45-50.
                (EVERY, Some(&[(2, 5), (1, 35), (3, 45)])),
            ],
        },
        // A: 10 s, deadline 40 (laxity 30); B: 30 s, deadline 50 (laxity
        // 20); N: 5 s, deadline 100. Existing schedule A 5-15, B 15-45.
        Case {
            name: "a violation pulls the late job forward",
            base: serial,
            reserved: vec![at(job(1, 4, 10, 40), 5), at(job(2, 4, 30, 50), 15)],
            new: job(3, 4, 5, 100),
            expect: vec![
                // MSB: N 5-10, A 10-20 (<= 40), B 20-50 (<= 50) costs 80,
                // the cheapest position, as in the case above.
                (MSB, Some(&[(3, 5), (1, 10), (2, 20)])),
                // QoPS LLF, insertion point 0, order B, A, N: B 5-35, then
                // A would end at 45 > 40 at position T = 1. With K = 0 that
                // violation fails insertion point 0. Point 1 keeps A at
                // 5-15, places N first (15-20), then TL = [B]: 20-50, in
                // time.
                (&["qops-k0-llf"], Some(&[(1, 5), (3, 15), (2, 20)])),
                // Violation 1 <= K: the jobs from mid = (0 + 1) / 2 = 0 go
                // back (B), TL is re-sorted (B, N) and A goes to its head:
                // A 5-15, B 15-45, N 45-50. EDF (A, B, N) gives that at
                // once; MRT LLF: B at 5-35 would make A late, so A comes
                // first.
                (EVERY, Some(&[(1, 5), (2, 15), (3, 45)])),
            ],
        },
        // A 5-15 and B 15-25 end exactly at their deadlines; N (10 s,
        // deadline 30) would run 5-15 alone, but with A and B first it ends
        // at 35 and any other order makes A or B late.
        Case {
            name: "rejects when no order keeps every deadline",
            base: serial,
            reserved: vec![at(job(1, 4, 10, 15), 5), at(job(2, 4, 10, 25), 15)],
            new: job(3, 4, 10, 30),
            expect: vec![
                // Three 10 s jobs one after another from 5 end at 15, 25 and
                // 35, and no job has a deadline >= 35. QoPS, point 0 (EDF
                // A, B, N): N misses at T = 2, repairs swap N and B back and
                // forth until the 6th violation. Point 1 (A kept, N, B): the
                // same between N and B. Point 2 (A and B kept): N first at
                // 25-35 misses with nothing before it to move: rejected,
                // whatever K. MRT: A at 5-15 leaves B and N at 15-25:
                // strongly feasible. B at 15-25 pushes N to 25-35 > 30; N at
                // 15-25 pushes B to 25-35 > 25: dead end, backtrack 1 (undo
                // A). B or N at 5-15 pushes A to 15-25 > 15: the empty
                // schedule has no candidate left, rejected after 1
                // backtrack. MSB: N before A or B makes them late, N last
                // ends at 35.
                (EVERY, None),
            ],
        },
        // A (10 s, deadline 100) was scheduled first and B (10 s, deadline
        // 30) after it, as an MSB that appended B would leave them: A 5-15,
        // B 15-25, both in time. N (10 s, deadline 15) must run 5-15.
        Case {
            name: "reordering the tail admits what MSB rejects",
            base: serial,
            reserved: vec![at(job(1, 4, 10, 100), 5), at(job(2, 4, 10, 30), 15)],
            new: job(3, 4, 10, 15),
            expect: vec![
                // MSB keeps A before B. Position 0: N 5-15, A 15-25, B
                // 25-35 > 30. Position 1: A 5-15, N 15-25 > 15, and later
                // positions only delay N further: rejected.
                (MSB, None),
                // QoPS insertion point 0 re-sorts everything, and MRT
                // builds in heuristic order: EDF N (15), B (30), A (100),
                // and LLF (laxities 5, 20, 90) the same: N 5-15, B 15-25, A
                // 25-35, all in time.
                (EVERY, Some(&[(3, 5), (2, 15), (1, 25)])),
            ],
        },
        // A (2 procs, 10 s) runs beside the running job in [0, 10); B needs
        // the whole machine and follows at 10. N: 4 procs for 5 s.
        Case {
            name: "accepts at the cheapest position",
            base: four_with_running,
            reserved: vec![at(job(1, 2, 10, 20), 0), at(job(2, 4, 10, 40), 10)],
            new: job(3, 4, 5, 40),
            expect: vec![
                // Position 0: N at 10 (first time 4 are free), A still fits
                // at 0, B after N at 15; completions 15 + 10 + 25 = 50.
                // Position 1: A at 0, N at 10, B at 15: the same schedule,
                // cost 50. Position 2: A at 0, B at 10, N at 20; 10 + 20 +
                // 25 = 55. The first of the cheapest wins.
                (MSB, Some(&[(1, 0), (3, 10), (2, 15)])),
                // QoPS and MRT order by the heuristic: EDF A (20), B (40), N
                // (40, after B by job index); LLF A (10), B (30), N (35): A
                // at 0, B at 10, N at 20, ending 25 <= 40.
                (EVERY, Some(&[(1, 0), (2, 10), (3, 20)])),
            ],
        },
        // As above but B must end by 22.
        Case {
            name: "skips infeasible positions",
            base: four_with_running,
            reserved: vec![at(job(1, 2, 10, 20), 0), at(job(2, 4, 10, 22), 10)],
            new: job(3, 4, 5, 40),
            expect: vec![
                // MSB: positions 0 and 1 push B to 15-25, too late, so only
                // appending N (at 20, ending 25 <= 40) is feasible. It is
                // also the heuristics' order (A, B, N) for QoPS and MRT.
                (EVERY, Some(&[(1, 0), (2, 10), (3, 20)])),
            ],
        },
        // B must end by 22, so N can only come last, at 20, ending 25: past
        // its deadline 24. N alone could run at 10, so only the schedule
        // rejects it.
        Case {
            name: "rejects when no position is feasible",
            base: four_with_running,
            reserved: vec![at(job(1, 2, 10, 20), 0), at(job(2, 4, 10, 22), 10)],
            new: job(3, 4, 5, 24),
            expect: vec![(EVERY, None)],
        },
        Case {
            name: "rejects a job wider than the machine",
            base: four_with_running,
            reserved: vec![],
            new: job(1, 5, 5, 1000),
            expect: vec![(EVERY, None)],
        },
        // X (2 procs, 10 s, deadline 30) and Y (2 procs, 30 s, deadline 39)
        // both reserved at 0. EDF puts X first (30 < 39), LLF puts Y first
        // (laxity 9 < 20). N: 2 procs, 20 s, deadline 25.
        Case {
            name: "jobs with the same reserved start",
            base: six_with_running,
            reserved: vec![at(job(1, 2, 10, 30), 0), at(job(2, 2, 30, 39), 0)],
            new: job(3, 2, 20, 25),
            expect: vec![
                // MSB, EDF order X, Y. Position 0: N at 0-20, X beside it
                // at 0-10, Y needs 2 procs for 30 s: 0 free in [0, 10), so
                // 10-40, past 39. Position 1: X kept at 0-10, N at 0-20, Y
                // again 10-40: infeasible. Position 2: X at 0-10 and Y at
                // 0-30 kept, N at 10-30, past 25.
                (&["msb-edf"], None),
                // QoPS EDF, point 0: N (25), X (30), Y (39): N 0-20, X 0-10,
                // Y 10-40 misses at T = 2. With K = 0 the point fails, and
                // points 1 (X kept: N 0-20, Y 10-40) and 2 (N 10-30) are
                // late too.
                (&["qops-k0-edf"], None),
                // MSB, LLF order Y, X. Position 0: N at 0-20, Y beside it at
                // 0-30 (ends 30 <= 39), X in the 2 processors N frees at
                // 20: 20-30 (deadline 30). Cost 20 + 30 + 30 = 80. Position
                // 1 keeps Y and builds the same schedule, position 2 makes
                // N end at 30: the first wins.
                // QoPS EDF with K >= 1: the violation sends X back and Y to
                // the head: N 0-20, Y 0-30, X 20-30. QoPS LLF (N 5, Y 9, X
                // 20) places that order at once.
                // MRT EDF: N (25), X (30), Y (39). Step 1: N at 0-20 leaves
                // X (0-10) and Y (0-30) feasible. Step 2: X at 0-10 would
                // leave Y 2 processors only from 10 on: 10-40 > 39, so X
                // does not extend; Y at 0-30 does (X can still run 20-30).
                // Step 3: X at 20-30. No backtrack: B = 0 is enough. MRT
                // LLF takes N, Y, X in that order at once.
                (EVERY, Some(&[(2, 0), (3, 0), (1, 20)])),
            ],
        },
        // Reserved U (2 procs, 10 s, deadline 22) at 0 and V (1 proc, 15 s,
        // deadline 30) at 10. New X: 1 proc, 10 s, deadline 20. EDF (and
        // LLF): X (20), U (22), V (30).
        Case {
            name: "a dead end needs a backtrack",
            base: three_with_running,
            reserved: vec![at(job(1, 2, 10, 22), 0), at(job(2, 1, 15, 30), 10)],
            new: job(3, 1, 10, 20),
            expect: vec![
                // MRT, step 1: X at 0-10 leaves U (10-20) and V (0-15
                // beside X) feasible. Step 2: U at 10-20 pushes V to 20-35
                // > 30; V at 0-15 pushes U to 15-25 > 22: dead end,
                // backtrack 1 (undo X). With B = 0 that one backtrack is
                // already too many.
                (&["mrt-b0-edf", "mrt-b0-llf"], None),
                // With B >= 1: step 1 again, next job U at 0-10: X (10-20)
                // and V (10-25) stay feasible. Step 2: X at 10-20 leaves V
                // 10-25 beside it. Step 3: V at 10-25.
                // That is the only feasible schedule: U needs both free
                // processors for 10 s by 22 and X one for 10 s by 20, so U
                // runs 0-10 and X 10-20, and V (by 30) fits beside X only
                // from 10. MSB finds it at position 1 (U, X, V; position 0
                // makes V late, position 2 costs as much and comes later),
                // QoPS at point 0 after repairs or at point 1 (U kept).
                (EVERY, Some(&[(1, 0), (2, 10), (3, 10)])),
            ],
        },
        // N needs 10 s by 12 but the machine is full until 5.
        Case {
            name: "rejects a job that misses alone",
            base: serial,
            reserved: vec![],
            new: job(1, 1, 10, 12),
            expect: vec![(EVERY, None)],
        },
        Case {
            name: "rejects a job wider than the serial machine",
            base: serial,
            reserved: vec![],
            new: job(1, 5, 1, 1000),
            expect: vec![(EVERY, None)],
        },
    ]
}

/// An admitted schedule keeps its promise: every reserved job and the new
/// one exactly once, in order of reserved start, each meeting its deadline
/// and starting no earlier than now, and together they fit the machine.
fn check_admitted(case: &Case, algorithm: &str, schedule: &[Reserved]) {
    let name = case.name;
    let mut jobs: Vec<Pending> = schedule.iter().map(|r| r.job).collect();
    let mut want: Vec<Pending> = case.reserved.iter().map(|r| r.job).collect();
    want.push(case.new);
    jobs.sort_by_key(|j| j.job);
    want.sort_by_key(|j| j.job);
    assert_eq!(
        jobs, want,
        "{name} {algorithm}: not the reserved jobs plus the new one"
    );
    assert!(
        schedule.windows(2).all(|w| w[0].start <= w[1].start),
        "{name} {algorithm}: not in order of start: {schedule:?}"
    );
    let mut p = (case.base)();
    for r in schedule {
        assert!(r.start >= 0, "{name} {algorithm}: starts before now");
        assert!(
            r.meets_deadline(),
            "{name} {algorithm}: {r:?} misses its deadline"
        );
        assert!(
            p.fits(r.job.procs, r.job.estimate, r.start),
            "{name} {algorithm}: {r:?} overfills the machine"
        );
        p.allocate(r.start, r.job.estimate, r.job.procs);
    }
}

/// The hand-computed cases of QoPS, MSB and MRT as one table: each case
/// runs under every algorithm and heuristic, and the decision of each is
/// the one the case's comments derive (where the algorithms differ, the
/// table says so per algorithm).
#[test]
fn hand_computed_cases_under_every_admission() {
    for case in hand_cases() {
        for mut algo in every_admission() {
            let name = algo.name();
            let got = algo.admit(0, &(case.base)(), &case.reserved, case.new);
            let starts = got
                .as_ref()
                .map(|s| s.iter().map(|r| (r.job.job, r.start)).collect::<Vec<_>>());
            if let Some(s) = &got {
                check_admitted(&case, &name, s);
            }
            let want = case.expected(&name).map(<[_]>::to_vec);
            assert_eq!(starts, want, "{} under {name}", case.name);
        }
    }
}
