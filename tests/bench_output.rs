//! `goalc bench` as a new user meets it: the summary by mechanism within
//! 120 columns and where the full report went; reports that never mislead
//! (no values for empty sets, the header from the workload, the span of the
//! offered load and a warning for sparse windows).

mod common;

use common::Scratch;
use std::process::{Command, Output};

fn goalc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env_remove("GOALC_TRACES")
        .output()
        .expect("run goalc")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// A scratch path for a command to make (an output folder).
fn scratch(name: &str) -> Scratch {
    Scratch::path("goalc-bench-output-", name)
}

/// A scratch file holding `text`.
fn write(name: &str, text: &str) -> Scratch {
    Scratch::file("goalc-bench-output-", name, text)
}

const TRACE: &str = "traces/lublin-1000-64-s2.swf";

#[test]
fn the_summary_groups_every_goal_by_mechanism_within_120_columns() {
    let out_dir = scratch("all-goals");
    let out = ok(&goalc(&[
        "bench",
        &repo("goals"),
        "--trace",
        &repo(TRACE),
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    for line in out.lines() {
        assert!(line.chars().count() <= 120, "{} wide: {line}", line.len());
    }
    let headings = [
        "baselines:",
        "search (GOAL):",
        "admission (QOPS):",
        "fairshare (FAIR):",
        "owner objective (GREEDY):",
        "moldable (MOLD):",
    ];
    let at: Vec<usize> = headings
        .iter()
        .map(|h| {
            out.find(&format!("\n{h}"))
                .unwrap_or_else(|| panic!("{h}\n{out}"))
        })
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "groups out of order\n{out}"
    );
    // Reference baselines above the goals of a group.
    assert!(out.contains("  ref: EASY "), "{out}");
    // The closing line says where the full report went, and it is there.
    let report = out_dir.join("report.md");
    let closing = out
        .lines()
        .skip_while(|l| !l.starts_with("full report: "))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        closing.starts_with(&format!("full report: {} ", report.display())),
        "{closing}"
    );
    let md = std::fs::read_to_string(&report).unwrap();
    assert!(md.contains("| goal | policy |"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let goals = std::fs::read_dir(repo("goals"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "goal"))
        })
        .count();
    assert_eq!(json.as_array().unwrap().len(), goals);
    // The full tables stay behind --full.
    let full = ok(&goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        &repo("goals/fcfs.goal"),
        "--trace",
        &repo(TRACE),
        "--full",
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    assert!(full.contains("avg_wait_s"), "{full}");
}

#[test]
fn goals_where_every_job_has_a_deadline_have_no_non_deadline_values() {
    let args = |format: &str| {
        let out_dir = scratch(&format!("deadlines-{format}"));
        let goals = [
            repo("goals/qops-s02-all.goal"),
            repo("goals/qops-s02-f80.goal"),
            repo("goals/easy.goal"),
        ];
        let trace = repo(TRACE);
        let mut args = vec![
            "bench",
            &goals[0],
            &goals[1],
            &goals[2],
            "--trace",
            &trace,
            "--exact-estimates",
            "--format",
            format,
        ];
        // Only a table run writes a results folder.
        if format == "table" {
            args.extend(["--out", out_dir.to_str().unwrap()]);
        }
        ok(&goalc(&args))
    };
    let csv = args("csv");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let all = csv.lines().find(|l| l.contains("F=100%")).unwrap();
    let all: Vec<&str> = all.split(',').collect();
    assert_eq!(all[col("nd_avg_resp_s")], "-", "{csv}");
    assert_eq!(all[col("nd_avg_slowdown")], "-", "{csv}");
    let f80: Vec<&str> = csv
        .lines()
        .find(|l| l.contains("F=80%"))
        .unwrap()
        .split(',')
        .collect();
    assert!(
        f80[col("nd_avg_slowdown")].parse::<f64>().unwrap() >= 1.0,
        "{csv}"
    );

    let json: serde_json::Value = serde_json::from_str(&args("json")).unwrap();
    let all = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"].as_str().unwrap().contains("F=100%"))
        .unwrap();
    assert!(
        all["admission"]["non_deadline_avg_slowdown"].is_null(),
        "{all}"
    );

    // The summary: `-`, never starred, in the F = 100% row.
    let table = args("table");
    let row = table.lines().find(|l| l.contains("F=100%")).unwrap();
    assert!(row.contains(" - "), "{row}");
    assert!(!row.contains("-*"), "{row}");
    // The full table too.
    let markdown = args("markdown");
    let row = markdown.lines().find(|l| l.contains("F=100%")).unwrap();
    assert!(!row.contains("**-**") && !row.contains("**0.00**"), "{row}");
}

#[test]
fn the_header_describes_the_workload_whichever_goal_comes_first() {
    let limit = write("limit-1h.goal", "name \"EASY 1h\"\nlimit runtime 1h\n");
    let run = |goals: [&str; 2]| {
        let out_dir = scratch("header");
        ok(&goalc(&[
            "bench",
            goals[0],
            goals[1],
            "--trace",
            &repo(TRACE),
            "--full",
            "--out",
            out_dir.to_str().unwrap(),
        ]))
    };
    let easy = repo("goals/easy.goal");
    let first = run([limit.arg(), &easy]);
    let second = run([&easy, limit.arg()]);
    let header = |t: &str| t.lines().next().unwrap().to_string();
    assert_eq!(header(&first), header(&second));
    assert!(
        header(&first).contains("1000 jobs simulated, 1000 measured"),
        "{first}"
    );
    // Per-goal counts are in the rows: the limit's chunks count each.
    let jobs = |t: &str, label: &str| -> usize {
        let row = t
            .lines()
            .find(|l| l.starts_with(&format!("{label}  ")))
            .unwrap();
        row.split_whitespace().find_map(|c| c.parse().ok()).unwrap()
    };
    assert_eq!(jobs(&first, "EASY"), 1000);
    assert!(jobs(&first, "EASY 1h") > 1000, "{first}");
}

/// 10 processors; five one-processor jobs of 10,000 s, four in the first
/// hour and one a day later: offered load 0.05 over the day.
const SPARSE: &str = "; MaxProcs: 10\n\
1 0 -1 10000 1 -1 -1 1 10000 -1 1 1 1 -1 1 -1 -1 -1\n\
2 1000 -1 10000 1 -1 -1 1 10000 -1 1 1 1 -1 1 -1 -1 -1\n\
3 2000 -1 10000 1 -1 -1 1 10000 -1 1 1 1 -1 1 -1 -1 -1\n\
4 3000 -1 10000 1 -1 -1 1 10000 -1 1 1 1 -1 1 -1 -1 -1\n\
5 100000 -1 10000 1 -1 -1 1 10000 -1 1 1 1 -1 1 -1 -1 -1\n";

#[test]
fn the_offered_load_names_its_span_and_sparse_windows_are_warned_about() {
    let trace = write("sparse.swf", SPARSE);
    let out_dir = scratch("sparse");
    let bench = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "--trace",
            trace.arg(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        let easy = repo("goals/easy.goal");
        args.push(&easy);
        args.extend_from_slice(extra);
        let o = goalc(&args);
        let out = ok(&o);
        (out, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    // As given: offered load over the day from first to last submit, no
    // warning (no load was asked for).
    let (out, err) = bench(&[]);
    assert!(
        out.contains("offered load 0.050 over the 1d 4h from first to last submit"),
        "{out}"
    );
    assert!(!err.contains("warning"), "{err}");
    // At 0.9 the arrivals shrink to 1h 33m while each job runs 2h 47m: most
    // of the work cannot fall in the span, so the load means nothing.
    let (out, err) = bench(&["--load", "0.9"]);
    assert!(out.contains("offered load 0.900 over the 1h 33m"), "{out}");
    assert!(
        err.contains("goalc: warning: workload `sparse@0.9` (5 jobs) is too sparse for its load"),
        "{err}"
    );
    // A trace long against its jobs: no warning.
    let o = goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        "--trace",
        &repo(TRACE),
        "--load",
        "0.9",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    ok(&o);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
}

#[test]
fn bench_on_the_model_says_which_defaults_it_took() {
    let out_dir = scratch("model");
    let out = ok(&goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        "--model-jobs",
        "300",
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    let first = out.lines().next().unwrap();
    assert!(first.contains("--load 0.85"), "{out}");
    assert!(first.contains("--model-users 64"), "{out}");
    assert!(out.contains("--exact-estimates"), "{out}");
    assert!(!out.contains("--model-jobs 3000"), "{out}");
    assert!(out.contains("trace lublin-300-128-s1-u64@0.85"), "{out}");
    // Given, the load is the user's and nothing is said.
    let out = ok(&goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        "--model-jobs",
        "300",
        "--model-users",
        "8",
        "--load",
        "0.5",
        "--user-estimates",
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    assert!(out.starts_with("trace lublin-300-128-s1-u8@0.5:"), "{out}");
}

/// Jobs in each of GREEDY's user groups, from `--format json`.
fn group_jobs(json: &str) -> Vec<u64> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v[0]["owner"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["jobs"].as_u64().unwrap())
        .collect()
}

#[test]
fn bench_on_the_model_has_users_by_default() {
    let out_dir = scratch("model-users");
    let bench = |extra: &[&str]| {
        let mut args = vec![
            "bench".to_string(),
            repo("goals/greedy-easy.goal"),
            repo("goals/cplant24.nomax.fair.goal"),
            repo("goals/cons.nomax.goal"),
            "--model-jobs".into(),
            "600".into(),
        ];
        // Only a table run writes a results folder.
        if !extra.contains(&"--format") {
            args.extend(["--out".into(), out_dir.to_string_lossy().into_owned()]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&goalc(&args))
    };
    // Several users, so GREEDY's five groups all have jobs and no note says
    // that every job has one user.
    let jobs = group_jobs(&bench(&["--format", "json"]));
    assert_eq!(jobs.len(), 5, "{jobs:?}");
    assert!(jobs.iter().all(|&n| n > 0), "{jobs:?}");
    assert_eq!(jobs.iter().sum::<u64>(), 600);
    let table = bench(&[]);
    assert!(!table.contains("has the same user"), "{table}");
    // Exact run times leave conservative backfilling's order no say.
    let flat = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("cons.nomax runs as Conservative in arrival order"),
        "{table}"
    );
    // Without users, one group and both notes.
    let jobs = group_jobs(&bench(&["--model-users", "0", "--format", "json"]));
    assert_eq!(jobs, [600, 0, 0, 0, 0]);
    let flat = bench(&["--model-users", "0"])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains(
            "has the same user (a trace whose user field, SWF field 12, is the same throughout or \
             -1, or the built-in model without --model-users), so fairshare"
        ),
        "{flat}"
    );
    assert!(flat.contains("so every job is in user group 1"), "{flat}");
}
