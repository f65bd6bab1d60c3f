//! `goalc bench --suite` and `goalc merge` end to end, through the binary:
//! a suite's cells equal a bare `goalc bench` of them, a re-run reuses
//! unchanged cells, a killed run resumes, shards unite into the whole
//! store, and merge refuses stores of different suites or versions.

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const GOALC: &str = env!("CARGO_BIN_EXE_goalc");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A fresh folder under the system's temp folder, removed with what is in
/// it when the test drops it.
fn temp(name: &str) -> Scratch {
    Scratch::folder(&format!("goalc-suite-{name}-"))
}

/// A suite of `goals` (files of goals/) on the model, at `loads`.
fn write_suite(dir: &Path, goals: &[&str], jobs: u32, loads: &str) -> PathBuf {
    let goals: Vec<String> = goals
        .iter()
        .map(|g| format!("\"{ROOT}/goals/{g}.goal\""))
        .collect();
    let text = format!(
        "goals = [{}]\n\n[[trace]]\nmodel = {{ jobs = {jobs}, procs = 64 }}\n\n\
         [[trace]]\npath = \"{ROOT}/traces/lublin-2000-128-s1.swf\"\n\n\
         [axes]\nloads = [{loads}]\nbudgets = [20, 60]\nseeds = [1, 2]\n",
        goals.join(", ")
    );
    let path = dir.join("suite.toml");
    std::fs::write(&path, text).unwrap();
    path
}

const GOALS: [&str; 4] = [
    "easy",
    "fcfs-backfill",
    "conservative",
    "strict-lexical-tw-avgx-dds-fcfs",
];

fn goalc(args: &[&str], threads: &str) -> Output {
    Command::new(GOALC)
        .args(args)
        .env_remove("GOALC_TRACES")
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "goalc failed: {}", stderr(&o));
    o
}

fn run_suite(suite: &Path, store: &Path, extra: &[&str], threads: &str) -> Output {
    let mut args = vec![
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
        "--format",
        "csv",
    ];
    args.extend(extra);
    goalc(&args, threads)
}

/// The store's lines, sorted.
fn sorted_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// Cells: (4 goals, the search goal at 2 budgets = 5) x (2 model seeds + 1
/// trace) x loads.
fn cells(loads: usize) -> usize {
    5 * 3 * loads
}

#[test]
fn a_suite_runs_what_bench_runs() {
    let dir = temp("bench");
    let suite = write_suite(&dir, &GOALS, 1000, "0.7");
    let o = ok(run_suite(&suite, &dir.join("s.jsonl"), &[], "2"));
    // Timings (the last two columns) vary from run to run.
    let strip = |csv: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(csv)
            .lines()
            .map(|l| l.rsplitn(3, ',').nth(2).unwrap().to_string())
            .collect()
    };
    let suite_rows = strip(&o.stdout);
    let goals: Vec<String> = GOALS
        .iter()
        .map(|g| format!("{ROOT}/goals/{g}.goal"))
        .collect();
    let mut args: Vec<&str> = vec!["bench"];
    args.extend(goals.iter().map(String::as_str));
    args.extend([
        "--model-jobs",
        "1000",
        "--model-procs",
        "64",
        "--seed",
        "2",
        "--load",
        "0.7",
        "--budget",
        "20,60",
        // The suite's model as it is: without bench's own model defaults.
        "--model-users",
        "0",
        "--user-estimates",
        "--format",
        "csv",
    ]);
    let bare = strip(&ok(goalc(&args, "2")).stdout);
    // The suite's rows of seed 2 (the second 5 cells), header included.
    assert_eq!(bare.len(), 6);
    assert_eq!(&suite_rows[6..11], &bare[1..], "suite and bench differ");
    assert_eq!(suite_rows[0], bare[0]);
}

