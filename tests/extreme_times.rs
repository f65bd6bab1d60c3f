//! Extreme values in every time field of random traces: the reader either
//! refuses a line with an error naming it, or the core refuses a trace whose
//! jobs could run past the largest time it simulates, or every baseline
//! simulates the trace to the end with its invariants kept. Never a panic,
//! never an overflow that breaks the simulation.

use goalc::measures::{measure, MeasureOptions};
use goalc::policy::{all_baselines, PolicySpec};
use goalc::sim::invariants::check_schedule;
use goalc::sim::{simulate, EventMode, SimError, SimOptions};
use goalc::workload::swf::{parse, ReadOptions};
use goalc::workload::Time;
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
                prop_assert!(msg.contains("extreme.swf:"), "{msg}");
                return Ok(());
            }
        };
        let modes = [EventMode::PerInstant, EventMode::SubmissionsFirst, EventMode::CompletionsFirst];
        for (spec, events) in policies().into_iter().flat_map(|s| modes.map(|m| (s, m))) {
            let mut p = spec.build();
            let o = simulate(&w, p.as_mut(), SimOptions { audit: true, events });
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
