//! The command line as a user meets it: exit codes, one-line errors that
//! name the place, and the outputs.

mod common;

use common::Scratch;
use std::path::Path;
use std::process::{Command, Output};

fn goalc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run goalc")
}

/// Workload options out of range are refused as the command line is read,
/// naming the option, before any trace is read.
#[test]
fn workload_options_out_of_range_name_the_option() {
    for (args, option) in [
        (&["--load", "0"][..], "'--load <LOAD>'"),
        (&["--load", "nan"], "'--load <LOAD>'"),
        (&["--load-factor", "1,0.5"], "'--load-factor <F>'"),
        (&["--model-jobs", "0"], "'--model-jobs <MODEL_JOBS>'"),
        (&["--model-procs", "0"], "'--model-procs <MODEL_PROCS>'"),
        (&["--scale-to", "0"], "'--scale-to <PROCS>'"),
        (
            &["--scale-to", "64", "--scale-enlarge", "2"],
            "'--scale-enlarge <P>'",
        ),
    ] {
        let o = goalc(&[&["simulate", "missing.swf"][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(option), "{args:?}: {}", stderr(&o));
    }
}

/// Training's population sizes out of range name the option.
#[test]
fn train_population_of_zero_names_the_option() {
    let template = repo("goals/train/greedy-f2.goal");
    for (flag, option) in [("--mu", "'--mu <MU>'"), ("--lambda", "'--lambda <LAMBDA>'")] {
        let o = goalc(&["train", &template, "missing.swf", "-o", "x.goal", flag, "0"]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains(option), "{flag}: {}", stderr(&o));
    }
}

/// `--schedule-out -` is refused: it made a file named `-` where the
/// user meant standard output, which holds the table.
#[test]
fn schedule_out_dash_is_refused_and_makes_no_file() {
    let path = scratch("good-dash.swf", GOOD);
    let dir = scratch_dir("dash-cwd");
    std::fs::create_dir_all(&*dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(["simulate", path.to_str().unwrap(), "--policy", "easy"])
        .args(["--schedule-out", "-"])
        .current_dir(&*dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--schedule-out -: standard output"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("-").exists());
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A scratch path for a command to make (a folder, an output file).
fn scratch_dir(name: &str) -> Scratch {
    Scratch::path("goalc-cli-", name)
}

/// A scratch file holding `content`.
fn scratch(name: &str, content: &str) -> Scratch {
    Scratch::file("goalc-cli-", name, content)
}

const GOOD: &str = "; MaxProcs: 10\n\
1 0 -1 100 6 -1 -1 6 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 1 -1 100 8 -1 -1 8 100 -1 1 2 1 -1 1 -1 -1 -1\n\
3 2 -1 100 9 -1 -1 9 100 -1 1 1 1 -1 1 -1 -1 -1\n\
4 3 -1 250 2 -1 -1 2 250 -1 1 3 1 -1 1 -1 -1 -1\n";

fn one_line_error(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(stdout(o).is_empty());
    err
}

#[test]
fn bad_swf_line_names_file_line_and_field() {
    let path = scratch("bad.swf", &GOOD.replace("2 1 -1 100 8", "2 1 -1 1O0 8"));
    let err = one_line_error(&goalc(&["simulate", path.to_str().unwrap()]));
    assert!(
        err.contains(&format!(
            "{}:3: field 4 (run time): `1O0` is not a number",
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn a_trace_whose_every_job_is_dropped_says_why() {
    // Job 1 is wider than the machine, job 2 has no run time.
    let path = scratch(
        "alldropped.swf",
        "; MaxProcs: 4\n\
         1 0 -1 100 6 -1 -1 6 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 1 -1 -1 2 -1 -1 2 100 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let err = one_line_error(&goalc(&["simulate", path.to_str().unwrap()]));
    assert!(
        err.contains(
            "has no jobs to simulate (dropped 2: 1 run time missing or <= 0, \
             1 wider than the machine)"
        ),
        "{err}"
    );
}

#[test]
fn missing_file_is_named() {
    let err = one_line_error(&goalc(&["simulate", "/no/such/trace.swf"]));
    assert!(
        err.starts_with("goalc: error: /no/such/trace.swf: "),
        "{err}"
    );
}

#[test]
fn trace_without_header_needs_a_machine_size() {
    let body: String = GOOD.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let path = scratch("noheader.swf", &body);
    let err = one_line_error(&goalc(&["simulate", path.to_str().unwrap()]));
    assert!(
        err.contains("no `MaxProcs` or `MaxNodes` in the header"),
        "{err}"
    );
    // With --procs it runs.
    let o = goalc(&["simulate", path.to_str().unwrap(), "--procs", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn unknown_policy_is_named() {
    let path = scratch("good1.swf", GOOD);
    let err = one_line_error(&goalc(&[
        "simulate",
        path.to_str().unwrap(),
        "--policy",
        "fifo",
    ]));
    assert!(err.contains("unknown policy `fifo`"), "{err}");
}

/// A policy name holds its settings to the goal language's ranges.
#[test]
fn policy_settings_out_of_the_goal_languages_range_are_refused() {
    let path = scratch("policy-range.swf", GOOD);
    for (policy, said) in [
        (
            "easy:4294967295",
            "reservation depth 4294967295 is out of range: 1 to 1000",
        ),
        (
            "fairshare-starvation:1s:all",
            "the starvation wait must be at least 1m",
        ),
    ] {
        let err = one_line_error(&goalc(&["simulate", path.arg(), "--policy", policy]));
        assert!(err.contains(said), "{policy}: {err}");
    }
}

/// A trace without requested times (SWF field 9) is planned on run times,
/// and the report says for how many jobs; a trace with them says nothing.
#[test]
fn jobs_without_a_requested_time_are_counted_in_the_report() {
    let no_field_9 = GOOD
        .replace("6 100 -1 1 1", "6 -1 -1 1 1")
        .replace("9 100 -1 1 1", "9 0 -1 1 1");
    let path = scratch("no-field-9.swf", &no_field_9);
    let out = stdout(&goalc(&["simulate", path.arg(), "--policy", "easy"]));
    assert!(
        out.contains("; 2 jobs without a requested time (SWF field 9): estimate = run time"),
        "{out}"
    );
    let path = scratch("field-9.swf", GOOD);
    let out = stdout(&goalc(&["simulate", path.arg(), "--policy", "easy"]));
    assert!(
        out.starts_with("trace ") && !out.contains("field 9"),
        "{out}"
    );
}

/// Jobs that run past their requested time are killed at it, and the
/// report says for how many: their work, and the offered load, are less
/// than the trace's. With exact estimates no job is.
#[test]
fn jobs_killed_at_their_requested_time_are_counted_in_the_report() {
    let past = GOOD.replace("2 -1 -1 2 250", "2 -1 -1 2 200");
    let path = scratch("killed.swf", &past);
    let said = "; 1 job running past the requested time (SWF field 9): killed at it";
    let out = stdout(&goalc(&["simulate", path.arg(), "--policy", "fcfs"]));
    assert!(out.contains(said), "{out}");
    // The load is the work over the span of submits (3 s) and the
    // machine (10): 600 + 800 + 900 processor-seconds, and job 4's 2 x 200
    // killed or 2 x 250 run whole.
    let load = |out: &str| {
        let at = out.find("offered load ").unwrap() + "offered load ".len();
        out[at..].split_whitespace().next().unwrap().to_string()
    };
    let exact = stdout(&goalc(&[
        "simulate",
        path.arg(),
        "--policy",
        "fcfs",
        "--exact-estimates",
    ]));
    assert!(!exact.contains("past the requested time"), "{exact}");
    assert_eq!(
        (load(&out), load(&exact)),
        ("90.000".into(), "93.333".into())
    );
}

/// Requested processors of 0 or below other than -1 (SWF field 8) are not
/// valid: the job runs on its allocated processors, and the report says
/// for how many jobs.
#[test]
fn invalid_requested_processors_are_counted_in_the_report() {
    let bad_field_8 = GOOD
        .replace("6 -1 -1 6 100", "6 -1 -1 -3 100")
        .replace("8 -1 -1 8 100", "8 -1 -1 0 100")
        .replace("9 -1 -1 9 100", "9 -1 -1 -1 100");
    let path = scratch("bad-field-8.swf", &bad_field_8);
    let out = stdout(&goalc(&["simulate", path.arg(), "--policy", "fcfs"]));
    assert!(
        out.contains(
            "; 2 jobs with requested processors (SWF field 8) of 0 or below but not -1, \
             read as not given: width = allocated (field 5)"
        ),
        "{out}"
    );
    // Allocated widths 6, 8 and 9 of 10 processors: one at a time, each
    // 100 s; the fourth (2 wide) finds 1 free beside the third.
    let schedule = scratch("bad-field-8.out.swf", "");
    let o = goalc(&[
        "simulate",
        path.arg(),
        "--policy",
        "fcfs",
        "--schedule-out",
        schedule.arg(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&schedule).unwrap();
    let waits: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(waits, ["0", "99", "198", "297"]);
    let path = scratch("field-8.swf", GOOD);
    let out = stdout(&goalc(&["simulate", path.arg(), "--policy", "fcfs"]));
    assert!(!out.contains("field 8"), "{out}");
}

#[test]
fn bad_option_value_is_a_usage_error() {
    let o = goalc(&["simulate", "--window", "5d..1d"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("ends before it starts"),
        "{}",
        stderr(&o)
    );
    let o = goalc(&["simulate", "--load", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    // Nothing to run is said at once, not after reading a trace.
    for (option, said) in [
        ("--first-jobs", "must be at least 1"),
        ("--procs", "0 is not in 1..=4294967295"),
    ] {
        let o = goalc(&["simulate", option, "0"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(said), "{option}: {}", stderr(&o));
    }
}

#[test]
fn the_jobs_past_first_jobs_and_unused_model_options_are_said() {
    let path = scratch("first-jobs.swf", GOOD);
    let o = goalc(&[
        "simulate",
        path.arg(),
        "--first-jobs",
        "3",
        "--seed",
        "5",
        "--model-procs",
        "64",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Not "outside the time window": no window was asked for.
    assert!(
        stdout(&o).contains("dropped 1 job: 1 after the first jobs kept"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        stderr(&o),
        "goalc: warning: --model-procs, --seed only set up the built-in model, and this \
         run is on traces: ignored\n"
    );
}

#[test]
fn help_lists_policies_and_options() {
    let o = goalc(&["simulate", "--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    for word in [
        "--policy",
        "--load",
        "--window",
        "--warmup",
        "--exact-estimates",
        "--scale-to",
        "--scale-factor",
        "--events",
        "--schedule-out",
        "--format",
        "lxf-backfill",
        "conservative",
        "easy:N",
        "no-guarantee",
    ] {
        assert!(help.contains(word), "--help lacks {word}");
    }
}

#[test]
fn json_output_has_the_measures() {
    let path = scratch("good2.swf", GOOD);
    let o = goalc(&[
        "simulate",
        path.to_str().unwrap(),
        "--policy",
        "easy,conservative",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v[0]["policy"], "fcfs-easy");
    assert_eq!(v[0]["measures"]["max_wait"], 251);
    assert_eq!(v[1]["policy"], "fcfs-conservative");
    assert_eq!(v[1]["measures"]["max_wait"], 297);
}

#[test]
fn schedule_out_writes_the_simulated_schedule_as_swf() {
    let path = scratch("good3.swf", GOOD);
    let out = path.with_file_name("schedule.swf");
    let o = goalc(&[
        "simulate",
        path.to_str().unwrap(),
        "--policy",
        "easy",
        "--schedule-out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = goalc::workload::swf::read_path(Path::new(&out), &Default::default()).unwrap();
    // EASY on this trace starts jobs at 0, 100, 253, 3 (hand_schedules.rs).
    let waits: Vec<i64> = w
        .jobs
        .iter()
        .map(|j| j.swf.as_ref().unwrap().wait)
        .collect();
    assert_eq!(waits, vec![0, 99, 251, 0]);
    assert!(w
        .header
        .lines
        .iter()
        .any(|l| l.contains("policy fcfs-easy")));
    assert_eq!(w.header.machine_size(), Ok(Some(10)));
}

#[test]
fn scale_to_moves_the_trace_to_a_bigger_machine() {
    let path = scratch("good-scale.swf", GOOD);
    let out = path.with_file_name("scaled-schedule.swf");
    // Factor 2, every job duplicated: each of the 4 jobs twice on 20
    // processors, the copies numbered 5 to 8.
    let o = goalc(&[
        "simulate",
        path.to_str().unwrap(),
        "--policy",
        "easy",
        "--scale-to",
        "20",
        "--scale-factor",
        "exact",
        "--scale-enlarge",
        "0",
        "--schedule-out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = goalc::workload::swf::read_path(Path::new(&out), &Default::default()).unwrap();
    assert_eq!(w.procs, 20);
    let jobs: Vec<(i64, i64, u32)> = w
        .jobs
        .iter()
        .map(|j| (j.number, j.submit, j.procs))
        .collect();
    assert_eq!(
        jobs,
        vec![
            (1, 0, 6),
            (5, 0, 6),
            (2, 1, 8),
            (6, 1, 8),
            (3, 2, 9),
            (7, 2, 9),
            (4, 3, 2),
            (8, 3, 2)
        ]
    );
    assert!(w
        .header
        .lines
        .iter()
        .any(|l| l.contains("scaled by goalc from 10 to 20 processors")));
    // The calibrated factor is the default, and the report names it.
    let o = goalc(&[
        "simulate",
        path.to_str().unwrap(),
        "--scale-to",
        "20",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v[0]["procs"], 20);
    let trace = v[0]["trace"].as_str().unwrap();
    assert!(trace.starts_with("good-scale@20p(f="), "{trace}");
}

#[test]
fn scale_to_refuses_bad_settings_in_one_line() {
    let path = scratch("good-scale-bad.swf", GOOD);
    let run = |extra: &[&str]| {
        let mut args = vec!["simulate", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        goalc(&args)
    };
    for (extra, says) in [
        (
            &["--scale-to", "5"][..],
            "runs on 10 processors; scaling it to 5 would shrink it",
        ),
        (
            &["--scale-to", "20", "--scale-factor", "40"],
            "scale factor must be a number from 1 to 20 (the new machine's processors), got 40",
        ),
    ] {
        let err = one_line_error(&run(extra));
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    // Usage errors: a machine of no processors, a share that is not one
    // (see `workload_options_out_of_range_name_the_option`), a setting of
    // --scale-to without it, a factor that is not one.
    let o = run(&["--scale-factor", "exact"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--scale-to"), "{}", stderr(&o));
    let o = run(&["--scale-to", "20", "--scale-factor", "twice"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`twice` is not awrt, exact or a number"),
        "{}",
        stderr(&o)
    );
}

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_is_quiet_on_valid_goals() {
    let o = goalc(&[
        "check",
        &repo("goals/easy.goal"),
        &repo("goals/tradeoff-tw-avgx.goal"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty() && stdout(&o).is_empty());
}

#[test]
fn warnings_do_not_fail_the_check() {
    // goals/ keeps the paper's harmful combinations, to reproduce them.
    let o = goalc(&["check", &repo("goals")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("tradeoff-maxw-avgx.goal:5:10: warning: an equal trade-off of `max_wait` against `avg_slowdown` starves jobs"), "{err}");
    assert!(!err.contains(": error:"), "{err}");
}

#[test]
fn check_reports_errors_with_exit_1() {
    let bad = scratch("typo.goal", "backfill eazy\n");
    let good = repo("goals/easy.goal");
    let o = goalc(&["check", &good, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "{}:1:10: error: `eazy` is not a backfill mode",
            bad.display()
        )),
        "{err}"
    );
    assert!(err.contains("did you mean `easy`?"), "{err}");
}

#[test]
fn check_json_is_machine_readable() {
    let bad = scratch("dup.goal", "order lxf\norder sjf\n");
    let o = goalc(&["check", "--format", "json", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let d = &v[0];
    assert_eq!(d["file"], bad.display().to_string());
    assert_eq!((d["line"].as_u64(), d["col"].as_u64()), (Some(2), Some(1)));
    assert_eq!(d["severity"], "error");
    assert_eq!(d["span"]["start"], 10);
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("conflicts with line 1"));
    assert!(d["hint"].is_string());
}

#[test]
fn check_usage_errors_exit_2() {
    assert_eq!(goalc(&["check"]).status.code(), Some(2));
    assert_eq!(goalc(&["check", "/no/such.goal"]).status.code(), Some(2));
}

#[test]
fn bench_runs_goals_and_marks_the_best() {
    let trace = repo("traces/lublin-1000-64-s2.swf");
    let o = goalc(&[
        "bench",
        &repo("goals/fcfs.goal"),
        &repo("goals/lxf-backfill.goal"),
        "--trace",
        &trace,
        "--format",
        "markdown",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("#### trace lublin-1000-64-s2: 64 processors"),
        "{out}"
    );
    assert!(out.contains("| FCFS | `fcfs-nobackfill` |"), "{out}");
    assert!(out.contains("| LXF-backfill | `lxf-easy` |"), "{out}");
    assert!(out.contains("**"), "{out}");
}

/// Reports know traces and goals by name: two of one name would share a
/// table and give rows no reader could tell apart, so bench refuses them.
#[test]
fn bench_refuses_two_traces_or_goals_of_one_name() {
    let easy = repo("goals/easy.goal");
    // `bench` of easy.goal and `more`: its one-line error.
    let refused = |more: &[&str]| {
        let mut args = vec!["bench", easy.as_str()];
        args.extend_from_slice(more);
        one_line_error(&goalc(&args))
    };
    let a = scratch("tiny.swf", GOOD);
    let b = scratch("tiny.swf.gz", GOOD); // the same name once `.gz` is off
    let err = refused(&["--trace", a.arg(), "--trace", b.arg()]);
    assert!(
        err.contains(&format!(
            "traces `{}` and `{}` are both named `tiny` in reports",
            a.display(),
            b.display()
        )),
        "{err}"
    );
    let again = scratch("easy-again.goal", &std::fs::read_to_string(&easy).unwrap());
    let err = refused(&[again.arg(), "--trace", a.arg()]);
    assert!(
        err.contains(&format!(
            "goal files `{easy}` and `{}` are both named `EASY`",
            again.display()
        )),
        "{err}"
    );
    let err = refused(&[&easy, "--trace", a.arg()]);
    assert!(
        err.contains("is named twice: name each goal file once"),
        "{err}"
    );
}

/// Node budgets on the command line are held to the goal language's
/// range, and one given twice would be two rows of one name.
#[test]
fn bench_refuses_budgets_out_of_range_or_twice() {
    let goal = repo("goals/tradeoff-tw-avgx.goal");
    for (budgets, said) in [
        ("0", "--budget: a node budget is 1 to 100000000, got 0"),
        (
            "18446744073709551615,1",
            "--budget: a node budget is 1 to 100000000, got 18446744073709551615",
        ),
        (
            "100,40,100",
            "--budget: 100 is given twice: each budget once",
        ),
    ] {
        let o = goalc(&["bench", &goal, "--budget", budgets, "--model-jobs", "50"]);
        let err = one_line_error(&o);
        assert!(err.contains(said), "{budgets}: {err}");
    }
}

/// `--format json`, `csv` and `markdown` write no results folder, so an
/// `--out` beside them was dropped without a word: refused, before anything
/// runs.
#[test]
fn bench_refuses_a_results_folder_it_would_not_write() {
    let trace = scratch("out-format.swf", GOOD);
    let out = scratch_dir("out-format-results");
    for format in ["json", "csv", "markdown"] {
        let o = goalc(&[
            "bench",
            &repo("goals/easy.goal"),
            "--trace",
            trace.arg(),
            "--format",
            format,
            "--out",
            out.arg(),
        ]);
        let err = one_line_error(&o);
        assert!(
            err.contains("--out names the results folder of a table run"),
            "{format}: {err}"
        );
        assert!(!out.exists(), "{format}");
    }
    // A file as the folder was found only after every run, and their tables
    // were lost to the error: said before anything runs.
    let err = one_line_error(&goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        "--trace",
        trace.arg(),
        "--out",
        trace.arg(),
    ]));
    assert!(
        err.contains(&format!(
            "{}: not a folder, so no place for the results (--out names a folder)",
            trace.arg()
        )),
        "{err}"
    );
}

#[test]
fn bench_refuses_goals_with_errors() {
    let bad = scratch("bad-bench.goal", "owner 10*awrt(group 7)\n");
    let o = goalc(&["bench", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("there is no user group 7: the paper's groups"),
        "{err}"
    );
    assert!(err.contains("nothing was run"), "{err}");
    assert!(stdout(&o).is_empty());
}

/// A valid trace a goal's run-time limit would split into more jobs than
/// memory holds (job 2 runs for 300 years, in chunks of a minute): a clear
/// error naming the goal and the job, not an exhausted machine.
#[test]
fn a_runtime_limit_that_would_exhaust_memory_is_refused() {
    let goal = scratch(
        "minute.goal",
        "name \"minute\"\nbackfill conservative\nlimit runtime 1m\n",
    );
    let trace = scratch(
        "centuries.swf",
        "; MaxProcs: 4\n\
         1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 5 -1 9460800000 2 -1 -1 2 9460800000 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let o = goalc(&[
        "bench",
        goal.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let err = one_line_error(&o);
    assert!(
        err.contains(
            "goal `minute`: a run-time limit of 60s (job 2 alone splits into 157680000 \
             chunks) could make workload `centuries` up to 157680002 jobs"
        ),
        "{err}"
    );
}

/// A trace numbering a job i64::MAX leaves no number for the jobs a
/// run-time limit or a load factor adds: a clear error naming the trace
/// and the number, where they once wrapped onto the trace's own numbers
/// (a chunk lost from the measures, a schedule goalc would not read back).
#[test]
fn jobs_added_past_the_largest_job_number_are_refused() {
    let goal = scratch(
        "hourly.goal",
        "name \"hourly\"\nbackfill easy\nlimit runtime 1h\n",
    );
    let trace = scratch(
        "topnumber.swf",
        "; MaxProcs: 4\n\
         -9223372036854775808 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         9223372036854775807 5 -1 7200 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let no_room =
        "workload `topnumber`: job numbers up to 9223372036854775807 leave no room after \
                   them to number the";
    let err = one_line_error(&goalc(&["bench", goal.arg(), "--trace", trace.arg()]));
    assert!(
        err.contains(&format!(
            "goal `hourly`: {no_room} chunks of a run-time limit of 3600s"
        )),
        "{err}"
    );
    let schedule = scratch_dir("topnumber-schedule.swf");
    let err = one_line_error(&goalc(&[
        "simulate",
        trace.arg(),
        "--policy",
        "easy",
        "--load-factor",
        "2",
        "--schedule-out",
        schedule.arg(),
    ]));
    assert!(
        err.contains(&format!("{no_room} copies of load factor 2")),
        "{err}"
    );
    assert!(!schedule.exists(), "a schedule was written");
}

/// A moldable job of billions of processors and years of run time would
/// run past the core's horizon on one processor: the simulation refuses
/// the workload (exit 1) and names the goal whose speedup model made it.
#[test]
fn a_workload_past_the_horizon_names_the_goal() {
    let trace = scratch(
        "horizon.swf",
        "; MaxProcs: 4294967295\n\
         1 0 -1 2147483648 4294967294 -1 -1 4294967294 2147483648 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 10 -1 100 2 -1 -1 2 200 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let o = goalc(&[
        "bench",
        &repo("goals/mold-a-system-obf1-ef0.goal"),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "goalc: error: goal `MOLD Fig. 2: ObF 1, EF 0 (A = system)`: the workload could \
             run past the largest time goalc simulates"
        ),
        "{err}"
    );
}

#[test]
fn bench_output_is_the_same_on_one_thread() {
    let trace = repo("traces/lublin-1000-64-s2.swf");
    let args = [
        "bench",
        &repo("goals"),
        "--trace",
        &trace,
        "--format",
        "csv",
    ];
    let many = goalc(&args);
    let one = Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(args)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(many.status.success());
    // Everything but the wall-clock timings of the search must agree.
    let strip = |csv: String| -> Vec<String> {
        csv.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .map(|cells| {
                let n = cells.len();
                cells[..n.saturating_sub(2)].join(",")
            })
            .collect()
    };
    let header = stdout(&many).lines().next().unwrap_or_default().to_string();
    assert!(header.ends_with("p50_epoch_us,p99_epoch_us"), "{header}");
    assert_eq!(strip(stdout(&many)), strip(stdout(&one)));
}

#[test]
fn bench_reports_admission_against_utilization_and_load() {
    let trace = repo("traces/lublin-1000-64-s2.swf");
    let o = goalc(&[
        "bench",
        &repo("goals/qops-s02-f80.goal"),
        &repo("goals/easy.goal"),
        "--trace",
        &trace,
        "--exact-estimates",
        "--load-factor",
        "1.0,1.4",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let header = out.lines().next().unwrap();
    let cols: Vec<&str> = header.split(',').collect();
    let missed = cols
        .iter()
        .position(|c| *c == "missed")
        .expect("missed column");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // Two workloads (load factors 1.0 and 1.4), two goals each.
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().any(|r| r[0].ends_with("x1.4dup")));
    for r in rows.iter().filter(|r| r[2].starts_with("QoPS")) {
        assert_eq!(
            r[missed], "0",
            "admitted jobs must meet their deadlines: {r:?}"
        );
    }
    let out_dir = scratch_dir("admission-results");
    let table = goalc(&[
        "bench",
        &repo("goals/qops-s02-f80.goal"),
        &repo("goals/easy.goal"),
        "--trace",
        &trace,
        "--exact-estimates",
        "--load-factor",
        "1.0,1.4",
        "--full",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(stdout(&table).contains("admission control against achieved utilization"));
}

/// The trace of `tests/events.rs` (4 processors) where one epoch per
/// instant and both per-event orders give three EASY schedules.
const EVENTS: &str = "; MaxProcs: 4\n\
1 0 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 0 -1 200 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n\
3 1 -1 10 3 -1 -1 3 10 -1 1 1 1 -1 1 -1 -1 -1\n\
4 10 -1 50 1 -1 -1 1 50 -1 1 1 1 -1 1 -1 -1 -1\n\
5 1000 -1 100 2 -1 -1 2 1000 -1 1 1 1 -1 1 -1 -1 -1\n\
6 1000 -1 100 2 -1 -1 2 500 -1 1 1 1 -1 1 -1 -1 -1\n\
7 1001 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n\
8 1002 -1 50 2 -1 -1 2 50 -1 1 1 1 -1 1 -1 -1 -1\n";

#[test]
fn events_option_picks_the_semantics_and_says_so() {
    let path = scratch("events.swf", EVENTS);
    let trace = path.to_str().unwrap();
    // Waits of the hand-computed schedules (starts minus submits).
    for (events, waits) in [
        ("per-instant", [0, 0, 9, 10, 0, 0, 99, 108]),
        ("submissions-first", [0, 0, 59, 0, 0, 0, 149, 98]),
        ("completions-first", [0, 0, 9, 10, 0, 0, 149, 98]),
    ] {
        let out = path.with_file_name(format!("schedule-{events}.swf"));
        let o = goalc(&[
            "simulate",
            trace,
            "--policy",
            "easy",
            "--events",
            events,
            "--schedule-out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let w = goalc::workload::swf::read_path(&out, &Default::default()).unwrap();
        let got: Vec<i64> = w
            .jobs
            .iter()
            .map(|j| j.swf.as_ref().unwrap().wait)
            .collect();
        assert_eq!(got, waits, "{events}");
        // The schedule and the table say how it was made, unless per instant.
        let noted = w.header.lines.iter().any(|l| l.contains("events"));
        let captioned = stdout(&o).lines().next().unwrap().contains("; events");
        assert_eq!(noted, events != "per-instant", "{events}");
        assert_eq!(captioned, events != "per-instant", "{events}");
    }

    // JSON and CSV carry the mode only when it is not the default.
    let json = |events: &str| {
        let o = goalc(&[
            "simulate", trace, "--policy", "easy", "--events", events, "--format", "json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).expect("json")
    };
    assert_eq!(json("completions-first")[0]["events"], "completions-first");
    assert_eq!(json("completions-first")[0]["epochs"], 16);
    assert!(json("per-instant")[0].get("events").is_none());
    let o = goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        "--trace",
        trace,
        "--events",
        "submissions-first",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let mut lines = out.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("trace,procs,label,policy,offered_load,events,epochs,"),
        "{out}"
    );
    assert!(
        lines.next().unwrap().contains(",submissions-first,16,"),
        "{out}"
    );

    let o = goalc(&["simulate", trace, "--events", "per-second"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("per-instant"), "{}", stderr(&o));
}

/// A small trace with users of very different consumption, on 8
/// processors, over a few days from a Friday (UTC): every situation occurs.
fn users_trace() -> Scratch {
    let mut swf =
        String::from("; MaxProcs: 8\n; UnixStartTime: 1709251200\n; TimeZoneString: UTC\n");
    for i in 0..120i64 {
        let user = [1, 1, 1, 2, 2, 3, 4, 5][(i % 8) as usize];
        let procs = [1, 2, 4, 8, 1, 3, 2, 1][(i * 7 % 8) as usize];
        let run = 600 + (i * 997 % 7200);
        swf.push_str(&format!(
            "{} {} -1 {run} {procs} -1 -1 {procs} {} -1 1 {user} 1 -1 -1 -1 -1 -1\n",
            i + 1,
            i * 1800,
            run * 2
        ));
    }
    scratch("users.swf", &swf)
}

/// Where training cannot write its goal or checkpoint is said before it
/// trains (the README's run takes most of an hour), and nothing is left
/// behind.
#[test]
fn train_finds_an_unwritable_out_before_training() {
    let trace = users_trace();
    let folder = scratch_dir("train-out");
    std::fs::create_dir(&*folder).unwrap();
    let missing = folder.join("no/such/x.goal");
    let goal = folder.join("x.goal");
    let train = |extra: &[&str]| {
        let mut args = vec![
            "train",
            "goals/train/greedy-f2.goal",
            trace.arg(),
            "--generations",
            "500",
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_goalc"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .unwrap()
    };
    let err = one_line_error(&train(&["--out", missing.to_str().unwrap()]));
    assert!(err.contains("no/such/x.goal: No such file"), "{err}");
    let err = one_line_error(&train(&["--out", folder.arg()]));
    assert!(err.contains("a folder, not a file to write"), "{err}");
    let err = one_line_error(&train(&[
        "--out",
        goal.to_str().unwrap(),
        "--checkpoint",
        missing.to_str().unwrap(),
    ]));
    assert!(err.contains("no/such/x.goal: No such file"), "{err}");
    assert!(!goal.exists(), "the probe of --out was left behind");
}

#[test]
fn train_writes_a_goal_that_checks_and_runs_and_is_pinned() {
    let trace = users_trace();
    let out = scratch("trained.goal", "");
    let template = repo("goals/train/greedy-f2.goal");
    let run = || {
        goalc(&[
            "train",
            &template,
            trace.to_str().unwrap(),
            "--mu",
            "3",
            "--lambda",
            "6",
            "--generations",
            "2",
            "--train-seed",
            "7",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = run();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    // Named without the scratch folder, so the pin holds anywhere.
    let pinned = text
        .replace(trace.to_str().unwrap(), "users.swf")
        .replace(&template, "goals/train/greedy-f2.goal");
    insta::with_settings!({snapshot_path => "../snapshots/train", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("trained-on-users", pinned);
    });
    // Same seed, same goal.
    assert!(run().status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    let o = goalc(&["check", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let results = scratch_dir("trained-results");
    let o = goalc(&[
        "bench",
        out.to_str().unwrap(),
        &repo("goals/greedy-easy.goal"),
        "--trace",
        trace.to_str().unwrap(),
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The summary's owner group, and the full report's owner column.
    assert!(stdout(&o).contains("objective"), "{}", stdout(&o));
    let full = std::fs::read_to_string(Path::new(&results).join("report.md")).unwrap();
    assert!(full.contains("owner_obj"), "{full}");
    // A goal to run is no template, and a template is no goal to run.
    let o = goalc(&[
        "train",
        &repo("goals/easy.goal"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing to train"), "{}", stderr(&o));
    let o = goalc(&["check", &template]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn bench_reports_the_effective_load_of_moldable_goals() {
    let trace = repo("traces/lublin-1000-64-s2.swf");
    let out_dir = scratch_dir("mold-results");
    let bench = |format: &str| {
        let goals = [
            repo("goals/mold-a-system-obf4-ef1.goal"),
            repo("goals/easy.goal"),
        ];
        let mut args = vec![
            "bench", &goals[0], &goals[1], "--trace", &trace, "--format", format,
        ];
        // Only a table run writes a results folder, and has a summary
        // that --full widens.
        if format == "table" {
            args.extend(["--full", "--out", out_dir.to_str().unwrap()]);
        }
        let o = goalc(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    // One table for the trace, moldable and rigid goals side by side; the
    // rigid goal has no effective load.
    let table = bench("table");
    assert!(
        table.starts_with("trace lublin-1000-64-s2: 64 processors"),
        "{table}"
    );
    assert_eq!(
        table.matches("trace lublin-1000-64-s2").count(),
        1,
        "{table}"
    );
    let header: Vec<&str> = table.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(
        header[..4],
        ["goal", "policy", "jobs", "eff_load"],
        "{table}"
    );
    let easy = table.lines().find(|l| l.starts_with("EASY ")).unwrap();
    assert_eq!(easy.split_whitespace().nth(3), Some("-"), "{table}");
    let csv = bench("csv");
    assert!(
        csv.starts_with("trace,procs,label,policy,offered_load,epochs,jobs,eff_load,avg_wait_s,"),
        "{csv}"
    );
    let json: serde_json::Value = serde_json::from_str(&bench("json")).unwrap();
    let eff = json[0]["effective_load"]
        .as_f64()
        .expect("an effective load");
    let offered = json[0]["offered_load"].as_f64().unwrap();
    // Every job scales to the machine with sigma up to 2: its work at
    // perfect efficiency is below its recorded width's.
    assert!(eff > 0.0 && eff < offered, "{json}");
    assert!(json[1].get("effective_load").is_none(), "{json}");
    assert_eq!(json[0]["offered_load"], json[1]["offered_load"]);
    assert_eq!(json[0]["trace"], json[1]["trace"]);
}

#[test]
fn check_accepts_the_moldable_goals_and_refuses_a_scheme_without_speedup() {
    let o = goalc(&["check", &repo("goals/mold-a-random-obf1-ef0.goal")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bad = scratch(
        "mold.goal",
        "moldable fair-share overbooking 4 efficiency 1\n",
    );
    let o = goalc(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error: moldable scheduling needs a speedup model"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn generate_adds_users_without_changing_the_jobs() {
    let swf = |extra: &[&str]| {
        let mut args = vec!["generate", "--jobs", "400", "--seed", "9"];
        args.extend_from_slice(extra);
        let o = goalc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let records = |text: &str| -> Vec<Vec<String>> {
        text.lines()
            .filter(|l| !l.starts_with(';'))
            .map(|l| l.split_whitespace().map(String::from).collect())
            .collect()
    };
    let plain = swf(&[]);
    assert_eq!(swf(&["--users", "0"]), plain);
    let with = swf(&["--users", "16"]);
    assert!(with.contains("; Note: 16 users added by goalc"), "{with}");
    let (a, b) = (records(&plain), records(&with));
    assert_eq!(a.len(), 400);
    let mut users = std::collections::BTreeSet::new();
    for (x, y) in a.iter().zip(&b) {
        // Field 12 is the user; every other field is the same.
        assert_eq!(x[11], "-1");
        let user: i64 = y[11].parse().unwrap();
        assert!((1..=16).contains(&user), "{y:?}");
        users.insert(user);
        let mut y = y.clone();
        y[11] = "-1".into();
        assert_eq!(*x, y);
    }
    assert!(users.len() > 8, "{users:?}");
    // Out of range: an error naming the parameter, no panic.
    let o = goalc(&["generate", "--jobs", "5", "--users", "200000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("users must be at most 100000, got 200000"),
        "{}",
        stderr(&o)
    );
}

/// A training of one generation of one child.
const ONE_CHILD: [&str; 6] = ["--mu", "1", "--lambda", "1", "--generations", "1"];

/// 50 jobs of the model on 16 processors, for [`ONE_CHILD`].
const SMALL_MODEL: [&str; 4] = ["--model-jobs", "50", "--model-procs", "16"];

#[test]
fn train_refuses_to_write_over_its_template_or_its_output() {
    let template = scratch(
        "clobber-template.goal",
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/goals/train/greedy-f2.goal"
        ))
        .expect("the template"),
    );
    let before = std::fs::read_to_string(template.arg()).unwrap();
    let out = scratch_dir("clobber-out.goal");
    for (checkpoint, said) in [
        (
            template.arg(),
            "the template and --checkpoint are the same file",
        ),
        (out.arg(), "-o and --checkpoint are the same file"),
    ] {
        let mut args = vec![
            "train",
            template.arg(),
            "-o",
            out.arg(),
            "--checkpoint",
            checkpoint,
        ];
        args.extend(SMALL_MODEL.into_iter().chain(ONE_CHILD));
        let err = one_line_error(&goalc(&args));
        assert!(err.contains(said), "{err}");
    }
    assert_eq!(std::fs::read_to_string(template.arg()).unwrap(), before);
}

/// A training trace named as -o or --checkpoint is refused before
/// training: the trace is read first and would be written over at the end.
#[test]
fn train_refuses_to_write_over_a_training_trace() {
    let trace = scratch(
        "clobber-trace.swf",
        &std::fs::read_to_string(repo("traces/lublin-1000-64-s2.swf")).unwrap(),
    );
    let before = std::fs::read_to_string(trace.arg()).unwrap();
    let out = scratch_dir("clobber-trace-out.goal");
    for (o, checkpoint, said) in [
        (trace.arg(), None, "and -o are the same file"),
        (
            out.arg(),
            Some(trace.arg()),
            "and --checkpoint are the same file",
        ),
    ] {
        let mut args = vec![
            "train",
            "goals/train/greedy-f2.goal",
            trace.arg(),
            "-o",
            o,
            "--first-jobs",
            "50",
        ];
        args.extend(ONE_CHILD);
        args.extend(checkpoint.iter().flat_map(|c| ["--checkpoint", c]));
        let o = Command::new(env!("CARGO_BIN_EXE_goalc"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = one_line_error(&o);
        assert!(err.contains(said), "{err}");
        assert!(err.contains("clobber-trace.swf"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(trace.arg()).unwrap(), before);
}

#[test]
fn a_checkpoint_is_written_where_its_link_points_and_never_over_a_pipe() {
    let out = scratch_dir("linked-out.goal");
    let dir = out.parent().unwrap();
    let real = dir.join("real-checkpoint.json");
    let link = dir.join("checkpoint-link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let train = |checkpoint: &Path| {
        goalc(
            &[
                "train",
                &repo("goals/train/greedy-f2.goal"),
                "-o",
                out.arg(),
                "--checkpoint",
                checkpoint.to_str().unwrap(),
            ]
            .into_iter()
            .chain(SMALL_MODEL)
            .chain(ONE_CHILD)
            .collect::<Vec<_>>(),
        )
    };
    let o = train(&link);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().starts_with('{'));
    // A named pipe (as a device would be) is refused before any training,
    // and left a pipe: a rename would have put a file in its place.
    let pipe = dir.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .unwrap();
    assert!(made.success());
    let err = one_line_error(&train(&pipe));
    assert!(err.contains("pipe: not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&pipe)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn a_policy_given_twice_is_refused() {
    for (list, said) in [
        (
            "easy,easy",
            "`fcfs-easy` is given twice (policies 1 and 2 of the list)",
        ),
        (
            "all,fcfs-easy",
            "`fcfs-easy` is given twice (policies 3 and 10 of the list)",
        ),
    ] {
        let err = one_line_error(&goalc(&[
            "simulate",
            "--model-jobs",
            "50",
            "--policy",
            list,
        ]));
        assert!(err.contains(said), "{err}");
    }
}

#[test]
fn train_resumes_only_the_training_its_checkpoint_was_of() {
    let checkpoint = scratch_dir("resume-checkpoint.json");
    let out = scratch_dir("resume-out.goal");
    let template = repo("goals/train/greedy-f2.goal");
    let train = |template: &str, jobs: &str, generations: &str, resume: bool| {
        let mut args = vec![
            "train",
            template,
            "-o",
            out.arg(),
            "--checkpoint",
            checkpoint.arg(),
            "--model-jobs",
            jobs,
            "--model-procs",
            "16",
            "--mu",
            "2",
            "--lambda",
            "3",
            "--generations",
            generations,
        ];
        if resume {
            args.push("--resume");
        }
        goalc(&args)
    };
    let o = train(&template, "60", "1", false);
    assert!(o.status.success(), "{}", stderr(&o));
    let saved = std::fs::read_to_string(checkpoint.arg()).unwrap();
    // The same training goes on from its checkpoint, and ends where a run
    // never stopped ends.
    let o = train(&template, "60", "2", true);
    assert!(o.status.success(), "{}", stderr(&o));
    let resumed = std::fs::read_to_string(out.arg()).unwrap();
    let o = train(&template, "60", "2", false);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(out.arg()).unwrap(), resumed);
    // A parent whose fitness no schedule gives was written by hand.
    let mut edited: serde_json::Value = serde_json::from_str(&saved).unwrap();
    edited["population"][0]["fitness"] = "-inf".into();
    std::fs::write(checkpoint.arg(), edited.to_string()).unwrap();
    let err = one_line_error(&train(&template, "60", "2", true));
    assert!(
        err.contains("parent 1 has fitness -inf, which no schedule gives"),
        "{err}"
    );
    // Another workload or another template is another training.
    for (template, jobs) in [
        (template.clone(), "61"),
        (repo("goals/greedy-hand.goal"), "60"),
    ] {
        std::fs::write(checkpoint.arg(), &saved).unwrap();
        let err = one_line_error(&train(&template, jobs, "2", true));
        assert!(
            err.contains(
                "this checkpoint trained another template, other traces or other workload settings"
            ),
            "{template} {jobs}: {err}"
        );
    }
}

#[test]
fn simulate_says_a_goal_file_is_no_trace() {
    let goal = repo("goals/easy.goal");
    let err = one_line_error(&goalc(&["simulate", &goal]));
    assert!(
        err.contains("is a goal file, not a trace") && err.contains("goalc bench"),
        "{err}"
    );
}

/// One goal that cannot run on a workload (GREEDY needs a time zone the
/// trace names wrongly) does not cost the others their results.
#[test]
fn a_goal_that_cannot_run_leaves_the_others_reported() {
    let trace = scratch("mars.swf", common::MARS_TRACE);
    let out = scratch_dir("mars-results");
    let o = goalc(&[
        "bench",
        &repo("goals/easy.goal"),
        &repo("goals/greedy-hand.goal"),
        "--trace",
        trace.arg(),
        "--out",
        out.arg(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    // The header line is named, as a job line would be.
    let said = format!(
        "goal `GREEDY hand f4`: trace `mars`: {}:1: TimeZoneString `Mars/Olympus`",
        trace.arg()
    );
    assert!(err.contains(&format!("goalc: error: {said}")), "{err}");
    assert!(
        err.contains("1 of 2 runs failed (said above); the results hold the other 1"),
        "{err}"
    );
    assert!(stdout(&o).contains("EASY"), "{}", stdout(&o));
    let report = std::fs::read_to_string(Path::new(out.arg()).join("report.md")).unwrap();
    // The failed run is said there too, and has no row.
    assert!(
        report.contains(&format!("- not run, on `mars`: {said}"))
            && !report.contains("| GREEDY hand"),
        "{report}"
    );
}

/// A `UnixStartTime` that puts the submits past any calendar leaves GREEDY
/// no time of week: `bench` and `train` refuse the trace as `--months`
/// does, where every instant was a weekday night without a word.
#[test]
fn greedy_refuses_a_start_past_any_calendar() {
    let trace = scratch(
        "farstart.swf",
        &common::MARS_TRACE.replace(
            "; TimeZoneString: Mars/Olympus",
            "; UnixStartTime: 10000000000000",
        ),
    );
    let past = format!(
        "trace `farstart`: {}:1: `UnixStartTime` 10000000000000 puts its submits past any \
         calendar",
        trace.arg()
    );
    let err = one_line_error(&goalc(&[
        "bench",
        &repo("goals/greedy-hand.goal"),
        "--trace",
        trace.arg(),
    ]));
    assert!(
        err.contains(&format!(
            "goal `GREEDY hand f4`: {past}; the greedy criteria need local time"
        )),
        "{err}"
    );
    let out = scratch_dir("farstart.goal");
    let err = one_line_error(&goalc(&[
        "train",
        &repo("goals/train/greedy-f2.goal"),
        trace.arg(),
        "--out",
        out.arg(),
    ]));
    assert!(err.contains(&past), "{err}");
    assert!(!out.exists(), "a goal was trained");
    let err = one_line_error(&goalc(&["simulate", trace.arg(), "--months", "all"]));
    assert!(
        err.contains(&format!(
            "{past}, so its dates and calendar months are unknown"
        )),
        "{err}"
    );
}

/// Two `UnixStartTime` lines that disagree leave the calendar months
/// unknown, and two `TimeZoneString` lines GREEDY's local time, as two
/// `MaxProcs` lines leave the machine size: an error quoting both, where
/// the first won in silence.
#[test]
fn header_lines_that_disagree_on_the_clock_are_refused() {
    let jobs = common::MARS_TRACE
        .split_once("; MaxProcs: 8\n")
        .map(|(_, jobs)| jobs)
        .unwrap();
    let starts = scratch(
        "twostarts.swf",
        &format!("; MaxProcs: 8\n; UnixStartTime: 843480031\n; UnixStartTime: 946684800\n{jobs}"),
    );
    let err = one_line_error(&goalc(&["simulate", starts.arg(), "--months", "all"]));
    assert!(
        err.contains(&format!(
            "trace `twostarts`: {}:3: header `; UnixStartTime: 843480031` (line 2) and \
             `; UnixStartTime: 946684800` disagree on the start time, so its dates and calendar \
             months are unknown",
            starts.arg()
        )),
        "{err}"
    );
    let zones = scratch(
        "twozones.swf",
        &format!(
            "; MaxProcs: 8\n; TimeZoneString: Europe/Stockholm\n; TimeZoneString: \
             Asia/Tokyo\n{jobs}"
        ),
    );
    let err = one_line_error(&goalc(&[
        "bench",
        &repo("goals/greedy-hand.goal"),
        "--trace",
        zones.arg(),
    ]));
    assert!(
        err.contains(&format!(
            "goal `GREEDY hand f4`: trace `twozones`: {}:3: header `; TimeZoneString: \
             Europe/Stockholm` (line 2) and `; TimeZoneString: Asia/Tokyo` disagree on the \
             time zone",
            zones.arg()
        )),
        "{err}"
    );
    // Lines that agree are one value.
    let agreeing = scratch(
        "agreeing.swf",
        &format!(
            "; MaxProcs: 8\n; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n\
             ; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n{jobs}"
        ),
    );
    let o = goalc(&[
        "bench",
        &repo("goals/greedy-hand.goal"),
        "--trace",
        agreeing.arg(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = goalc(&["simulate", agreeing.arg(), "--months", "all"]);
    assert!(
        stdout(&o).contains("trace agreeing:1996-09"),
        "{}",
        stdout(&o)
    );
}

/// A full disk on standard output is an error; a reader that stops early
/// (a closed pipe) is not.
#[test]
fn a_failed_write_to_standard_output_is_an_error() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else {
        return; // no /dev/full here: nothing to write to
    };
    let o = Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(["generate", "--jobs", "1000", "-o", "-"])
        .stdout(full)
        .output()
        .expect("run goalc");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("standard output: No space left on device"),
        "{}",
        stderr(&o)
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(["generate", "--jobs", "100000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run goalc");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("goalc ends");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A device is refused before anything is read (`/dev/zero` read whole
/// would fill the memory); a pipe is read like a file.
#[test]
fn devices_are_refused_and_pipes_read() {
    if Path::new("/dev/zero").exists() {
        for args in [
            &["check", "/dev/zero"][..],
            &["simulate", "/dev/zero", "--procs", "4"],
            &["bench", "--suite", "/dev/zero"],
        ] {
            let err = one_line_error(&goalc(args));
            assert!(
                err.contains("/dev/zero: not a regular file or pipe (a device or socket)"),
                "{args:?}: {err}"
            );
        }
    }
    if !Path::new("/dev/stdin").exists() {
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(["simulate", "--policy", "fcfs", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run goalc");
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        input.write_all(GOOD.as_bytes()).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 jobs simulated"), "{}", stdout(&o));
}

/// With standard error a closed pipe, an error still ends with its exit
/// code, not a panic.
#[test]
fn a_closed_standard_error_is_no_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(["simulate", "no-such-trace.swf"])
        .env("RUST_BACKTRACE", "0")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run goalc");
    // Closed long before goalc, still starting, has anything to say.
    drop(child.stderr.take());
    let status = child.wait().expect("goalc ends");
    assert_eq!(status.code(), Some(2), "{status}");
}

/// Jobs all submitted in one second have no span to measure a load over:
/// the caption says so instead of a load "over the 0s".
#[test]
fn one_instant_of_submits_has_no_offered_load() {
    let trace = scratch(
        "instant.swf",
        "; MaxProcs: 8\n\
         1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 0 -1 100 4 -1 -1 4 200 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let o = goalc(&["simulate", "--policy", "easy", trace.arg()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("every job submitted in the same second") && !out.contains("over the 0s"),
        "{out}"
    );
}

/// A `GOALC_CORES` that is no number of cores is said, and every core is
/// used; the outcome is the same whatever the cores.
#[test]
fn a_bad_cores_setting_is_said_not_ignored() {
    let run = |cores: &str| {
        Command::new(env!("CARGO_BIN_EXE_goalc"))
            .args(["simulate", "--model-jobs", "300", "--format", "csv"])
            .env("GOALC_CORES", cores)
            .output()
            .expect("run goalc")
    };
    let one = run("1");
    assert!(one.status.success(), "{}", stderr(&one));
    assert!(!stderr(&one).contains("warning"), "{}", stderr(&one));
    for bad in ["abc", "0", "-2"] {
        let o = run(bad);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "warning: GOALC_CORES={bad} is not a number of cores (1 or more)"
            )),
            "{}",
            stderr(&o)
        );
        assert_eq!(stdout(&o), stdout(&one));
    }
}

/// `goalc bench goals/easy.goal --trace FILE` run in folder `work`, where
/// its results folder lands.
fn bench_easy_in(work: &Path, file: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(["bench", &repo("goals/easy.goal"), "--trace", file])
        .current_dir(work)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run goalc")
}

/// Bench's results folder is named after the trace: a trace named `...swf`
/// or `..swf` (name `..` or `.`) wrote its report into the folder above
/// `goalc-results`, or into `goalc-results` itself, beside other results;
/// `.swf` (no name) into `goalc-results` too.
#[test]
fn a_trace_named_with_dots_keeps_its_results_in_goalc_results() {
    let work = Scratch::folder("goalc-cli-dots-");
    for (file, folder) in [("...swf", "__"), ("..swf", "_"), (".swf", "_")] {
        std::fs::write(work.join(file), GOOD).unwrap();
        let o = bench_easy_in(&work, file);
        assert!(o.status.success(), "{}", stderr(&o));
        let results = work.join("goalc-results").join(folder);
        assert!(results.join("report.md").is_file(), "{}", stdout(&o));
        assert!(!work.join("report.md").exists(), "{}", stdout(&o));
        assert!(
            !work.join("goalc-results/report.md").exists(),
            "{}",
            stdout(&o)
        );
    }
}

/// Two traces whose names make one folder name (`a,b` and `a_b`): the
/// second bench replaces the first's report, and says so; a rerun on the
/// same workload replaces its own in silence.
#[test]
fn a_report_of_other_workloads_replaced_is_said() {
    let work = Scratch::folder("goalc-cli-replaced-");
    let bench = |file: &str| {
        std::fs::write(work.join(file), GOOD).unwrap();
        let o = bench_easy_in(&work, file);
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    assert_eq!(bench("a_b.swf"), "");
    assert_eq!(bench("a_b.swf"), "");
    assert_eq!(
        bench("a,b.swf"),
        "goalc: warning: goalc-results/a_b held the report of other workloads (a_b); replaced \
         by this one's (a,b)\n"
    );
    let json = std::fs::read_to_string(work.join("goalc-results/a_b/report.json")).unwrap();
    assert!(json.contains("\"trace\": \"a,b\""), "{json}");
}

/// A calendar month in which no job was submitted (a machine down for a
/// month) has nothing to measure: the error names the month, where it named
/// only the trace, so `--months all` on such a trace did not say which.
#[test]
fn a_month_without_jobs_is_named() {
    let trace = scratch(
        "gap.swf",
        "; MaxProcs: 8\n; UnixStartTime: 0\n\
         1 0 -1 100 4 -1 -1 4 200 -1 1 1 -1 -1 -1 -1 -1 -1\n\
         2 6000000 -1 100 4 -1 -1 4 200 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    );
    // Named on its own, the month without jobs is an error naming it.
    let err = one_line_error(&goalc(&["simulate", trace.arg(), "--months", "2"]));
    assert!(
        err.contains(
            "workload `gap:1970-02` has no jobs to simulate (dropped 2: 2 outside the time window)"
        ),
        "{err}"
    );
    // `all` is every month in which a job is submitted: February is passed.
    let o = goalc(&[
        "simulate",
        trace.arg(),
        "--months",
        "all",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let rows: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(rows, ["gap:1970-01", "gap:1970-03"], "{csv}");
    // A month's load it cannot reach names the month too.
    let err = one_line_error(&goalc(&[
        "simulate",
        trace.arg(),
        "--months",
        "1",
        "--load",
        "0.9",
    ]));
    assert!(err.contains("workload `gap:1970-01` has one job"), "{err}");
    // The months with jobs are named as before.
    let o = goalc(&[
        "simulate",
        trace.arg(),
        "--months",
        "1,3",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\ngap:1970-01,") && stdout(&o).contains("\ngap:1970-03,"),
        "{}",
        stdout(&o)
    );
}

/// The first line of bench on the model says why it took exact run
/// times only when it took them: with `--user-estimates` it did not.
#[test]
fn bench_model_defaults_line_says_exact_run_times_only_when_taken() {
    let goal = Path::new(env!("CARGO_MANIFEST_DIR")).join("goals/easy.goal");
    let goal = goal.to_str().unwrap();
    let out = Scratch::folder("goalc-cli-defaults-");
    let first_line = |extra: &[&str]| {
        // On the model, whatever the environment holds.
        let o = Command::new(env!("CARGO_BIN_EXE_goalc"))
            .args(["bench", goal, "--model-jobs", "200", "--out", out.arg()])
            .args(extra)
            .env_remove("GOALC_TRACES")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout)
            .split("\n    ")
            .collect::<Vec<_>>()
            .join(" ")
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let exact = first_line(&[]);
    assert!(
        exact.contains("--exact-estimates (exact run times"),
        "{exact}"
    );
    let user = first_line(&["--user-estimates"]);
    assert!(
        user.contains("bench's defaults --load 0.85 --model-users 64;"),
        "{user}"
    );
    assert!(!user.contains("exact run times"), "{user}");
}

/// An output that is an input is refused before anything is written,
/// however it is spelled: `./x`, or a link to it.
#[test]
fn an_output_that_is_an_input_is_refused_and_left_as_it_was() {
    let dir = Scratch::folder("goalc-cli-clobber-");
    let trace = dir.join("in.swf");
    std::fs::write(&trace, GOOD).unwrap();
    let link = dir.join("link.swf");
    std::os::unix::fs::symlink(&trace, &link).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_goalc"))
            .args(args)
            .current_dir(&*dir)
            .output()
            .unwrap()
    };
    for (input, output) in [("in.swf", "./in.swf"), ("link.swf", "in.swf")] {
        let o = run(&["simulate", input, "--schedule-out", output]);
        let err = one_line_error(&o);
        assert!(
            err.contains(&format!(
                "the trace `{input}` and --schedule-out `{output}` are the same file"
            )),
            "{err}"
        );
    }
    // A store merged into itself.
    let store = dir.join("shard.jsonl");
    std::fs::write(&store, "").unwrap();
    let err = one_line_error(&run(&["merge", "--out", "./shard.jsonl", "shard.jsonl"]));
    assert!(
        err.contains("the store `shard.jsonl` and --out `./shard.jsonl` are the same file"),
        "{err}"
    );
    // A trace where bench writes its report, found before the runs.
    let results = dir.join("results");
    std::fs::create_dir(&results).unwrap();
    std::fs::write(results.join("report.md"), GOOD).unwrap();
    let goal = repo("goals/easy.goal");
    let o = run(&["bench", &goal, "--trace", "results/report.md"]);
    let o2 = run(&[
        "bench",
        &goal,
        "--trace",
        "results/report.md",
        "--out",
        "results",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = one_line_error(&o2);
    assert!(
        err.contains(
            "the trace `results/report.md` and the report `results/report.md` are the same file"
        ),
        "{err}"
    );
    // A suite's store named as the suite file.
    let suite_text =
        format!("goals = [\"{goal}\"]\n[[trace]]\nmodel = {{ jobs = 50, procs = 16 }}\n");
    std::fs::write(dir.join("s.toml"), &suite_text).unwrap();
    let err = one_line_error(&run(&["bench", "--suite", "s.toml", "--store", "./s.toml"]));
    assert!(
        err.contains("the suite file `s.toml` and the store `./s.toml` are the same file"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("s.toml")).unwrap(),
        suite_text
    );
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), GOOD);
    assert_eq!(std::fs::read_to_string(&store).unwrap(), "");
    assert_eq!(
        std::fs::read_to_string(results.join("report.md")).unwrap(),
        GOOD
    );
}

/// An option that only shapes another is refused alone, as `--warmup`
/// without a window is; one that only matters on the built-in model or
/// for search goals is said to be ignored.
#[test]
fn options_that_would_change_nothing_are_refused_or_said() {
    let trace = scratch("alone.swf", GOOD);
    for (args, said) in [
        (
            &["--load-by", "runtimes"][..],
            "--load-by says how --load scales the load, and no --load is given",
        ),
        (
            &["--factor-by", "expansion"],
            "--factor-by says how --load-factor adds load, and no --load-factor is given",
        ),
    ] {
        let err = one_line_error(&goalc(&[&["simulate", trace.arg()][..], args].concat()));
        assert!(err.contains(said), "{args:?}: {err}");
    }
    // With what they shape, they run.
    for args in [
        &["--load", "0.9", "--load-by", "runtimes"][..],
        &["--load-factor", "1.2", "--factor-by", "expansion"],
    ] {
        let o = goalc(&[&["simulate", trace.arg()][..], args].concat());
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
    let easy = repo("goals/easy.goal");
    let o = goalc(&[
        "bench",
        &easy,
        "--trace",
        trace.arg(),
        "--user-estimates",
        "--budget",
        "100",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "goalc: warning: --user-estimates only set up the built-in model, and this run is on \
         traces: ignored\n\
         goalc: warning: --budget sets the node budget of search goals, and no goal here \
         searches: ignored\n"
    );
    let err = one_line_error(&goalc(&[
        "bench",
        &easy,
        "--trace",
        trace.arg(),
        "--full",
        "--format",
        "json",
    ]));
    assert!(
        err.contains("--full widens the tables of a table run"),
        "{err}"
    );
    // A diff is Markdown whatever the store's options say.
    let err = one_line_error(&goalc(&["report", "--diff", "a", "b", "--format", "csv"]));
    assert!(err.contains("--diff prints Markdown"), "{err}");
    for option in [
        &["--no-plots"][..],
        &["--measure", "avg_wait_s"],
        &["--plots", "p"],
    ] {
        let o = goalc(&[&["report", "--diff", "a", "b"][..], option].concat());
        assert_eq!(o.status.code(), Some(2), "{option:?}");
        assert!(
            stderr(&o).contains("cannot be used with"),
            "{option:?}: {}",
            stderr(&o)
        );
    }
}

/// Training on the model without users trains every job as group 1: said,
/// in bench's words; with users, not.
#[test]
fn train_says_when_every_job_is_in_one_group() {
    let template = repo("goals/train/greedy-f2.goal");
    let out = scratch_dir("one-group.goal");
    let train = |users: &[&str]| {
        let mut args = vec!["train", &template, "-o", out.arg()];
        args.extend(SMALL_MODEL.into_iter().chain(ONE_CHILD));
        args.extend(users);
        let o = goalc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stderr(&o)
    };
    let note = "goalc: note: workload `lublin-50-16-s1`: every job of this workload has the same \
                user";
    let without = train(&[]);
    assert!(without.contains(note), "{without}");
    assert!(
        without.contains("so every job is in user group 1"),
        "{without}"
    );
    let with = train(&["--model-users", "8"]);
    assert!(!with.contains("goalc: note:"), "{with}");
}

/// A `.goal` entry of a folder that cannot be read is an error naming it,
/// for check and bench alike, not left out in silence.
#[test]
fn a_broken_goal_file_in_a_folder_is_named() {
    let dir = Scratch::folder("goalc-cli-broken-goals-");
    let broken = [
        (
            "dang.goal",
            "/nonexistent/x.goal",
            "a symbolic link to a missing file",
        ),
        ("self.goal", "self.goal", "symbolic links"),
    ];
    for (name, target, said) in broken {
        let folder = dir.join(name.trim_end_matches(".goal"));
        std::fs::create_dir(&folder).unwrap();
        std::fs::copy(repo("goals/easy.goal"), folder.join("easy.goal")).unwrap();
        std::os::unix::fs::symlink(target, folder.join(name)).unwrap();
        let f = folder.to_str().unwrap();
        for args in [vec!["check", f], vec!["bench", f, "--model-jobs", "50"]] {
            let err = one_line_error(&goalc(&args));
            let named = format!("{}: ", folder.join(name).display());
            assert!(
                err.contains(&named) && err.contains(said),
                "{args:?}: {err}"
            );
        }
    }
}
