//! Every goal in `goals/` checks cleanly; its compiled form and its outcome
//! on a small generated trace are pinned as snapshots, so a pull request that
//! changes what a goal means or what it achieves shows it as a diff.

use goalc::bench::run_one;
use goalc::lang::check_file;
use goalc::workload::swf::{read_path, ReadOptions};
use std::path::{Path, PathBuf};

fn goal_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("goals");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "goal"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_goal_compiles_and_is_pinned() {
    let files = goal_files();
    assert!(files.len() >= 7, "goals/ should hold every baseline");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/lublin-2000-128-s1.swf");
    let w = read_path(&trace, &ReadOptions::default()).unwrap();
    for path in files {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let checked = check_file(&path).unwrap();
        assert!(checked.diagnostics.is_empty(), "{}", checked.render(false));
        let goal = checked.goal.expect("compiled goal");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with('#'),
            "{stem}: say in a comment what the goal is and which paper uses it"
        );
        let r = run_one(&goal, &w, None).unwrap();
        let m = &r.measures;
        let outcome = format!(
            "trace {} ({} processors, {} jobs), policy {}\n\
             jobs {} epochs {}\n\
             wait avg {:.3} p98 {} max {}\n\
             bsld(tau {}) avg {:.4} max {:.3}\n\
             response avg {:.3} awrt {:.3}\n\
             utilization {:.6} loss_of_capacity {:.6}\n",
            r.trace,
            r.procs,
            r.simulated_jobs,
            r.policy,
            m.jobs,
            r.epochs,
            m.avg_wait,
            m.p98_wait,
            m.max_wait,
            m.tau,
            m.avg_bsld,
            m.max_bsld,
            m.avg_response,
            m.awrt,
            m.utilization,
            m.loss_of_capacity
        );
        insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("goal-compiled-{stem}"), goal.describe());
            insta::assert_snapshot!(format!("goal-outcome-{stem}"), outcome);
        });
    }
}