#[test]
fn a_rerun_reuses_unchanged_cells_and_reruns_a_changed_goal() {
    let dir = temp("reuse");
    let goals_dir = dir.join("goals");
    std::fs::create_dir_all(&goals_dir).unwrap();
    for g in GOALS {
        std::fs::copy(
            format!("{ROOT}/goals/{g}.goal"),
            goals_dir.join(format!("{g}.goal")),
        )
        .unwrap();
    }
    let text = "goals = [\"goals\"]\n[[trace]]\nmodel = { jobs = 600, procs = 64 }\n\
         [axes]\nloads = [0.7, 0.9]\nbudgets = [20, 60]\n";
    let suite = dir.join("suite.toml");
    std::fs::write(&suite, text).unwrap();
    let store = dir.join("s.jsonl");
    let first = ok(run_suite(&suite, &store, &[], "2"));
    assert!(
        stderr(&first).contains("reused 0 of 10 cells, ran 10"),
        "{}",
        stderr(&first)
    );
    let before = sorted_lines(&store);
    let again = ok(run_suite(&suite, &store, &[], "2"));
    assert!(
        stderr(&again).contains("reused 10 of 10 cells, ran 0"),
        "{}",
        stderr(&again)
    );
    assert_eq!(sorted_lines(&store), before);
    // A changed goal file: its 2 cells run again, nothing else.
    let easy = goals_dir.join("easy.goal");
    let text = std::fs::read_to_string(&easy).unwrap() + "\n# edited\n";
    std::fs::write(&easy, text).unwrap();
    let edited = ok(run_suite(&suite, &store, &[], "2"));
    assert!(
        stderr(&edited).contains("reused 8 of 10 cells, ran 2"),
        "{}",
        stderr(&edited)
    );
    assert!(
        stderr(&edited).contains("removed 2 record(s)"),
        "{}",
        stderr(&edited)
    );
    assert_eq!(sorted_lines(&store).len(), 10);
}

#[test]
fn a_killed_run_resumes_with_only_the_missing_cells() {
    let dir = temp("kill");
    // Big enough that the kill lands in the middle, one thread to keep it
    // there.
    let suite = write_suite(&dir, &GOALS, 2500, "0.6, 0.7, 0.8, 0.9");
    let n = cells(4);
    let store = dir.join("s.jsonl");
    let mut child = Command::new(GOALC)
        .args(["bench", "--suite", suite.to_str().unwrap(), "--store"])
        .arg(&store)
        .env_remove("GOALC_TRACES")
        .env("RAYON_NUM_THREADS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let lines =
        |p: &Path| std::fs::read(p).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    while lines(&store) < 3 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no cell finished"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: no handler, no clean-up
    child.wait().unwrap();
    let kept = lines(&store);
    assert!(
        kept < n,
        "the whole suite ran before the kill ({kept} of {n})"
    );
    let resumed = ok(run_suite(&suite, &store, &[], "2"));
    let expect = format!("reused {kept} of {n} cells, ran {}", n - kept);
    assert!(stderr(&resumed).contains(&expect), "{}", stderr(&resumed));
    // The resumed store is the store of a run never interrupted.
    let whole = dir.join("whole.jsonl");
    ok(run_suite(&suite, &whole, &[], "2"));
    assert_eq!(sorted_lines(&store), sorted_lines(&whole));
}

#[test]
fn a_torn_last_line_is_cut_away_not_mixed_in() {
    let dir = temp("torn");
    let suite = write_suite(&dir, &GOALS[..2], 400, "0.7");
    let store = dir.join("s.jsonl");
    ok(run_suite(&suite, &store, &[], "2"));
    let whole = sorted_lines(&store);
    // Cut the last record in half, as a kill during a write would.
    let text = std::fs::read_to_string(&store).unwrap();
    let last_start = text[..text.len() - 1].rfind('\n').unwrap() + 1;
    let cut = last_start + (text.len() - last_start) / 2;
    std::fs::write(&store, &text[..cut]).unwrap();
    let o = ok(run_suite(&suite, &store, &[], "2"));
    let n = whole.len();
    assert!(stderr(&o).contains("torn last line"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("reused {} of {n} cells, ran 1", n - 1)),
        "{}",
        stderr(&o)
    );
    assert_eq!(sorted_lines(&store), whole);
    // A bad line before the last is damage, not a torn write.
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "{\"format\": 1";
    std::fs::write(&store, lines.join("\n") + "\n").unwrap();
    let o = run_suite(&suite, &store, &[], "2");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("s.jsonl:2:"), "{}", stderr(&o));
    // So is a whole last line that does not read: cut away, it would be
    // lost, and the store is left as it was.
    let mut lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    lines[n - 1] = "{\"format\": 1}";
    let damaged = lines.join("\n") + "\n";
    std::fs::write(&store, &damaged).unwrap();
    let o = run_suite(&suite, &store, &[], "2");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("s.jsonl:{n}:")),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&store).unwrap(), damaged);
}

