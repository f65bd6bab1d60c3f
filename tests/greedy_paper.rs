//! GREEDY's set-up on the paper's traces that `$GOALC_TRACES` holds: each
//! scaled to 1,024 processors (Ernemann, Song and Yahyapour, the factor
//! calibrated), every greedy goal of `goals/` (the EASY reference, the
//! hand-written criterion and the trained ones) run on it, and the table of
//! AWRT per user group, utilization and owner objective (the paper's
//! Table III) pinned per trace as `snapshots/traces/greedy-paper@<file>.snap`.
//! A change to scaling, grouping, the greedy scheduler or a trained goal
//! shows here as a diff.

mod common;
use goalc::lang::check_file;
use goalc::report::owner::by_group;
use goalc::run::scale::ScaleSpec;
use goalc::run::{run_all, Goal, RunOptions, WorkloadPlan};
use rayon::prelude::*;

/// The paper's traces (Table I) as the Parallel Workloads Archive names
/// them, with the processors the paper counts: CTC's batch partition is
/// 430 of its 512 nodes; the others use their headers. SDSC95 (the
/// Paragon's 1995 log) is not among the reference traces.
const PAPER_TRACES: [(&str, &str, Option<u32>); 5] = [
    ("CTC", "CTC-SP2-1996-3.1-cln.swf.gz", Some(430)),
    ("KTH", "KTH-SP2-1996-2.1-cln.swf.gz", None),
    ("LANL", "LANL-CM5-1994-4.1-cln.swf.gz", None),
    ("SDSC00", "SDSC-SP2-1998-4.2-cln.swf.gz", None),
    ("SDSC96", "SDSC-Par-1996-3.1-cln.swf.gz", None),
];

fn greedy_goals() -> Vec<Goal> {
    common::goal_files()
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("greedy-"))
        })
        .map(|p| {
            check_file(p)
                .unwrap()
                .goal
                .unwrap_or_else(|| panic!("{} does not compile", p.display()))
        })
        .collect()
}

#[test]
fn greedy_goals_on_the_papers_scaled_traces() {
    let Some(dir) = common::reference_dir() else {
        eprintln!("GOALC_TRACES is not set: greedy goals are not run on the paper's traces");
        return;
    };
    let goals = greedy_goals();
    assert!(goals.len() >= 2, "the EASY reference and a greedy goal");
    let (present, missing): (Vec<_>, Vec<_>) = PAPER_TRACES
        .iter()
        .partition(|(_, file, _)| dir.join(file).exists());
    // Another folder of traces may hold only some of the paper's: said, so
    // that the snapshots not checked are known.
    for (_, file, _) in &missing {
        eprintln!("{}: not in GOALC_TRACES, not run", file);
    }
    let texts: Vec<(String, String)> = present
        .par_iter()
        .map(|(label, file, procs)| {
            let plan = WorkloadPlan {
                procs: *procs,
                scale: Some(ScaleSpec::new(1024)),
                ..WorkloadPlan::default()
            };
            let workloads = plan.workloads(&[dir.join(file)]).unwrap();
            let reports = run_all(&goals, &workloads, RunOptions::default(), &|| {}).unwrap();
            let refs: Vec<_> = reports.iter().collect();
            let (title, header, rows) = by_group(&refs).expect("owner measures");
            let w = &workloads[0];
            let mut text = format!("{label}: {}, {} jobs\n{title}\n", w.name, w.jobs.len());
            let width = rows.iter().map(|r| r[0].len()).max().unwrap_or(0);
            for row in std::iter::once(header).chain(rows) {
                text += &format!("{:<width$}", row[0]);
                for cell in &row[1..] {
                    text += &format!(" {cell:>9}");
                }
                text += "\n";
            }
            (file.to_string(), text)
        })
        .collect();
    insta::with_settings!({snapshot_path => "../snapshots/traces", prepend_module_to_snapshot => false}, {
        for (file, text) in &texts {
            insta::assert_snapshot!(format!("greedy-paper@{file}"), text);
        }
    });
}
