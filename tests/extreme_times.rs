//! Extreme values in every time field of random traces: the reader either
//! refuses a line with an error naming it, or the core refuses a trace whose
//! jobs could run past the largest time it simulates, or every baseline
//! simulates the trace to the end with its invariants kept. Never a panic,
//! never an overflow that breaks the simulation. And extreme widths, on
//! machines from one processor to `u32::MAX`: every job runs.

use goalc::measures::{measure, MeasureOptions};
use goalc::policy::{all_baselines, PolicySpec};
use goalc::sim::invariants::check_schedule;
use goalc::sim::{simulate, EventMode, Outcome, SimError, SimOptions};
use goalc::workload::swf::{parse, ReadOptions};
use goalc::workload::{Time, Workload};
use proptest::prelude::*;
use std::path::Path;

const PROCS: u32 = 4;

/// A time: one of the extremes, or an ordinary small value.
fn time() -> impl Strategy<Value = Time> {
    // Mostly ordinary, so that many traces get past the reader and the
    // horizon and are simulated with the extremes that remain.
    prop_oneof![
        1 => Just(0),
        1 => Just(1),
        2 => Just(1 << 31),
        1 => Just(1 << 62),
        1 => Just(Time::MAX),
        8 => 0..5000i64,
    ]
}

#[derive(Debug, Clone)]
struct Line {
    gap: Time,
    wait: Time,
    run: Time,
    estimate: Time,
    think: Time,
    procs: u32,
}

fn line() -> impl Strategy<Value = Line> {
    (time(), time(), time(), time(), time(), 1..=PROCS).prop_map(
        |(gap, wait, run, estimate, think, procs)| Line {
            gap,
            wait,
            run,
            estimate,
            think,
            procs,
        },
    )
}

/// SWF text with submits in order: each a (saturated) gap after the last.
fn swf(lines: &[Line]) -> String {
    let mut text = format!("; MaxProcs: {PROCS}\n");
    let mut submit: Time = 0;
    for (i, l) in lines.iter().enumerate() {
        submit = submit.saturating_add(l.gap);
        text += &format!(
            "{} {submit} {} {} {} -1 -1 {} {} -1 1 1 1 -1 1 -1 -1 {}\n",
            i + 1,
            l.wait,
            l.run,
            l.procs,
            l.procs,
            l.estimate,
            l.think
        );
    }
    text
}

fn policies() -> Vec<PolicySpec> {
    let mut v = all_baselines();
    for name in [
        "fairshare-dynamic",
        "fairshare-starvation:1h:fair",
        "fairshare-easy",
    ] {
        v.push(name.parse().expect("policy name"));
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn extreme_times_are_refused_or_simulated(lines in prop::collection::vec(line(), 1..10)) {
        let text = swf(&lines);
        let w = match parse(text.as_bytes(), Path::new("extreme.swf"), "extreme", &ReadOptions::default()) {
            Ok(w) => w,
            Err(e) => {
                // Refused: the message names the file and the line.
                let msg = e.to_string();
                let line = msg
                    .strip_prefix("extreme.swf:")
                    .and_then(|rest| rest.split(':').next())
                    .and_then(|n| n.parse::<usize>().ok());
                prop_assert!(line.is_some_and(|n| (2..=lines.len() + 1).contains(&n)), "{msg}");
                return Ok(());
            }
        };
        for (spec, events, o) in audited_runs(&w, policies()) {
            let o = match o {
                Ok(o) => o,
                // Refused as a whole: no schedule could fit in the time range.
                Err(SimError::Horizon { .. }) => return Ok(()),
                Err(e) => return Err(TestCaseError::fail(format!("{spec} {events:?}: {e}\n{text}"))),
            };
            if let Err(errs) = check_schedule(&w, &o) {
                return Err(TestCaseError::fail(format!("{spec} {events:?}: {errs:?}\n{text}")));
            }
            let _ = measure(&w, &o, MeasureOptions::default());
        }
    }
}

/// Times of 2^31 and more in every field that allows them (submits, run
/// times, estimates, waits, think times), far from the horizon: simulated
/// to the end by every baseline in every event mode, not refused.
#[test]
fn large_times_are_simulated_not_refused() {
    let big: Time = 1 << 31;
    let lines: Vec<Line> = (0..6)
        .map(|i| Line {
            gap: if i % 2 == 0 { big } else { 1 },
            wait: big,
            run: big + i,
            estimate: big * (1 + i % 3),
            think: big,
            procs: 1 + (i as u32 % PROCS),
        })
        .collect();
    let text = swf(&lines);
    let w = parse(
        text.as_bytes(),
        Path::new("big.swf"),
        "big",
        &ReadOptions::default(),
    )
    .expect("times of 2^31 are read");
    assert_eq!(w.jobs.len(), 6);
    for (spec, events, o) in audited_runs(&w, policies()) {
        let o = o.unwrap_or_else(|e| panic!("{spec} {events:?}: {e}"));
        check_schedule(&w, &o).unwrap_or_else(|e| panic!("{spec} {events:?}: {e:?}"));
        assert_eq!(o.runs.iter().flatten().count(), 6, "{spec} {events:?}");
    }
}

/// Each of `specs` in each event mode on `w`, audited, one at a time as
/// the caller asks: (policy, mode, outcome).
fn audited_runs(
    w: &Workload,
    specs: Vec<PolicySpec>,
) -> impl Iterator<Item = (PolicySpec, EventMode, Result<Outcome, SimError>)> + '_ {
    const MODES: [EventMode; 3] = [
        EventMode::PerInstant,
        EventMode::SubmissionsFirst,
        EventMode::CompletionsFirst,
    ];
    specs
        .into_iter()
        .flat_map(|s| MODES.map(|m| (s, m)))
        .map(move |(spec, events)| {
            let o = simulate(
                w,
                spec.build().as_mut(),
                SimOptions {
                    audit: true,
                    events,
                },
            );
            (spec, events, o)
        })
}