#[test]
fn keys_no_field_reads_are_said_where_they_are() {
    let dir = temp("unknown-keys");
    let suite = write_suite(&dir, &GOALS[..2], 300, "0.7");
    let store = dir.join("s.jsonl");
    ok(run_suite(&suite, &store, &[], "2"));
    // A note added by hand to the second and third records, and a key
    // inside the report of the third.
    let text = std::fs::read_to_string(&store).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines.len() >= 3);
    for (i, line) in lines.iter_mut().enumerate().skip(1).take(2) {
        *line = line.replacen('{', r#"{"note":"rerun on Monday","#, 1);
        if i == 2 {
            *line = line.replacen(r#""report":{"#, r#""report":{"seen":true,"#, 1);
        }
    }
    std::fs::write(&store, lines.join("\n") + "\n").unwrap();
    let said = |o: &Output| {
        let e = stderr(o);
        assert!(
            e.contains("s.jsonl:2: `note` is no field of a store record (on 2 lines)"),
            "{e}"
        );
        assert!(
            e.contains("s.jsonl:3: `report.seen` is no field of a store record:"),
            "{e}"
        );
    };
    said(&ok(goalc(&["report", store.to_str().unwrap()], "1")));
    let merged = dir.join("merged.jsonl");
    let o = ok(goalc(
        &[
            "merge",
            "--out",
            merged.to_str().unwrap(),
            store.to_str().unwrap(),
        ],
        "1",
    ));
    said(&o);
    assert!(!std::fs::read_to_string(&merged).unwrap().contains("note"));
    // A rerun reuses every record, and says the keys too.
    said(&ok(run_suite(&suite, &store, &[], "2")));
    // A store without such keys says nothing of them.
    let o = ok(goalc(&["report", merged.to_str().unwrap()], "1"));
    assert!(!stderr(&o).contains("no field"), "{}", stderr(&o));
}

#[test]
fn shards_unite_into_the_whole_store() {
    let dir = temp("shards");
    let suite = write_suite(&dir, &GOALS, 800, "0.7, 0.9");
    let whole = dir.join("whole.jsonl");
    ok(run_suite(&suite, &whole, &[], "1"));
    let mut shard_stores = Vec::new();
    for i in 0..3 {
        let store = dir.join(format!("shard-{i}.jsonl"));
        let shard = format!("{i}/3");
        let o = ok(run_suite(&suite, &store, &["--shard", &shard], "2"));
        assert!(
            stderr(&o).contains(&format!("(shard {i}/3 of {} cells)", cells(2))),
            "{}",
            stderr(&o)
        );
        shard_stores.push(store);
    }
    let sizes: Vec<usize> = shard_stores.iter().map(|s| sorted_lines(s).len()).collect();
    assert_eq!(sizes, [10, 10, 10]);
    let merged = dir.join("merged.jsonl");
    let merge = |shards: &[PathBuf]| {
        let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
        args.extend(shards.iter().map(|s| s.to_str().unwrap()));
        stderr(&ok(goalc(&args, "2")))
    };
    // A shard left out: merged, and said to be partial.
    let e = merge(&shard_stores[..2]);
    let partial = format!(
        "merged.jsonl holds 20 of its suite's {} cells: 10 missing",
        cells(2)
    );
    assert!(e.contains(&partial), "{e}");
    let e = merge(&shard_stores);
    assert!(!e.contains("warning"), "{e}");
    let merged_text = std::fs::read_to_string(&merged).unwrap();
    let whole_sorted = sorted_lines(&whole);
    assert_eq!(
        merged_text,
        whole_sorted.join("\n") + "\n",
        "merged shards differ from the whole"
    );
    // A shard run into the whole store runs nothing and removes nothing:
    // the other shards' cells are the suite's, not cells it no longer has.
    let o = ok(run_suite(&suite, &whole, &["--shard", "0/3"], "2"));
    assert!(!stderr(&o).contains("removed"), "{}", stderr(&o));
    assert_eq!(sorted_lines(&whole), whole_sorted);
    // Shards run one after the other into one store fill it.
    let together = dir.join("together.jsonl");
    for i in 0..3 {
        ok(run_suite(
            &suite,
            &together,
            &["--shard", &format!("{i}/3")],
            "2",
        ));
    }
    assert_eq!(sorted_lines(&together), whole_sorted);
}

#[test]
fn merge_refuses_other_suites_and_versions() {
    let dir = temp("refuse");
    let a = write_suite(&dir, &GOALS[..2], 300, "0.7");
    let store_a = dir.join("a.jsonl");
    ok(run_suite(&a, &store_a, &[], "2"));
    let other = temp("refuse-other");
    let b = write_suite(&other, &GOALS[..2], 300, "0.8");
    let store_b = dir.join("b.jsonl");
    ok(run_suite(&b, &store_b, &[], "2"));
    let out = dir.join("out.jsonl");
    let merge = |x: &Path, y: &Path| {
        goalc(
            &[
                "merge",
                "--out",
                out.to_str().unwrap(),
                x.to_str().unwrap(),
                y.to_str().unwrap(),
            ],
            "1",
        )
    };
    let o = merge(&store_a, &store_b);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("different suites"), "{}", stderr(&o));
    assert!(!out.exists(), "a refused merge wrote its output");
    // The same suite's store as written by another goalc version.
    let text = std::fs::read_to_string(&store_a).unwrap();
    let version = format!("\"goalc\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version));
    let older = dir.join("older.jsonl");
    std::fs::write(&older, text.replace(&version, "\"goalc\":\"0.0.1\"")).unwrap();
    let o = merge(&store_a, &older);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("different goalc versions"),
        "{}",
        stderr(&o)
    );
    // And a run on it does not reuse the other version's cells.
    let o = ok(run_suite(&a, &older, &[], "2"));
    assert!(stderr(&o).contains("reused 0 of"), "{}", stderr(&o));
    std::fs::remove_dir_all(&other).unwrap();
}

