//! Helpers shared by the integration tests.
#![allow(dead_code)]

use goalc::policy::PolicySpec;
use goalc::sim::{simulate, Outcome, SimOptions};
use goalc::workload::model::{generate, ModelParams};
use goalc::workload::transform::scale_load_by_arrivals;
use goalc::workload::{swf, Job, SwfHeader, SwfRecord, Time, Workload};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// A two-job trace whose time zone no one knows: GREEDY, which needs local
/// time, cannot run on it; every other goal can.
pub const MARS_TRACE: &str = "; TimeZoneString: Mars/Olympus\n; MaxProcs: 8\n\
    1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n\
    2 5 -1 100 4 -1 -1 4 200 -1 1 2 1 -1 1 -1 -1 -1\n";

/// `jobs` jobs of the built-in model on `procs` processors (sizes as for
/// `widest` when given), arrivals scaled to offered load `load`.
pub fn model_at_load(
    jobs: usize,
    procs: u32,
    widest: Option<u32>,
    load: f64,
    seed: u64,
) -> Workload {
    let w = generate(&ModelParams {
        jobs,
        procs,
        seed,
        widest,
        users: None,
    })
    .expect("model");
    scale_load_by_arrivals(&w, load).expect("load")
}

/// A tiny workload from (submit, runtime, estimate, procs) tuples; job
/// numbers are 1, 2, ... in the order given.
pub fn tiny(procs: u32, jobs: &[(Time, Time, Time, u32)]) -> Workload {
    let with_users: Vec<_> = jobs.iter().map(|&(s, r, e, p)| (s, r, e, p, -1)).collect();
    tiny_users(procs, &with_users)
}

/// [`tiny`] with a user per job: (submit, runtime, estimate, procs, user).
pub fn tiny_users(procs: u32, jobs: &[(Time, Time, Time, u32, i64)]) -> Workload {
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, &(submit, runtime, estimate, p, user))| {
            let mut r = SwfRecord::unknown();
            r.job_number = i as i64 + 1;
            r.submit = submit;
            r.run_time = runtime;
            r.requested_time = estimate;
            r.requested_procs = p as i64;
            r.allocated_procs = p as i64;
            r.user = user;
            swf::job_from_record(&r, procs).expect("valid tiny job")
        })
        .collect::<Vec<Job>>();
    Workload::new("tiny", procs, SwfHeader::default(), jobs)
}

/// Trace A (10 processors, exact estimates). J1 (6 procs) runs [0,100).
/// J2 (6) must wait for J1. J3 (4 procs, 30 s) fits beside J1 and ends at
/// 50, before J2's reservation at 100, so backfilling starts it at 20.
/// J4 (2 procs, 200 s) fits at 50 beside J1 and, from 100, beside J2.
/// J5 (4) finds room only when J2 ends at 150.
pub fn trace_a() -> Workload {
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
pub fn trace_b() -> Workload {
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
pub fn trace_c() -> Workload {
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
pub fn trace_d() -> Workload {
    tiny(4, &[(0, 100, 100, 4), (10, 1000, 1000, 4), (20, 10, 10, 4)])
}

/// Runs a named policy with auditing on.
pub fn run(w: &Workload, policy: &str) -> Outcome {
    let spec: PolicySpec = policy.parse().expect("policy name");
    let mut p = spec.build();
    simulate(
        w,
        p.as_mut(),
        SimOptions {
            audit: true,
            ..SimOptions::default()
        },
    )
    .expect("simulation")
}

/// Start times of jobs in workload order (None for rejected jobs).
pub fn starts(o: &Outcome) -> Vec<Time> {
    o.runs
        .iter()
        .map(|r| r.map(|r| r.start).unwrap_or(-1))
        .collect()
}

/// The goal files in `goals/` (not its subfolders), sorted.
pub fn goal_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("goals");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "goal"))
        .collect();
    v.sort();
    v
}

/// The reference traces: every .swf / .swf.gz in $GOALC_TRACES, sorted.
/// Empty when the variable is unset.
pub fn reference_traces() -> Vec<PathBuf> {
    let Some(dir) = std::env::var_os("GOALC_TRACES") else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("GOALC_TRACES={}: {e}", PathBuf::from(&dir).display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".swf") || n.ends_with(".swf.gz")
        })
        .collect();
    v.sort();
    v
}

/// The folder of the reference traces, `$GOALC_TRACES` made absolute.
pub fn reference_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GOALC_TRACES")?;
    Some(
        std::fs::canonicalize(&dir)
            .unwrap_or_else(|e| panic!("GOALC_TRACES={}: {e}", PathBuf::from(&dir).display())),
    )
}

/// A trace's file name, the key its snapshots are pinned under.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("a trace file")
        .to_string_lossy()
        .into_owned()
}

/// Pins each of `texts` (keyed by [`file_name`]) as
/// `snapshots/traces/{kind}@{file name}.snap`, through `insta::glob!` over
/// the generated traces in `traces/` (when `generated`) and over
/// `$GOALC_TRACES`, so one run reports every mismatch rather than the
/// first. Every text is pinned, and every trace found has a text.
pub fn pin_per_trace(kind: &str, texts: &BTreeMap<String, String>, generated: bool) {
    let mut pinned = 0;
    let mut failed = None;
    // Snapshot and glob paths are relative to this file, tests/common/.
    insta::with_settings!({snapshot_path => "../../snapshots/traces", prepend_module_to_snapshot => false}, {
        let mut pin = |path: &Path| {
            let name = file_name(path);
            let text = texts
                .get(&name)
                .unwrap_or_else(|| panic!("{kind}: no result for {name}"));
            insta::assert_snapshot!(kind, text);
            pinned += 1;
        };
        if generated {
            failed = catch_unwind(AssertUnwindSafe(|| {
                insta::glob!("../../traces", "*.swf", &mut pin);
            }))
            .err();
        }
        if let Some(dir) = reference_dir() {
            insta::glob!(dir.as_path(), "*.{swf,swf.gz}", &mut pin);
        }
    });
    if let Some(panic) = failed {
        resume_unwind(panic);
    }
    assert_eq!(pinned, texts.len(), "{kind}: a result without its trace");
}

/// A path in a temporary folder of its own, removed (with whatever was
/// written there) when the test drops it, so test runs leave nothing
/// behind in the system's temp folder.
pub struct Scratch {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scratch {
    /// `name` in a new folder named from `prefix`; nothing is made there.
    pub fn path(prefix: &str, name: &str) -> Scratch {
        let mut scratch = Scratch::folder(prefix);
        scratch.path.push(name);
        scratch
    }

    /// A new empty folder named from `prefix`.
    pub fn folder(prefix: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .expect("temp folder");
        let path = dir.path().to_path_buf();
        Scratch { _dir: dir, path }
    }

    /// [`Scratch::path`], written with `content`.
    pub fn file(prefix: &str, name: &str, content: &str) -> Scratch {
        let file = Scratch::path(prefix, name);
        std::fs::write(&file.path, content).expect("scratch file");
        file
    }

    /// The path as an argument string.
    pub fn arg(&self) -> &str {
        self.path.to_str().expect("temp paths are UTF-8 here")
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}