/// A machine's width: the narrowest, small ones, and the widest.
fn machine() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(1u32),
        Just(2),
        Just(7),
        Just(1 << 31),
        Just(u32::MAX - 1),
        Just(u32::MAX),
    ]
}

/// A job's width on `machine`: the whole of it, all but one, half, one,
/// or any.
fn width(machine: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        2 => Just(machine),
        1 => Just((machine - 1).max(1)),
        1 => Just((machine / 2).max(1)),
        1 => Just(1),
        2 => 1..=machine,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]
    /// Jobs as wide as the machine, or all of it but one, on machines up
    /// to `u32::MAX` wide (a waiting job of `u32::MAX` processors was once
    /// taken for an empty queue slot and never started).
    #[test]
    fn extreme_widths_all_run(
        (procs, jobs) in machine().prop_flat_map(|m| {
            (Just(m), prop::collection::vec((0..50i64, 1..500i64, 0..3i64, width(m)), 1..12))
        })
    ) {
        let mut text = format!("; MaxProcs: {procs}\n");
        let mut submit = 0;
        for (i, &(gap, run, over, p)) in jobs.iter().enumerate() {
            submit += gap;
            // Estimates exact, or over: early ends move reservations.
            let estimate = run * (1 + over);
            text += &format!(
                "{} {submit} -1 {run} {p} -1 -1 {p} {estimate} -1 1 1 1 -1 1 -1 -1 -1\n",
                i + 1
            );
        }
        let w = parse(text.as_bytes(), Path::new("wide.swf"), "wide", &ReadOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(w.jobs.len(), jobs.len());
        for (spec, events, o) in audited_runs(&w, policies()) {
            let o = o.map_err(|e| TestCaseError::fail(format!("{spec} {events:?}: {e}\n{text}")))?;
            if let Err(errs) = check_schedule(&w, &o) {
                return Err(TestCaseError::fail(format!("{spec} {events:?}: {errs:?}\n{text}")));
            }
            prop_assert_eq!(o.runs.iter().flatten().count(), jobs.len(), "{} {:?}\n{}", spec, events, text);
        }
    }
}

/// Long queues on the widest machines: 600 jobs submitted in two bursts
/// wait at once, past the queue lengths (512 and more) at which backfilling
/// in LXF and SJF order keeps its queue by width class; the first burst, of
/// narrow jobs, on an idle machine, the second with jobs as wide as the
/// machine. A subtree with no job had the bounds of a job of `u32::MAX`
/// processors, so on an idle machine that wide a reading for jobs that fit
/// entered empty subtrees and took their `NONE` for a job index.
#[test]
fn long_queues_on_the_widest_machines_all_run() {
    for procs in [u32::MAX, u32::MAX - 1, 1 << 31] {
        let mut text = format!("; MaxProcs: {procs}\n");
        for i in 0..600u32 {
            let submit = if i < 520 { 0 } else { 10 };
            let p = match i % 7 {
                _ if i < 520 => 1 + i % 5,
                0 => procs,
                1 => procs - 1,
                2 => procs / 2,
                _ => 1 + i % 5,
            };
            let run = 1 + i64::from(i % 13) * 7;
            // Estimates over by up to a half: early ends move reservations.
            let estimate = run + run * i64::from(i % 3) / 4;
            text += &format!(
                "{} {submit} -1 {run} {p} -1 -1 {p} {estimate} -1 1 1 1 -1 1 -1 -1 -1\n",
                i + 1
            );
        }
        let w = parse(
            text.as_bytes(),
            Path::new("long.swf"),
            "long",
            &ReadOptions::default(),
        )
        .expect("a valid trace");
        for (spec, events, o) in audited_runs(&w, every_policy()) {
            let o = o.unwrap_or_else(|e| panic!("{spec} {events:?} on {procs}: {e}"));
            if let Err(errs) = check_schedule(&w, &o) {
                panic!("{spec} {events:?} on {procs}: {errs:?}");
            }
            assert_eq!(
                o.runs.iter().flatten().count(),
                600,
                "{spec} {events:?} on {procs}"
            );
        }
    }
}

/// Every dispatch in every order: the long-queue paths differ by order.
fn every_policy() -> Vec<PolicySpec> {
    let mut v = Vec::new();
    for order in ["fcfs", "lxf", "sjf", "fairshare"] {
        for dispatch in [
            "nobackfill",
            "list",
            "easy",
            "easy:4",
            "conservative",
            "noguarantee",
            "starvation:1h:all",
            "dynamic",
        ] {
            v.push(format!("{order}-{dispatch}").parse().expect("policy name"));
        }
    }
    v.push("fairshare-starvation:1h:fair".parse().expect("policy name"));
    v
}