#[test]
fn a_bad_suite_is_diagnosed_with_its_place_and_nothing_runs() {
    let dir = temp("bad");
    let suite = dir.join("bad.toml");
    std::fs::write(
        &suite,
        format!("goals = [\"{ROOT}/goals/easy.goal\"]\n[[trace]]\nmodel = {{ jobs = 10 }}\n[axes]\nlaods = [0.9]\n"),
    )
    .unwrap();
    let store = dir.join("s.jsonl");
    let o = run_suite(&suite, &store, &[], "1");
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("bad.toml:5:1: error: unknown field `laods`"),
        "{e}"
    );
    assert!(e.contains("did you mean `loads`?"), "{e}");
    assert!(!store.exists());
    // Options the suite file replaces are refused, not ignored.
    let o = goalc(
        &["bench", "--suite", suite.to_str().unwrap(), "--load", "0.9"],
        "1",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("remove --load"), "{}", stderr(&o));
    // What only the trace can tell is found before anything runs too (no
    // cell of month 1 either), at its place, in the suite's words: its
    // key, not a command-line flag, and numbers as written.
    for (axes, said) in [
        (
            "months = [1, 99]",
            "bad.toml:5:14: error: `99` is not a month of lublin-1000-64-s2\n",
        ),
        (
            "load_factors = [1, 1e308]",
            "bad.toml:5:20: error: `load_factors` value 1e308 would make workload \
             `lublin-1000-64-s2` more jobs than the 8388608 goalc builds at once\n",
        ),
    ] {
        std::fs::write(
            &suite,
            format!("goals = [\"{ROOT}/goals/easy.goal\"]\n[[trace]]\npath = \"{ROOT}/traces/lublin-1000-64-s2.swf\"\n[axes]\n{axes}\n"),
        )
        .unwrap();
        let o = run_suite(&suite, &store, &[], "1");
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{axes}: {e}");
        assert!(e.contains(said), "{axes}: {e}");
        assert!(e.contains("the suite has errors, nothing was run"), "{e}");
        assert!(
            !e.contains("--months") && !e.contains("--load") && !e.contains("00000000"),
            "{axes}: {e}"
        );
        assert!(!store.exists(), "{axes}");
    }
}

/// A suite of more cells than goalc lays out is refused from its counts,
/// at its longest axis, before a cell is made or a script written.
#[test]
fn a_suite_of_too_many_cells_is_refused_before_any_is_made() {
    let dir = temp("too-many");
    let suite = dir.join("big.toml");
    let list = |n: usize, value: &dyn Fn(usize) -> String| {
        (1..=n).map(value).collect::<Vec<_>>().join(",")
    };
    // 1001 seeds x 1000 loads: 1,001,000 cells, just past the limit.
    std::fs::write(
        &suite,
        format!(
            "goals = [\"{ROOT}/goals/easy.goal\"]\n[[trace]]\nmodel = {{ jobs = 10 }}\n[axes]\n\
             seeds = [{}]\nloads = [{}]\n",
            list(1001, &|s| s.to_string()),
            list(1000, &|l| format!("{}", l as f64 / 1000.0)),
        ),
    )
    .unwrap();
    let slurm = dir.join("slurm");
    let o = goalc(
        &[
            "bench",
            "--suite",
            suite.to_str().unwrap(),
            "--emit-slurm",
            slurm.to_str().unwrap(),
            "--shards",
            "3",
        ],
        "1",
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(
            "big.toml:5:9: error: the suite would have 1001000 cells, more than the 1000000 \
             a suite may have\n"
        ),
        "{e}"
    );
    assert!(e.contains("the longest axis, 1001 values"), "{e}");
    assert!(
        e.contains("its cells are 1 goal x 1001 workloads of the traces (the model once per seed) x 1000 loads;"),
        "{e}"
    );
    assert!(!slurm.exists());
    let store = dir.join("s.jsonl");
    let o = run_suite(&suite, &store, &[], "1");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!store.exists());
}

#[test]
fn emit_slurm_writes_an_array_and_a_dependent_merge() {
    let dir = temp("emit");
    let suite = write_suite(&dir, &GOALS[..2], 300, "0.7");
    let out = dir.join("slurm");
    ok(goalc(
        &[
            "bench",
            "--suite",
            suite.to_str().unwrap(),
            "--emit-slurm",
            out.to_str().unwrap(),
            "--shards",
            "3",
        ],
        "1",
    ));
    let array = std::fs::read_to_string(out.join("array.sbatch")).unwrap();
    assert!(array.contains("#SBATCH --array=0-2\n"), "{array}");
    assert!(array.contains(GOALC), "{array}");
    let merge = std::fs::read_to_string(out.join("merge.sbatch")).unwrap();
    assert!(
        merge.contains("shard-2.jsonl") && !merge.contains("shard-3"),
        "{merge}"
    );
    let submit = std::fs::read_to_string(out.join("submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterany:"), "{submit}");
}

/// A cell that cannot run (GREEDY on a trace naming a time zone nobody
/// knows) stops no other: they run and are stored, the exit code is 1,
/// and a rerun runs only the failed cells.
#[test]
fn a_cell_that_cannot_run_stops_no_other() {
    let dir = temp("failing-cell");
    let mars = dir.join("mars.swf");
    std::fs::write(&mars, common::MARS_TRACE).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "goals = [\"{ROOT}/goals/easy.goal\", \"{ROOT}/goals/greedy-hand.goal\"]\n\
             [[trace]]\nmodel = {{ jobs = 200, procs = 32 }}\n[[trace]]\npath = \"mars.swf\"\n"
        ),
    )
    .unwrap();
    let store = dir.join("s.jsonl");
    for (round, ran) in [
        (1, "ran 4 (1 of them failed)"),
        (2, "reused 3 of 4 cells, ran 1 (1 of them failed)"),
    ] {
        let o = run_suite(&suite, &store, &[], "2");
        assert_eq!(o.status.code(), Some(1), "round {round}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(ran), "round {round}: {e}");
        // The header line is named, as a job line would be.
        let said = format!(
            "GREEDY hand f4 on mars: trace `mars`: {}:1: TimeZoneString",
            mars.display()
        );
        assert!(e.contains(&said), "{e}");
        assert!(e.contains("1 of 4 cells failed (said above)"), "{e}");
        assert_eq!(sorted_lines(&store).len(), 3, "round {round}");
    }
    // The report of the store says it is partial: in the tables
    // themselves, so a pasted report keeps it, and on standard error for
    // the data formats, which have no place for it.
    let report = |format: &str| {
        ok(goalc(
            &[
                "report",
                store.to_str().unwrap(),
                "--no-plots",
                "--format",
                format,
            ],
            "1",
        ))
    };
    let missing = "holds 3 of its suite's 4 cells: 1 missing (failed";
    let o = report("table");
    assert!(
        stdout(&o).contains(&format!("warning: this store {missing}")),
        "{}",
        stdout(&o)
    );
    assert!(!stderr(&o).contains(missing), "said twice: {}", stderr(&o));
    let o = report("markdown");
    assert!(
        stdout(&o).contains(&format!("> **Warning:** this store {missing}")),
        "{}",
        stdout(&o)
    );
    for format in ["csv", "json"] {
        let o = report(format);
        assert!(
            stderr(&o).contains(&format!("s.jsonl {missing}")),
            "{format}: {}",
            stderr(&o)
        );
        assert!(!stdout(&o).contains(missing), "{format}: {}", stdout(&o));
    }
}

/// One goal twice in a store, as two cells under the same axes (a store
/// edited, or mixing two versions of a goal): the report shows both rows
/// and says why, in the tables and on standard error for CSV.
#[test]
fn a_goal_twice_under_two_keys_is_said() {
    let dir = temp("twins");
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        format!("goals = [\"{ROOT}/goals/easy.goal\"]\n[[trace]]\nmodel = {{ jobs = 100, procs = 16 }}\n"),
    )
    .unwrap();
    let store = dir.join("s.jsonl");
    ok(run_suite(&suite, &store, &[], "1"));
    let line = std::fs::read_to_string(&store).unwrap();
    let mut record: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    record["key"] = serde_json::Value::String("0".repeat(64));
    std::fs::write(&store, format!("{}{record}\n", line)).unwrap();
    let said = "goal `EASY` on `lublin-100-16` is in the store twice under the same axes";
    let o = ok(goalc(
        &["report", store.to_str().unwrap(), "--no-plots"],
        "1",
    ));
    assert!(stdout(&o).contains(said), "{}", stdout(&o));
    let o = ok(goalc(
        &[
            "report",
            store.to_str().unwrap(),
            "--no-plots",
            "--format",
            "csv",
        ],
        "1",
    ));
    assert!(stderr(&o).contains(said), "{}", stderr(&o));
}
